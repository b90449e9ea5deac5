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
            (attributes, relationships) = RowPlan.shownProperties(of: entity)
        }

        init(_ plan: RowPlan) {
            (attributes, relationships) = (plan.attributes, plan.relationships)
        }
    }

    /// Prints the objects a query matches, each row as soon as it is
    /// read, as ObjectStore plans it (see ``RowPlan``): straight from a
    /// SQL cursor when SQL answers the query alone (no object made,
    /// memory flat), else as objects, a batch at a time.
    func streamQuery(_ query: Query, output: OutputSink) throws {
        try streamRows(try rowPlan(for: query), output: output)
    }

    /// How the objects of `query` are read to be shown (what runs, and
    /// what `explain` shows).
    func rowPlan(for query: Query) throws -> RowPlan {
        try rowPlan(for: try self.request(for: query).0)
    }

    /// ObjectStore's plan for showing the objects `request` fetches.
    func rowPlan(for request: FetchRequest) throws -> RowPlan {
        try context.rowPlan(for: request) { keyCandidates(of: $0, via: $1) }
    }

    /// Prints the rows `plan` reads.
    func streamRows(_ plan: RowPlan, output: OutputSink) throws {
        let columns = ObjectColumns(plan)
        guard plan.method == .cursor else {
            return try streamObjects(try context.fetch(plan.request), columns: columns, output: output)
        }
        try streamResult(columns: columns.names, output: output) { stream in
            var values: [Value] = []
            var cells: [Cell] = []
            cells.reserveCapacity(columns.names.count)
            try context.fetchRows(plan.request) { row in
                plan.values(of: row, into: &values)
                for value in values { cells.append(.value(value)) }
                try stream.add(cells)
                // Let go of the values before the next row is read: a
                // big one would otherwise be held while the next is.
                cells.removeAll(keepingCapacity: true)
                values.removeAll(keepingCapacity: true)
            }
        }
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
}
