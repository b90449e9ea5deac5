import Foundation
import Testing
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import struct Predicates.Predicate

/// SQL written as a value on PostgreSQL: parameters numbered once, as
/// written, never shifted afterwards.
@Suite struct PostgresSQLTextTests {
    /// A batch update on PostgreSQL in one statement: its condition's
    /// parameters are numbered after the SET values, and a constant bound
    /// again (a LIKE pattern rewritten, a `[c]` constant folded) keeps its
    /// number; the update changes the rows the same fetch finds.
    @Test func postgresBatchUpdateNumbersItsConditionAfterItsValues() throws {
        let (_, postgres, _) = try PostgresFetchTests.stores(seed: 5)
        let predicate = try Predicate(format: "i16 > 1 AND name LIKE '*'")
        var update = BatchUpdateRequest(entityName: "Item", predicate: predicate,
                                        propertiesToUpdate: ["note": .value(.string("x"))])
        update.resultType = .updatedObjectsCount
        let (plan, inMemory) = try postgres.explain(update)
        #expect(inMemory.isEmpty && plan.steps.count == 1, "\(plan.steps.map(\.sql))")
        #expect(plan.bindings == [.string("x"), .int(1), .string("%")])
        #expect(plan.sql.contains("> CAST($2 AS bigint)") && plan.sql.contains("LIKE CAST($3 AS text)"), "\(plan.sql)")
        let matching = try postgres.count(for: FetchRequest(entityName: "Item", predicate: predicate))
        #expect(matching > 0, "the seed has rows to update")
        #expect(try postgres.execute(update).count == matching)
        let noted = try Predicate(format: "note == 'x' AND i16 > 1 AND name LIKE '*'")
        #expect(try postgres.count(for: FetchRequest(entityName: "Item", predicate: noted)) == matching)
    }

    /// The connection's placeholders: each `?` of a statement written whole
    /// (the shared writes, migrations, batch statements) becomes `$n` in
    /// order when it is prepared; one inside a quoted identifier (a
    /// doubled quote in it too) or a string literal stays as it is, and a
    /// statement that numbers its own parameters is left whole.
    @Test func connectionNumbersPlaceholdersOutsideQuotes() {
        let sql = #"SELECT "a?b", '?''?', "x""?" FROM "t?" WHERE c = ? AND d IN (?, ?) AND e = '?'"#
        #expect(PostgresConnection.numberingParameters(sql)
            == #"SELECT "a?b", '?''?', "x""?" FROM "t?" WHERE c = $1 AND d IN ($2, $3) AND e = '?'"#)
        #expect(PostgresConnection.numberingParameters("SELECT $1::int, $2") == "SELECT $1::int, $2")
        #expect(PostgresConnection.numberingParameters(#"UPDATE "q" SET "v" = ? WHERE "k" = ?"#)
            == #"UPDATE "q" SET "v" = $1 WHERE "k" = $2"#)
    }
}
