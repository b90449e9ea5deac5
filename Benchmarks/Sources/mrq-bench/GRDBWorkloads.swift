import CBaseline
import Foundation
import GRDB

/// The Swift peer: a GRDB 7 record over the same table, written the way
/// GRDB's documentation writes records (Codable, with the table's date
/// representation declared).
struct GRDBPerson: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "Person"
    var _pk: Int64
    var _opt: Int64
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String
    var age: Int16
    var score: Double
    var balance: Double
    var city: String
    var createdAt: Date
    var active: Bool

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSinceReferenceDate
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSinceReferenceDate
    }
}

enum GRDBWorkloads {
    static func insert(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let records = Dataset.people(scale.people).enumerated().map { n, p in
            GRDBPerson(_pk: Int64(n + 1), _opt: 1, id: p.id, firstName: p.firstName, lastName: p.lastName,
                       email: p.email, age: p.age, score: p.score, balance: p.balance, city: p.city,
                       createdAt: Date(timeIntervalSinceReferenceDate: p.createdAt), active: p.active)
        }
        let target = fixtures.scratch("insert-grdb")
        var times: [Double] = []
        for _ in 0..<runs {
            try Fixtures.copy(fixtures.personTemplate, to: target)
            let queue = try DatabaseQueue(path: target.path)
            times.append(try time {
                try queue.write { db in
                    for record in records { try record.insert(db) }
                }
            })
            try queue.close()
        }
        let written = try CWorkloads.readBack(target)
        Fixtures.remove(target)
        return Measurement(times: times, rows: written.rows, checksum: written.checksum, peakKB: 0)
    }

    @inline(never)
    static func readAll(_ records: [GRDBPerson]) -> (Int64, Int64) {
        var checksum: Int64 = 0
        for p in records {
            checksum &+= bench_checksum_row(p.id, Int64(p.firstName.utf8.count), Int64(p.lastName.utf8.count),
                                            Int64(p.email.utf8.count), Int64(p.city.utf8.count), Int64(p.age),
                                            p.score, p.balance, p.createdAt.timeIntervalSinceReferenceDate, p.active ? 1 : 0)
        }
        return (Int64(records.count), checksum)
    }

    static func fetch(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try query(fixtures, runs: runs) { db in try GRDBPerson.fetchAll(db) }
    }

    static func filter(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try query(fixtures, runs: runs) { db in
            try GRDBPerson
                .filter(sql: "age > ?1 AND (length(?2) > 0 AND substr(lastName, 1, length(?2)) = ?2)", arguments: [18, "S"])
                .order(Column("lastName").desc, Column("firstName"), Column("_pk"))
                .fetchAll(db)
        }
    }

    private static func query(_ fixtures: Fixtures, runs: Int, _ fetch: @escaping (Database) throws -> [GRDBPerson]) throws -> Measurement {
        let queue = try DatabaseQueue(path: fixtures.personStore.path)
        var times: [Double] = []
        var result: (Int64, Int64) = (0, 0)
        for _ in 0..<runs {
            times.append(try time {
                result = readAll(try queue.read { db in try fetch(db) })
            })
        }
        try queue.close()
        return Measurement(times: times, rows: result.0, checksum: result.1, peakKB: 0)
    }
}
