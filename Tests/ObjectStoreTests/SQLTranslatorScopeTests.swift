import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate

/// The translator's scopes keep their SUBQUERY variables as constants
/// (read without the runtime's exclusivity check at every key path), and
/// an explanation keeps a statement's values as the plan holds them.
@Suite struct SQLTranslatorScopeTests {
    /// A SUBQUERY's scope names its own row, its outer scopes' variables
    /// stay visible inside it and in the scopes it holds, and it does not
    /// keep itself alive (it used to hold itself in its own map).
    @Test func aSubqueryScopeFindsItsVariablesAndIsFreed() throws {
        let person = EntityDescription(name: "Person")
        weak var released: SQLTranslator.Scope?
        do {
            let root = SQLTranslator.Scope(alias: "t", entity: person)
            #expect(!root.hasVariables && root.variable("p") == nil && root.variables.isEmpty)
            let inner = SQLTranslator.Scope(alias: "a1", entity: person, variables: root.variables, variable: "p")
            #expect(inner.hasVariables)
            #expect(inner.variable("p") === inner)
            #expect(inner.variable("q") == nil)
            let nested = SQLTranslator.Scope(alias: "a2", entity: person, variables: inner.variables, variable: "q")
            #expect(nested.variable("p") === inner)
            #expect(nested.variable("q") === nested)
            #expect(Set(nested.variables.keys) == ["p", "q"])
            // A variable of the same name inside hides the outer one.
            let shadowing = SQLTranslator.Scope(alias: "a3", entity: person, variables: nested.variables, variable: "p")
            #expect(shadowing.variable("p") === shadowing)
            #expect(shadowing.variable("q") === nested)
            released = inner
        }
        #expect(released == nil)
    }

    /// A SUBQUERY over a to-many translates with its variable bound to the
    /// subquery's row, as before the scopes changed.
    @Test func aSubqueryReadsItsVariableInSQL() throws {
        let department = EntityDescription(name: "Department")
        department.add(AttributeDescription(name: "name", type: .string))
        let employee = EntityDescription(name: "Employee")
        employee.add(AttributeDescription(name: "age", type: .integer64))
        department.add(RelationshipDescription(name: "staff", destination: "Employee", inverse: "department", isToMany: true))
        employee.add(RelationshipDescription(name: "department", destination: "Department", inverse: "staff"))
        let coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel(entities: [department, employee]))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scope-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("s.sqlite"), options: PersistentStoreOptions())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var request = FetchRequest(entityName: "Department",
                                   predicate: try Predicate(format: "SUBQUERY(staff, $e, $e.age > 30 AND $e.department.name == 'x').@count > 1"))
        request.resultType = .count
        let plan = try context.explain(request)
        #expect(plan.residual == nil)
        #expect(plan.sql.contains("(SELECT COUNT(*) FROM \"Employee\" a1 LEFT JOIN \"Department\" a2 ON a2.\"_pk\" = a1.\"department\" WHERE a1.\"department\" = t.\"_pk\" AND (a1.\"age\" > ?1 AND a2.\"name\" IS ?2)) > ?3"),
                "\(plan.sql)")
        #expect(plan.bindings == [.int(30), .string("x"), .int(1)])
        #expect(plan.steps[0].bindings == [.value(.int(30)), .value(.string("x")), .value(.int(1))])
    }

    /// An entity knows whether it has a to-many (its own or inherited),
    /// which spares the translator a lookup at a key path's last key; a
    /// to-many on a sub-entity's parent, or at the end of a to-one hop,
    /// still makes a quantified condition.
    @Test func aToManyInheritedOrAfterAHopStillQuantifies() throws {
        let department = EntityDescription(name: "Department")
        department.add(AttributeDescription(name: "name", type: .string))
        let division = EntityDescription(name: "Division", parent: "Department")
        let employee = EntityDescription(name: "Employee")
        employee.add(AttributeDescription(name: "age", type: .integer64))
        department.add(RelationshipDescription(name: "staff", destination: "Employee", inverse: "department", isToMany: true))
        employee.add(RelationshipDescription(name: "department", destination: "Department", inverse: "staff"))
        let model = try ManagedObjectModel(entities: [department, division, employee])
        #expect(department.hasToManyRelationships)
        #expect(division.hasToManyRelationships)
        #expect(!employee.hasToManyRelationships)
        let coordinator = PersistentStoreCoordinator(model: model)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tomany-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("s.sqlite"), options: PersistentStoreOptions())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for (entity, format) in [("Division", "ANY staff.age > 30"), ("Division", "staff.age > 30"),
                                 ("Employee", "ANY department.staff.age > 30")] {
            var request = FetchRequest(entityName: entity, predicate: try Predicate(format: format))
            request.resultType = .count
            let plan = try context.explain(request)
            #expect(plan.residual == nil, "\(format)")
            #expect(plan.sql.contains("EXISTS (SELECT 1 FROM \"Employee\""), "\(format): \(plan.sql)")
        }
        // Without a to-many, a quantifier has nothing to range over.
        var request = FetchRequest(entityName: "Employee", predicate: try Predicate(format: "ANY age > 30"))
        request.resultType = .count
        #expect(try context.explain(request).residual != nil)
    }

    /// A step's bindings read the same whether it was made from values or
    /// from bindings; values known only when it runs read as a placeholder.
    @Test func explanationStepsGiveTheirBindingsEitherWay() {
        let values: [Value] = [.int(1), .string("a")]
        let fromValues = FetchExplanation.Step(sql: "SELECT ?1, ?2", values: values, purpose: "rows")
        let fromBindings = FetchExplanation.Step(sql: "SELECT ?1, ?2, ?3", bindings: values.map { .value($0) } + [.keysFoundBefore],
                                                 purpose: "rows")
        #expect(fromValues.bindings == [.value(.int(1)), .value(.string("a"))])
        #expect(fromBindings.bindings == [.value(.int(1)), .value(.string("a")), .keysFoundBefore])
        let explained = FetchExplanation(steps: [fromValues], residual: nil, sortsInMemory: false, mergesPendingChanges: false,
                                         windowsInMemory: false, havingResidual: nil, engine: .sqlite)
        #expect(explained.bindings == values)
        #expect(explained.adding(fromBindings).bindings == values + [.string("[…]")])
    }
}
