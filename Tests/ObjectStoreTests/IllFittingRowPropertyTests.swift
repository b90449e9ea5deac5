import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// Random rows that do not fit the model, written into a Core Data store
/// behind mrq's back: any column of any table set to a value of any
/// storage class (keys and entity columns included), rows inserted with
/// such values, rows deleted from under their references. Then the store
/// is read as an examiner reads it, with the model and with the model the
/// store keeps: every entity fetched, counted and queried, every
/// attribute and relationship of every object read, faults fired. Each
/// reading either succeeds or throws `StoreError`; nothing crashes.
/// Seeded, so a failure repeats; `MRQ_SOAK=1` runs 25 times as many rounds.
@Suite struct IllFittingRowPropertyTests {
    static let rounds = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1" ? 1000 : 40

    /// Values of every storage class, and the shapes a store's columns
    /// hold: entity numbers, keys, external data references.
    static let values: [String] = [
        "NULL", "0", "-1", "1", "2", "3", "4", "5", "6", "7", "99", "9223372036854775807", "-9223372036854775808",
        "0.5", "-2.5", "1e300", "-1e300", "'abc'", "''", "'12.5'", "'2024-01-01'", "'3F2504E0-4F89-11D3-9A0C-0305E82C3301'",
        "X''", "X'00'", "X'01CAFE'", "CAST(X'02' || 'gone' || X'00' AS BLOB)", "CAST(X'02' || '../x' AS BLOB)",
        "X'0102030405060708090A0B0C0D0E0F10'", "'" + "\u{1b}[31mred\u{7}" + "'", "'" + String(repeating: "x", count: 3000) + "'",
    ]

    static let tables = ["ZNOTE", "ZACCOUNT", "ZFOLDER", "ZTAG", "Z_5TAGS"]

    /// Changes `db` at random: 1 to 6 updates, inserts and deletes.
    static func damage(_ db: Database, _ random: inout CoreDataArchiveFuzzTests.Random) throws -> [String] {
        var done: [String] = []
        for _ in 0...random.below(6) {
            let table = tables[random.below(tables.count)]
            let columns = try db.columns(of: table)
            let statement: String
            switch random.below(5) {
            case 0:
                var row: [String] = []
                for _ in columns { row.append(values[random.below(values.count)]) }
                statement = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(row.joined(separator: ", ")))"
            case 1:
                statement = "DELETE FROM \(table) WHERE rowid IN (SELECT rowid FROM \(table) ORDER BY random() LIMIT 1)"
            default:
                let column = columns[random.below(columns.count)]
                statement = "UPDATE OR IGNORE \(table) SET \(column) = \(values[random.below(values.count)]) WHERE rowid = (SELECT rowid FROM \(table) LIMIT 1 OFFSET \(random.below(4)))"
            }
            do {
                try db.execute(statement)
                done.append(statement)
            } catch is StoreError {
                // A constraint (a key taken, NOT NULL): the row stays.
            }
        }
        return done
    }

    /// Reads everything in the store with `model`; returns how many
    /// readings threw `StoreError`.
    static func read(_ url: URL, model: ManagedObjectModel, _ comment: String) -> Int {
        var refused = 0
        func attempt(_ body: () throws -> Void) {
            do {
                try body()
            } catch is StoreError {
                refused += 1
            } catch {
                Issue.record("\(comment): unexpected \(type(of: error)): \(error)")
            }
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        var options = PersistentStoreOptions()
        options.readOnly = true
        attempt { try coordinator.addPersistentStore(type: .sqlite, at: url, options: options) }
        guard !coordinator.persistentStores.isEmpty else { return refused }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for entity in model.entities {
            attempt { _ = try context.count(for: FetchRequest(entityName: entity.name)) }
            attempt {
                for object in try context.fetch(FetchRequest(entityName: entity.name)) {
                    touch(object)
                }
            }
            if let key = entity.attributes.first(where: { $0.type == .string })?.name {
                attempt {
                    var request = FetchRequest(entityName: entity.name, predicate: try Predicate(format: "\(key) CONTAINS[c] 'a' OR \(key) == nil"))
                    request.sortDescriptors = try SortSpec.parse("\(key):NO")
                    request.fetchLimit = 3
                    for object in try context.fetch(request) { touch(object) }
                }
            }
        }
        return refused
    }

    /// Reads every attribute and relationship of `object` and of the
    /// objects it points at.
    static func touch(_ object: ManagedObject, depth: Int = 0) {
        for attribute in object.entity.attributes { _ = "\(object[attribute.name])" }
        guard depth < 1 else { return }
        for relationship in object.entity.relationships {
            if relationship.isToMany {
                for other in object.objects(forKey: relationship.name) { touch(other, depth: depth + 1) }
            } else if let other = object.object(forKey: relationship.name) {
                touch(other, depth: depth + 1)
            }
        }
    }

    @Test func randomIllFittingRowsNeverCrash() throws {
        let model = try CoreDataLayoutTests.model()
        let pristine = try CoreDataLayoutTests.populatedStore()
        defer { try? FileManager.default.removeItem(at: pristine.deletingLastPathComponent()) }
        var random = CoreDataArchiveFuzzTests.Random(state: 30)
        var refused = 0
        for round in 0..<Self.rounds {
            let url = CoreDataLayoutTests.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: pristine.path + suffix) {
                try FileManager.default.copyItem(atPath: pristine.path + suffix, toPath: url.path + suffix)
            }
            let changes = try Self.damage(try Database(path: url.path), &random)
            let comment = "round \(round): \(changes.joined(separator: "; "))"
            refused += Self.read(url, model: model, comment)
            // As the shell opens a store given no model: with the one it keeps.
            if let stored = try PersistentStoreCoordinator.storedModel(at: url) {
                refused += Self.read(url, model: stored, comment)
            }
        }
        // Some damage is refused, or the loop tried nothing that matters.
        #expect(refused > 0)
    }
}
