import Foundation
import Testing
@testable import Predicates

/// Random and mutated input never crashes or hangs the lexer, parser,
/// printer or evaluator. `MRQ_SOAK=1` runs 100 times more.
@Suite struct FuzzTests {
    static let scale = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1" ? 100 : 1

    static let seeds = [
        "age > 18 AND name BEGINSWITH[c] 'eng'", "ANY kids.age BETWEEN {1, 10}",
        "SUBQUERY(kids, $k, $k.age > 3 OR $k.name LIKE 'a*').@count > 0", "kids.@avg.age >= average:({1, 2})",
        "FUNCTION(name, 'uppercase:') MATCHES '[A-Z]+'", "tags[FIRST] IN {'a', \"b\"} OR NOT x == nil",
        "born > @2024-01-31T10:00:00Z AND n == 0x1F ** 2 - -3.5e2", "#first == $v AND %K == %@",
        "(a + b) * 2 / c > CAST('1.5', 'NSDecimalNumber')", "name ==[cd] 'Zoë' && !(x != 1 || y <> 2)",
    ]

    static let alphabet: [UInt8] = Array("abcxyz ()[]{}.,:;'\"\\$@%#!=<>+-*/&|0123456789eE_ANDORNOT\n\t".utf8)

    static func check(_ source: String, evaluator: Evaluator) {
        guard let p = try? Predicate(format: source) else { return }
        // Whatever parses must print to something that parses back equal.
        let printed = p.format
        let again = try? Predicate(format: printed)
        #expect(again == p, "\(source) printed as \(printed)")
        _ = try? evaluator.evaluate(p, on: .dictionary(["a": 1, "name": "Zoë", "x": .null, "tags": .string("a")]))
    }

    @Test func randomBytes() {
        var rng = SplitMix64(seed: 7)
        let evaluator = Evaluator(variables: ["v": 1, "k": 2])
        for _ in 0..<(10_000 * Self.scale) {
            let length = Int.random(in: 0...40, using: &rng)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                bytes.append(Bool.random(using: &rng) ? Self.alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng))
            }
            Self.check(String(decoding: bytes, as: UTF8.self), evaluator: evaluator)
            _ = try? SortSpec.parse(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func mutatedPredicates() {
        var rng = SplitMix64(seed: 11)
        let evaluator = Evaluator(variables: ["v": 1])
        for _ in 0..<(10_000 * Self.scale) {
            var bytes = Array(Self.seeds.randomElement(using: &rng)!.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0...4, using: &rng) {
                case 0 where !bytes.isEmpty: bytes.remove(at: i)
                case 1: bytes.insert(Self.alphabet.randomElement(using: &rng)!, at: i)
                case 2 where !bytes.isEmpty: bytes[i] = Self.alphabet.randomElement(using: &rng)!
                case 3: bytes = Array(bytes[..<i])
                default:
                    let j = Int.random(in: i...bytes.count, using: &rng)
                    bytes.insert(contentsOf: bytes[i..<j], at: j)
                }
            }
            Self.check(String(decoding: bytes, as: UTF8.self), evaluator: evaluator)
        }
    }
}
