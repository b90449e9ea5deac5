import Foundation
import Testing
@testable import Predicates

/// A row of a toy graph, and a reference to one by number: what the store
/// module does with managed objects and object IDs.
private final class Row: PredicateObject {
    let id: Int
    var parent: Row?
    var children: [Row] = []
    init(_ id: Int, parent: Row? = nil) {
        self.id = id
        self.parent = parent
        parent?.children.append(self)
    }

    func predicateValue(forKey key: String) throws -> Operand {
        switch key {
        case "id": return .value(.int(Int64(id)))
        case "parent": return parent.map { .object($0) } ?? .value(.null)
        case "children": return .collection(children.map { .object($0) })
        default: throw EvaluationError(message: "no key \(key)")
        }
    }
}

private final class RowID: ReferencedObject, PredicateConstant, @unchecked Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
    func refers(to object: any PredicateObject) -> Bool {
        (object as? Row)?.id == id || (object as? RowID)?.id == id
    }
    func predicateValue(forKey key: String) throws -> Operand { throw EvaluationError(message: "a row ID has no keys") }
    static func == (a: RowID, b: RowID) -> Bool { a.id == b.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
    var description: String { "<row \(id)>" }
    var predicateExpression: Expression { .object(self) }
}

@Suite struct ObjectReferenceTests {
    private let root = Row(1)
    private var rows: [Row] {
        let a = Row(2, parent: root), b = Row(3, parent: root)
        return [root, a, b, Row(4, parent: a)]
    }

    @Test func referencesCompareByIdentity() throws {
        let rows = rows
        func matching(_ format: String, _ arguments: any PredicateArgument...) throws -> [Int] {
            let predicate = try Predicate(format: format, arguments: arguments.map(\.formatArgument))
            return try rows.filter { try Evaluator().evaluate(predicate, on: $0) }.map(\.id)
        }
        #expect(try matching("parent == %@", RowID(2)) == [4])
        #expect(try matching("parent != %@", RowID(2)) == [1, 2, 3])
        #expect(try matching("SELF == %@", RowID(3)) == [3])
        #expect(try matching("parent IN %@", [RowID(1), RowID(2)]) == [2, 3, 4])
        #expect(try matching("SELF IN %@", Set([RowID(4)])) == [4])
        #expect(try matching("children CONTAINS %@", RowID(4)) == [2])
        #expect(try matching("%@ IN children", RowID(3)) == [1])
        #expect(try matching("ANY children == %@", RowID(2)) == [1])
        #expect(try matching("ALL children != %@", RowID(2)) == [2, 3, 4])
        #expect(try matching("NONE children == %@", RowID(4)) == [1, 3, 4])
        #expect(try matching("parent == %@", Optional<RowID>.none) == [1])
        #expect(try matching("%@ == %@", RowID(1), RowID(1)) == [1, 2, 3, 4])
        #expect(try matching("parent IN %@", [RowID]()) == [])
    }

    @Test func printsPassesThroughAndRefusesKeyPaths() throws {
        let predicate = try Predicate(format: "parent IN %@ AND id > %d", [RowID(1), RowID(2)], 0)
        #expect(predicate.format == "parent IN {<row 1>, <row 2>} AND id > 0")
        #expect(predicate.treeDescription.contains("object <row 1>"))
        #expect(predicate == (try Predicate(format: "parent IN %@ AND id > %d", [RowID(1), RowID(2)], 0)))
        #expect(predicate != (try Predicate(format: "parent IN %@ AND id > %d", [RowID(1), RowID(3)], 0)))
        let template = try Predicate(format: "parent == %@ AND id > $min", RowID(1))
        #expect(try template.substituting(variables: ["min": 1]).format == "parent == <row 1> AND id > 1")
        #expect(throws: SyntaxError.self) { try Predicate(format: "%K == 1", RowID(1)) }
        #expect(throws: EvaluationError.self) {
            try Evaluator().evaluate(try Predicate(format: "%@.id == 1", RowID(1)), on: Row(9))
        }
        // All values: an array of them stays a list of constants.
        #expect(try Predicate(format: "id IN %@", [1, 2]) == Predicate(format: "id IN {1, 2}"))
    }
}
