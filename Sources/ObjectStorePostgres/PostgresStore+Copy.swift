import Foundation
import ObjectStore

extension PostgresStore {
    /// Runs `body`, the reads of a whole-store copy, in one read-only
    /// transaction that sees one snapshot of the database (`REPEATABLE
    /// READ`): what other processes commit meanwhile is either wholly in
    /// the copy or not at all, so no relationship points at a row the
    /// copy missed.
    package func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T {
        try withLock {
            try connection.transaction {
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return try body()
            }
        }
    }

    /// Writes `changes`, the objects of another store, in one transaction
    /// while this store holds no objects; returns their permanent IDs.
    ///
    /// The check and the writes are under an advisory lock of the store's
    /// schema, so two processes copying into one empty store at once copy
    /// once: the second finds the first's objects and is refused, having
    /// written nothing; a copy into another schema of the database goes
    /// on meanwhile.
    package func saveIntoEmptyStore(_ changes: StoreChanges) throws -> PermanentIDs {
        try withLock {
            try connection.transaction {
                try connection.execute(Self.lockCopy)
                let occupied = try mapping.allTables.filter {
                    try connection.scalar("SELECT EXISTS (SELECT 1 FROM \($0.name))") == .bool(true)
                }
                if !occupied.isEmpty {
                    throw StoreError(.misuse, """
                        the PostgreSQL store at \(url?.absoluteString ?? connection.target) already holds objects \
                        (in \(occupied.map(\.name.quoted).joined(separator: ", "))): \
                        copy into an empty one (a new database, or a schema of its own with options=-csearch_path%3DNAME in the URL)
                        """)
                }
                let missing = Self.missingRequiredValues(changes)
                if !missing.isEmpty {
                    throw StoreError(.validation, """
                        cannot copy into the PostgreSQL store at \(url?.absoluteString ?? connection.target), whose columns \
                        refuse an empty required value: \(missing.joined(separator: "; ")); give those rows a value and \
                        save (or make the property optional in the model), then copy again
                        """)
                }
                return try PostgresSaveWriter(store: self, changes: changes).write()
            }
        }
    }

    /// The required attributes and to-ones (NOT NULL columns here) that
    /// rows of `changes` leave empty, with how many rows, by entity:
    /// `2 Person rows have no name (Person.name is required)`.
    static func missingRequiredValues(_ changes: StoreChanges) -> [String] {
        var counts: [[String]: Int] = [:]
        var order: [[String]] = []
        func count(_ entity: EntityDescription, _ name: String) {
            let key = [entity.name, name]
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
        }
        for row in changes.inserted {
            let entity = row.id.entity
            for (i, attribute) in entity.attributes.enumerated()
            where !attribute.isOptional && !attribute.isTransient && attribute.type != .composite && i < row.values.count
                && row.values[i].isNull {
                count(entity, attribute.name)
            }
            for (i, relationship) in entity.relationships.enumerated()
            where relationship.isToOne && !relationship.isOptional && !relationship.isTransient && row.toOneID(at: i) == nil {
                count(entity, relationship.name)
            }
        }
        return order.map { key in
            let (entity, property, n) = (key[0], key[1], counts[key] ?? 0)
            return "\(n) \(entity) row\(n == 1 ? " has" : "s have") no \(property) (\(entity).\(property) is required)"
        }
    }

    /// Takes the advisory lock held while a store is copied into: "mrqc"
    /// in ASCII and the schema's name, as the schema lock ("mrqs") is.
    private static let lockCopy = "SELECT pg_advisory_xact_lock(\(0x6D72_7163), hashtext(current_schema()))"
}
