import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

@Suite struct JSONObjectTests {
    @Test func parsedMembersKeepTheDocumentsOrder() throws {
        guard case .object(let object) = try JSON(parsing: #"{"b": 1, "a": 2, "c": {"z": true, "y": null}}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["b", "a", "c"])
        #expect(object.values.first == .int(1))
        #expect(object["c"]?["y"] == .null)
        #expect(object["missing"] == nil)
    }

    @Test func aRepeatedKeyKeepsItsLastValueInItsFirstPlace() throws {
        guard case .object(let object) = try JSON(parsing: #"{"a": 1, "b": 2, "a": 3}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .int(3))
    }

    @Test func repeatsAreFoundWhateverTheKeysLookLike() throws {
        // Keys alike in length and first and last letter, and repeats
        // among them: each key keeps its first place and its last value.
        guard case .object(let object) = try JSON(parsing: #"{"ab": 1, "axb": 2, "ayb": 3, "ab": 4, "ayb": 5, "": 6, "": 7}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["ab", "axb", "ayb", ""])
        #expect(object.values == [4, 2, 5, 7])
    }

    @Test func equalityAndHashIgnoreMemberOrder() throws {
        let one = try JSON(parsing: #"{"a": 1, "b": [1, 2], "c": "x"}"#)
        let other = try JSON(parsing: #"{"c": "x", "a": 1, "b": [1, 2]}"#)
        let different = try JSON(parsing: #"{"c": "x", "a": 1, "b": [2, 1]}"#)
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(one != different)
        #expect(Set([one, other, different]).count == 2)
    }

    @Test func aHintAtTheWrongPlaceStillFindsTheKeyAndMovesThere() {
        let object: JSONObject = ["id": 7, "name": "Ada", "age": 36]
        var hint = 0
        #expect(object.value(forKey: "age", near: &hint) == .int(36))
        #expect(hint == 2)
        #expect(object.value(forKey: "age", near: &hint) == .int(36))
        var far = 99
        #expect(object.value(forKey: "name", near: &far) == .string("Ada"))
        #expect(far == 1)
        #expect(object.value(forKey: "nope", near: &far) == nil)
        #expect(far == 1)
    }

    @Test func largeObjectsFindEveryKeyAndSurviveRemovals() {
        var object = JSONObject()
        for n in 0..<100 { object["key\(n)"] = .int(Int64(n)) }
        #expect(object.count == 100)
        #expect((0..<100).allSatisfy { object["key\($0)"] == .int(Int64($0)) })
        object["key10"] = nil
        object["key50"] = .string("fifty")
        #expect(object.count == 99)
        #expect(object["key10"] == nil)
        #expect(object["key11"] == .int(11))
        #expect(object["key50"] == .string("fifty"))
        #expect(object.index(forKey: "key99") == 98)
        #expect(object.dictionary.count == 99)
    }

    @Test func aCopyChangesApartFromTheOriginal() throws {
        let original: JSONObject = ["a": 1, "b": 2]
        var copy = original
        copy["a"] = "changed"
        copy["c"] = [true, false]
        copy["b"] = nil
        #expect(original.keys == ["a", "b"])
        #expect(original["a"] == .int(1))
        #expect(copy.keys == ["a", "c"])
        #expect(copy["a"] == .string("changed"))
        #expect(JSON.object(copy) == (try JSON(parsing: #"{"c": [true, false], "a": "changed"}"#)))
    }

    @Test func aDictionaryBecomesMembersOrderedByKey() {
        let object = JSONObject(["b": 2, "a": 1])
        #expect(object.keys == ["a", "b"])
        #expect(JSON(any: ["b": 2, "a": 1] as [String: Any?]).serialized == #"{"a":1,"b":2}"#)
    }

    @Test func rowsWithOtherKeysAtTheSamePlacesReadTheirOwnKeys() throws {
        // Same member count, a fallback key where the mapped key was, a
        // key left out: each row must read what it has.
        let people = try importPeople("""
            [{"id": 1, "first_name": "A", "age": 5},
             {"id": 2, "given": "B", "age": 6},
             {"id": 3, "first_name": "C", "age": 7},
             {"id": 4, "first_name": "D", "note": "n"},
             {"id": 5, "first_name": "E", "age": 8}]
            """)
        #expect(people.map { $0["firstName"] } == ["A", "B", "C", "D", "E"].map { Value.string($0) })
        // Age is absent from row 4: its default, as the model asks.
        #expect(people.map { $0["age"] } == [5, 6, 7, 18, 8].map { Value.int($0) })
        #expect(people.map { $0["note"] } == [.null, .null, .null, .string("n"), .null])
    }

    @Test func stringValuesDecodeAsStringDecodingDoesAtEveryLength() throws {
        // Strings of up to 15 bytes are built in place, longer ones on the
        // heap: each reads as String(decoding:as:) reads its bytes, invalid
        // UTF-8 replaced, whether ASCII, not, or broken.
        let pieces: [[UInt8]] = [
            [], Array("a".utf8), Array("fifteen bytes!!".utf8), Array("sixteen bytes!!!".utf8),
            Array("é".utf8), Array("naïve café crème brûlée".utf8), [0xFF], [0x61, 0xC3],
            Array("fourteen bytes".utf8) + [0xE2, 0x82], Array(repeating: 0x7A, count: 40) + [0xF0, 0x9F],
        ]
        for piece in pieces {
            let document = Array("[\"".utf8) + piece + Array("\", {\"k\": \"".utf8) + piece + Array("\"}]".utf8)
            let json = try JSON(data: Data(document))
            let expected = String(decoding: piece, as: UTF8.self)
            #expect(json == .array([.string(expected), .object(["k": .string(expected)])]), "\(piece)")
            let reader = JSONArrayReader(bytes: document)
            #expect(try reader.next() == .string(expected), "\(piece)")
            #expect(try reader.next()?["k"] == .string(expected), "\(piece)")
            #expect(try reader.next() == nil)
        }
    }

    @Test func stringsEndEscapeAndFailAtEveryOffset() throws {
        // A closing quote, an escape, a control character or the end of the
        // input is found wherever it falls, after plain ASCII and
        // multi-byte text of every length up to 19 (a scan that reads
        // strings in words must stop exactly where the byte loop does).
        for fill in ["a", "é", "~"] {
            for offset in 0..<20 {
                let before = String(repeating: fill, count: offset)
                let plain = Array("[\"\(before)\", \"\(before)\\n\(before)\\u00e9\\\"\"]".utf8)
                #expect(try JSON(data: Data(plain)) == .array([.string(before), .string(before + "\n" + before + "é\"")]),
                        "\(fill) \(offset)")
                let control = Array("[\"\(before)".utf8) + [0x09] + Array("x\"]".utf8)
                let error = #expect(throws: JSONSyntaxError.self) { try JSON(data: Data(control)) }
                #expect(error?.message == "control character in string")
                #expect(error?.column == 3 + before.count, "\(fill) \(offset)")
                let unterminated = Array("[\"\(before)".utf8)
                #expect(throws: JSONSyntaxError.self) { try JSON(data: Data(unterminated)) }
            }
        }
    }

    @Test func rowsWithMembersInAnotherOrderImportTheSameValues() throws {
        // The second row moves every key: the remembered positions miss,
        // and the values must still land in the right attributes.
        let people = try importPeople("""
            [{"id": 1, "first_name": "Ann", "active": true, "note": "n1"},
             {"note": "n2", "active": false, "first_name": "Bob", "id": 2},
             {"id": 3, "note": "n3"}]
            """)
        #expect(people.map { $0["firstName"] } == [.string("Ann"), .string("Bob"), .null])
        #expect(people.map { $0["note"] } == [.string("n1"), .string("n2"), .string("n3")])
        #expect(people.map { $0["active"] } == [.bool(true), .bool(false), .null])
    }

    /// Imports `text` as people into a new in-memory store.
    private func importPeople(_ text: String) throws -> [ManagedObject] {
        let model = try importModel()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        return try Importer(context: context).importArray(try JSON(parsing: text), into: model.entity(named: "Person")!)
    }
}

/// The importer's memory of nested data seen again (`EntityPlan`) is filed
/// by object address: it holds each object until the import call ends, so
/// no object can be freed meanwhile and leave its address, and its data,
/// to a new one.
@Suite struct NestedDataSeenAgainTests {
    @Test func anObjectNotedIsHeldUntilTheImportCallEnds() throws {
        let department = EntityDescription(name: "Department")
        department.add(AttributeDescription(name: "name", type: .string))
        _ = try ManagedObjectModel(entities: [department])
        let plan = EntityPlan(entity: department, key: nil, attributes: [], relationships: [])
        let data: JSONObject = ["name": .string("Eng")]
        weak var noted: ManagedObject?
        do {
            let object = ManagedObject(entity: department, insertInto: nil)
            plan.noteImport(data, into: object, generation: 1)
            noted = object
        }
        // Nothing else holds it: the plan does, for the rest of the call.
        do {
            let held = try #require(noted)
            #expect(plan.isUnchanged(held, by: data, generation: 1))
            #expect(!plan.isUnchanged(held, by: ["name": .string("Ops")], generation: 1))
        }
        // The next import call forgets it, and lets it go.
        let other = ManagedObject(entity: department, insertInto: nil)
        #expect(!plan.isUnchanged(other, by: data, generation: 2))
        withExtendedLifetime(other) {}
        #expect(noted == nil)
    }
}
