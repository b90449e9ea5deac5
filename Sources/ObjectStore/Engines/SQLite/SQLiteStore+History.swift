import Foundation
import Predicates

/// The reads of the persistent history, each noted first when explained.
struct HistoryReader {
    let db: Database
    var note: ((String, [Value]) -> Void)?

    init(db: Database, note: ((String, [Value]) -> Void)? = nil) {
        self.db = db
        self.note = note
    }

    func rows(_ sql: String, _ values: [Value] = []) throws -> [[Value]] {
        note?(sql, values)
        return try db.rows(sql, values)
    }

    func tableExists(_ name: String) throws -> Bool {
        try !rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.string(name)]).isEmpty
    }

    func tableExists(_ name: SQLIdentifier) throws -> Bool { try tableExists(name.unquoted) }

    func columns(of table: String) throws -> [String] {
        try rows("SELECT name FROM pragma_table_info(?)", [.string(table)]).compactMap {
            if case .string(let name)? = $0.first { return name }
            return nil
        }
    }
}

extension SQLiteStore {
    /// Reads `ATRANSACTION`, `ACHANGE` and `ATRANSACTIONSTRING`, in either
    /// of the shapes Core Data has written: strings in the transaction's
    /// own columns (macOS 10.13), or numbers into `ATRANSACTIONSTRING`
    /// (`ZAUTHORTS`, …, since).
    func history(_ db: HistoryReader, after date: Date?) throws -> [HistoryTransaction] {
        guard try db.tableExists("ATRANSACTION"), try db.tableExists("ACHANGE") else { return [] }
        let transactionColumns = Set(try db.columns(of: "ATRANSACTION"))
        let hasStrings = try db.tableExists("ATRANSACTIONSTRING")
        // Each text from its own column, or from the string table.
        func text(_ name: String) -> String {
            let own = transactionColumns.contains("Z\(name)") ? "t.Z\(name)" : "NULL"
            guard hasStrings, transactionColumns.contains("Z\(name)TS") else { return own }
            return "COALESCE((SELECT s.ZNAME FROM ATRANSACTIONSTRING s WHERE s.Z_PK = t.Z\(name)TS), \(own))"
        }
        var sql = "SELECT t.Z_PK, t.ZTIMESTAMP, \(text("AUTHOR")), \(text("BUNDLEID")), \(text("CONTEXTNAME")), \(text("PROCESSID")) FROM ATRANSACTION t"
        var bindings: [Value] = []
        if let date {
            sql += " WHERE t.ZTIMESTAMP > ?"
            bindings.append(.double(date.timeIntervalSinceReferenceDate))
        }
        sql += " ORDER BY t.Z_PK"
        var changes: [Int64: [HistoryChange]] = [:]
        let entityNames = try historyEntityNames(db)
        var slots: [ObjectIdentifier: [String]] = [:]
        for row in try db.rows("SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK") {
            guard case .int(let number) = row[0], case .int(let transaction) = row[4] else { continue }
            let kind: HistoryChange.Kind
            switch row[1] {
            case .int(0): kind = .insert
            case .int(2): kind = .delete
            default: kind = .update
            }
            let entityNumber: Int64? = if case .int(let n) = row[2] { n } else { nil }
            let name = entityNumber.flatMap { entityNames[$0] } ?? entityNumber.map { "#\($0)" } ?? "?"
            var updated: [String] = []
            if kind == .update, case .data(let mask) = row[5], let entity = model.entity(named: name) {
                let entitySlots = slots[ObjectIdentifier(entity)] ?? historySlots(of: entity)
                slots[ObjectIdentifier(entity)] = entitySlots
                updated = Self.historyProperties(slots: entitySlots, mask: mask)
            }
            let key: Int64 = if case .int(let k) = row[3] { k } else { 0 }
            changes[transaction, default: []].append(HistoryChange(
                number: number, kind: kind, entityName: name, primaryKey: key, updatedProperties: updated))
        }
        return try db.rows(sql, bindings).compactMap { row in
            guard case .int(let number) = row[0] else { return nil }
            let seconds: Double
            switch row[1] {
            case .double(let d): seconds = d
            case .int(let i): seconds = Double(i)
            default: seconds = 0
            }
            func string(_ value: Value) -> String? { if case .string(let s) = value { return s } else { return nil } }
            return HistoryTransaction(
                number: number, timestamp: Date(timeIntervalSinceReferenceDate: seconds),
                author: string(row[2]), bundleID: string(row[3]), contextName: string(row[4]), processID: string(row[5]),
                changes: changes[number] ?? [])
        }
    }

    /// Entity number → name, for every entity the store numbers (the
    /// model's and any others it once had).
    private func historyEntityNames(_ db: HistoryReader) throws -> [Int64: String] {
        var names = mapping.entityNamesByCode
        if try db.tableExists(CoreDataTables.primaryKey) {
            for row in try db.rows("SELECT Z_ENT, Z_NAME FROM \(CoreDataTables.primaryKey)") {
                if case .int(let n) = row[0], case .string(let name) = row[1], names[n] == nil { names[n] = name }
            }
        }
        return names
    }

    /// The properties an update's column mask names. The mask is a bit
    /// vector, first bit in the high bit of the first byte, over the
    /// entity's properties in Core Data's order: its to-one keys, then the
    /// entity-number columns beside those keys, then their order columns,
    /// then its attributes, then its one-to-many and then its many-to-many
    /// relationships, each group by name. (Checked on every update of the
    /// real stores with history: Screen Time's usage counters, Notes' note
    /// data and cloud states.)
    func historyProperties(of entity: EntityDescription, mask: Data) -> [String] {
        Self.historyProperties(slots: historySlots(of: entity), mask: mask)
    }

    /// The names of the slots whose bits `mask` sets, each once.
    static func historyProperties(slots: [String], mask: Data) -> [String] {
        var names: [String] = []
        for (index, slot) in slots.enumerated() where index >> 3 < mask.count {
            let byte = mask[mask.startIndex + index >> 3]
            if byte & (0x80 >> UInt8(index & 7)) != 0, !names.contains(slot) { names.append(slot) }
        }
        return names
    }

    /// The property each bit of `entity`'s column masks stands for.
    func historySlots(of entity: EntityDescription) -> [String] {
        let toOne = entity.relationships.filter { $0.isToOne && !$0.isTransient }.sorted { $0.name < $1.name }
        let toMany = entity.relationships.filter { $0.isToMany && !$0.isTransient }.sorted { $0.name < $1.name }
        var slots = toOne.map(\.name)
        slots += toOne.filter { $0.destination.map { !$0.subentities.isEmpty } ?? false }.map(\.name)
        slots += toOne.filter { $0.inverse.map { $0.isToMany && $0.isOrdered } ?? false }.map(\.name)
        slots += entity.attributes.flatMap(\.storedAttributes).filter { !$0.isTransient }.map(\.name).sorted()
        slots += toMany.filter { !$0.isManyToMany }.map(\.name)
        slots += toMany.filter(\.isManyToMany).map(\.name)
        return slots
    }
}
