import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

// MARK: - Seeded randomness

/// SplitMix64: small, fast and the same on every platform.
package struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// The seed the differential tests start from: `MRQ_SEED`, to replay a
    /// failing run, or a fixed one.
    package static let baseSeed = ProcessInfo.processInfo.environment["MRQ_SEED"].flatMap { UInt64($0) } ?? 0x6D72_7121

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    package mutating func advance() { _ = next() }

    package mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    package mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    package mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
    /// 0 up to `n`, as the raw draw modulo `n`.
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

// MARK: - Model and data

/// Item with every scalar type, a to-one Owner, a to-many Part and a
/// many-to-many Label; with `gadget`, Gadget too, a sub-entity of Item with
/// `watts` of its own.
package enum DifferentialModel {
    package static func make(gadget: Bool = false) throws -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        item.add(AttributeDescription(name: "i16", type: .integer16))
        item.add(AttributeDescription(name: "i32", type: .integer32))
        item.add(AttributeDescription(name: "i64", type: .integer64))
        item.add(AttributeDescription(name: "dbl", type: .double))
        item.add(AttributeDescription(name: "flt", type: .float))
        item.add(AttributeDescription(name: "flag", type: .boolean))
        item.add(AttributeDescription(name: "name", type: .string))
        item.add(AttributeDescription(name: "note", type: .string))
        item.add(AttributeDescription(name: "when", type: .date))
        item.add(AttributeDescription(name: "amount", type: .decimal))
        item.add(AttributeDescription(name: "blob", type: .binary))
        item.add(AttributeDescription(name: "token", type: .uuid))
        item.add(AttributeDescription(name: "link", type: .uri))
        item.add(RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"))
        item.add(RelationshipDescription(name: "parts", destination: "Part", inverse: "item", isToMany: true,
                                         deleteRule: .cascade))
        item.add(RelationshipDescription(name: "labels", destination: "Label", inverse: "items", isToMany: true))

        let owner = EntityDescription(name: "Owner")
        owner.add(AttributeDescription(name: "name", type: .string))
        owner.add(AttributeDescription(name: "rank", type: .integer16))
        owner.add(RelationshipDescription(name: "items", destination: "Item", inverse: "owner", isToMany: true))

        let part = EntityDescription(name: "Part")
        part.add(AttributeDescription(name: "qty", type: .integer32))
        part.add(AttributeDescription(name: "weight", type: .double))
        part.add(AttributeDescription(name: "label", type: .string))
        part.add(AttributeDescription(name: "made", type: .date))
        part.add(RelationshipDescription(name: "item", destination: "Item", inverse: "parts"))

        let label = EntityDescription(name: "Label")
        label.add(AttributeDescription(name: "title", type: .string))
        label.add(AttributeDescription(name: "weight", type: .integer64))
        label.add(RelationshipDescription(name: "items", destination: "Item", inverse: "labels", isToMany: true))

        var entities = [item, owner, part, label]
        if gadget {
            let gadget = EntityDescription(name: "Gadget")
            gadget.parentName = "Item"
            gadget.add(AttributeDescription(name: "watts", type: .integer32))
            entities.append(gadget)
        }
        return try ManagedObjectModel(entities: entities)
    }

    package static let smallInts: [Int64] = [-2, -1, 0, 1, 2, 3, 5]
    package static let bigInts: [Int64] = [0, 1, -1, 3, 9_007_199_254_740_993, -9_007_199_254_740_993,
                                   Int64.max, Int64.min + 1, 4_611_686_018_427_387_904]
    package static let doubles: [Double] = [0, 0.5, 1, 2, -1.5, 2.5, 3, 9_007_199_254_740_992, 1e-9, -0.0, 1e300]
    package static let floats: [Double] = [0, 0.5, 1, 2.25, 0.1, -3]
    package static let strings: [String] = [
        "", "a", "A", "abc", "ABC", "Abc", "Zoë", "zoe", "ZOË", "Zoe\u{308}", "é", "e\u{301}", "E",
        "straße", "STRASSE", "日本語", "😀x", "a*b", "a?c", "100%", "under_score", "x.y", "O'Brien",
        "İstanbul", "ﬁsh", "résumé", "Resume", "naïve", "b", "ab", "abcd", " a", "ǅ", "ß",
        // Where Swift's folding is no ASCII lowering: the Kelvin sign, dotless
        // and dotted i, the ﬁ ligature, NFC against NFD.
        "\u{212A}", "k", "K", "ı", "i", "I", "istanbul", "ﬁ", "fi", "FI", "Résumé", "Re\u{301}sume\u{301}", "SS",
    ]
    package static let dates: [Date] = [0, 60, 3600, 86400, -86400, 0.5, 700_000_000].map { Date(timeIntervalSinceReferenceDate: $0) }
    package static let decimals: [Decimal] = [Decimal(string: "1.10")!, 2, Decimal(string: "0.3")!, -5, 0]
    package static let blobs: [Data] = [Data([1, 2]), Data(), Data([0xFF]), Data([1])]
    package static let uuids: [UUID] = [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                                UUID(uuidString: "00000000-0000-0000-0000-000000000001")!]
    package static let urls: [URL] = [URL(string: "https://example.com/a")!, URL(string: "file:///tmp/x")!]

    package static func maybe(_ value: Value, _ random: inout SeededRandom) -> Value {
        random.chance(20) ? .null : value
    }

    /// A fresh store (in memory unless given a type and file) with random
    /// owners, labels, items and parts, saved; returns a new context on it
    /// with nothing registered.
    package static func populate(_ model: ManagedObjectModel, random: inout SeededRandom, layout: SchemaMapping.Layout = .mrq,
                         type: PersistentStoreType = .inMemory, at url: URL? = nil) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        var options = PersistentStoreOptions()
        options.layout = layout
        try coordinator.addPersistentStore(type: type, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var owners: [ManagedObject] = []
        for _ in 0..<3 {
            let owner = context.insertObject(forEntityName: "Owner")
            owner["name"] = maybe(.string(random.pick(strings)), &random)
            owner["rank"] = maybe(.int(random.pick(smallInts)), &random)
            owners.append(owner)
        }
        var labels: [ManagedObject] = []
        for _ in 0..<5 {
            let label = context.insertObject(forEntityName: "Label")
            label["title"] = maybe(.string(random.pick(strings)), &random)
            label["weight"] = maybe(.int(random.pick(bigInts)), &random)
            labels.append(label)
        }
        for _ in 0..<random.int(12...22) {
            let item = context.insertObject(forEntityName: "Item")
            item["i16"] = maybe(.int(random.pick(smallInts)), &random)
            item["i32"] = maybe(.int(random.pick(smallInts)), &random)
            item["i64"] = maybe(.int(random.pick(bigInts)), &random)
            item["dbl"] = maybe(.double(random.pick(doubles)), &random)
            item["flt"] = maybe(.double(random.pick(floats)), &random)
            item["flag"] = maybe(.bool(random.chance(50)), &random)
            item["name"] = maybe(.string(random.pick(strings)), &random)
            item["note"] = maybe(.string(random.pick(strings)), &random)
            item["when"] = maybe(.date(random.pick(dates)), &random)
            item["amount"] = maybe(.decimal(random.pick(decimals)), &random)
            item["blob"] = maybe(.data(random.pick(blobs)), &random)
            item["token"] = maybe(.uuid(random.pick(uuids)), &random)
            item["link"] = maybe(.url(random.pick(urls)), &random)
            if random.chance(80) { item.setObject(random.pick(owners), forKey: "owner") }
            for _ in 0..<random.int(0...4) {
                let part = context.insertObject(forEntityName: "Part")
                part["qty"] = maybe(.int(random.pick(smallInts)), &random)
                part["weight"] = maybe(.double(random.pick(doubles)), &random)
                part["label"] = maybe(.string(random.pick(strings)), &random)
                part["made"] = maybe(.date(random.pick(dates)), &random)
                part.setObject(item, forKey: "item")
            }
            for label in labels where random.chance(30) {
                item.add(label, toKey: "labels")
            }
        }
        try context.save()
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    /// Fires every fault the evaluator could reach, so evaluating is pure
    /// memory work.
    package static func loadEverything(_ item: ManagedObject) {
        _ = item["i16"]
        for part in item.objects(forKey: "parts") { _ = part["qty"] }
        for label in item.objects(forKey: "labels") {
            _ = label["title"]
            _ = label.objects(forKey: "items")
        }
        if let owner = item.object(forKey: "owner") {
            _ = owner["name"]
            for sibling in owner.objects(forKey: "items") { _ = sibling["i16"] }
        }
    }

    package static func dump(_ object: ManagedObject) -> String {
        var text = "#\(object.objectID.primaryKey):"
        for attribute in object.entity.attributes {
            text += " \(attribute.name)=\(Expression.constant(object[attribute.name]).format)"
        }
        if let owner = object.object(forKey: "owner") {
            text += " owner=#\(owner.objectID.primaryKey)(\(Expression.constant(owner["name"]).format), \(Expression.constant(owner["rank"]).format))"
        }
        let parts = object.objects(forKey: "parts").map { part in
            "(" + ["qty", "weight", "label", "made"].map { Expression.constant(part[$0]).format }.joined(separator: ", ") + ")"
        }
        text += " parts=[\(parts.joined(separator: " "))]"
        let labels = object.objects(forKey: "labels").map { label in
            "(" + ["title", "weight"].map { Expression.constant(label[$0]).format }.joined(separator: ", ") + ")"
        }
        text += " labels=[\(labels.joined(separator: " "))]"
        return text
    }
}

// MARK: - Predicates

/// Random, well-typed predicates over Item: every form the evaluator
/// accepts without an error (no division by zero, no arithmetic on
/// strings, valid regular expressions).
package struct PredicateGenerator {
    package var random: SeededRandom

    package init(random: SeededRandom) { self.random = random }

    private static let stringPatterns = ["a*", "*b", "?bc", "*o*", "a\\*b", "*", "?", "Z*", "*ë", "a?c", "", "*%*", "*_*"]
    private static let regexes = ["a.*", "[A-Z].*", ".*ö.*", "(?i)abc", "a|b", "[a-z]{3}", ".*e\u{301}", "\\p{L}+", "", ".?"]
    private static let optionSets: [Comparison.Options] = [[], [], [.caseInsensitive], [.diacriticInsensitive],
                                                           [.caseInsensitive, .diacriticInsensitive], [.normalized]]

    private func key(_ path: String) -> Expression { .keyPath(path) }
    private func constant(_ value: Value) -> Expression { .constant(value) }

    private func comparison(_ lhs: Expression, _ op: Comparison.Operator, _ rhs: Expression,
                            _ modifier: Comparison.Modifier = .direct, options: Comparison.Options = []) -> Predicate {
        Predicate(.comparison(Comparison(modifier, op, lhs, rhs, options: options)))
    }

    package mutating func predicate(depth: Int) -> Predicate {
        if depth > 0 && random.chance(35) {
            switch random.int(0...3) {
            case 0: return Predicate(.not(predicate(depth: depth - 1)))
            case 1: return Predicate(.or([predicate(depth: depth - 1), predicate(depth: depth - 1)]))
            default: return Predicate(.and([predicate(depth: depth - 1), predicate(depth: depth - 1)]))
            }
        }
        return leaf(depth: depth)
    }

    private mutating func leaf(depth: Int) -> Predicate {
        switch random.int(0...15) {
        case 0, 1: return numericComparison()
        case 2, 3: return stringComparison(key(random.pick(["name", "note", "owner.name"])))
        case 4: return nilComparison()
        case 5: return between()
        case 6: return membership()
        case 7, 8: return quantified()
        case 9: return collectionComparison()
        case 10: return subquery(depth: depth)
        case 11: return dateComparison()
        case 12: return random.chance(50) ? crossTypeComparison() : stringFormComparison()
        case 13: return toOne()
        case 14: return random.chance(10) ? Predicate(.constant(random.chance(50))) : arithmetic()
        default: return random.chance(50) ? uniformType() : assignment()
        }
    }

    private mutating func numericOperand() -> Expression {
        switch random.int(0...9) {
        case 0...4: return key(random.pick(["i16", "i32", "i64", "dbl", "flt", "owner.rank"]))
        case 5: return key("flag")
        default: return numericConstant()
        }
    }

    private mutating func numericConstant() -> Expression {
        switch random.int(0...5) {
        case 0, 1: return constant(.int(random.pick(DifferentialModel.smallInts)))
        case 2: return constant(.int(random.pick(DifferentialModel.bigInts)))
        case 3: return constant(.double(random.pick(DifferentialModel.doubles)))
        case 4: return constant(.bool(random.chance(50)))
        default: return constant(.double(random.pick(DifferentialModel.floats)))
        }
    }

    private mutating func orderingOperator() -> Comparison.Operator {
        random.pick([.equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual])
    }

    private mutating func numericComparison() -> Predicate {
        let lhs = numericOperand()
        let rhs = random.chance(70) ? numericConstant() : numericOperand()
        return random.chance(20) ? comparison(rhs, orderingOperator(), lhs) : comparison(lhs, orderingOperator(), rhs)
    }

    private mutating func stringConstant() -> Expression {
        constant(.string(random.pick(DifferentialModel.strings)))
    }

    private mutating func stringComparison(_ lhs: Expression) -> Predicate {
        let options = random.pick(Self.optionSets)
        switch random.int(0...9) {
        case 0...2:
            let rhs = random.chance(75) ? stringConstant() : key(random.pick(["name", "note", "owner.name"]))
            return comparison(lhs, orderingOperator(), rhs, options: options)
        case 3...5:
            let op: Comparison.Operator = random.pick([.beginsWith, .endsWith, .contains])
            let rhs = random.chance(80) ? stringConstant() : key(random.pick(["name", "note"]))
            return comparison(lhs, op, rhs, options: options)
        case 6, 7:
            let rhs = random.chance(80) ? constant(.string(random.pick(Self.stringPatterns))) : key("note")
            return comparison(lhs, .like, rhs, options: options)
        default:
            return comparison(lhs, .matches, constant(.string(random.pick(Self.regexes))), options: options)
        }
    }

    private mutating func anyAttribute() -> String {
        random.pick(["i16", "i32", "i64", "dbl", "flt", "flag", "name", "note", "when", "amount", "blob", "token",
                     "link", "owner", "owner.name", "owner.rank"])
    }

    private mutating func nilComparison() -> Predicate {
        let path = key(anyAttribute())
        let op: Comparison.Operator = random.pick([.equal, .equal, .notEqual, .notEqual, .less, .greaterEqual])
        if random.chance(25) {
            // Two nullable operands: nil == nil holds in memory.
            let other = random.pick(["i16", "i32", "dbl", "flt", "flag"])
            return comparison(key(random.pick(["i16", "i32", "dbl"])), random.pick([.equal, .notEqual]), key(other))
        }
        return random.chance(30) ? comparison(constant(.null), op, path) : comparison(path, op, constant(.null))
    }

    private mutating func between() -> Predicate {
        switch random.int(0...3) {
        case 0:
            let bounds = [numericConstant(), numericConstant()]
            return comparison(numericOperand(), .between, Expression(.aggregate(bounds)))
        case 1:
            let bounds = [stringConstant(), stringConstant()]
            return comparison(key(random.pick(["name", "note"])), .between, Expression(.aggregate(bounds)),
                              options: random.pick(Self.optionSets))
        case 2:
            let bounds = [constant(.date(random.pick(DifferentialModel.dates))), constant(.date(random.pick(DifferentialModel.dates)))]
            return comparison(key("when"), .between, Expression(.aggregate(bounds)))
        default:
            let bounds = [numericConstant(), random.chance(20) ? constant(.null) : numericConstant()]
            return comparison(arithmeticExpression(), .between, Expression(.aggregate(bounds)))
        }
    }

    private mutating func membership() -> Predicate {
        switch random.int(0...3) {
        case 0:
            let items = (0..<random.int(0...3)).map { _ in numericConstant() }
            return comparison(numericOperand(), .in, Expression(.aggregate(items)))
        case 1:
            let items = (0..<random.int(1...3)).map { _ in stringConstant() }
            return comparison(key(random.pick(["name", "note", "owner.name"])), .in, Expression(.aggregate(items)),
                              options: random.pick(Self.optionSets))
        case 2:
            return comparison(key(random.pick(["name", "note"])), .in, stringConstant(), options: random.pick(Self.optionSets))
        default:
            let items = [constant(.uuid(random.pick(DifferentialModel.uuids))), constant(random.chance(30) ? .null : .uuid(random.pick(DifferentialModel.uuids)))]
            return comparison(key("token"), .in, Expression(.aggregate(items)))
        }
    }

    /// ANY/ALL/NONE (or none written: implicit ANY) over a to-many.
    private mutating func quantified() -> Predicate {
        let modifier: Comparison.Modifier = random.pick([.direct, .any, .all, .none])
        switch random.int(0...6) {
        case 0: return comparison(key("parts.qty"), orderingOperator(), numericConstant(), modifier)
        case 1: return comparison(key("parts.weight"), orderingOperator(), random.chance(80) ? numericConstant() : constant(.null), modifier)
        case 2:
            var p = stringComparison(key(random.pick(["parts.label", "labels.title", "owner.items.name"])))
            if case .comparison(var c) = p.kind { c.modifier = modifier; p = Predicate(.comparison(c)) }
            return p
        case 3: return comparison(key("parts.made"), orderingOperator(), constant(.date(random.pick(DifferentialModel.dates))), modifier)
        case 4: return comparison(key("labels.weight"), orderingOperator(), numericConstant(), modifier)
        case 5:
            let items = (0..<random.int(1...3)).map { _ in constant(.int(random.pick(DifferentialModel.smallInts))) }
            return comparison(key("parts.qty"), .in, Expression(.aggregate(items)), modifier)
        default:
            return comparison(key(random.pick(["parts.qty", "labels.weight"])), .between,
                              Expression(.aggregate([numericConstant(), numericConstant()])), modifier)
        }
    }

    private mutating func collectionExpression() -> Expression {
        switch random.int(0...9) {
        case 0: return Expression(.collection(.count, key("parts"), key: []))
        case 1: return Expression(.collection(.count, key("labels"), key: []))
        case 2: return Expression(.collection(.sum, key("parts"), key: ["qty"]))
        case 3: return Expression(.collection(.sum, key("parts"), key: ["weight"]))
        case 4: return Expression(.collection(.avg, key("parts"), key: [random.pick(["qty", "weight"])]))
        case 5: return Expression(.collection(.min, key("parts"), key: [random.pick(["qty", "weight"])]))
        case 6: return Expression(.collection(.max, key("labels"), key: ["weight"]))
        case 7: return Expression(.collection(.count, key("owner.items"), key: []))
        case 8: return Expression(.collection(.sum, key("labels"), key: ["weight"]))
        default: return Expression(.collection(.max, key("parts"), key: ["qty"]))
        }
    }

    private mutating func collectionComparison() -> Predicate {
        switch random.int(0...5) {
        case 0:
            return comparison(collectionExpression(), .between, Expression(.aggregate([numericConstant(), numericConstant()])))
        case 1:
            return comparison(collectionExpression(), random.pick([.equal, .notEqual]), constant(.null))
        case 2:
            let dateOp: CollectionOperator = random.pick([.min, .max])
            return comparison(Expression(.collection(dateOp, key("parts"), key: ["made"])), orderingOperator(),
                              constant(.date(random.pick(DifferentialModel.dates))))
        case 3:
            return comparison(collectionExpression(), orderingOperator(), collectionExpression())
        default:
            return comparison(collectionExpression(), orderingOperator(), numericConstant())
        }
    }

    /// `SUBQUERY(parts, $p, …).@count op n`.
    private mutating func subquery(depth: Int) -> Predicate {
        let variable = "p"
        func member(_ key: String) -> Expression { Expression(.member(Expression(.variable(variable)), [key])) }
        var inner: Predicate
        let useLabels = random.chance(30)
        if useLabels {
            inner = random.chance(50)
                ? comparison(member("title"), random.pick([.beginsWith, .contains, .equal, .like]), random.chance(50) ? stringConstant() : constant(.string(random.pick(Self.stringPatterns))),
                             options: random.pick(Self.optionSets))
                : comparison(member("weight"), orderingOperator(), numericConstant())
        } else {
            switch random.int(0...3) {
            case 0: inner = comparison(member("qty"), orderingOperator(), numericConstant())
            case 1: inner = comparison(member("label"), random.pick([.beginsWith, .endsWith, .equal, .notEqual]), stringConstant(),
                                       options: random.pick(Self.optionSets))
            case 2: inner = comparison(key("weight"), orderingOperator(), random.chance(85) ? numericConstant() : constant(.null))
            default: inner = comparison(member("made"), .equal, constant(.null))
            }
            if random.chance(40) {
                let extra = comparison(member("qty"), orderingOperator(), key("weight"))
                inner = random.chance(50) ? Predicate(.and([inner, extra])) : Predicate(.or([inner, Predicate(.not(extra))]))
            }
        }
        let sub = Expression(.subquery(collection: key(useLabels ? "labels" : "parts"), variable: variable, predicate: inner))
        let count = Expression(.collection(.count, sub, key: []))
        return comparison(count, orderingOperator(), constant(.int(Int64(random.int(0...3)))))
    }

    private mutating func dateComparison() -> Predicate {
        let value = constant(.date(random.pick(DifferentialModel.dates)))
        switch random.int(0...3) {
        case 0:
            let shifted = Expression(.binary(.add, key("when"), constant(.int(Int64(random.pick([60, -60, 86400]))))))
            return comparison(shifted, orderingOperator(), value)
        case 1:
            let seconds = Expression(.cast(constant(.double(random.pick([0, 60, 3600, 700_000_000]))), .date))
            return comparison(key("when"), orderingOperator(), seconds)
        default:
            return comparison(key(random.pick(["when", "when"])), orderingOperator(), value)
        }
    }

    /// Kinds that never meet in a well-typed schema: strings against
    /// numbers, dates against numbers, decimals, UUIDs, URLs, data.
    private mutating func crossTypeComparison() -> Predicate {
        switch random.int(0...8) {
        case 0: return comparison(key("name"), random.pick([.equal, .notEqual, .less]), numericConstant())
        case 1: return comparison(key("when"), orderingOperator(), numericConstant())
        case 2: return comparison(key("amount"), orderingOperator(), numericConstant())
        case 3: return comparison(key("token"), random.pick([.equal, .notEqual]), constant(.uuid(random.pick(DifferentialModel.uuids))))
        case 4: return comparison(key("token"), .equal, constant(.string(DifferentialModel.uuids[0].uuidString)))
        case 5: return comparison(key("blob"), random.pick([.equal, .notEqual]), constant(.data(random.pick(DifferentialModel.blobs))))
        case 6: return comparison(key("link"), random.pick([.equal, .notEqual]), constant(.url(random.pick(DifferentialModel.urls))))
        case 7: return comparison(key("flag"), orderingOperator(), key(random.pick(["i16", "dbl", "flt"])))
        default: return comparison(key("dbl"), orderingOperator(), key(random.pick(["i16", "i64", "flt"])))
        }
    }

    /// UUIDs and URIs with their string forms, as Core Data's SQLite store
    /// compares them: a UUID equals the string that spells it (in either
    /// case), a URI reads as its absolute string.
    private mutating func stringFormComparison() -> Predicate {
        let uuid = random.pick(DifferentialModel.uuids).uuidString
        let spelled = random.pick([uuid, uuid.lowercased(), "not-a-uuid", "E621E1F8"])
        let link = random.pick(DifferentialModel.urls).absoluteString
        switch random.int(0...6) {
        case 0: return comparison(key("token"), random.pick([.equal, .notEqual]), constant(.string(spelled)))
        case 1: return comparison(constant(.string(spelled)), random.pick([.equal, .notEqual]), key("token"))
        case 2:
            let items = [constant(.string(uuid)), constant(.string(random.pick(DifferentialModel.uuids).uuidString.lowercased()))]
            return comparison(key("token"), .in, Expression(.aggregate(items)))
        case 3: return comparison(key("token"), random.pick([.beginsWith, .contains, .endsWith]), constant(.string(random.pick(["E621", "0001", "-", "e621"]))),
                                  options: random.pick(Self.optionSets))
        case 4: return comparison(key("link"), random.pick([.equal, .notEqual, .less, .greaterEqual]),
                                  constant(.string(random.pick([link, "https", "file:///tmp/x", "HTTPS://EXAMPLE.COM/A"]))),
                                  options: random.pick(Self.optionSets))
        case 5:
            let op: Comparison.Operator = random.pick([.beginsWith, .endsWith, .contains, .like, .matches])
            let patterns = op == .matches ? ["h.*", "HTTPS.*", ".*example.*", "file:.*", ""]
                : ["https", "HTTPS", "/x", "example", "*example*", "file:*", "h?tps*", ""]
            return comparison(key("link"), op, constant(.string(random.pick(patterns))), options: random.pick(Self.optionSets))
        default:
            let items = [constant(.string(link)), constant(.string(random.pick(["https://example.com/a", "nope"])))]
            return comparison(key("link"), .in, Expression(.aggregate(items)), options: random.pick(Self.optionSets))
        }
    }

    private mutating func toOne() -> Predicate {
        switch random.int(0...3) {
        case 0: return comparison(key("owner"), random.pick([.equal, .notEqual]), constant(.null))
        case 1: return comparison(key("owner.rank"), orderingOperator(), numericConstant())
        case 2: return comparison(key("owner.items.i16"), orderingOperator(), numericConstant(), random.pick([.direct, .any, .all, .none]))
        default: return stringComparison(key("owner.name"))
        }
    }

    private mutating func arithmeticExpression() -> Expression {
        let a = random.chance(80) ? key(random.pick(["i16", "i32", "i64", "dbl", "flt", "owner.rank"])) : numericConstant()
        let b = random.chance(50) ? key(random.pick(["i16", "i32", "dbl"])) : constant(.int(random.pick(DifferentialModel.smallInts)))
        switch random.int(0...5) {
        case 0: return Expression(.binary(.add, a, b))
        case 1: return Expression(.binary(.subtract, a, b))
        case 2: return Expression(.binary(.multiply, a, b))
        case 3: return Expression(.negate(a))
        case 4: return Expression(.binary(.divide, a, constant(.int(random.pick([2, -3, 4])))))
        default: return Expression(.binary(.add, Expression(.binary(.multiply, a, constant(.int(2)))), collectionExpression()))
        }
    }

    /// UTI-CONFORMS-TO (an IN-list in SQL) and UTI-EQUALS over strings,
    /// some of them uniform type identifiers.
    private mutating func uniformType() -> Predicate {
        let types = ["public.image", "public.jpeg", "public.data", "public.item", "abc", "a", "public.text"]
        let rhs: Expression = random.chance(80) ? constant(.string(random.pick(types + DifferentialModel.strings))) : key("note")
        return comparison(key(random.pick(["name", "note", "owner.name", "labels.title"])),
                          random.pick([.utiConformsTo, .utiEquals]), rhs, random.chance(80) ? .direct : .any)
    }

    /// `($v := operand) op constant AND $v …`: evaluated in memory.
    private mutating func assignment() -> Predicate {
        let assigned = Expression(.assignment("v", numericOperand()))
        let first = comparison(assigned, orderingOperator(), numericConstant())
        return Predicate(.and([first, comparison(Expression(.variable("v")), orderingOperator(), numericConstant())]))
    }

    private mutating func arithmetic() -> Predicate {
        let rhs = random.chance(25) ? constant(.null) : numericConstant()
        return comparison(arithmeticExpression(), orderingOperator(), rhs)
    }
}
