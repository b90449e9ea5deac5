import Foundation
import Predicates
import Testing

/// Values as dictionary and set keys: integers and strings hash as
/// themselves, every other case through the general hasher; equal values
/// must land together and different ones stay apart.
@Suite struct ValueHashingTests {
    static let samples: [Value] = [
        .null, .bool(true), .bool(false), .int(0), .int(1), .int(-1), .int(.max), .double(1), .double(0.5),
        .decimal(Decimal(string: "1.25")!), .string(""), .string("a"), .string("a longer string than fifteen bytes"),
        .string("é"), .date(Date(timeIntervalSinceReferenceDate: 0)), .data(Data([1, 2])),
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), .url(URL(string: "https://example.com")!),
    ]

    @Test func everyValueIsFoundAgainAndOnlyItself() {
        var table: [Value: Int] = [:]
        for (n, value) in Self.samples.enumerated() { table[value] = n }
        #expect(table.count == Self.samples.count)
        for (n, value) in Self.samples.enumerated() {
            #expect(table[value] == n, "\(value)")
        }
        // Equal values made separately, from other storage.
        #expect(table[.string(String("a longer string than ") + "fifteen bytes")] == 12)
        #expect(table[.int(Int64("1")!)] == 4)
        #expect(table[.string("e\u{301}")] == 13, "canonically equal strings are equal keys")
    }

    @Test func equalValuesHashAlikeAndTheSetDeduplicates() {
        let doubled = Self.samples + Self.samples.reversed()
        #expect(Set(doubled).count == Self.samples.count)
        let copies: [(Value, Value)] = [
            (.int(42), .int(Int64(6 * 7))),
            (.string("hello"), .string(String(["h", "e", "l", "l", "o"]))),
            (.string(String(repeating: "x", count: 40)), .string(String(repeating: "x", count: 40))),
            (.double(0.5), .double(1.0 / 2)),
        ]
        for (one, other) in copies {
            #expect(one == other)
            #expect(one.hashValue == other.hashValue)
            #expect(Set([one, other]).count == 1)
        }
    }
}
