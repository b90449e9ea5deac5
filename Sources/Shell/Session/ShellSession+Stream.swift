import Foundation
import ObjectStore
import Predicates

/// A result being printed: each row rendered as it comes (``RowWriter``),
/// counted for the progress line, stopped by Ctrl-C, and stopped quietly
/// when the reader went away (`| head -1`, a pager's `q`).
///
/// ```swift
/// try session.streamResult(columns: ["name"], output: output) { stream in
///     try stream.add([.value(.string("Ada"))])
/// }
/// ```
final class ResultStream {
    private let writer: RowWriter
    fileprivate let meter: WorkMeter
    private let output: OutputSink

    init(columns: [String], options: RenderOptions, footer: Renderer.Footer?, output: OutputSink, action: String) {
        writer = RowWriter(columns: columns, options: options, footer: footer) { output.write($0) }
        meter = WorkMeter(action: action, output: output)
        self.output = output
    }

    /// Writes a row; throws `StoreError(.interrupted)` after Ctrl-C, and
    /// ``ReaderLeft`` when nobody reads the results any more.
    func add(_ row: [Cell]) throws {
        try meter.advance()
        guard !output.isClosed else { throw ReaderLeft() }
        writer.add(row)
    }

    fileprivate func finish() {
        writer.finish()
    }

    /// Writes the rows rendered so far (a table's first page waits for
    /// its layout).
    fileprivate func flush() {
        writer.flush()
    }

    /// Thrown from a row loop to stop the fetch: the rest would be lost.
    struct ReaderLeft: Error {}
}

extension ShellSession {
    /// Runs `produce`, which adds rows to a stream as it fetches them;
    /// the result's end is written unless the reader went away.
    func streamResult(columns: [String], footer: Renderer.Footer? = .rows, output: OutputSink,
                      _ produce: (ResultStream) throws -> Void) throws {
        let stream = ResultStream(columns: columns, options: resultOptions, footer: footer, output: output,
                                  action: outputFile == nil ? "printed" : "written")
        defer { stream.meter.finish() }
        do {
            try produce(stream)
        } catch is ResultStream.ReaderLeft {
            return
        } catch {
            // Stopped (Ctrl-C) or failed: what was printed stays printed.
            stream.flush()
            throw error
        }
        stream.finish()
    }

    // MARK: - Objects as rows

    /// What a fetch of an entity shows: every stored attribute, then each
    /// relationship, a to-one as the related object's key value, a
    /// to-many as the list of its objects' key values (in every mode, as
    /// JSON has always shown it: the same keys, so a CSV says as much as
    /// the JSON, and a list reads as what it is).
    struct ObjectColumns {
        let attributes: [AttributeDescription]
        let relationships: [RelationshipDescription]
        var names: [String] { attributes.map(\.name) + relationships.map(\.name) }

        init(_ entity: EntityDescription) {
            attributes = entity.attributes.filter { !$0.isTransient }
            relationships = entity.relationships.filter { !$0.isTransient }
        }
    }

    /// Prints the objects a query matches, each row as soon as it is
    /// read: straight from a SQLite cursor when SQL answers the query
    /// alone (no object made, memory flat), else as objects, a batch at
    /// a time.
    func streamQuery(_ query: Query, output: OutputSink) throws {
        var (request, entity) = try self.request(for: query)
        let columns = ObjectColumns(entity)
        if let plan = cursorPlan(for: request, entity: entity, columns: columns) {
            request.resultType = .dictionary
            request.propertiesToFetch = plan.properties
            try streamResult(columns: columns.names, output: output) { stream in
                var cells: [Cell] = []
                cells.reserveCapacity(plan.cells.count)
                try context.fetchRows(request) { row in
                    for cell in plan.cells { cells.append(cell.value(in: row)) }
                    try stream.add(cells)
                    // Let go of the values before the next row is read: a
                    // big one would otherwise be held while the next is.
                    cells.removeAll(keepingCapacity: true)
                }
            }
            return
        }
        request.fetchBatchSize = query.limit == 1 ? 0 : 500
        request.relationshipKeyPathsForPrefetching = columns.relationships.map(\.name)
        try streamObjects(try context.fetch(request), columns: columns, output: output)
    }

    /// Prints objects, one row each.
    func streamObjects(_ objects: some Sequence<ManagedObject>, columns: ObjectColumns, output: OutputSink) throws {
        try streamResult(columns: columns.names, output: output) { stream in
            for object in objects { try stream.add(cells(of: object, columns: columns)) }
        }
    }

    /// An object's row.
    func cells(of object: ManagedObject, columns: ObjectColumns) -> [Cell] {
        var row: [Cell] = columns.attributes.map { .value(object[$0.name]) }
        for relationship in columns.relationships {
            if relationship.isToOne {
                row.append(.value(object.object(forKey: relationship.name).map { keyValue($0, via: relationship) } ?? .null))
            } else {
                row.append(.list(object.objects(forKey: relationship.name).map { keyValue($0, via: relationship) }))
            }
        }
        return row
    }

    // MARK: - Rows straight from SQL

    /// How each shown column comes out of a dictionary fetch's row.
    struct CursorPlan {
        enum CellSource {
            /// The value at this index.
            case value(Int)
            /// A to-one's key value: the first non-null of the candidate
            /// key attributes' values at these indices, else the related
            /// object's primary key at `key`; null when `key` is null.
            case related(candidates: [Int], key: Int)

            func value(in row: [Value]) -> Cell {
                switch self {
                case .value(let index):
                    return .value(row[index])
                case .related(let candidates, let key):
                    if row[key].isNull { return .value(.null) }
                    for index in candidates where !row[index].isNull { return .value(row[index]) }
                    return .value(row[key])
                }
            }
        }

        var properties: [PropertyToFetch] = []
        var cells: [CellSource] = []
    }

    /// The dictionary fetch that gives exactly the rows the objects would,
    /// or nil when only objects can: unsaved changes (a dictionary fetch
    /// reads the saved store), a store other than one SQLite file, to-many
    /// columns, values stored outside their column (Core Data's external
    /// binary data, composite attributes), a related key that depends on
    /// the related object's sub-entity, or a sort by a relationship.
    func cursorPlan(for request: FetchRequest, entity: EntityDescription, columns: ObjectColumns) -> CursorPlan? {
        guard !context.hasChanges, coordinator.persistentStores.count == 1,
              coordinator.persistentStores.first?.storeType == .sqlite else { return nil }
        guard columns.relationships.allSatisfy(\.isToOne),
              !columns.attributes.contains(where: { $0.allowsExternalBinaryDataStorage || $0.name.contains(".") || $0.type == .composite })
        else { return nil }
        for key in request.sortDescriptors {
            guard let last = key.keyPath.last, destination(of: key.keyPath.dropLast(), from: entity)?.attribute(named: last) != nil
            else { return nil }
        }
        var plan = CursorPlan()
        for attribute in columns.attributes {
            plan.cells.append(.value(plan.properties.count))
            plan.properties.append(PropertyToFetch(keyPath: attribute.name))
        }
        for relationship in columns.relationships {
            guard let destination = relationship.destination else { return nil }
            let candidates = keyCandidates(of: destination, via: relationship)
            guard destination.selfAndDescendants.allSatisfy({ keyCandidates(of: $0, via: relationship) == candidates }) else {
                return nil
            }
            var indices: [Int] = []
            for name in candidates {
                indices.append(plan.properties.count)
                plan.properties.append(PropertyToFetch(keyPath: relationship.name + "." + name))
            }
            plan.cells.append(.related(candidates: indices, key: plan.properties.count))
            plan.properties.append(PropertyToFetch(keyPath: relationship.name))
        }
        return plan
    }

    /// The entity at the end of a path of to-one relationships.
    private func destination(of path: ArraySlice<String>, from entity: EntityDescription) -> EntityDescription? {
        var current = entity
        for key in path {
            guard let relationship = current.relationship(named: key), relationship.isToOne,
                  let next = relationship.destination else { return nil }
            current = next
        }
        return current
    }
}
