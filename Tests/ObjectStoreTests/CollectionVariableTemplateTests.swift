import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// Issue 32, item 1, for fetch request templates: a collection given for a
/// `$variable` stays a collection, so `name IN $NAMES` is membership, as
/// Core Data takes an array in `substitutionVariables`.
@Suite struct CollectionVariableTemplateTests {
    @Test func aTemplateTakesACollectionForIn() throws {
        let model = try ModelFixtures.parse(ModelFixtures.model(entities: """
            <entity name="Person" representedClassName="Person" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <fetchRequest name="Named" entity="Person" predicateString="name IN $NAMES"/>
            """))
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        for name in ["Zoe", "Zoey", "Kai", "y, K"] {
            let person = context.insertObject(forEntityName: "Person")
            person["name"] = .string(name)
        }
        try context.save()
        let request = try model.fetchRequestFromTemplate(withName: "Named",
                                                         substitutionExpressions: ["NAMES": .aggregate(["Zoey", "Kai"])])
        #expect(request.predicate?.format == #"name IN {"Zoey", "Kai"}"#)
        #expect(try context.count(for: request) == 2)
        // A string stays a string: IN "text" tests for a substring, so
        // every name here is in "Zoey, Kai".
        let text = try model.fetchRequestFromTemplate(withName: "Named", substitutionVariables: ["NAMES": "Zoey, Kai"])
        #expect(try context.count(for: text) == 4)
    }
}
