import Foundation
import Predicates
import Testing

@testable import ObjectStore

@Suite struct ModelMigrationTests {
    func model(_ body: String) throws -> ManagedObjectModel {
        try ModelFixtures.parse(ModelFixtures.model(entities: body))
    }

    static let base = """
        <entity name="Person">
            <attribute name="name" attributeType="String"/>
            <attribute name="age" optional="YES" attributeType="Integer 16"/>
            <relationship name="department" optional="YES" maxCount="1" destinationEntity="Department" inverseName="people"/>
        </entity>
        <entity name="Department">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="people" optional="YES" toMany="YES" destinationEntity="Person" inverseName="department"/>
        </entity>
        """

    func plan(_ edit: (String) -> String) throws -> MigrationPlan {
        try MigrationPlan.infer(from: model(Self.base), to: model(edit(Self.base)))
    }

    func rejection(_ edit: (String) -> String) throws -> String? {
        do {
            _ = try plan(edit)
            return nil
        } catch let error as ModelError {
            return error.message
        }
    }

    @Test func testSameModelNeedsNoSteps() throws {
        let same = try plan { $0 }
        #expect(same.isEmpty)
        // Changes that do not touch storage need no step either.
        let cosmetic = try plan {
            $0.replacingOccurrences(of: #"<attribute name="age" optional="YES" attributeType="Integer 16"/>"#,
                                    with: #"<attribute name="age" optional="YES" attributeType="Integer 16" maxValueString="120"><userInfo><entry key="a" value="b"/></userInfo></attribute>"#)
        }
        #expect(cosmetic.isEmpty)
    }

    @Test func testEntityAddedAndRemoved() throws {
        let steps = try plan {
            $0.replacingOccurrences(of: #"<entity name="Department">"#, with: #"<entity name="Tag"><attribute name="label" attributeType="String"/></entity><entity name="Department">"#)
        }
        #expect(steps.entities == [.added("Tag")])
        #expect(steps.properties.isEmpty)
        let back = try MigrationPlan.infer(from: model(Self.base.replacingOccurrences(of: #"<entity name="Department">"#, with: #"<entity name="Tag"/><entity name="Department">"#)), to: model(Self.base))
        #expect(back.entities == [.removed("Tag")])
    }

    @Test func testEntityRenamedThroughRenamingIdentifier() throws {
        let steps = try plan {
            $0.replacingOccurrences(of: #"<entity name="Person">"#, with: #"<entity name="Employee" elementID="Person">"#)
                .replacingOccurrences(of: #"destinationEntity="Person""#, with: #"destinationEntity="Employee""#)
        }
        #expect(steps.entities == [.renamed(from: "Person", to: "Employee")])
        #expect(steps.properties.isEmpty)
    }

    @Test func testAttributeAddedOptionalOrWithDefault() throws {
        let steps = try plan {
            $0.replacingOccurrences(of: #"<attribute name="name" attributeType="String"/>"#, with: """
                <attribute name="name" attributeType="String"/>
                <attribute name="email" optional="YES" attributeType="String"/>
                <attribute name="score" attributeType="Double" defaultValueString="0"/>
                <attribute name="cache" transient="YES" attributeType="String"/>
                """)
        }
        #expect(steps.properties == [
            .addedAttribute(entity: "Person", attribute: "email"), .addedAttribute(entity: "Person", attribute: "score"),
        ])
    }

    @Test func testAttributeRemoved() throws {
        let steps = try plan { $0.replacingOccurrences(of: #"<attribute name="age" optional="YES" attributeType="Integer 16"/>"#, with: "") }
        #expect(steps.properties == [.removedAttribute(entity: "Person", attribute: "age")])
    }

    @Test func testAttributeRenamedThroughRenamingIdentifier() throws {
        let steps = try plan {
            $0.replacingOccurrences(of: #"<attribute name="age" optional="YES""#, with: #"<attribute name="years" elementID="age" optional="YES""#)
        }
        #expect(steps.properties == [.renamedAttribute(entity: "Person", from: "age", to: "years")])
    }

    @Test func testOptionalToRequiredWithDefaultAndBack() throws {
        let required = try plan {
            $0.replacingOccurrences(of: #"<attribute name="age" optional="YES" attributeType="Integer 16"/>"#,
                                    with: #"<attribute name="age" attributeType="Integer 16" defaultValueString="18"/>"#)
        }
        #expect(required.properties == [.madeRequired(entity: "Person", attribute: "age", default: .int(18))])
        let optional = try plan {
            $0.replacingOccurrences(of: #"<attribute name="name" attributeType="String"/>"#,
                                    with: #"<attribute name="name" optional="YES" attributeType="String"/>"#)
        }
        #expect(optional.properties == [.madeOptional(entity: "Person", attribute: "name")])
    }

    @Test func testRelationshipsAddedRemovedAndRenamed() throws {
        let added = try plan {
            $0.replacingOccurrences(of: #"<attribute name="title" optional="YES" attributeType="String"/>"#, with: """
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="head" optional="YES" maxCount="1" destinationEntity="Person"/>
                <relationship name="alumni" optional="YES" toMany="YES" destinationEntity="Person"/>
                """)
        }
        #expect(added.properties == [
            .addedRelationship(entity: "Department", relationship: "head"),
            .addedRelationship(entity: "Department", relationship: "alumni"),
        ])
        let removed = try plan {
            $0.replacingOccurrences(of: #"<relationship name="department" optional="YES" maxCount="1" destinationEntity="Department" inverseName="people"/>"#, with: "")
                .replacingOccurrences(of: #"<relationship name="people" optional="YES" toMany="YES" destinationEntity="Person" inverseName="department"/>"#, with: "")
        }
        #expect(removed.properties == [
            .removedRelationship(entity: "Person", relationship: "department"),
            .removedRelationship(entity: "Department", relationship: "people"),
        ])
        let renamed = try plan {
            $0.replacingOccurrences(of: #"<relationship name="department""#, with: #"<relationship name="unit" elementID="department""#)
                .replacingOccurrences(of: #"inverseName="department""#, with: #"inverseName="unit""#)
        }
        #expect(renamed.properties == [.renamedRelationship(entity: "Person", from: "department", to: "unit")])
    }

    @Test func testVersionedFixtureSteps() throws {
        let v1 = try ModelFixtures.load("Versioned.xcdatamodeld/Versioned.xcdatamodel")
        let v2 = try ModelFixtures.load("Versioned.xcdatamodeld/Versioned 2.xcdatamodel")
        let v3 = try ModelFixtures.load("Versioned.xcdatamodeld/Versioned 3.xcdatamodel")
        let first = try MigrationPlan.infer(from: v1, to: v2)
        #expect(first.entities == [.added("Tag")])
        #expect(first.properties == [
            .renamedAttribute(entity: "Note", from: "body", to: "text"),
            .addedAttribute(entity: "Note", attribute: "pinned"),
            .addedRelationship(entity: "Note", relationship: "tags"),
        ])
        let second = try MigrationPlan.infer(from: v2, to: v3)
        #expect(second.entities == [.renamed(from: "Note", to: "Memo")])
        #expect(second.properties == [
            .madeRequired(entity: "Memo", attribute: "text", default: .string("")),
            .removedAttribute(entity: "Memo", attribute: "stamp"),
        ])
    }

    @Test(arguments: [
        (#"<attribute name="age" optional="YES" attributeType="Integer 16"/>"#,
         #"<attribute name="age" optional="YES" attributeType="String"/>"#,
         "cannot infer a migration: attribute 'Person.age' changed type from Integer 16 to String"),
        (#"<attribute name="age" optional="YES" attributeType="Integer 16"/>"#,
         #"<attribute name="age" attributeType="Integer 16"/>"#,
         "cannot infer a migration: attribute 'Person.age' became required without a default value"),
        (#"<attribute name="age" optional="YES" attributeType="Integer 16"/>"#,
         #"<attribute name="age" optional="YES" attributeType="Integer 16"/><attribute name="ssn" attributeType="String"/>"#,
         "cannot infer a migration: attribute 'Person.ssn' was added as required without a default value"),
        (#"<relationship name="people" optional="YES" toMany="YES" destinationEntity="Person" inverseName="department"/>"#,
         #"<relationship name="people" maxCount="1" destinationEntity="Person" inverseName="department"/>"#,
         "cannot infer a migration: relationship 'Department.people' became a required to-one"),
        (#"<relationship name="department" optional="YES" maxCount="1" destinationEntity="Department" inverseName="people"/>"#,
         #"<relationship name="department" maxCount="1" destinationEntity="Department" inverseName="people"/>"#,
         "cannot infer a migration: relationship 'Person.department' became required"),
        (#"<relationship name="department" optional="YES" maxCount="1" destinationEntity="Department" inverseName="people"/>"#,
         #"<relationship name="department" optional="YES" maxCount="1" destinationEntity="Department" inverseName="people"/><relationship name="boss" maxCount="1" destinationEntity="Person"/>"#,
         "cannot infer a migration: relationship 'Person.boss' was added as a required to-one"),
        (#"<attribute name="age" optional="YES" attributeType="Integer 16"/>"#,
         #"<relationship name="age" optional="YES" maxCount="1" destinationEntity="Department"/>"#,
         "cannot infer a migration: property 'Person.age' changed from an attribute to a relationship"),
        (#"<entity name="Person">"#, #"<entity name="Person" parentEntity="Department">"#,
         "cannot infer a migration: entities 'Department' and 'Person' come from two inheritance hierarchies "
            + "(under 'Department' and 'Person'), which cannot merge into one"),
    ])
    func testRejectedChange(old: String, new: String, expected: String) throws {
        let message = try rejection { $0.replacingOccurrences(of: old, with: new) }
        #expect(message == expected)
    }

    /// Apple's lightweight migration changes a relationship's cardinality
    /// and ordering; the links move with it (StoreMigrationTests).
    @Test func testCardinalityOrderingAndInverseChangesAreSteps() throws {
        let toMany = try plan {
            $0.replacingOccurrences(of: #"<relationship name="department" optional="YES" maxCount="1""#,
                                    with: #"<relationship name="department" optional="YES" toMany="YES""#)
        }
        #expect(toMany.properties == [
            .madeToMany(entity: "Person", relationship: "department"),
            .changedInverse(entity: "Department", relationship: "people", manyToMany: true),
        ])
        let ordered = try plan {
            $0.replacingOccurrences(of: #"toMany="YES" destinationEntity="Person""#, with: #"toMany="YES" ordered="YES" destinationEntity="Person""#)
        }
        #expect(ordered.properties == [.madeOrdered(entity: "Department", relationship: "people")])
        let toOne = try plan {
            $0.replacingOccurrences(of: #"<relationship name="people" optional="YES" toMany="YES""#,
                                    with: #"<relationship name="people" optional="YES" maxCount="1""#)
        }
        #expect(toOne.properties == [.madeToOne(entity: "Department", relationship: "people")])
        let inverseGone = try plan {
            $0.replacingOccurrences(of: #"<relationship name="department" optional="YES" maxCount="1" destinationEntity="Department" inverseName="people"/>"#,
                                    with: #"<relationship name="department" optional="YES" maxCount="1" destinationEntity="Department"/>"#)
                .replacingOccurrences(of: #" inverseName="department"/>"#, with: "/>")
        }
        #expect(inverseGone.properties == [.changedInverse(entity: "Department", relationship: "people", manyToMany: true)])
    }

    /// Entities move in and out of hierarchies, their properties with them.
    @Test func testHierarchyMovesAreSteps() throws {
        let parent = try plan {
            $0.replacingOccurrences(of: #"<attribute name="name" attributeType="String"/>"#, with: "")
                .replacingOccurrences(of: #"<entity name="Person">"#,
                                      with: #"<entity name="Being" isAbstract="YES"><attribute name="name" attributeType="String"/></entity><entity name="Person" parentEntity="Being">"#)
        }
        #expect(parent.entities == [.added("Being"), .moved(entity: "Person", fromParent: nil, toParent: "Being")])
        // `name` moved up into Being: Person's objects keep theirs.
        #expect(parent.properties.isEmpty)
    }

    @Test func testDestinationChangeIsRejected() throws {
        let message = try rejection {
            $0.replacingOccurrences(of: #"<relationship name="department" optional="YES" maxCount="1" destinationEntity="Department" inverseName="people"/>"#,
                                    with: #"<relationship name="department" optional="YES" maxCount="1" destinationEntity="Person"/>"#)
                .replacingOccurrences(of: #" inverseName="department"/>"#, with: "/>")
        }
        #expect(message == "cannot infer a migration: relationship 'Person.department' changed destination from 'Department' to 'Person'")
    }
}
