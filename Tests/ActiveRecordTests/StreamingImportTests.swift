import Foundation
import ObjectStore
import Testing
@testable import ActiveRecord

/// The readers behind the shell's imports: JSON read element by element,
/// numbers read from the bytes, CSV.
@Suite struct StreamingImportTests {
    static func elements(_ text: String) throws -> [JSON] {
        let reader = JSONArrayReader(bytes: Array(text.utf8))
        var result: [JSON] = []
        while let element = try reader.next() { result.append(element) }
        return result
    }

    @Test func theReaderGivesWhatTheDocumentParserGives() throws {
        for text in [#"[1, "two", {"a": [3, null]}, true]"#, "[]", " [ ] ", #"{"a": 1}"#, "42", "\u{FEFF}[1]"] {
            let whole = try JSON(parsing: text)
            let streamed = try Self.elements(text)
            if case .array(let items) = whole {
                #expect(streamed == items, "\(text)")
            } else {
                #expect(streamed == [whole], "\(text)")
            }
        }
    }

    @Test(arguments: [
        ("[1, 2", "unexpected end of input in array"),
        ("[1 2]", "expected ',' or ']' in array"),
        ("[1,]", "expected a value after ','"),
        ("[1] x", "unexpected text after the value"),
        ("[,]", "unexpected character ','"),
    ])
    func syntaxErrorsComeWhenReached(text: String, message: String) throws {
        let error = #expect(throws: JSONSyntaxError.self) { _ = try Self.elements(text) }
        #expect(error?.message == message)
    }

    @Test func remainingCountCountsWhatIsLeft() throws {
        let reader = JSONArrayReader(bytes: Array(#"[{"a": "x,]}"}, [1, [2, 3]], "q\"", 4]"#.utf8))
        #expect(reader.remainingCount() == 4)
        _ = try reader.next()
        #expect(reader.remainingCount() == 3)
        while try reader.next() != nil {}
        #expect(reader.remainingCount() == 0)
        #expect(JSONArrayReader(bytes: Array("[]".utf8)).remainingCount() == 0)
    }

    /// Numbers read straight from the bytes round the way Swift's own
    /// parser does.
    @Test func numbersMatchSwiftsParser() throws {
        var random = SystemRandomNumberGenerator()
        var texts = ["0", "-0", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e22", "1e23",
                     "0.1", "123456789012345678901234", "4.35", "1.7976931348623157e308", "5e-324", "2.5E-3", "-12.75e+2",
                     "0.30000000000000004", "100000000000000000000000", "123.456e-10",
                     "999999999999999999", "-999999999999999999", "1000000000000000000", "-1000000000000000000",
                     "007", "-007", "000000000000000000000012", "12E2", "12e-1", "-0.0", "0e0"]
        // Integers of every length around the 18 digits read directly.
        for length in 1...20 {
            let digits = String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            texts += [digits, "-" + digits]
        }
        for _ in 0..<2000 {
            let digits = String(UInt64.random(in: 0...UInt64.max, using: &random) % 10_000_000_000_000_000)
            let point = Int.random(in: 0...digits.count, using: &random)
            var text = String(digits.prefix(point)) + (point < digits.count ? "." + digits.dropFirst(point) : "")
            if text.hasPrefix(".") { text = "0" + text }
            if Bool.random(using: &random) { text += "e\(Int.random(in: -30...30, using: &random))" }
            texts.append(Bool.random(using: &random) ? "-" + text : text)
        }
        for text in texts {
            let parsed = try JSON(parsing: text)
            if let n = Int64(text) {
                #expect(parsed == .int(n), "\(text)")
            } else {
                #expect(parsed == .double(Double(text)!), "\(text)")
            }
        }
        // Inside an array, each number ends at its delimiter.
        #expect(try JSON(parsing: "[12,-7 ,0,5e1,3.0,-0]") == .array([.int(12), .int(-7), .int(0), .double(50), .double(3), .int(0)]))
    }

    @Test func csvRecordsFollowRFC4180() throws {
        let reader = CSVReader(bytes: Array("a,b,c\r\n\"x, \"\"y\"\"\",,\"multi\nline\"\n\n1,2,\n".utf8))
        var records: [(Int, [String])] = []
        while let record = try reader.next() { records.append((reader.line, record)) }
        #expect(records.map(\.0) == [1, 2, 5])
        #expect(records.map(\.1) == [["a", "b", "c"], [#"x, "y""#, "", "multi\nline"], ["1", "2", ""]])
        #expect(CSVReader(bytes: Array("a\n\"b\nc\"\n\nd".utf8)).remainingCount() == 3)
    }

    /// An import read element by element makes what importing the whole
    /// tree makes, in batches, with `afterBatch` hearing each.
    @Test func streamedImportMatchesTheTreeImport() throws {
        let model = try ManagedObjectModel {
            Entity("Department", userInfo: ["relatedByAttribute": "name"]) {
                Attribute("name", .string)
                ToMany("people", "Person", inverse: "department")
            }
            Entity("Person", userInfo: ["relatedByAttribute": "personID"]) {
                Attribute("personID", .integer64, userInfo: ["mappedKeyName": "id"])
                Attribute("hired", .date, userInfo: ["dateFormat": "yyyy-MM-dd"])
                ToOne("department", "Department", inverse: "people")
            }
        }
        let text = "[" + (0..<2500).map { #"{"id": \#($0 % 2000), "hired": "2020-02-\#(String(format: "%02d", $0 % 28 + 1))", "department": {"name": "D\#($0 % 7)"}}"# }
            .joined(separator: ",") + "]"
        func context() throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addSQLiteStore(at: nil)
            return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        }
        let tree = try context(), streamed = try context()
        let made = try Importer(context: tree).importArray(try JSON(parsing: text), into: model.entity(named: "Person")!)
        var batches: [Int] = []
        let count = try Importer(context: streamed).importArray(from: JSONArrayReader(bytes: Array(text.utf8)), into: model.entity(named: "Person")!) {
            batches.append($0)
        }
        #expect(count == made.count)
        #expect(batches == [1000, 2000, 2500])
        for entity in ["Person", "Department"] {
            #expect(try tree.count(for: FetchRequest(entityName: entity)) == streamed.count(for: FetchRequest(entityName: entity)))
        }
        let people = try streamed.fetch(FetchRequest(entityName: "Person"))
        #expect(people.allSatisfy { $0["hired"] != .null })
        #expect(people.contains { $0["hired"] == .date(Date(timeIntervalSince1970: 1_580_515_200)) })
    }
}
