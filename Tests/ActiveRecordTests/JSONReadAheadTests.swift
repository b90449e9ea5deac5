import Foundation
import ObjectStore
import Testing
@testable import ActiveRecord

/// A large array's elements parsed on a thread of their own while the
/// importer imports those before: the same elements, the same errors at
/// the same places, nothing after an error, and a stop that leaves the
/// reader where the import stopped.
@Suite struct JSONReadAheadTests {
    /// Elements of changing shapes, nested values and escapes, one a line.
    static func text(_ count: Int, brokenAt broken: Int? = nil) -> String {
        let rows = (0..<count).map { n -> String in
            if n == broken { return #"{"id": \#(n), "name" "missing colon"}"# }
            switch n % 4 {
            case 0: return #"{"id": \#(n), "name": "N\#(n)", "tags": [1, 2.5, null, true]}"#
            case 1: return #"{"name": "caf\u00e9 \#(n)", "id": \#(n), "nested": {"a": {"b": [\#(n)]}}}"#
            case 2: return "\(n)"
            default: return #"{"id": \#(n), "name": "N\"\#(n)", "extra": "x"}"#
            }
        }
        return "[\n" + rows.joined(separator: ",\n") + "\n]\n"
    }

    /// A reader that reads ahead however short its text.
    static func reader(_ text: String, readingAhead: Bool = true) -> JSONArrayReader {
        let reader = JSONArrayReader(bytes: Array(text.utf8))
        reader.readAheadMinimum = readingAhead ? 0 : .max
        reader.readsAheadWithoutIdleCore = readingAhead
        return reader
    }

    /// Every chunk until the end or the first error.
    static func chunks(_ reader: JSONArrayReader, _ size: Int) -> (elements: [[JSON]], error: JSONSyntaxError?) {
        var chunks: [[JSON]] = []
        do {
            while case let chunk = try reader.nextElements(size), !chunk.isEmpty { chunks.append(chunk) }
        } catch {
            return (chunks, error as? JSONSyntaxError)
        }
        return (chunks, nil)
    }

    /// The estimate of what is left follows the elements read so far,
    /// but never asks for more than one element per 32 bytes left: tiny
    /// first elements before one huge value must not make room for many
    /// times the text.
    @Test func theEstimateOfWhatIsLeftIsBoundedByTheTextLeft() throws {
        let even = JSONArrayReader(bytes: Array(Self.text(1000).utf8))
        let first = try even.nextElements(100)
        #expect(first.count == 100)
        let estimate = try #require(even.estimatedRemainingCount())
        #expect(estimate > 800 && estimate < 1200)
        let huge = "[" + String(repeating: "1,", count: 100) + "\"" + String(repeating: "x", count: 1_000_000) + "\"]"
        let skewed = JSONArrayReader(bytes: Array(huge.utf8))
        #expect(try skewed.nextElements(100).count == 100)
        let bounded = try #require(skewed.estimatedRemainingCount())
        #expect(bounded <= 1_000_002 / 32)
        #expect(bounded > 0)
    }

    /// `MRQ_JSON_READ_AHEAD=0` keeps a reader reading in turn, however
    /// idle the machine (mrq-bench's instruction counts rely on it);
    /// `MRQ_JSON_READ_AHEAD=1` reads ahead however busy.
    @Test func theEnvironmentCanTurnTheReadAheadOffOrOn() throws {
        let text = Self.text(50)
        let reader = JSONArrayReader(bytes: Array(text.utf8))
        reader.readAheadMinimum = 0
        setenv("MRQ_JSON_READ_AHEAD", "0", 1)
        reader.startReadingAhead(chunk: 10)
        unsetenv("MRQ_JSON_READ_AHEAD")
        #expect(!reader.isReadingAhead)
        guard case .array(let whole) = try JSON(parsing: text) else { Issue.record("not an array"); return }
        #expect(try Self.chunks(reader, 10).elements.flatMap { $0 } == whole)
        // `MRQ_JSON_READ_AHEAD=1` reads ahead whatever the load (here
        // with a load that would allow it or not: the setting decides).
        // In this test, not one of its own: the two settings would race
        // in one process's environment.
        let forced = JSONArrayReader(bytes: Array(text.utf8))
        forced.readAheadMinimum = 0
        setenv("MRQ_JSON_READ_AHEAD", "1", 1)
        forced.startReadingAhead(chunk: 10)
        unsetenv("MRQ_JSON_READ_AHEAD")
        #expect(forced.isReadingAhead)
        #expect(try Self.chunks(forced, 10).elements.flatMap { $0 } == whole)
        #expect(try forced.next() == nil)
    }

    @Test func readingAheadGivesWhatReadingInTurnGives() throws {
        let text = Self.text(1003)
        let reader = Self.reader(text)
        reader.startReadingAhead(chunk: 10)
        #expect(reader.isReadingAhead)
        var remaining: [Int] = []
        var elements: [JSON] = []
        while case let chunk = try reader.nextElements(10), !chunk.isEmpty {
            elements += chunk
            remaining.append(reader.remainingCount())
        }
        guard case .array(let whole) = try JSON(parsing: text) else { Issue.record("not an array"); return }
        #expect(elements == whole)
        // Counted while the thread reads: what is queued plus what it has
        // not reached.
        #expect(remaining == Array(stride(from: 993, through: 0, by: -10)) + [0])
        #expect(try reader.nextElements(10).isEmpty)
        #expect(try reader.next() == nil)
    }

    /// A syntax error far into the array: the chunks before the one it
    /// falls in, then the error at the place reading in turn reports, as
    /// often as asked.
    @Test func aLateSyntaxErrorComesAtItsPlaceAfterTheChunksBeforeIt() throws {
        let text = Self.text(500, brokenAt: 437)
        let inTurn = Self.chunks(Self.reader(text, readingAhead: false), 10)
        let reader = Self.reader(text)
        reader.startReadingAhead(chunk: 10)
        let ahead = Self.chunks(reader, 10)
        #expect(ahead.elements.count == 43)
        #expect(ahead.elements == inTurn.elements)
        let error = try #require(ahead.error)
        #expect(error.line == 439)
        #expect(error.message == "expected ':' after key")
        #expect(error.line == inTurn.error?.line && error.column == inTurn.error?.column)
        let again = #expect(throws: JSONSyntaxError.self) { _ = try reader.nextElements(10) }
        #expect(again?.line == 439)
    }

    /// Stopped half-way (the importer stops on Ctrl-C), the reader reads
    /// on from the first element it had not handed out, however far the
    /// thread had parsed.
    @Test func stoppingLeavesTheReaderAtTheFirstElementNotHandedOut() throws {
        let text = Self.text(300)
        guard case .array(let whole) = try JSON(parsing: text) else { Issue.record("not an array"); return }
        let reader = Self.reader(text)
        reader.startReadingAhead(chunk: 7)
        #expect(reader.isReadingAhead)
        #expect(try reader.nextElements(7) == Array(whole[0..<7]))
        #expect(try reader.nextElements(7) == Array(whole[7..<14]))
        reader.stopReadingAhead()
        #expect(!reader.isReadingAhead)
        #expect(try reader.next() == whole[14])
        #expect(reader.remainingCount() == 300 - 15)
        // Starting again reads on from there.
        reader.startReadingAhead(chunk: 100)
        var rest: [JSON] = []
        while case let chunk = try reader.nextElements(100), !chunk.isEmpty { rest += chunk }
        #expect(rest == Array(whole[15...]))
    }

    static let model: ManagedObjectModel = {
        try! ManagedObjectModel {
            Entity("Item", userInfo: ["relatedByAttribute": "itemID"]) {
                Attribute("itemID", .integer64, userInfo: ["mappedKeyName": "id"])
                Attribute("name", .string)
            }
        }
    }()

    static func context() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    /// What the importer made, reading ahead and not: the same objects
    /// before a late syntax error (none from its batch or after it), and
    /// the same error.
    @Test func theImporterStopsAtALateSyntaxErrorAsReadingInTurnDoes() throws {
        let text = "[\n" + (0..<3000).map { n in
            n == 2345 ? #"{"id": \#(n), "name": "N\#(n)",}"# : #"{"id": \#(n), "name": "N\#(n)"}"#
        }.joined(separator: ",\n") + "\n]"
        var results: [(names: Set<String>, error: JSONSyntaxError?)] = []
        for readingAhead in [false, true] {
            let context = try Self.context()
            let importer = Importer(context: context)
            importer.options.batchSize = 100
            var error: JSONSyntaxError?
            do {
                try importer.importArray(from: Self.reader(text, readingAhead: readingAhead), into: Self.model.entity(named: "Item")!)
            } catch let syntax as JSONSyntaxError {
                error = syntax
            }
            results.append((Set(context.insertedObjects.compactMap { object -> String? in
                if case .string(let name) = object["name"] { return name }
                return nil
            }), error))
        }
        #expect(results[1].names.count == 2300)
        #expect(results[1].names == results[0].names)
        #expect(!results[1].names.contains("N2300") && results[1].names.contains("N2299"))
        #expect(results[1].error?.line == 2347)
        #expect(results[1].error?.line == results[0].error?.line && results[1].error?.column == results[0].error?.column)
    }

    /// Stopped from `afterBatch` (Ctrl-C), the import returns with the
    /// thread stopped, and the reader stands after the last batch
    /// imported.
    @Test func anImportStoppedAfterABatchLeavesTheRestUnread() throws {
        let text = "[" + (0..<1000).map { #"{"id": \#($0), "name": "N\#($0)"}"# }.joined(separator: ",") + "]"
        let context = try Self.context()
        let importer = Importer(context: context)
        importer.options.batchSize = 50
        let reader = Self.reader(text)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try importer.importArray(from: reader, into: Self.model.entity(named: "Item")!) { done in
                if done == 150 { throw Stop() }
            }
        }
        #expect(context.insertedObjects.count == 150)
        #expect(try reader.next() == JSON(parsing: #"{"id": 150, "name": "N150"}"#))
        #expect(reader.remainingCount() == 849)
    }
}
