import Foundation
import ObjectStore
import Testing
@testable import Shell

/// A to-one key whose row was deleted behind mrq's back (from `sqlite3`)
/// shows as empty in every output mode, never as the raw key, and counts
/// as `department == nil`.
@Suite struct DanglingKeyShellTests {
    static func store() throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-dangling-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("people.sqlite").path
        var opening = StoreOpening.Options()
        opening.createsEmptyStore = true
        let setup = try ShellSession(modelPath: nil, storePath: path, opening: opening)
        let made = SharedStoreTests.run(setup, """
            entity Department { code: Int64 }
            entity Person { name: String; department: Department }
            insert Department { code: 7701 }
            insert Department { code: 7702 }
            let a = first Department where code == 7701
            let b = first Department where code == 7702
            insert Person { name: "Ann", department: $a }
            insert Person { name: "Bob", department: $b }
            insert Person { name: "Cy", department: $b }
            save
            """)
        #expect(made.ok, "\(made.out)")
        let database = try Database(path: path)
        try database.execute("DELETE FROM \"Department\" WHERE code = 7702")
        return (directory, path)
    }

    @Test func aDanglingKeyShowsEmptyInEveryModeAndCountsAsNil() throws {
        let (directory, path) = try Self.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        for mode in ["table", "line", "json", "csv"] {
            let session = try ShellSession(modelPath: nil, storePath: path)
            let shown = SharedStoreTests.run(session, """
                .mode \(mode)
                Person sort name
                select name, department, department.code from Person sort name
                """)
            #expect(shown.ok, "\(shown.out)")
            #expect(shown.out.contains("7701"), "\(mode): \(shown.out)")
            // Department keys are 1 and 2: the gone one's would show as 2.
            #expect(shown.out.range(of: "(^|[^0-9])2([^0-9]|$)", options: .regularExpression) == nil,
                    "\(mode): \(shown.out)")
        }
        let session = try ShellSession(modelPath: nil, storePath: path)
        let counts = SharedStoreTests.run(session, """
            count Person where department != nil
            count Person where department == nil
            count Person where department.code == nil
            """)
        let numbers = counts.out.split(whereSeparator: { !$0.isNumber }).map(String.init)
        #expect(numbers == ["1", "2", "2"], "\(counts.out)")
    }
}
