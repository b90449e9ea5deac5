import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// Core Data's persistent history, read from the tables Core Data keeps
/// it in. The fixtures lay the tables out as the real stores do (Notes,
/// Screen Time, knowledgeC): `ATRANSACTION`, `ACHANGE`, and since macOS
/// 10.14 `ATRANSACTIONSTRING` for the repeated texts.
@Suite struct PersistentHistoryTests {
    struct Change {
        var kind: Int64
        var entity: Int64
        var key: Int64
        var mask: Data?
    }

    /// Adds history tables to the Core Data store at `url`: one
    /// transaction per element of `transactions`, numbered from 1.
    static func addHistory(to url: URL, strings: Bool,
                           transactions: [(timestamp: Double, author: String?, changes: [Change])]) throws {
        let db = try Database(path: url.path)
        if strings {
            try db.execute("CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )")
            try db.execute("""
                CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, \
                ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, \
                ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )
                """)
            try db.execute("INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, 1, 'com.example.notes'), (2, 16003, 1, 'ViewContext')")
        } else {
            try db.execute("""
                CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTIMESTAMP FLOAT, \
                ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )
                """)
        }
        try db.execute("""
            CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, \
            ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )
            """)
        try db.execute("INSERT INTO Z_PRIMARYKEY VALUES (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0)")
        var changeNumber: Int64 = 0
        for (n, transaction) in transactions.enumerated() {
            let number = Int64(n + 1)
            if strings {
                try db.execute("""
                    INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZTIMESTAMP, ZAUTHOR)
                    VALUES (?, 16002, 1, 1, 2, ?, ?)
                    """, [.int(number), .double(transaction.timestamp), transaction.author.map(Value.string) ?? .null])
            } else {
                try db.execute("INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZTIMESTAMP, ZAUTHOR, ZBUNDLEID) VALUES (?, 16002, 1, ?, ?, 'com.example.notes')",
                               [.int(number), .double(transaction.timestamp), transaction.author.map(Value.string) ?? .null])
            }
            for change in transaction.changes {
                changeNumber += 1
                try db.execute("INSERT INTO ACHANGE VALUES (?, 16001, 1, ?, ?, ?, ?, ?)",
                               [.int(changeNumber), .int(change.kind), .int(change.entity), .int(change.key), .int(number),
                                change.mask.map(Value.data) ?? .null])
            }
        }
    }

    @Test(arguments: [true, false])
    func historyListsTransactionsAndTheirChanges(strings: Bool) throws {
        let url = CoreDataLayoutTests.temporaryStore()
        let model = try CoreDataLayoutTests.model()
        var options = PersistentStoreOptions()
        options.layout = .coreData
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            _ = try CoreDataLayoutTests.populate(ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator))
        }
        // Note is entity 5. Its mask's bits, from the first byte's high
        // bit: the keys account and folder, account's entity column,
        // folder's order column, then the attributes by name (amount,
        // attachment, body, edited, identifier, link, pinned, title), then
        // tags. So body is bit 6 (0x02 in byte 0), link bit 9 (0x40 in
        // byte 1), title bit 11 (0x10 in byte 1).
        try Self.addHistory(to: url, strings: strings, transactions: [
            (1000, "importer", [Change(kind: 0, entity: 5, key: 1), Change(kind: 0, entity: 6, key: 1)]),
            (2000.5, nil, [Change(kind: 1, entity: 5, key: 1, mask: Data([0x00, 0x10])),
                           Change(kind: 1, entity: 5, key: 2, mask: Data([0x02, 0x40]))]),
            (3000, "sync", [Change(kind: 2, entity: 5, key: 3), Change(kind: 1, entity: 99, key: 7, mask: Data([0xFF]))]),
        ])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: PersistentStoreOptions())
        let history = try coordinator.persistentHistory()
        #expect(history.map(\.number) == [1, 2, 3])
        #expect(history.map(\.author) == ["importer", nil, "sync"])
        #expect(history.allSatisfy { $0.bundleID == "com.example.notes" })
        #expect(history.map { $0.contextName } == (strings ? ["ViewContext", "ViewContext", "ViewContext"] : [nil, nil, nil]))
        #expect(history[1].timestamp == Date(timeIntervalSinceReferenceDate: 2000.5))
        #expect(history[0].changes.map(\.kind) == [.insert, .insert])
        #expect(history[0].changes.map(\.entityName) == ["Note", "Tag"])
        #expect(history[1].changes.map(\.updatedProperties) == [["title"], ["body", "link"]])
        #expect(history[2].changes.map(\.kind) == [.delete, .update])
        // An entity the store does not number is named by its number.
        #expect(history[2].changes[1].entityName == "#99" && history[2].changes[1].updatedProperties.isEmpty)
        #expect(try coordinator.persistentHistory(after: Date(timeIntervalSinceReferenceDate: 1500)).map(\.number) == [2, 3])
    }

    @Test func aStoreWithoutHistoryHasNone() throws {
        let coordinator = PersistentStoreCoordinator(model: try CoreDataLayoutTests.model())
        try coordinator.addSQLiteStore(at: nil)
        #expect(try coordinator.persistentHistory().isEmpty)
    }
}
