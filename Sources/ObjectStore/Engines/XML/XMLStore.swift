import Foundation
import Predicates
import struct Predicates.Predicate

/// A persistent store holding the whole graph in one readable XML file
/// (Core Data's `NSXMLStoreType`, an atomic store).
///
/// ```swift
/// try coordinator.addPersistentStore(type: .xml, at: URL(fileURLWithPath: "people.xml"))
/// ```
///
/// The file is in one of two formats (`Grammar/xml-store.md`): mrq's XML
/// store format (`<mrq-store>`, which keeps the model), or Apple's XML
/// store format (`<database>`), the file macOS Core Data writes. An
/// existing file is read in the format its root element names, and saves
/// keep that format; a new file is in mrq's format unless
/// `PersistentStoreOptions.layout` is `.coreData`.
///
/// The file is read whole when the store opens, and every save writes it
/// whole: to a temporary file in the same directory, synced, then renamed
/// over the old one, so a crash leaves either the old file or the new one.
/// Fetches run in memory with the reference evaluator and `ValueOrdering`,
/// so they answer as the SQLite store does.
package final class XMLStore: StoreBackend, @unchecked Sendable {
    package let identifier: String
    package let model: ManagedObjectModel
    package let fileURL: URL
    package let configurationName: String?
    package var layout: SchemaMapping.Layout? { format == .apple ? .coreData : .mrq }
    package var storeType: PersistentStoreType { .xml }
    package var url: URL? { fileURL }
    let readOnly: Bool
    /// The file's format.
    let format: Format
    private let lock = NSRecursiveLock()
    private var graph: Graph
    /// `<metadata>` of a file in Apple's format, kept across saves.
    private var appleMetadata: [String: Any]?

    /// The two XML store formats.
    enum Format {
        /// mrq's XML store format: `<mrq-store>`, with the model.
        case mrq
        /// Apple's XML store format: `<database>`, as Core Data writes it.
        case apple
    }

    /// Every object of the store, by ID.
    struct Graph {
        var rows: [ObjectID: Row] = [:]
        /// The next primary key, by root entity name.
        var nextPK: [String: Int64] = [:]
        /// The next key of every entity at once, when keys are unique in
        /// the whole file (Apple's format numbers objects `z102`, `z103`…
        /// across entities); nil for keys by hierarchy.
        var sharedNextPK: Int64?
    }

    struct Row {
        var snapshot: Snapshot
        /// The contents of to-many relationships kept as lists (many-to-many
        /// and ordered ones), by relationship index.
        var toMany: [Int: [ObjectID]] = [:]
    }

    init(url: URL, model: ManagedObjectModel, configuration: String?, options: PersistentStoreOptions) throws {
        self.fileURL = url
        self.model = model
        self.configurationName = configuration
        self.readOnly = options.readOnly
        guard FileManager.default.fileExists(atPath: url.path) else {
            if options.readOnly { throw StoreError(.readOnly, "the store is empty and opened read-only") }
            format = options.layout == .coreData ? .apple : .mrq
            (identifier, graph, appleMetadata) = Self.empty(format, model: model)
            try write(graph)
            return
        }
        let data = try XMLStoreDocument.text(of: url)
        let format = try XMLStoreDocument.format(of: data, path: url.path)
        self.format = format
        do {
            (identifier, graph, appleMetadata) = try Self.read(data, format: format, path: url.path, model: model)
        } catch let error as StoreError where error.kind == .modelMismatch && options.deleteOnModelMismatch && !options.readOnly {
            try FileManager.default.removeItem(at: url)
            (identifier, graph, appleMetadata) = Self.empty(format, model: model)
            try write(graph)
        }
    }

    /// A file's identifier, graph and (in Apple's format) metadata.
    private static func read(_ data: Data, format: Format, path: String,
                             model: ManagedObjectModel) throws -> (String, Graph, [String: Any]?) {
        switch format {
        case .mrq:
            let document = try XMLStoreDocument.read(data, path: path, model: model)
            if try document.fingerprint != SchemaBuilder.fingerprint(of: model) {
                throw StoreError(.modelMismatch, "'\(path)' was made with another model")
            }
            return (document.identifier, document.graph, nil)
        case .apple:
            let (header, graph) = try AppleXMLStoreDocument.read(data, path: path, model: model)
            return (header.identifier, graph, header.metadata)
        }
    }

    /// A new store's identifier, empty graph and metadata.
    private static func empty(_ format: Format, model: ManagedObjectModel) -> (String, Graph, [String: Any]?) {
        var graph = Graph()
        guard format == .apple else { return (UUID().uuidString, graph, nil) }
        graph.sharedNextPK = AppleXMLStoreDocument.firstObjectNumber
        return (UUID().uuidString, graph, AppleXMLStoreDocument.metadata(for: model))
    }

    /// The model an XML store file was made with; nil when there is no such
    /// file. A file in Apple's XML store format keeps no model: that is an
    /// error saying to give the model.
    static func storedModel(at url: URL) throws -> ManagedObjectModel? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try XMLStoreDocument.text(of: url)
        if try XMLStoreDocument.format(of: data, path: url.path) == .apple {
            throw StoreError(.modelMismatch, """
                '\(url.path)' is in Apple's XML store format, which keeps no model: open it with the model \
                it was made with (the app's .xcdatamodeld, .momd or .mom; in the shell, --model)
                """)
        }
        return try XMLStoreDocument.readModel(data)
    }

    /// The store's `<metadata>` when the file is in Apple's format: the
    /// property list Core Data keeps there (version hashes and the like).
    var metadata: [String: Any]? { withLock { appleMetadata } }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: - Reading

    package func fetchSnapshots(_ request: FetchRequest, entity: EntityDescription, predicate: Predicate?,
                                windowed: Bool) throws -> StoreFetch {
        let graph = withLock { self.graph }
        let kinds = Set((request.includesSubentities ? entity.selfAndDescendants : [entity]).map(ObjectIdentifier.init))
        let view = GraphView(graph: graph)
        var rows = graph.rows.values.filter { kinds.contains(ObjectIdentifier($0.snapshot.id.entity)) }
        if let predicate {
            let evaluator = Evaluator()
            rows = try rows.filter { try evaluator.evaluate(predicate, on: RowObject(view: view, row: $0)) }
        }
        let keys = request.sortDescriptors
        let sorted = rows.map { row in (row, keys.map { view.sortValue(row, $0.keyPath) }) }.sorted { a, b in
            for (i, key) in keys.enumerated() {
                let c = ValueOrdering.compare(a.1[i], b.1[i])
                if c != 0 { return key.ascending ? c < 0 : c > 0 }
            }
            return a.0.snapshot.id.primaryKey < b.0.snapshot.id.primaryKey
        }
        var snapshots = sorted.map(\.0.snapshot)
        if windowed {
            let start = min(max(request.fetchOffset, 0), snapshots.count)
            let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, snapshots.count) : snapshots.count
            snapshots = Array(snapshots[start..<end])
        }
        return StoreFetch(snapshots: snapshots, residual: nil, isSorted: true)
    }

    package func snapshots(for ids: [ObjectID]) throws -> [Snapshot] {
        withLock { ids.compactMap { graph.rows[$0]?.snapshot } }
    }

    package func snapshots(of entity: EntityDescription, where attribute: String, in values: [Value]) throws -> [Snapshot] {
        withLock { graph.snapshots(of: entity, where: attribute, in: values) }
    }

    package func destinations(of relationship: RelationshipDescription, from source: ObjectID) throws -> [ObjectID] {
        withLock { GraphView(graph: graph).destinations(of: relationship, from: source) }
    }

    package func allSnapshots() throws -> [Snapshot] {
        withLock { graph.rows.values.map(\.snapshot).sorted { $0.id.primaryKey < $1.id.primaryKey } }
    }

    // MARK: - Writing

    package func save(_ changes: StoreChanges) throws -> PermanentIDs {
        let prepared = try prepareSave(changes)
        do {
            try prepared.commit()
        } catch {
            prepared.rollback()
            throw error
        }
        return prepared.permanentIDs
    }

    package func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave {
        if readOnly { throw StoreError(.readOnly, "cannot save: the store '\(fileURL.path)' is open read-only") }
        lock.lock()
        do {
            var next = graph
            let permanent = try next.apply(changes, store: identifier)
            try changes.progress?(changes.objectCount)
            let temporary = try writeTemporary(next)
            return PreparedXMLSave(store: self, graph: next, temporary: temporary, permanentIDs: permanent)
        } catch {
            lock.unlock()
            throw error
        }
    }

    fileprivate func finish(_ prepared: PreparedXMLSave, commit: Bool) throws {
        defer { lock.unlock() }
        guard commit else {
            unlink(prepared.temporary.path)
            return
        }
        try Self.replace(fileURL, with: prepared.temporary)
        graph = prepared.graph
    }

    private func write(_ graph: Graph) throws {
        try Self.replace(fileURL, with: try writeTemporary(graph))
    }

    /// Writes the document to a synced temporary file beside the store.
    private func writeTemporary(_ graph: Graph) throws -> URL {
        let data: Data
        switch format {
        case .mrq:
            data = try XMLStoreDocument.encode(graph, identifier: identifier, model: model)
        case .apple:
            let header = AppleXMLStoreDocument.Header(identifier: identifier, metadata: appleMetadata)
            data = try AppleXMLStoreDocument.encode(graph, header: header, model: model)
        }
        let directory = fileURL.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw Self.posixError("cannot create '\(temporary.path)'") }
        defer { close(fd) }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n <= 0 { return false }
                written += n
            }
            return true
        }
        guard ok, fsync(fd) == 0 else {
            let error = Self.posixError("cannot write '\(temporary.path)'")
            unlink(temporary.path)
            throw error
        }
        return temporary
    }

    /// Renames `temporary` over `url`, then syncs the directory so the
    /// rename itself survives a crash.
    private static func replace(_ url: URL, with temporary: URL) throws {
        guard rename(temporary.path, url.path) == 0 else {
            let error = posixError("cannot replace '\(url.path)'")
            unlink(temporary.path)
            throw error
        }
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    private static func posixError(_ message: String) -> StoreError {
        StoreError(.cannotOpen, "\(message): \(String(cString: strerror(errno)))")
    }
}

/// An XML save written to its temporary file, not yet renamed into place.
private struct PreparedXMLSave: PreparedSave {
    let store: XMLStore
    let graph: XMLStore.Graph
    let temporary: URL
    let permanentIDs: PermanentIDs

    func commit() throws { try store.finish(self, commit: true) }
    func rollback() { try? store.finish(self, commit: false) }
}

extension XMLStore.Graph {
    /// Applies one save as the SQLite store's writer does: version checks,
    /// deletes, inserts (keys handed out first), updates, to-many contents.
    /// Rows of `entity` (sub-entities included) whose `attribute` is one
    /// of `values`.
    func snapshots(of entity: EntityDescription, where attribute: String, in values: [Value]) -> [Snapshot] {
        let kinds = Set(entity.selfAndDescendants.map(ObjectIdentifier.init))
        let wanted = Set(values)
        return rows.values.compactMap { row -> Snapshot? in
            let snapshot = row.snapshot
            guard kinds.contains(ObjectIdentifier(snapshot.id.entity)),
                  let index = snapshot.id.entity.attributeSlot(named: attribute) else { return nil }
            return wanted.contains(snapshot.values[index]) ? snapshot : nil
        }
    }

    mutating func apply(_ changes: StoreChanges, store: String) throws -> PermanentIDs {
        var conflicts: [StoreConflict] = []
        for update in changes.updated where rows[update.snapshot.id]?.snapshot.version != update.expectedVersion {
            conflicts.append(StoreConflict(id: update.snapshot.id, expectedVersion: update.expectedVersion,
                                           current: rows[update.snapshot.id]?.snapshot))
        }
        for delete in changes.deleted where rows[delete.id]?.snapshot.version != delete.expectedVersion {
            conflicts.append(StoreConflict(id: delete.id, expectedVersion: delete.expectedVersion, current: rows[delete.id]?.snapshot))
        }
        if !conflicts.isEmpty {
            throw StoreConflictError(conflicts: conflicts.sorted { $0.id.primaryKey < $1.id.primaryKey })
        }
        let graph = self
        let uniqueness = UniquenessCheck(rows: { graph.snapshots(of: $0, where: $1, in: $2) }, allRows: { entity in
            graph.rows.values.map(\.snapshot).filter { $0.id.entity.isKind(of: entity) }
        })
        let constraintConflicts = try uniqueness.conflicts(in: changes)
        if !constraintConflicts.isEmpty { throw StoreConstraintConflictError(conflicts: constraintConflicts) }
        // Keys counted before the deletes: a deleted row's key is never
        // given again.
        let roots = changes.inserted.lazy.map(\.id.entity.rootEntity.name) + changes.deleted.lazy.map(\.id.entity.rootEntity.name)
        for root in roots where sharedNextPK == nil && nextPK[root] == nil {
            nextPK[root] = (rows.keys.filter { $0.entity.rootEntity.name == root }.map(\.primaryKey).max() ?? 0) + 1
        }
        for delete in changes.deleted { remove(delete.id) }
        var keys: [Int64] = []
        for snapshot in changes.inserted {
            if let next = sharedNextPK {
                keys.append(next)
                sharedNextPK = next + 1
                continue
            }
            let root = snapshot.id.entity.rootEntity.name
            keys.append(nextPK[root]!)
            nextPK[root]! += 1
        }
        let permanent = PermanentIDs(temporaries: changes.inserted.map(\.id), keys: keys, store: StoreNumber(store))
        func resolve(_ id: ObjectID) -> ObjectID { permanent[id] ?? id }
        for snapshot in changes.inserted {
            var row = snapshot
            row.id = resolve(snapshot.id)
            for (i, target) in snapshot.toOne.enumerated() where target != nil {
                row.setToOneID(try permanent.destination(target!, of: snapshot.id, key: snapshot.id.entity.relationships[i].name), at: i)
            }
            for (i, attribute) in row.id.entity.attributes.enumerated() where attribute.isTransient { row.values[i] = .null }
            rows[row.id] = XMLStore.Row(snapshot: row)
        }
        for update in changes.updated {
            guard var row = rows[update.snapshot.id] else { continue }
            for i in update.changedAttributes where !row.snapshot.id.entity.attributes[i].isTransient {
                row.snapshot.values[i] = update.snapshot.values[i]
            }
            for i in update.changedToOne {
                let target = try update.snapshot.toOneID(at: i).map {
                    try permanent.destination($0, of: update.snapshot.id, key: update.snapshot.id.entity.relationships[i].name)
                }
                row.snapshot.setToOneID(target, at: i)
            }
            row.snapshot.version = update.snapshot.version
            rows[row.snapshot.id] = row
        }
        for contents in changes.toMany {
            setToMany(resolve(contents.source), contents.relationship, try contents.destinations.map {
                try permanent.destination($0, of: contents.source, key: contents.relationship.name)
            })
        }
        return permanent
    }

    /// Sets a listed to-many and, for a many-to-many, its inverse lists,
    /// as one join table would.
    mutating func setToMany(_ source: ObjectID, _ relationship: RelationshipDescription, _ destinations: [ObjectID]) {
        guard let index = source.entity.relationshipSlot(named: relationship.name), rows[source] != nil else { return }
        let old = rows[source]!.toMany[index] ?? []
        rows[source]!.toMany[index] = destinations
        guard relationship.isManyToMany, let inverse = relationship.inverse else { return }
        let kept = Set(destinations)
        for gone in old where !kept.contains(gone) {
            guard let i = gone.entity.relationshipSlot(named: inverse.name) else { continue }
            rows[gone]?.toMany[i]?.removeAll { $0 == source }
        }
        for destination in destinations {
            guard let i = destination.entity.relationshipSlot(named: inverse.name), rows[destination] != nil else { continue }
            if !(rows[destination]!.toMany[i] ?? []).contains(source) {
                rows[destination]!.toMany[i, default: []].append(source)
            }
        }
    }

    /// Deletes a row and its entries in every list, as join rows go with it.
    mutating func remove(_ id: ObjectID) {
        guard rows.removeValue(forKey: id) != nil else { return }
        for key in Array(rows.keys) where !(rows[key]!.toMany.isEmpty) {
            for (i, list) in rows[key]!.toMany where list.contains(id) {
                rows[key]!.toMany[i] = list.filter { $0 != id }
            }
        }
    }
}

/// Read access to a graph for the evaluator and for relationships.
final class GraphView {
    let graph: XMLStore.Graph
    init(graph: XMLStore.Graph) { self.graph = graph }

    func destinations(of relationship: RelationshipDescription, from source: ObjectID) -> [ObjectID] {
        guard let index = source.entity.relationshipSlot(named: relationship.name), let row = graph.rows[source] else { return [] }
        if relationship.isManyToMany {
            return row.toMany[index] ?? []
        }
        // One-to-many: the destinations are whoever points back.
        guard let inverse = relationship.inverse, let destination = relationship.destination else { return [] }
        let root = ObjectIdentifier(destination.rootEntity)
        var members = graph.rows.values.compactMap { candidate -> ObjectID? in
            let id = candidate.snapshot.id
            guard ObjectIdentifier(id.entity.rootEntity) == root, let i = id.entity.relationshipSlot(named: inverse.name),
                  candidate.snapshot.toOneID(at: i) == source else { return nil }
            return id
        }
        members.sort { $0.primaryKey < $1.primaryKey }
        if relationship.isOrdered, let order = row.toMany[index] {
            var position: [ObjectID: Int] = [:]
            for (i, id) in order.enumerated() { position[id] = i }
            members.sort { (position[$0] ?? Int.max, $0.primaryKey) < (position[$1] ?? Int.max, $1.primaryKey) }
        }
        return members
    }

    /// The value at a key path through to-one relationships; null past a
    /// nil relationship or a to-many (as the context sorts).
    func sortValue(_ row: XMLStore.Row, _ keyPath: [String]) -> Value {
        var snapshot = row.snapshot
        for (i, key) in keyPath.enumerated() {
            let entity = snapshot.id.entity
            if i < keyPath.count - 1, entity.compositeAttribute(named: key) != nil,
               let index = entity.attributeSlot(named: keyPath[i...].joined(separator: ".")) {
                // An element of a composite: one slot named by the rest of the path.
                return snapshot.values[index]
            }
            if i == keyPath.count - 1 {
                guard let index = entity.attributeSlot(named: key) else { return .null }
                return snapshot.values[index]
            }
            guard let index = entity.relationshipSlot(named: key), entity.relationships[index].isToOne,
                  let next = snapshot.toOneID(at: index), let nextRow = graph.rows[next] else { return .null }
            snapshot = nextRow.snapshot
        }
        return .null
    }
}

/// One stored object as the evaluator sees it.
final class RowObject: PredicateObject {
    let view: GraphView
    let row: XMLStore.Row
    init(view: GraphView, row: XMLStore.Row) {
        self.view = view
        self.row = row
    }

    func predicateValue(forKey key: String) throws -> Operand {
        let entity = row.snapshot.id.entity
        if let index = entity.attributeSlot(named: key) { return .value(row.snapshot.values[index]) }
        if let index = entity.relationshipSlot(named: key) {
            let relationship = entity.relationships[index]
            if relationship.isToMany {
                return .collection(view.destinations(of: relationship, from: row.snapshot.id).compactMap { id in
                    view.graph.rows[id].map { .object(RowObject(view: view, row: $0)) }
                })
            }
            guard let id = row.snapshot.toOneID(at: index), let target = view.graph.rows[id] else { return .value(.null) }
            return .object(RowObject(view: view, row: target))
        }
        if let composite = entity.compositeOperand(named: key, value: { row.snapshot.values[$0] }) { return composite }
        var message = "unknown key '\(key)' on \(entity.name)"
        if let suggestion = Suggestions.closest(to: key, in: entity.propertyNames) {
            message += "; did you mean '\(suggestion)'?"
        }
        throw EvaluationError(message: message)
    }
}

extension XMLStore {
    /// Reads an XML store document from bytes as opening its file would
    /// (either format), then writes the graph back and reads that again:
    /// what the store writes, it must read. Returns the number of objects;
    /// throws what opening would. For the fuzz target, which has no file.
    package static func checkDocument(_ bytes: Data, model: ManagedObjectModel) throws -> Int {
        let path = "fuzz.xml"
        let data: Data
        do {
            data = try XMLInput.normalized(bytes, allowingCoreDataDoctype: true)
        } catch {
            throw StoreError(.corrupt, "'\(path)' is not a readable XML store: \(error)")
        }
        let format = try XMLStoreDocument.format(of: data, path: path)
        let (identifier, graph, metadata) = try read(data, format: format, path: path, model: model)
        let written = switch format {
        case .mrq: try XMLStoreDocument.encode(graph, identifier: identifier, model: model)
        case .apple: try AppleXMLStoreDocument.encode(graph, header: .init(identifier: identifier, metadata: metadata), model: model)
        }
        let again = try XMLInput.normalized(written, allowingCoreDataDoctype: true)
        let reread = try read(again, format: format, path: path, model: model).1
        guard reread.rows.count == graph.rows.count else {
            throw StoreError(.misuse, "wrote \(graph.rows.count) objects and read back \(reread.rows.count)")
        }
        return graph.rows.count
    }
}
