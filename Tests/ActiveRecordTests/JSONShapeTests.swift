import Foundation
import Testing
@testable import ActiveRecord
import StoreTestSupport

/// The parser takes an object's keys from the previous object at the same
/// depth when their bytes match: rows read so must be the rows a fresh
/// parser reads one at a time.
@Suite struct JSONShapeTests {
    /// Each row of `rows` read through one reader (keys shared from row to
    /// row) against the same row parsed alone: same value, same key order.
    private func expectRowsReadAsAlone(_ rows: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = JSONArrayReader(bytes: Array("[\(rows.joined(separator: ",\n"))]".utf8))
        for row in rows {
            let alone = try JSON(parsing: row)
            let read = try #require(try reader.next(), sourceLocation: sourceLocation)
            #expect(read == alone, "\(row)", sourceLocation: sourceLocation)
            #expect(Self.keyOrders(read) == Self.keyOrders(alone), "\(row)", sourceLocation: sourceLocation)
        }
        #expect(try reader.next() == nil, sourceLocation: sourceLocation)
    }

    /// Every object's keys, in document order, depth first.
    private static func keyOrders(_ json: JSON) -> [[String]] {
        switch json {
        case .object(let object): return [object.keys] + object.values.flatMap(keyOrders)
        case .array(let elements): return elements.flatMap(keyOrders)
        default: return []
        }
    }

    @Test func rowsThatLeaveTheShapeReadTheirOwnKeys() throws {
        try expectRowsReadAsAlone([
            #"{"id": 1, "name": "Ada", "dept": {"name": "R&D"}}"#,
            #"{"id": 2, "name": "Bo", "dept": {"name": "Ops"}}"#,
            // a key that starts as the shape's key and goes on
            #"{"idx": 3, "name": "Cy", "dept": {"names": "Ops"}}"#,
            // a shorter key, a key the shape has at another place
            #"{"i": 4, "id": 5, "dept": {}}"#,
            // the shape's key spelled with an escape, then a repeat
            #"{"i": 6, "\u0069d": 7, "id": 8}"#,
            // fewer keys, then more
            #"{"i": 9}"#,
            #"{"i": 10, "id": 11, "name": "Di", "extra": [1, {"i": 2}]}"#,
            // a repeat of a key the shape holds, in shape order
            #"{"i": 12, "id": 13, "name": "Ed", "extra": null, "i": 14}"#,
            #"{"i": 15, "id": 16, "name": "Fa", "extra": null, "i": 17}"#,
            // an empty key, keys with quotes and backslashes escaped
            #"{"": 1, "a\"b": 2, "c\\d": 3}"#,
            #"{"": 4, "a\"b": 5, "c\\d": 6}"#,
            #"{"": 7, "a": 8}"#,
        ])
    }

    @Test func nonASCIIAndBrokenUTF8KeysReadAsAlone() throws {
        let rows = [
            #"{"naïve": 1, "日本": "語", "😀": "\ud83d\ude00"}"#,
            #"{"naïve": 2, "日本": "x", "😀": "y"}"#,
            #"{"naive": 3, "日本語": "x"}"#,
        ]
        try expectRowsReadAsAlone(rows)
        // A key of bytes that are not UTF-8 reads repaired, the same way
        // in every row.
        let bytes = Array(#"[{"a"#.utf8) + [0xFF, 0xC3] + Array(#"": 1}, {"a"#.utf8) + [0xFF, 0xC3] + Array(#"": 2}]"#.utf8)
        let reader = JSONArrayReader(bytes: bytes)
        let first = try #require(try reader.next())
        let second = try #require(try reader.next())
        guard case .object(let a) = first, case .object(let b) = second else {
            Issue.record("not objects")
            return
        }
        #expect(a.keys == b.keys)
        #expect(a.keys == [String(decoding: [0x61, 0xFF, 0xC3], as: UTF8.self)])
    }

    @Test func aRowCutInsideASharedKeyFailsWhereItStops() throws {
        let text = #"[{"name": 1}, {"name": 2}, {"nam"#
        let reader = JSONArrayReader(bytes: Array(text.utf8))
        _ = try reader.next()
        _ = try reader.next()
        #expect(throws: JSONSyntaxError.self) { try reader.next() }
        // the error is the one a fresh parser gives
        var fresh: JSONSyntaxError?
        do { _ = try JSON(parsing: text) } catch let error as JSONSyntaxError { fresh = error }
        var shared: JSONSyntaxError?
        let again = JSONArrayReader(bytes: Array(text.utf8))
        do { while try again.next() != nil {} } catch let error as JSONSyntaxError { shared = error }
        #expect(fresh != nil)
        #expect(shared?.description == fresh?.description)
    }

    // MARK: Random documents

    private static let pieces = ["a", "id", "name", "é", "日本", "😀", "\"", "\\", "/", "\n", "\t", "\u{1}", " ", "x y", "\u{7F}", "\u{10FFFF}"]

    /// A string as JSON text, some characters escaped (surrogate pairs
    /// for those outside the BMP), others written as they are.
    private static func quoted(_ string: String, _ rng: inout SplitMix64) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            let escape = Bool.random(using: &rng)
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += escape ? "\\n" : "\\u000a"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            case _ where escape && scalar.value > 0xFFFF:
                let v = scalar.value - 0x10000
                text += String(format: "\\u%04X\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
            case _ where escape: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    private static func randomString(_ rng: inout SplitMix64) -> String {
        (0..<Int.random(in: 0...4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    private static func randomNumber(_ rng: inout SplitMix64) -> String {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return String(Int64.random(in: Int64.min...Int64.max, using: &rng))
        case 1: return String(Int.random(in: -1000...1000, using: &rng))
        case 2: return ["9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
                        "123456789012345678901234567890", "0", "-0"].randomElement(using: &rng)!
        case 3: return "\(Int.random(in: -99999...99999, using: &rng)).\(Int.random(in: 0...999999, using: &rng))"
        case 4: return "\(Int.random(in: -9...9, using: &rng))e\(Int.random(in: -330...310, using: &rng))"
        case 5: return "\(Int.random(in: 1...99999, using: &rng)).\(Int.random(in: 0...99, using: &rng))E+\(Int.random(in: 0...30, using: &rng))"
        default: return "\(Double.random(in: -1e6...1e6, using: &rng))"
        }
    }

    /// A random document: arrays of objects that mostly share keys.
    private static func randomValue(_ rng: inout SplitMix64, depth: Int) -> String {
        let kind = depth > 3 ? Int.random(in: 0..<5, using: &rng) : Int.random(in: 0..<8, using: &rng)
        switch kind {
        case 0: return ["null", "true", "false"].randomElement(using: &rng)!
        case 1, 2: return randomNumber(&rng)
        case 3, 4: return quoted(randomString(&rng), &rng)
        case 5: return "[" + (0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let keys = (0..<Int.random(in: 0...5, using: &rng)).map { _ in randomString(&rng) }
            let rows = (0..<Int.random(in: 1...4, using: &rng)).map { _ -> String in
                var own = keys
                if Int.random(in: 0..<4, using: &rng) == 0 { own.append(randomString(&rng)) }
                if Int.random(in: 0..<4, using: &rng) == 0, !own.isEmpty { own.remove(at: Int.random(in: 0..<own.count, using: &rng)) }
                return "{" + own.map { quoted($0, &rng) + ":" + randomValue(&rng, depth: depth + 1) }.joined(separator: ", ") + "}"
            }
            return "[" + rows.joined(separator: ",") + "]"
        }
    }

    /// Random documents (arrays of objects that share, add and drop
    /// keys, nested) read with shapes remembered are the documents read
    /// with every key made afresh, whole and row by row. (Foundation is
    /// not the reference here: on Linux it reads long decimals as
    /// NSDecimalNumber, whose doubles differ from correctly rounded ones.)
    @Test func randomDocumentsReadAsWithoutShapes() throws {
        var rng = SplitMix64(seed: 35)
        for _ in 0..<400 {
            let text = Self.randomValue(&rng, depth: 0)
            let fresh = try JSONParser.parseDocument(Array(text.utf8), remembersShapes: false)
            let json = try JSON(parsing: text)
            #expect(json == fresh, "\(text)")
            #expect(Self.keyOrders(json) == Self.keyOrders(fresh), "\(text)")
            let reader = JSONArrayReader(bytes: Array(text.utf8))
            if case .array(let elements) = fresh {
                for element in elements {
                    let read = try reader.next()
                    #expect(read == element, "\(text)")
                    #expect(read.map(Self.keyOrders) == Self.keyOrders(element), "\(text)")
                }
                #expect(try reader.next() == nil)
            }
        }
    }
}
