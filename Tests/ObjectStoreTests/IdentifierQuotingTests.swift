import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// `SQLIdentifier`, the one quoting function of both engines, and the
/// fingerprint that must not change with how the DDL is written.
@Suite struct IdentifierQuotingTests {
    @Test(arguments: [
        ("Person", "\"Person\""),
        ("Per\"son", "\"Per\"\"son\""),
        ("\"", "\"\"\"\""),
        ("x\" OR 1=1 OR \"", "\"x\"\" OR 1=1 OR \"\"\""),
        ("a'b; DROP TABLE t; --", "\"a'b; DROP TABLE t; --\""),
        ("", "\"\""),
    ])
    func quotingDoublesQuotesAndNothingElse(name: String, quoted: String) throws {
        let identifier = try SQLIdentifier(name)
        #expect(identifier.quoted == quoted)
        #expect("\(identifier)" == quoted, "interpolation writes the quoted form")
        #expect(identifier.unquoted == name)
        // SQLite reads it back as the same name.
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE \(identifier) (\(identifier) INTEGER)")
        #expect(try db.columns(of: name) == [name])
        #expect(try db.tableExists(identifier))
    }

    @Test func aNulIsRefusedNotCut() throws {
        #expect(throws: StoreError.self) { try SQLIdentifier("Per\u{0}son") }
        #expect(throws: StoreError.self) { try quoteIdentifier("x\u{0}\" OR 1=1 --") }
        do {
            _ = try SQLIdentifier("a\u{0}\u{1B}[2J")
        } catch let error as StoreError {
            #expect(error.message == "the name 'a\\u{0}\\u{1b}[2J' holds a NUL character, which SQL cannot carry")
        }
    }

    @Test func derivedNamesStayOneIdentifier() throws {
        let table = try SQLIdentifier("Z\"NOTE")
        let column = try SQLIdentifier("ZFOLDER")
        let index = table + "_" + column + "_INDEX"
        #expect(index.unquoted == "Z\"NOTE_ZFOLDER_INDEX")
        #expect(index.quoted == "\"Z\"\"NOTE_ZFOLDER_INDEX\"")
    }

    /// Stores made before names were all quoted keep their fingerprint:
    /// these were read from stores the previous mrq made of the samples
    /// and of `complexModel` (which the shell test builds the same way).
    @Test func theFingerprintOfExistingStoresIsUnchanged() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Samples")
        let people = try ManagedObjectModel(contentsOf: samples.appendingPathComponent("People.xcdatamodeld"))
        let mail = try ManagedObjectModel(contentsOf: samples.appendingPathComponent("Mail.xcdatamodeld"))
        #expect(try SchemaBuilder.fingerprint(of: people) == "a797a63e496555b9")
        #expect(try SchemaBuilder.fingerprint(of: mail) == "16fd492bddde2c06")
    }
}
