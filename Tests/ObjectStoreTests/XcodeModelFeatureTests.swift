import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// What Xcode writes besides entities: fetch request templates, composite
/// attributes (Xcode 15), the Undefined type, the pre-Xcode 4 binary
/// format; and what Core Data accepts of a required to-many.
@Suite struct XcodeModelFeatureTests {
    // MARK: Fetch request templates

    static let templates = ModelFixtures.model(entities: """
        <entity name="Person" representedClassName="Person" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
        </entity>
        <entity name="Employee" parentEntity="Person" syncable="YES">
            <attribute name="salary" optional="YES" attributeType="Double" defaultValueString="0" usesScalarValueType="YES"/>
        </entity>
        <fetchRequest name="Everyone" entity="Person"/>
        <fetchRequest name="Adults" entity="Person" predicateString="age &gt;= $minAge AND name BEGINSWITH $prefix" fetchLimit="10" fetchBatchSize="20"/>
        <fetchRequest name="PeopleOnly" entity="Person" predicateString="age &gt; 0" includeSubentities="NO" returnObjectsAsFaults="NO" returnDistinctResults="YES" resultType="4"/>
        """)

    @Test func templatesLoadWithTheirOptions() throws {
        let model = try ModelFixtures.parse(Self.templates)
        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["Adults", "Everyone", "PeopleOnly"])
        let everyone = try #require(model.fetchRequestTemplate(forName: "Everyone"))
        #expect(everyone.entityName == "Person" && everyone.predicate == nil)
        #expect(everyone.includesSubentities && everyone.returnsObjectsAsFaults && everyone.fetchLimit == 0)
        let adults = try #require(model.fetchRequestTemplate(forName: "Adults"))
        #expect(adults.predicate?.format == "age >= $minAge AND name BEGINSWITH $prefix")
        #expect(adults.fetchLimit == 10 && adults.fetchBatchSize == 20)
        let only = try #require(model.fetchRequestTemplate(forName: "PeopleOnly"))
        #expect(!only.includesSubentities && !only.returnsObjectsAsFaults && only.returnsDistinctResults)
        #expect(only.resultType == .count)
        #expect(model.substitutionVariables(ofTemplate: "Adults") == ["minAge", "prefix"])
    }

    @Test func aTemplateFillsItsVariablesAndFetches() throws {
        let model = try ModelFixtures.parse(Self.templates)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        for (name, age, entity) in [("Ada", 36, "Person"), ("Alan", 12, "Person"), ("Anna", 50, "Employee"), ("Bob", 40, "Person")] {
            let person = context.insertObject(forEntityName: entity)
            person["name"] = .string(name)
            person["age"] = .int(Int64(age))
        }
        try context.save()
        let request = try model.fetchRequestFromTemplate(withName: "Adults", substitutionVariables: ["minAge": 18, "prefix": "A"])
        #expect(request.predicate?.format == "age >= 18 AND name BEGINSWITH \"A\"")
        let names = try context.fetch(request).map { $0["name"] }.compactMap { value -> String? in
            if case .string(let s) = value { return s } else { return nil }
        }.sorted()
        #expect(names == ["Ada", "Anna"])
        // The template itself keeps its variables.
        #expect(model.fetchRequestTemplate(forName: "Adults")?.predicate?.format.contains("$minAge") == true)
        // Leaving sub-entities out, counting.
        let only = try #require(model.fetchRequestTemplate(forName: "PeopleOnly"))
        #expect(try context.count(for: only) == 3)
    }

    @Test func aMissingVariableOrTemplateIsNamed() throws {
        let model = try ModelFixtures.parse(Self.templates)
        let missing = try #require(throws: ModelError.self) {
            try model.fetchRequestFromTemplate(withName: "Adults", substitutionVariables: ["minAge": 18])
        }
        #expect(missing.message == "fetch request template 'Adults': no value for variable '$prefix'")
        let unknown = try #require(throws: ModelError.self) {
            try model.fetchRequestFromTemplate(withName: "Adult", substitutionVariables: [:])
        }
        #expect(unknown.message == "no fetch request template named 'Adult'; did you mean 'Adults'?")
    }

    @Test func templatesSurviveTheWriterAndTheArchive() throws {
        let model = try ModelFixtures.parse(Self.templates)
        let xml = try model.xcdatamodelContents()
        #expect(xml.contains(#"<fetchRequest name="PeopleOnly" entity="Person" predicateString="age &gt; 0" includeSubentities="NO" returnObjectsAsFaults="NO" returnDistinctResults="YES" resultType="4"/>"#))
        let again = try ModelFixtures.parse(xml)
        #expect(again.isEquivalent(to: model), "\(ModelFixtures.dump(again))")
        let unarchived = try ManagedObjectModel(archive: model.archived())
        #expect(unarchived.isEquivalent(to: model))
        #expect(unarchived.fetchRequestTemplate(forName: "Adults")?.fetchBatchSize == 20)
        // A model without templates is not equivalent to one with.
        try model.setFetchRequestTemplate(nil, forName: "Everyone")
        #expect(!again.isEquivalent(to: model))
    }

    @Test func aStoreRemembersItsModelsTemplates() throws {
        let model = try ModelFixtures.parse(Self.templates)
        let path = TestModels.temporaryStorePath()
        _ = try TestModels.coordinator(model, path: path)
        let stored = try #require(try PersistentStoreCoordinator.storedModel(at: URL(fileURLWithPath: path)))
        #expect(stored.fetchRequestTemplatesByName.keys.sorted() == ["Adults", "Everyone", "PeopleOnly"])
        #expect(stored.fetchRequestTemplate(forName: "Adults")?.fetchLimit == 10)
    }

    @Test(arguments: [
        (#"<fetchRequest name="X" entity="Nobody"/>"#, "contents:9: fetch request 'X' names unknown entity 'Nobody'"),
        (#"<fetchRequest name="X" entity="Person" predicateString="agee &gt; 1"/>"#,
         "contents:9: fetch request 'X': unknown key 'agee' on Person; did you mean 'age'?"),
        (#"<fetchRequest name="X" entity="Person" predicateString="age &gt;"/>"#,
         "contents:9: fetch request 'X' has predicate 'age >', which does not parse: incomplete input"),
        (#"<fetchRequest name="X" entity="Person" fetchLimit="ten"/>"#,
         "contents:9: fetch request 'X' has fetchLimit 'ten', which is not a number"),
        (#"<fetchRequest entity="Person"/>"#, "contents:9: fetch request has no name"),
    ])
    func aBadTemplateSaysWhereAndWhy(_ element: String, _ expected: String) throws {
        let xml = ModelFixtures.model(entities: """
            <entity name="Person" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="age" optional="YES" attributeType="Integer 16"/>
            </entity>
            <entity name="Thing" syncable="YES">
            </entity>
            \(element)
            """)
        let error = try #require(throws: ModelError.self) { try ModelFixtures.parse(xml) }
        #expect(error.description == expected)
    }

    // MARK: Composite attributes

    /// As Xcode 15 writes them: the attribute names its composite, defined
    /// after the entities; composites nest.
    static let composites = ModelFixtures.model(entities: """
        <entity name="Quake" representedClassName="Quake" syncable="YES">
            <attribute name="code" optional="YES" attributeType="String"/>
            <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
        </entity>
        <entity name="Aftershock" parentEntity="Quake" syncable="YES">
            <attribute name="delay" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
        </entity>
        <composite name="Magnitude">
            <attribute name="richter" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            <attribute name="scale" optional="YES" attributeType="String"/>
            <attribute name="place" optional="YES" attributeType="Composite" composite="Place"/>
        </composite>
        <composite name="Place">
            <attribute name="latitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
        </composite>
        <composite name="Unused"/>
        """)

    @Test func aCompositeLoadsAsItsElements() throws {
        let model = try ModelFixtures.parse(Self.composites)
        let quake = try #require(model.entity(named: "Quake"))
        let magnitude = try #require(quake.compositeAttribute(named: "magnitude"))
        #expect(magnitude.type == .composite && magnitude.compositeName == "Magnitude")
        #expect(magnitude.elements.map(\.name) == ["richter", "scale", "place"])
        #expect(magnitude.elements[2].elements.map(\.name) == ["latitude", "longitude"])
        #expect(quake.attributes.map(\.name)
            == ["code", "magnitude.richter", "magnitude.scale", "magnitude.place.latitude", "magnitude.place.longitude"])
        #expect(quake.attribute(named: "magnitude.richter")?.defaultValue == .double(0))
        #expect(quake.attribute(named: "magnitude") == nil)
        // Sub-entities inherit the composite.
        let aftershock = try #require(model.entity(named: "Aftershock"))
        #expect(aftershock.compositeAttribute(named: "magnitude") === magnitude)
        #expect(aftershock.attribute(named: "magnitude.place.latitude") != nil)
        // One column per element.
        let mapping = try SchemaMapping(model: model)
        #expect(mapping.table(for: quake).columns.map(\.name.unquoted)
            == ["code", "magnitude_richter", "magnitude_scale", "magnitude_place_latitude", "magnitude_place_longitude", "delay"])
        #expect(mapping.column(for: "magnitude.scale", of: aftershock)?.name.unquoted == "magnitude_scale")
    }

    @Test func compositeElementsAreStoredFetchedAndQueried() throws {
        let model = try ModelFixtures.parse(Self.composites)
        let path = TestModels.temporaryStorePath()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
        for (code, richter, latitude, entity) in [("a", 6.1, 35.0, "Quake"), ("b", 4.2, 10.0, "Quake"), ("c", 7.5, -20.0, "Aftershock")] {
            let quake = context.insertObject(forEntityName: entity)
            quake["code"] = .string(code)
            quake.setValue(["richter": richter, "scale": "Mw", "place": ["latitude": latitude]], forKey: "magnitude")
        }
        try context.save()

        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
        let all = try fresh.fetch(FetchRequest(entityName: "Quake", sortDescriptors: try SortSpec.parse("magnitude.richter:NO")))
        #expect(all.map { $0["code"] } == [.string("c"), .string("a"), .string("b")])
        let first = try #require(all.first)
        #expect(first["magnitude.richter"] == .double(7.5))
        let dictionary = try #require(first.value(forKey: "magnitude") as? [String: Any])
        #expect(dictionary["scale"] as? String == "Mw")
        #expect((dictionary["place"] as? [String: Any])?["latitude"] as? Double == -20)
        #expect(first.value(forKeyPath: "magnitude.place.latitude") as? Double == -20)

        // In SQL and in memory, through the key path.
        for format in ["magnitude.richter > 5", "magnitude.place.latitude < 0 OR magnitude.scale == 'none'"] {
            let predicate = try Predicate(format: format)
            let request = FetchRequest(entityName: "Quake", predicate: predicate, sortDescriptors: try SortSpec.parse("code"))
            let plan = try fresh.explain(request)
            #expect(plan.residual == nil, "\(format) runs in SQL: \(plan.sql)")
            #expect(plan.sql.contains("magnitude_"))
            let fetched = try fresh.fetch(request).map { $0["code"] }
            let evaluated = try all.filter { try $0.matches(predicate) }.map { $0["code"] }
                .sorted { ValueOrdering.compare($0, $1) < 0 }
            #expect(fetched == evaluated, "\(format)")
            #expect(!fetched.isEmpty)
        }
        #expect(try fresh.fetch(FetchRequest(entityName: "Quake", predicate: try Predicate(format: "magnitude.richter > 5"))).count == 2)
        // A key the composite does not have is named.
        let error = try #require(throws: SyntaxError.self) {
            try Predicate(format: "magnitude.richtr > 5").validateKeys(entity: "Quake", schema: model)
        }
        #expect(error.message == "unknown key 'richtr' on Quake.magnitude; did you mean 'richter'?")
    }

    /// The XML store keeps each element as an attribute of its own and
    /// evaluates and sorts through the composite the same way.
    @Test func compositeElementsInTheXMLStore() throws {
        let model = try ModelFixtures.parse(Self.composites)
        let url = URL(fileURLWithPath: TestModels.temporaryStorePath()).deletingPathExtension().appendingPathExtension("xml")
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: .xml, at: url)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            for (code, richter) in [("a", 6.1), ("b", 4.2), ("c", 7.5)] {
                let quake = context.insertObject(forEntityName: "Quake")
                quake["code"] = .string(code)
                quake["magnitude.richter"] = .double(richter)
            }
            try context.save()
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .xml, at: url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let request = FetchRequest(entityName: "Quake", predicate: try Predicate(format: "magnitude.richter > 5"),
                                   sortDescriptors: try SortSpec.parse("magnitude.richter:NO"))
        #expect(try context.fetch(request).map { $0["code"] } == [.string("c"), .string("a")])
    }

    @Test func compositesSurviveTheWriterAndTheArchive() throws {
        let model = try ModelFixtures.parse(Self.composites)
        let xml = try model.xcdatamodelContents()
        #expect(xml.contains(#"<attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>"#))
        #expect(xml.contains(#"<composite name="Place">"#))
        let again = try ModelFixtures.parse(xml)
        #expect(again.isEquivalent(to: model), "\(xml)")
        #expect(try ManagedObjectModel(archive: model.archived()).isEquivalent(to: model))
        #expect(again.fingerprint == model.fingerprint)
        // The elements count in the fingerprint: they are columns.
        let changed = try ModelFixtures.parse(Self.composites.replacingOccurrences(of: #"name="scale""#, with: #"name="unit""#))
        #expect(changed.fingerprint != model.fingerprint)
    }

    @Test func aCompositeBuiltInSwiftGetsANameWhenWritten() throws {
        let point = AttributeDescription(name: "point", type: .composite)
        point.elements = [AttributeDescription(name: "x", type: .double), AttributeDescription(name: "y", type: .double)]
        let shape = EntityDescription(name: "Shape")
        shape.add(point)
        let model = try ManagedObjectModel(entities: [shape])
        let xml = try model.xcdatamodelContents()
        #expect(xml.contains(#"attributeType="Composite" composite="Point"/>"#))
        #expect(try ModelFixtures.parse(xml).entity(named: "Shape")?.attributes.map(\.name) == ["point.x", "point.y"])
    }

    @Test(arguments: [
        (#"<attribute name="home" optional="YES" attributeType="Composite" composite="Address"/>"#, "",
         "contents:4: attribute 'home' names unknown composite 'Address'"),
        (#"<attribute name="home" optional="YES" attributeType="Composite" composite="A"/>"#,
         #"<composite name="A"><attribute name="inner" attributeType="Composite" composite="A"/></composite>"#,
         "contents:6: composite 'A' contains itself"),
        (#"<attribute name="home" optional="YES" attributeType="Composite" composite="A"/>"#,
         #"<composite name="A"><attribute name="id" attributeType="ObjectID"/></composite>"#,
         "contents:4: composite element 'Person.home.id' has type ObjectID, which a composite cannot hold"),
    ])
    func aBadCompositeSaysWhereAndWhy(_ attribute: String, _ composites: String, _ expected: String) throws {
        let xml = ModelFixtures.model(entities: """
            <entity name="Person" syncable="YES">
                \(attribute)
            </entity>
            \(composites)
            """)
        let error = try #require(throws: ModelError.self) { try ModelFixtures.parse(xml) }
        #expect(error.description == expected)
    }

    /// Each level of composites multiplies the elements: a file cannot
    /// make a few lines expand without end.
    @Test func compositesThatExpandWithoutEndAreRefused() throws {
        var composites = ""
        for level in 0..<6 {
            let elements = (0..<10).map { i in
                level == 5 ? #"<attribute name="e\#(i)" optional="YES" attributeType="String"/>"#
                    : #"<attribute name="e\#(i)" optional="YES" attributeType="Composite" composite="C\#(level + 1)"/>"#
            }.joined()
            composites += #"<composite name="C\#(level)">\#(elements)</composite>"# + "\n"
        }
        let xml = ModelFixtures.model(entities: """
            <entity name="Bomb" syncable="YES">
                <attribute name="payload" optional="YES" attributeType="Composite" composite="C0"/>
            </entity>
            \(composites)
            """)
        let error = try #require(throws: ModelError.self) { try ModelFixtures.parse(xml) }
        #expect(error.message.hasSuffix("nests too deep or expands to too many elements"), "\(error)")
    }

    // MARK: Undefined

    @Test func aTransientUndefinedAttributeLoadsAndHoldsAnyValue() throws {
        let xml = ModelFixtures.model(entities: """
            <entity name="Note" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
            </entity>
            """)
        let model = try ModelFixtures.parse(xml)
        let scratch = try #require(model.entity(named: "Note")?.attribute(named: "scratch"))
        #expect(scratch.type == .undefined && scratch.isTransient)
        #expect(try SchemaMapping(model: model).column(for: "scratch", of: try #require(model.entity(named: "Note"))) == nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let note = context.insertObject(forEntityName: "Note")
        note["scratch"] = .int(42)
        #expect(note["scratch"] == .int(42))
        note["scratch"] = .string("text")
        #expect(note["scratch"] == .string("text"))
        try context.save()
        #expect(try ModelFixtures.parse(model.xcdatamodelContents()).isEquivalent(to: model))
    }

    @Test func aStoredUndefinedAttributeIsAModelError() throws {
        let xml = ModelFixtures.model(entities: """
            <entity name="Note" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="blob" optional="YES" attributeType="Undefined"/>
            </entity>
            """)
        let error = try #require(throws: ModelError.self) { try ModelFixtures.parse(xml) }
        #expect(error.description == "contents:5: attribute 'Note.blob' has type Undefined, which only a transient "
            + "attribute may have; give it a type or make it transient")
    }

    // MARK: The binary format of Xcode 3

    @Test func anOldBinaryModelSaysWhatToDo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-old-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("Old.xcdatamodeld/Old.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        // What Xcode 3 left: two binary property lists.
        try Data("bplist00".utf8).write(to: model.appendingPathComponent("elements"))
        try Data("bplist00".utf8).write(to: model.appendingPathComponent("layout"))
        for url in [model, model.deletingLastPathComponent()] {
            let error = try #require(throws: ModelError.self) { try ManagedObjectModel(contentsOf: url) }
            #expect(error.message == "'\(model.path)' is an old binary model (Xcode 3's 'elements' file, no 'contents'): "
                + "open and save it once in a current Xcode")
        }
        // A folder with neither is still "no model found".
        try FileManager.default.removeItem(at: model.appendingPathComponent("elements"))
        let none = try #require(throws: ModelError.self) { try ManagedObjectModel(contentsOf: model) }
        #expect(none.message.hasPrefix("no model found"))
    }

    // MARK: A required to-many with no minimum

    /// mastodon-ios's model: required to-manys without a minimum count,
    /// saved empty. Apple: optionality is about nil, and min and max
    /// counts are what a to-many's size is checked against.
    @Test func aRequiredToManyWithoutMinimumAcceptsAnEmptySet() throws {
        let xml = ModelFixtures.model(entities: """
            <entity name="Instance" syncable="YES">
                <attribute name="domain" attributeType="String"/>
                <relationship name="authentications" toMany="YES" deletionRule="Nullify" destinationEntity="Authentication" inverseName="instance" inverseEntity="Authentication"/>
                <relationship name="moderators" toMany="YES" minCount="1" deletionRule="Nullify" destinationEntity="Authentication"/>
            </entity>
            <entity name="Authentication" syncable="YES">
                <relationship name="instance" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Instance" inverseName="authentications" inverseEntity="Instance"/>
            </entity>
            """)
        let model = try ModelFixtures.parse(xml)
        let instance = try #require(model.entity(named: "Instance"))
        let authentications = try #require(instance.relationship(named: "authentications"))
        #expect(!authentications.isOptional && authentications.minCount == 0)
        #expect(authentications.validateCount(0).isEmpty)
        // A minimum still counts, empty or not.
        let moderators = try #require(instance.relationship(named: "moderators"))
        #expect(moderators.validateCount(0).map(\.message) == ["moderators has too few objects (0 < 1)"])
        #expect(moderators.validateCount(0).first?.kind == .tooFewObjects)

        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let object = context.insertObject(forEntityName: "Instance")
        object["domain"] = .string("mastodon.social")
        let refused = try #require(throws: ValidationError.self) { try context.save() }
        #expect(refused.failures.map(\.message) == ["moderators has too few objects (0 < 1)"])
        object.add(context.insertObject(forEntityName: "Authentication"), toKey: "moderators")
        try context.save()
        #expect(object.objects(forKey: "authentications").isEmpty)
    }

    // MARK: Deep inheritance

    /// 3,000 levels, an attribute every 100: loading walks each entity a
    /// constant number of times (it took over a minute when each level
    /// walked the chain above it).
    @Test func aThreeThousandLevelChainLoads() throws {
        let depth = 3_000
        var body = ""
        for i in 0..<depth {
            let parent = i == 0 ? "" : #" parentEntity="E\#(i - 1)""#
            let attribute = i % 100 == 0 ? #"<attribute name="a\#(i)" optional="YES" attributeType="Integer 32"/>"# : ""
            body += #"<entity name="E\#(i)"\#(parent) syncable="YES">\#(attribute)</entity>"# + "\n"
        }
        let model = try ModelFixtures.parse(ModelFixtures.model(entities: body))
        let root = try #require(model.entity(named: "E0"))
        let leaf = try #require(model.entity(named: "E\(depth - 1)"))
        let middle = try #require(model.entity(named: "E1500"))
        #expect(model.rootEntities.map(\.name) == ["E0"])
        #expect(leaf.rootEntity === root && middle.rootEntity === root)
        #expect(root.selfAndDescendants.count == depth)
        #expect(middle.selfAndDescendants.map(\.name) == (1500..<depth).map { "E\($0)" })
        #expect(leaf.selfAndDescendants.map(\.name) == ["E\(depth - 1)"])
        #expect(leaf.isKind(of: root) && leaf.isKind(of: middle) && !middle.isKind(of: leaf))
        #expect(leaf.attributes.map(\.name) == stride(from: 0, to: depth, by: 100).map { "a\($0)" })
        #expect(middle.attributes.count == 16)
        let mapping = try SchemaMapping(model: model)
        #expect(mapping.allTables.count == 1)
        #expect(mapping.table(for: leaf).columns.count == 30)
        #expect(mapping.column(for: "a2900", of: leaf)?.name.unquoted == "a2900")
        #expect(mapping.column(for: "a2900", of: middle) == nil)
        // The store opens on it, and a fetch of the root sees every level.
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        context.insertObject(forEntityName: "E\(depth - 1)")["a1500"] = .int(7)
        context.insertObject(forEntityName: "E10")
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "E0")) == 2)
        #expect(try context.count(for: FetchRequest(entityName: "E1500")) == 1)
        #expect(try context.count(for: FetchRequest(entityName: "E0", predicate: try Predicate(format: "a0 == nil"))) == 2)
    }

    /// Names alike at both ends no longer pile into a few buckets of an
    /// entity's slot table.
    @Test func slotTablesOfLookalikeNamesFindEveryName() {
        let names = (0..<5_000).map { "a\($0)" }
        let lookup = SlotLookup(names)
        #expect(names.indices.allSatisfy { lookup.index(of: names[$0]) == $0 })
        #expect(lookup.index(of: "a5000") == nil)
        #expect(lookup.index(of: "") == nil)
    }

    /// The slot table answers as a dictionary of the same names does, for
    /// names of every shape (short ones a string keeps inline, long ones,
    /// non-ASCII ones, the empty name) and for keys made every way a
    /// caller makes them (a literal's copy, a substring's, one built
    /// character by character), whether present or not.
    @Test func slotTablesAnswerAsADictionaryDoes() {
        var random = SplitMix64(seed: 0x51_07)
        let pieces = ["a", "Z", "é", "名", "_", "0", "🙂", "firstName", "x" + String(repeating: "y", count: 14), "ß"]
        func name() -> String {
            (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        for _ in 0..<300 {
            var names: [String] = []
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let candidate = name()
                if !names.contains(candidate) { names.append(candidate) }
            }
            let reference = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
            let lookup = SlotLookup(names)
            for key in names + (0..<20).map({ _ in name() }) {
                let rebuilt = String(key.reversed().reversed())
                let sliced = String(("<" + key + ">").dropFirst().dropLast())
                for form in [key, rebuilt, sliced] {
                    #expect(lookup.index(of: form) == reference[key], "\(names) \(form)")
                }
            }
        }
    }
}
