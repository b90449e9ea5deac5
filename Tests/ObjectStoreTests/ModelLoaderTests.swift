import Foundation
import Predicates
import Testing

@testable import ObjectStore

@Suite struct ModelLoaderTests {
    let model: ManagedObjectModel

    init() throws { model = try ModelFixtures.load("Everything.xcdatamodel") }

    func gadget() throws -> EntityDescription { try #require(model.entity(named: "Gadget")) }

    @Test func testLoadsEntitiesInFileOrder() {
        #expect(model.entities.map(\.name) == ["Item", "Gadget", "Maker", "Part"])
        #expect(model.versionIdentifier == "everything-1")
    }

    @Test func testAbstractParentAndSubEntity() throws {
        let item = try #require(model.entity(named: "Item"))
        let gadget = try gadget()
        #expect(item.isAbstract)
        #expect(!gadget.isAbstract)
        #expect(gadget.parent === item)
        #expect(item.subentities.map(\.name) == ["Gadget"])
        #expect(gadget.isKind(of: item))
        #expect(model.rootEntities.map(\.name) == ["Item", "Maker", "Part"])
        // Inherited attributes come first: they are the first value slots.
        #expect(gadget.attributes.prefix(3).map(\.name) == ["createdAt", "title", "small"])
        #expect(gadget.attributeIndex["title"] == 1)
        #expect(gadget.className == "Gadget")
    }

    @Test func testEveryAttributeTypeWithItsDefault() throws {
        let gadget = try gadget()
        func attribute(_ name: String) throws -> AttributeDescription { try #require(gadget.attribute(named: name)) }
        let expected: [(String, AttributeType, Value)] = [
            ("small", .integer16, .int(7)),
            ("medium", .integer32, .int(70000)),
            ("large", .integer64, .int(9_000_000_000)),
            ("price", .decimal, .decimal(Decimal(string: "19.99")!)),
            ("weight", .double, .double(1.5)),
            ("ratio", .float, .double(0.25)),
            ("enabled", .boolean, .bool(true)),
            ("madeOn", .date, .date(Date(timeIntervalSinceReferenceDate: 86400))),
            ("blob", .binary, .null),
            ("token", .uuid, .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
            ("homepage", .uri, .url(URL(string: "https://example.com/gadgets")!)),
            ("payload", .transformable, .null),
            ("origin", .objectID, .null),
            ("createdAt", .date, .date(Date(timeIntervalSinceReferenceDate: 0))),
            ("title", .string, .string("Untitled")),
        ]
        for (name, type, value) in expected {
            let a = try attribute(name)
            #expect(a.type == type, "\(name)")
            #expect(a.defaultValue == value, "\(name)")
        }
        // Undefined (transient only) and Composite have tests of their own.
        #expect(Set(expected.map(\.1)).union([.string, .undefined, .composite]) == Set(AttributeType.allCases))
        #expect(try attribute("payload").valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(try attribute("blob").allowsExternalBinaryDataStorage)
    }

    @Test func testOptionalIsOnlyWhatSaysYes() throws {
        let gadget = try gadget()
        #expect(gadget.attribute(named: "small")?.isOptional == true)
        #expect(gadget.attribute(named: "enabled")?.isOptional == false)
        #expect(gadget.attribute(named: "title")?.isOptional == false)
        let accounts = try ModelFixtures.load("NoOptional.xcdatamodel")
        let account = try #require(accounts.entity(named: "Account"))
        #expect(account.attributes.allSatisfy { !$0.isOptional })
        #expect(account.relationship(named: "owner")?.isOptional == false)
        #expect(account.relationship(named: "owner")?.minCount == 1)
        // An empty default means none.
        #expect(account.attribute(named: "id")?.defaultValue == .null)
    }

    @Test func testTransientAttribute() throws {
        #expect(try gadget().attribute(named: "scratch")?.isTransient == true)
        #expect(try gadget().attribute(named: "small")?.isTransient == false)
    }

    @Test func testValidationRules() throws {
        let gadget = try gadget()
        let small = try #require(gadget.attribute(named: "small"))
        #expect(small.minValue == .int(-5))
        #expect(small.maxValue == .int(500))
        let weight = try #require(gadget.attribute(named: "weight"))
        #expect(weight.minValue == .double(0))
        #expect(weight.maxValue == .double(1000.5))
        let title = try #require(gadget.attribute(named: "title"))
        #expect(title.minValue == .int(1))
        #expect(title.maxValue == .int(40))
        #expect(title.regularExpression == "[A-Z][A-Za-z ]*")
        let madeOn = try #require(gadget.attribute(named: "madeOn"))
        #expect(madeOn.minValue == .date(Date(timeIntervalSince1970: 0)))
        #expect(madeOn.maxValue == .date(Date(timeIntervalSinceReferenceDate: 1_000_000_000)))
        #expect(gadget.attribute(named: "blob")?.maxValue == .int(1024))
        let code = try #require(gadget.attribute(named: "code"))
        #expect(code.validationPredicates.map(\.format) == ["SELF BEGINSWITH 'G-'", "length <= 8"])
        #expect(code.validationPredicates.map(\.message) == ["code must start with G-", "code is too long"])
    }

    @Test func testRelationships() throws {
        let gadget = try gadget()
        let maker = try #require(gadget.relationship(named: "maker"))
        #expect(maker.isToOne && maker.isOptional)
        #expect(maker.destination === model.entity(named: "Maker"))
        #expect(maker.inverse?.name == "gadgets")
        #expect(maker.inverse?.inverse === maker)
        #expect(maker.maxCount == 1 && maker.minCount == 0)

        let parts = try #require(gadget.relationship(named: "parts"))
        #expect(parts.isToMany && parts.isOrdered)
        #expect(parts.minCount == 1 && parts.maxCount == 5)
        #expect(parts.deleteRule == .cascade)
        #expect(parts.inverse == nil)
        #expect(parts.isManyToMany)  // no inverse: a join table

        #expect(gadget.relationship(named: "related")?.deleteRule == .noAction)
        #expect(gadget.relationship(named: "owner")?.deleteRule == .deny)
        #expect(gadget.relationship(named: "owner")?.inverse == nil)
        let partners = try #require(model.entity(named: "Maker")?.relationship(named: "partners"))
        #expect(partners.isManyToMany && partners.inverse === partners)
        let gadgets = try #require(model.entity(named: "Maker")?.relationship(named: "gadgets"))
        #expect(gadgets.isToMany && !gadgets.isManyToMany)
    }

    @Test func testOldStyleOptionalToOneWithMinCountOne() throws {
        let old = try ModelFixtures.load("OldStyle.xcdatamodel")
        let author = try #require(old.entity(named: "Book")?.relationship(named: "author"))
        #expect(author.isToOne)
        #expect(author.isOptional)
        #expect(author.minCount == 0 && author.maxCount == 1)
        #expect(author.validateCount(0).isEmpty)
        #expect(old.entity(named: "Author")?.attribute(named: "name")?.isIndexed == true)
        #expect(old.entity(named: "Author")?.fetchIndexes.first?.elements.map(\.property) == ["name"])
        // A transient of undefined type holds any value.
        #expect(old.entity(named: "Book")?.attribute(named: "cache")?.type == .undefined)
    }

    @Test func testUniquenessConstraintsSingleAndComposite() throws {
        #expect(try gadget().uniquenessConstraints == [["code"], ["title", "maker"]])
    }

    @Test func testFetchIndexes() throws {
        let indexes = try gadget().fetchIndexes
        #expect(indexes.map(\.name) == ["byCode", "byTitleAndWeight"])
        #expect(indexes[1].elements.map(\.property) == ["title", "weight"])
        #expect(indexes[1].elements.map(\.ascending) == [true, false])
    }

    @Test func testUserInfoOnEntitiesAttributesAndRelationships() throws {
        let gadget = try gadget()
        #expect(model.entity(named: "Item")?.userInfo == ["relatedByAttribute": "title", "note": "abstract root"])
        #expect(gadget.userInfo == ["relatedByAttribute": "code"])
        #expect(gadget.attribute(named: "title")?.userInfo == ["mappedKeyName": "item_title"])
        #expect(gadget.relationship(named: "maker")?.userInfo == ["mappedKeyName": "maker_id"])
        #expect(gadget.property(named: "heavyParts")?.userInfo == ["kind": "fetched"])
    }

    @Test func testFetchedProperty() throws {
        let fetched = try #require(try gadget().fetchedProperties.first)
        #expect(fetched.name == "heavyParts")
        #expect(fetched.destinationName == "Part")
        #expect(fetched.predicateFormat == "mass > 10 AND name != $FETCH_SOURCE.title")
        #expect(fetched.isOptional)
        #expect(try gadget().propertyNames.last == "heavyParts")
    }

    @Test func testConfigurations() {
        #expect(model.configurations == ["Cloud": ["Maker", "Part"], "Local": ["Item", "Gadget"]])
        #expect(model.entities(forConfiguration: "Cloud").map(\.name) == ["Maker", "Part"])
        #expect(model.entities(forConfiguration: nil).count == 4)
    }

    @Test func testRenamingIdentifiers() throws {
        #expect(try gadget().renamingIdentifier == "Widget")
        #expect(try gadget().attribute(named: "large")?.renamingIdentifier == "big")
        #expect(try gadget().attribute(named: "small")?.renamingIdentifier == nil)
    }

    @Test func testLocalizationDictionaryFromStringsFile() {
        #expect(model.localizationDictionary.count == 4)
        #expect(model.localizedName(ofEntity: "Gadget") == "Gizmo")
        #expect(model.localizedName(ofEntity: "Part") == "Part")
        #expect(model.localizedName(ofProperty: "small", entity: "Gadget") == "Small size")
        #expect(model.localizedName(ofProperty: "small", entity: "Part") == "small")
        // Falls back to Property/title without an entity-specific entry.
        #expect(model.localizedName(ofProperty: "title", entity: "Gadget") == "Title")
        #expect(model.localizedName(ofProperty: "title") == "Title")
        #expect(model.localizedErrorString("Title is too long (41 > 40 characters)") == "Der Titel ist zu lang")
        #expect(model.localizedErrorString("something else") == "something else")
    }

    @Test func testVersionedBundleUsesCurrentVersion() throws {
        let versioned = try ModelFixtures.load("Versioned.xcdatamodeld")
        #expect(versioned.versionIdentifier == "Versioned 2")
        #expect(versioned.entities.map(\.name) == ["Note", "Tag"])
        let first = try ModelFixtures.load("Versioned.xcdatamodeld/Versioned.xcdatamodel")
        #expect(first.entities.map(\.name) == ["Note"])
        let third = try ModelFixtures.load("Versioned.xcdatamodeld/Versioned 3.xcdatamodel")
        #expect(third.versionIdentifier == "v3-draft")
    }

    @Test func testBundleWithoutCurrentVersionTakesTheLastInNumericOrder() throws {
        let unmarked = try ModelFixtures.load("Unmarked.xcdatamodeld")
        #expect(unmarked.entities.map(\.name) == ["V10"])
        #expect(unmarked.versionIdentifier == "Unmarked 10")
    }

    @Test func testBareContentsFile() throws {
        let bare = try ModelFixtures.load("Bare/contents")
        #expect(bare.entities.map(\.name) == ["Solo"])
    }

    @Test func testXMLEntitiesAndWhitespaceAreHandled() throws {
        let xml = ModelFixtures.model(entities: """
            <entity name="A&#95;&#x42;"   isAbstract = "NO" >

                <attribute   name="note" optional="YES" attributeType="String" defaultValueString="a &lt; b &quot;c&quot;"/>
            </entity>
            """)
        let parsed = try ModelFixtures.parse(xml)
        #expect(parsed.entities.first?.name == "A_B")
        #expect(parsed.entities.first?.attribute(named: "note")?.defaultValue == .string(#"a < b "c""#))
    }
}

@Suite struct ModelLoaderErrorTests {
    @Test(arguments: [
        ("Broken/UnknownType.xcdatamodel",
         "UnknownType.xcdatamodel/contents:5: attribute 'age' has unknown attributeType 'Integer 12'"),
        ("Broken/UnknownDestination.xcdatamodel",
         "UnknownDestination.xcdatamodel/contents:8: relationship 'Pet.owner' names unknown destination entity 'Owner'"),
        ("Broken/MissingName.xcdatamodel",
         "MissingName.xcdatamodel/contents:6: entity has no name"),
        ("Broken/UnknownInverse.xcdatamodel",
         "UnknownInverse.xcdatamodel/contents:4: relationship 'Department.people' names unknown inverse 'dept'"),
        ("Broken/BadDefault.xcdatamodel",
         "BadDefault.xcdatamodel/contents:4: attribute 'age' has default value '40000', which is not a valid Integer 16"),
    ])
    func testBrokenModelNamesElementAndLine(file: String, expected: String) throws {
        let error = try #require(ModelFixtures.loadError(file))
        #expect(error.description == expected)
    }

    @Test func testMalformedXMLGivesFileAndLine() throws {
        let error = try #require(ModelFixtures.loadError("Broken/Malformed.xcdatamodel"))
        #expect(error.file == "Malformed.xcdatamodel/contents")
        #expect(error.line == 5)
        #expect(error.description == "Malformed.xcdatamodel/contents:5: malformed XML: expected a name")
    }

    @Test func testMissingModelFile() throws {
        let error = try #require(ModelFixtures.loadError("Nowhere.xcdatamodeld"))
        #expect(error.message.hasPrefix("no model found at "))
    }

    @Test(arguments: [
        (#"<entity name="P"><relationship name="r" destinationEntity="P" deletionRule="Explode"/></entity>"#,
         "contents:3: relationship 'r' has unknown deletionRule 'Explode'"),
        (#"<entity name="P"><attribute name="a"/></entity>"#,
         "contents:3: attribute 'a' has no attributeType"),
        (#"<entity name="P"><attribute attributeType="String"/></entity>"#,
         "contents:3: attribute of entity 'P' has no name"),
        (#"<entity name="P" parentEntity="Q"/>"#,
         "contents:3: entity 'P' names unknown parent entity 'Q'"),
        (#"<entity name="P"/><entity name="P"/>"#,
         "contents:3: duplicate entity 'P'"),
        (#"<entity name="P"><attribute name="a" attributeType="String" regularExpressionString="(("/></entity>"#,
         "contents:3: attribute 'P.a' has invalid regular expression '(('"),
        (#"<entity name="P"><uniquenessConstraints><uniquenessConstraint><constraint value="zz"/></uniquenessConstraint></uniquenessConstraints></entity>"#,
         "contents:3: uniqueness constraint of entity 'P' names unknown property 'zz'"),
        (#"<configuration name="C"><memberEntity name="Nope"/></configuration>"#,
         "contents:3: configuration 'C' names unknown entity 'Nope'"),
        (#"<entity name="P"><attribute name="n" attributeType="Integer 32" minValueString="ten"/></entity>"#,
         "contents:3: attribute 'n' has minValueString 'ten', which is not a number"),
    ])
    func testInlineBrokenModels(body: String, expected: String) throws {
        #expect(throws: ModelError.self) { try ModelFixtures.parse(ModelFixtures.model(entities: body)) }
        do {
            _ = try ModelFixtures.parse(ModelFixtures.model(entities: body))
        } catch let error as ModelError {
            #expect(error.description == expected)
        }
    }
}
