import Foundation
import Predicates

/// NSPredicate and NSExpression as `NSKeyedArchiver` archives them, to and
/// from mrq's predicate trees.
///
/// What the archive holds (Apple's classes and keys; the real model caches
/// hold `NSComparisonPredicate`, `NSComparisonPredicateOperator`,
/// `NSSelfExpression` and `NSConstantValueExpression`, the rest follows the
/// keyed coding of Apportable's open NSPredicate, which reads Apple's
/// archives):
///
/// | class | keys |
/// |---|---|
/// | NSComparisonPredicate | NSLeftExpression, NSRightExpression, NSPredicateOperator |
/// | NSCompoundPredicate | NSSubpredicates (array), NSCompoundPredicateType (0 NOT, 1 AND, 2 OR) |
/// | NSTruePredicate, NSFalsePredicate | none |
/// | NSComparisonPredicateOperator (< <= > >=) | NSOperatorType, NSModifier, NSVariant (= the type), NSOptions |
/// | NSEqualityPredicateOperator (== !=) | NSOperatorType, NSModifier, NSNegate, NSOptions |
/// | NSLikePredicateOperator, NSMatchingPredicateOperator | NSOperatorType, NSModifier, NSFlags |
/// | NSSubstringPredicateOperator (BEGINSWITH, ENDSWITH) | … NSFlags, NSPosition (0 begins, 1 ends) |
/// | NSInPredicateOperator (IN, CONTAINS) | NSOperatorType, NSModifier, NSFlags |
/// | NSBetweenPredicateOperator | NSOperatorType, NSModifier |
/// | NSConstantValueExpression (type 0) | NSConstantValue, or NSConstantValueClassName for a class |
/// | NSSelfExpression (1) | NSExpressionType |
/// | NSVariableExpression (2) | NSVariable |
/// | NSKeyPathExpression (3) | NSOperand, NSSelectorName (`valueForKey:`, `valueForKeyPath:`), NSArguments ([NSKeyPathSpecifierExpression]) |
/// | NSKeyPathSpecifierExpression (10) | NSKeyPath |
/// | NSFunctionExpression (4) | NSOperand (`_NSPredicateUtilities` for the built-in functions), NSSelectorName, NSArguments |
/// | NSSubqueryExpression (13) | NSExpression, NSVariable, NSSubpredicate |
/// | NSAggregateExpression (14) | NSCollection (array of expressions) |
///
/// Operator types: < 0, <= 1, > 2, >= 3, == 4, != 5, MATCHES 6, LIKE 7,
/// BEGINSWITH 8, ENDSWITH 9, IN 10, CONTAINS 99, BETWEEN 100. Modifiers:
/// direct 0, ALL 1, ANY 2; NONE is archived as NOT (ANY …), as Apple's
/// parser builds it. Options: [c] 1, [d] 2, [n] 4.
enum PredicateArchive {
    // MARK: Writing

    /// The archive objects for `predicate`. Index subscripts (`a[0]`),
    /// unary minus on a non-constant and unfilled placeholders have no
    /// archived form mrq knows, and throw.
    /// The archived NSExpression of `format`, an expression as mrq prints
    /// one; throws when it does not parse or has no archived form.
    static func expressionNode(format: String) throws -> ArchiveNode {
        let comparison = try Predicates.Predicate(format: "(\(format)) == nil")
        guard case .comparison(let c) = comparison.kind else {
            throw PredicateArchiveError("'\(format)' is not an expression")
        }
        return try expression(c.lhs)
    }

    static func node(for predicate: Predicates.Predicate) throws -> ArchiveNode {
        switch predicate.kind {
        case .constant(let value):
            return ArchiveNode([value ? "NSTruePredicate" : "NSFalsePredicate", "NSPredicate", "NSObject"])
        case .not(let operand):
            return compound(0, [try node(for: operand)])
        case .and(let operands):
            return compound(1, try operands.map(node(for:)))
        case .or(let operands):
            return compound(2, try operands.map(node(for:)))
        case .comparison(let comparison):
            if comparison.modifier == .none {
                var any = comparison
                any.modifier = .any
                return compound(0, [try self.comparison(any)])
            }
            return try self.comparison(comparison)
        }
    }

    private static func compound(_ type: Int, _ parts: [ArchiveNode]) -> ArchiveNode {
        let node = ArchiveNode(["NSCompoundPredicate", "NSPredicate", "NSObject"])
        node.set("NSSubpredicates", .object(.node(.array(parts.map { .node($0) }))))
        node.set("NSCompoundPredicateType", .int(type))
        return node
    }

    private static func comparison(_ c: Comparison) throws -> ArchiveNode {
        if c.op == .utiConformsTo || c.op == .utiEquals {
            throw PredicateArchiveError("\(c.op.rawValue) has no archived NSPredicateOperator form mrq knows")
        }
        let node = ArchiveNode(["NSComparisonPredicate", "NSPredicate", "NSObject"])
        node.set("NSLeftExpression", .object(.node(try expression(c.lhs))))
        node.set("NSRightExpression", .object(.node(try expression(c.rhs))))
        node.set("NSPredicateOperator", .object(.node(operatorNode(c))))
        return node
    }

    private static func operatorNode(_ c: Comparison) -> ArchiveNode {
        let type = operatorType(c.op)
        let modifier = c.modifier == .all ? 1 : c.modifier == .direct ? 0 : 2
        let options = Int(c.options.rawValue)
        let node: ArchiveNode
        switch c.op {
        case .less, .lessEqual, .greater, .greaterEqual:
            node = ArchiveNode(["NSComparisonPredicateOperator", "NSPredicateOperator", "NSObject"])
        case .equal, .notEqual:
            node = ArchiveNode(["NSEqualityPredicateOperator", "NSPredicateOperator", "NSObject"])
        case .like:
            node = ArchiveNode(["NSLikePredicateOperator", "NSStringPredicateOperator", "NSPredicateOperator", "NSObject"])
        case .matches:
            node = ArchiveNode(["NSMatchingPredicateOperator", "NSStringPredicateOperator", "NSPredicateOperator", "NSObject"])
        case .beginsWith, .endsWith:
            node = ArchiveNode(["NSSubstringPredicateOperator", "NSStringPredicateOperator", "NSPredicateOperator", "NSObject"])
        case .in, .contains:
            node = ArchiveNode(["NSInPredicateOperator", "NSPredicateOperator", "NSObject"])
        case .between, .utiConformsTo, .utiEquals:
            // (The uniform type operators are refused before.)
            node = ArchiveNode(["NSBetweenPredicateOperator", "NSPredicateOperator", "NSObject"])
        }
        node.set("NSOperatorType", .int(type))
        node.set("NSModifier", .int(modifier))
        switch c.op {
        case .less, .lessEqual, .greater, .greaterEqual:
            node.set("NSVariant", .int(type))
            node.set("NSOptions", .int(options))
        case .equal, .notEqual:
            node.set("NSNegate", .bool(c.op == .notEqual))
            node.set("NSOptions", .int(options))
        case .like, .matches, .in, .contains:
            node.set("NSFlags", .int(options))
        case .beginsWith, .endsWith:
            node.set("NSFlags", .int(options))
            node.set("NSPosition", .int(c.op == .beginsWith ? 0 : 1))
        case .between, .utiConformsTo, .utiEquals:
            break
        }
        return node
    }

    private static func operatorType(_ op: Comparison.Operator) -> Int {
        switch op {
        case .less: 0
        case .lessEqual: 1
        case .greater: 2
        case .greaterEqual: 3
        case .equal: 4
        case .notEqual: 5
        case .matches: 6
        case .like: 7
        case .beginsWith: 8
        case .endsWith: 9
        case .in: 10
        case .contains: 99
        case .between, .utiConformsTo, .utiEquals: 100
        }
    }

    private static func expressionNode(_ className: String, type: Int, superclasses: [String] = ["NSExpression", "NSObject"]) -> ArchiveNode {
        let node = ArchiveNode([className] + superclasses)
        node.set("NSExpressionType", .int(type))
        return node
    }

    private static func expression(_ e: Predicates.Expression) throws -> ArchiveNode {
        switch e.kind {
        case .constant(let value):
            let node = expressionNode("NSConstantValueExpression", type: 0)
            node.set("NSConstantValue", .object(ArchivedValues.item(value)))
            return node
        case .evaluatedObject:
            return expressionNode("NSSelfExpression", type: 1)
        case .variable(let name):
            let node = expressionNode("NSVariableExpression", type: 2)
            node.set("NSVariable", .object(.string(name)))
            return node
        case .keyPath(let keys):
            return keyPath(operand: expressionNode("NSSelfExpression", type: 1), keys)
        case .member(let base, let keys):
            return keyPath(operand: try expression(base), keys)
        case .collection(let op, let base, let key):
            let keys = [op.format] + key
            switch base.kind {
            case .evaluatedObject: return keyPath(operand: expressionNode("NSSelfExpression", type: 1), keys)
            case .keyPath(let path): return keyPath(operand: expressionNode("NSSelfExpression", type: 1), path + keys)
            default: return keyPath(operand: try expression(base), keys)
            }
        case .aggregate(let elements):
            let node = expressionNode("NSAggregateExpression", type: 14)
            node.set("NSCollection", .object(.node(.array(try elements.map { .node(try expression($0)) }))))
            return node
        case .subquery(let collection, let variable, let predicate):
            let node = expressionNode("NSSubqueryExpression", type: 13)
            node.set("NSExpression", .object(.node(try expression(collection))))
            node.set("NSVariable", .object(.string(variable)))
            node.set("NSSubpredicate", .object(.node(try self.node(for: predicate))))
            return node
        case .function(let function, let arguments):
            return utility(function.selector, try arguments.map(expression))
        case .binary(let op, let lhs, let rhs):
            let selector: String = switch op {
            case .add: "add:to:"
            case .subtract: "from:subtract:"
            case .multiply: "multiply:by:"
            case .divide: "divide:by:"
            case .power: "raise:toPower:"
            }
            return utility(selector, [try expression(lhs), try expression(rhs)])
        case .cast(let operand, let type):
            let target = expressionNode("NSConstantValueExpression", type: 0)
            target.set("NSConstantValue", .object(.string(type.rawValue)))
            return utility("castObject:toType:", [try expression(operand), target])
        case .method(let receiver, let selector, let arguments):
            let node = expressionNode("NSFunctionExpression", type: 4)
            node.set("NSSelectorName", .object(.string(selector)))
            node.set("NSOperand", .object(.node(try expression(receiver))))
            node.set("NSArguments", .object(.node(.array(try arguments.map { .node(try expression($0)) }))))
            return node
        case .negate(let operand):
            if case .constant(let value) = operand.kind {
                switch value {
                case .int(let n) where n != .min: return try expression(.constant(.int(-n)))
                case .double(let d): return try expression(.constant(.double(-d)))
                case .decimal(let d): return try expression(.constant(.decimal(-d)))
                default: break
                }
            }
            throw PredicateArchiveError("unary minus on '\(operand.format)' has no archived NSExpression form mrq knows")
        case .assignment:
            throw PredicateArchiveError("assignments like '\(e.format)' have no archived NSExpression form mrq knows")
        case .index:
            throw PredicateArchiveError("subscripts like '\(e.format)' have no archived NSExpression form mrq knows")
        case .placeholder(let spec):
            throw PredicateArchiveError("the placeholder \(spec.rawValue) has no value")
        case .object(let reference):
            throw PredicateArchiveError("the object \(reference) is no constant a model can keep: write a $variable in its place and bind it when fetching")
        }
    }

    private static func keyPath(operand: ArchiveNode, _ keys: [String]) -> ArchiveNode {
        let path = keys.joined(separator: ".")
        let specifier = expressionNode("NSKeyPathSpecifierExpression", type: 10)
        specifier.set("NSKeyPath", .object(.string(path)))
        let node = expressionNode("NSKeyPathExpression", type: 3, superclasses: ["NSFunctionExpression", "NSExpression", "NSObject"])
        node.set("NSSelectorName", .object(.string(keys.count == 1 ? "valueForKey:" : "valueForKeyPath:")))
        node.set("NSOperand", .object(.node(operand)))
        node.set("NSArguments", .object(.node(.array([.node(specifier)]))))
        return node
    }

    /// A call of one of NSExpression's built-in functions: Apple archives
    /// them with the class `_NSPredicateUtilities` as the operand.
    private static func utility(_ selector: String, _ arguments: [ArchiveNode]) -> ArchiveNode {
        let operand = expressionNode("NSConstantValueExpression", type: 0)
        operand.set("NSConstantValueClassName", .object(.string("_NSPredicateUtilities")))
        let node = expressionNode("NSFunctionExpression", type: 4)
        node.set("NSSelectorName", .object(.string(selector)))
        node.set("NSOperand", .object(.node(operand)))
        node.set("NSArguments", .object(.node(.array(arguments.map { .node($0) }))))
        return node
    }

    // MARK: Reading

    /// The predicate an archived NSPredicate stands for. A class or an
    /// operator mrq does not know throws, naming the object.
    ///
    /// The tree is printed and parsed again, so that it is the tree mrq's
    /// parser makes of the same text (`tags.@count` is a key path in the
    /// archive and a collection operator in mrq).
    static func predicate(_ object: KeyedObject) throws -> Predicates.Predicate {
        var depth = 0
        let tree = try predicate(object, depth: &depth)
        let format = tree.format
        do {
            return try Predicates.Predicate(format: format)
        } catch {
            // The text can be as long as the archive allows: show its start.
            let shown = format.count > 200 ? format.prefix(200) + "…" : Substring(format)
            throw KeyedArchiveError("object \(object.index): the predicate reads as '\(shown)', which mrq cannot parse: \(error.message)", unknown: true)
        }
    }

    /// An archived NSExpression as mrq prints expressions (a fetch index
    /// element over an expression holds one).
    static func expressionFormat(_ object: KeyedObject) throws -> String {
        var depth = 0
        return Printer.format(try expression(object, depth: &depth))
    }

    private static func nest(_ depth: inout Int, _ object: KeyedObject) throws {
        depth += 1
        guard depth <= KeyedArchive.maximumDepth else {
            throw KeyedArchiveError("object \(object.index) (\(object.className)): the predicate nests more than \(KeyedArchive.maximumDepth) deep")
        }
    }

    private static func predicate(_ object: KeyedObject, depth: inout Int) throws -> Predicates.Predicate {
        try nest(&depth, object)
        defer { depth -= 1 }
        switch object.className {
        case "NSTruePredicate": return .truePredicate
        case "NSFalsePredicate": return .falsePredicate
        case "NSCompoundPredicate":
            let parts = try object.elements("NSSubpredicates").map { uid -> Predicates.Predicate in
                try predicate(try object.archive.object(at: uid), depth: &depth)
            }
            switch try object.int("NSCompoundPredicateType") {
            case 0?:
                guard parts.count == 1, let only = parts.first else {
                    throw object.error("NSSubpredicates", "a NOT predicate with \(parts.count) subpredicates")
                }
                if case .comparison(var c) = only.kind, c.modifier == .any {
                    c.modifier = .none
                    return Predicates.Predicate(.comparison(c))
                }
                return Predicates.Predicate(.not(only))
            case 1?, 2?:
                let isAnd = try object.int("NSCompoundPredicateType") == 1
                switch parts.count {
                case 0: return isAnd ? .truePredicate : .falsePredicate
                case 1: return parts[0]
                default: return Predicates.Predicate(isAnd ? .and(parts) : .or(parts))
                }
            case let other:
                throw object.unknown("NSCompoundPredicateType", "unknown compound type \(other.map(String.init) ?? "nil")")
            }
        case "NSComparisonPredicate":
            let lhs = try expression(try object.object("NSLeftExpression", of: "NSExpression"), depth: &depth)
            let rhs = try expression(try object.object("NSRightExpression", of: "NSExpression"), depth: &depth)
            let op = try object.object("NSPredicateOperator", of: "NSPredicateOperator")
            let (modifier, type, options) = try comparisonOperator(op)
            return Predicates.Predicate(.comparison(Comparison(modifier, type, lhs, rhs, options: options)))
        default:
            throw KeyedArchiveError("object \(object.index): mrq cannot read predicates of class \(object.className)", unknown: true)
        }
    }

    private static func comparisonOperator(_ op: KeyedObject) throws -> (Comparison.Modifier, Comparison.Operator, Comparison.Options) {
        guard let typeNumber = try op.int("NSOperatorType") else { throw op.error("NSOperatorType", "missing") }
        let types: [Int: Comparison.Operator] = [
            0: .less, 1: .lessEqual, 2: .greater, 3: .greaterEqual, 4: .equal, 5: .notEqual, 6: .matches,
            7: .like, 8: .beginsWith, 9: .endsWith, 10: .in, 99: .contains, 100: .between,
        ]
        guard var type = types[typeNumber] else {
            throw op.unknown("NSOperatorType", "operator type \(typeNumber) is not one mrq knows (custom selectors are not)")
        }
        if op.className == "NSEqualityPredicateOperator", try op.bool("NSNegate") == true { type = .notEqual }
        let modifier: Comparison.Modifier
        switch try op.int("NSModifier") ?? 0 {
        case 0: modifier = .direct
        case 1: modifier = .all
        case 2: modifier = .any
        case let other: throw op.unknown("NSModifier", "unknown modifier \(other)")
        }
        let flags = try op.int("NSOptions") ?? op.int("NSFlags") ?? 0
        return (modifier, type, Comparison.Options(rawValue: UInt8(truncatingIfNeeded: flags & 0x7)))
    }

    private static func expression(_ object: KeyedObject, depth: inout Int) throws -> Predicates.Expression {
        try nest(&depth, object)
        defer { depth -= 1 }
        let archive = object.archive
        switch object.className {
        case "NSConstantValueExpression":
            if let className = try object.string("NSConstantValueClassName") {
                throw object.unknown("NSConstantValueClassName", "a constant that is the class \(className)")
            }
            return .constant(try ArchivedValues.value(try object.value("NSConstantValue") ?? .null, in: object, key: "NSConstantValue"))
        case "NSSelfExpression":
            return Predicates.Expression(.evaluatedObject)
        case "NSVariableExpression":
            guard let name = try object.string("NSVariable") else { throw object.error("NSVariable", "missing") }
            return Predicates.Expression(.variable(name))
        case "NSKeyPathSpecifierExpression":
            guard let path = try object.string("NSKeyPath") else { throw object.error("NSKeyPath", "missing") }
            return .keyPath(path)
        case "NSKeyPathExpression":
            let arguments = try object.elements("NSArguments")
            guard arguments.count == 1 else { throw object.error("NSArguments", "a key path with \(arguments.count) arguments") }
            let specifier = try archive.object(at: arguments[0])
            guard specifier.className == "NSKeyPathSpecifierExpression", let path = try specifier.string("NSKeyPath") else {
                throw object.error("NSArguments", "object \(specifier.index) is \(specifier.className), not a key path specifier")
            }
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let operand = try object.object("NSOperand", of: "NSExpression")
            if operand.className == "NSSelfExpression" { return Predicates.Expression(.keyPath(keys)) }
            return Predicates.Expression(.member(try expression(operand, depth: &depth), keys))
        case "NSAggregateExpression":
            let elements = try object.elements("NSCollection").map { uid in
                try expression(try archive.object(at: uid), depth: &depth)
            }
            return Predicates.Expression(.aggregate(elements))
        case "NSSubqueryExpression":
            guard let variable = try object.string("NSVariable") else { throw object.error("NSVariable", "missing") }
            let collection = try expression(try object.object("NSExpression", of: "NSExpression"), depth: &depth)
            let inner = try predicate(try object.object("NSSubpredicate", of: "NSPredicate"), depth: &depth)
            return Predicates.Expression(.subquery(collection: collection, variable: variable, predicate: inner))
        case "NSFunctionExpression":
            guard let selector = try object.string("NSSelectorName") else { throw object.error("NSSelectorName", "missing") }
            let arguments = try object.elements("NSArguments").map { uid in
                try expression(try archive.object(at: uid), depth: &depth)
            }
            let operand = try object.object("NSOperand", of: "NSExpression")
            if operand.className == "NSConstantValueExpression",
                try operand.string("NSConstantValueClassName") == "_NSPredicateUtilities"
            {
                return try utilityCall(selector, arguments, object)
            }
            return Predicates.Expression(.method(receiver: try expression(operand, depth: &depth), selector: selector, arguments: arguments))
        default:
            throw KeyedArchiveError("object \(object.index): mrq cannot read expressions of class \(object.className)", unknown: true)
        }
    }

    private static func utilityCall(_ selector: String, _ arguments: [Predicates.Expression], _ object: KeyedObject) throws -> Predicates.Expression {
        let binary: [String: ArithmeticOperator] = [
            "add:to:": .add, "from:subtract:": .subtract, "multiply:by:": .multiply, "divide:by:": .divide,
            "raise:toPower:": .power,
        ]
        if let op = binary[selector], arguments.count == 2 {
            return Predicates.Expression(.binary(op, arguments[0], arguments[1]))
        }
        if selector == "castObject:toType:", arguments.count == 2, case .constant(.string(let name)) = arguments[1].kind,
            let type = CastType(rawValue: name)
        {
            return Predicates.Expression(.cast(arguments[0], type))
        }
        guard let function = Function(selector: selector) else {
            throw object.unknown("NSSelectorName", "'\(selector)' is not a function mrq knows")
        }
        return Predicates.Expression(.function(function, arguments))
    }
}

/// A predicate mrq cannot archive.
struct PredicateArchiveError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
