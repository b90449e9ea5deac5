import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// Core Data's version hashes, digest and metadata.
///
/// The expected hashes are the ones real Core Data stores record in their
/// `Z_METADATA` (from log2timeline/plaso's test data): each test builds
/// by hand the entity that store's model declares and expects exactly the
/// bytes Core Data wrote.
@Suite struct VersionHashTests {
    // MARK: SHA-2 (FIPS 180-4 examples, and lengths around the padding edges)

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 63), "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (String(repeating: "a", count: 119), "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (String(repeating: "a", count: 120), "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
    ])
    func testSHA256(message: String, digest: String) {
        #expect(hex(sha256(Array(message.utf8))) == digest)
        #expect(hex(sha256(Array(message.utf8), inHardware: false)) == digest)
        if sha256InHardware { #expect(hex(sha256(Array(message.utf8), inHardware: true)) == digest) }
    }

    /// The CPU's SHA instructions and the Swift rounds agree on messages of
    /// every length from 0 to 300 bytes (one to six blocks, each padding
    /// case) of random bytes. Where the CPU has no SHA instructions there
    /// is only the Swift path, and the known answers above check it.
    @Test(.enabled(if: sha256InHardware, "this CPU has no SHA instructions: only the Swift path runs here"))
    func testSHA256InHardwareMatchesSwift() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(sha256(message, inHardware: true) == sha256(message, inHardware: false), "length \(length)")
        }
    }

    @Test(arguments: [
        (
            "",
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
                + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
        ),
        (
            "abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
                + "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"
        ),
        (
            String(repeating: "a", count: 111),
            "fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef86818196921760b4beff48404df811b953828274461673c68d04e297b0eb7b2b4d60fc6b566a2"
        ),
        (
            String(repeating: "a", count: 112),
            "c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32bd05f0f1ba33e568b88fd2d970929b719ecbb152f58f130a407c8830604b70ca"
        ),
        (
            String(repeating: "a", count: 127),
            "828613968b501dc00a97e08c73b118aa8876c26b8aac93df128502ab360f91bab50a51e088769a5c1eff4782ace147dce3642554199876374291f5d921629502"
        ),
        (
            String(repeating: "a", count: 128),
            "b73d1929aa615934e61a871596b3f3b33359f42b8175602e89f7e06e5f658a243667807ed300314b95cacdd579f3e33abdfbe351909519a846d465c59582f321"
        ),
        (
            String(repeating: "a", count: 240),
            "4c296d90c61052a62ffb1dd196f1b7b09373b1f93e71836baebf89690546b7595684dbe9467a8e484fa0d1094272b4344a7c24f5fee8daedeb0bf549c985ab5f"
        ),
    ])
    func testSHA512(message: String, digest: String) {
        #expect(hex(sha512(Array(message.utf8))) == digest)
    }

    @Test func testMillionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(hex(sha256(message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(hex(sha256(message, inHardware: false)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(
            hex(sha512(message))
                == "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b")
    }

    // MARK: Known answers from real stores

    /// Accounts3.sqlite: four required attributes.
    /// An entity hashes its properties in the order of their names' UTF-16
    /// code units, as Core Data's `compare:` sorts: U+10400 (a surrogate
    /// pair, D801 DC00) before U+FF21, where UTF-8 and Swift's `<` put
    /// U+FF21 first.
    @Test func testPropertiesAreHashedInUTF16Order() throws {
        let entity = EntityDescription(name: "E")
        entity.add(AttributeDescription(name: "\u{FF21}", type: .string))
        entity.add(AttributeDescription(name: "\u{10400}", type: .string))
        let model = try ManagedObjectModel(entities: [entity])
        let e = try #require(model.entity(named: "E"))
        let fullwidth = try #require(e.attribute(named: "\u{FF21}")).versionHash
        let deseret = try #require(e.attribute(named: "\u{10400}")).versionHash
        #expect("\u{FF21}" < "\u{10400}")
        #expect(e.versionHash == Data(sha256(Array("E".utf8) + [0] + deseret + fullwidth)))
        #expect(e.versionHash != Data(sha256(Array("E".utf8) + [0] + fullwidth + deseret)))
    }

    @Test func testAccountsCredentialItem() throws {
        let model = try ManagedObjectModel(entities: [
            entity("CredentialItem", [
                attribute("accountIdentifier", .string, optional: false),
                attribute("expirationDate", .date, optional: false),
                attribute("persistent", .boolean, optional: false),
                attribute("serviceName", .string, optional: false),
            ])
        ])
        #expect(hash(model, "CredentialItem") == "baa931bf0c45bacd398736fd5c6d128f2d8e3e81c0a1b0418763d28132597e4a")
    }

    /// Accounts3.sqlite: a required to-many with a minimum count of 1.
    @Test func testAccountsAccessOptionsKey() throws {
        let model = try ManagedObjectModel(entities: [
            entity("AccessOptionsKey", [
                attribute("name", .string, optional: false),
                RelationshipDescription(
                    name: "owningAccountTypes", destination: "AccountType", inverse: "accessKeys", isToMany: true,
                    isOptional: false, minCount: 1),
            ]),
            entity("AccountType", [
                RelationshipDescription(
                    name: "accessKeys", destination: "AccessOptionsKey", inverse: "owningAccountTypes", isToMany: true)
            ]),
        ])
        #expect(hash(model, "AccessOptionsKey") == "97183309876f89fc67b37d1a6a845b03789ea0303f739aaf729b318edc81167f")
    }

    /// Accounts3.sqlite: an optional to-one whose model states
    /// `minCount="1"`, as old Xcode models do.
    @Test func testAccountsAuthorization() throws {
        let accountType = RelationshipDescription(
            name: "accountType", destination: "AccountType", inverse: "permission")
        accountType.declaredMinCount = 1
        let model = try ManagedObjectModel(entities: [
            entity("Authorization", [
                accountType,
                attribute("bundleID", .string),
                attribute("grantedPermissions", .string),
                attribute("options", .transformable),
            ]),
            entity("AccountType", [
                RelationshipDescription(
                    name: "permission", destination: "Authorization", inverse: "accountType", isToMany: true)
            ]),
        ])
        #expect(hash(model, "Authorization") == "472883efb6b60f07445dcb51df562ecaac0582fb32812ef3fb5168513dccfaa4")
    }

    /// The same entity loaded from Xcode's XML: the loader keeps the
    /// to-one's stated `minCount`.
    @Test func testAccountsAuthorizationFromXML() throws {
        let model = try ModelFixtures.parse(
            ModelFixtures.model(
                entities: """
                    <entity name="Authorization">
                        <relationship name="accountType" optional="YES" minCount="1" maxCount="1" deletionRule="Nullify" destinationEntity="AccountType" inverseName="permission" inverseEntity="AccountType"/>
                        <attribute name="bundleID" optional="YES" attributeType="String"/>
                        <attribute name="grantedPermissions" optional="YES" attributeType="String"/>
                        <attribute name="options" optional="YES" attributeType="Transformable"/>
                    </entity>
                    <entity name="AccountType">
                        <relationship name="permission" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Authorization" inverseName="accountType" inverseEntity="Authorization"/>
                    </entity>
                    """))
        #expect(hash(model, "Authorization") == "472883efb6b60f07445dcb51df562ecaac0582fb32812ef3fb5168513dccfaa4")
        // The stated count survives mrq's archive and Xcode writer.
        #expect(hash(try ManagedObjectModel(archive: model.archived()), "Authorization") == hash(model, "Authorization"))
        #expect(hash(try ModelFixtures.parse(model.xcdatamodelContents()), "Authorization") == hash(model, "Authorization"))
    }

    /// NoteStore.sqlite: an abstract entity and a sub-entity, whose hash
    /// takes in its parent's hash and the inherited attributes.
    @Test func testNotesLocationHierarchy() throws {
        let model = try ManagedObjectModel(entities: [
            entity("ICLocation", abstract: true, [
                attribute("latitude", .double),
                attribute("longitude", .double),
                attribute("placemarkData", .binary),
            ]),
            entity("ICAttachmentLocation", parent: "ICLocation", [
                RelationshipDescription(name: "attachment", destination: "ICAttachment", inverse: "location"),
                attribute("placeUpdated", .boolean),
            ]),
            entity("ICAttachment", [
                RelationshipDescription(name: "location", destination: "ICAttachmentLocation", inverse: "attachment")
            ]),
        ])
        #expect(hash(model, "ICLocation") == "d1fff5214fb937218ee2d0c64f34d1276eeaaac5bcad1e138b3174d5d28eb647")
        #expect(hash(model, "ICAttachmentLocation") == "691a26baaca694e03f7b7e2984e906e98294a2ef4568e3b5d4298cdd7f3e6170")
    }

    /// DataUsage.sqlite and netusage.sqlite (the same entity, the same
    /// hash): a transient relationship stays out, a cascade rule counts
    /// for nothing.
    @Test func testDataUsageProcess() throws {
        let model = try ManagedObjectModel(entities: [
            entity("Process", [
                attribute("bundleName", .string),
                attribute("firstTimeStamp", .date),
                RelationshipDescription(
                    name: "hasLiveUsage", destination: "LiveUsage", inverse: "hasProcess", isToMany: true,
                    deleteRule: .cascade),
                RelationshipDescription(
                    name: "hintLiveUsage", destination: "LiveUsage", inverse: "hintedBy", isTransient: true),
                attribute("procName", .string),
                attribute("timeStamp", .date),
            ]),
            entity("LiveUsage", [
                RelationshipDescription(name: "hasProcess", destination: "Process", inverse: "hasLiveUsage"),
                RelationshipDescription(
                    name: "hintedBy", destination: "Process", inverse: "hintLiveUsage", isTransient: true),
            ]),
        ])
        #expect(hash(model, "Process") == "a54a1524d3abe30d2d56a87a9ac2ae06b05e9952043ea42d839b5f186be6fa85")
    }

    /// CoreDataPlus's SampleModel2V1.sqlite: `pagesCount` is a derived
    /// attribute, whose hash is its derivation's text alone; `pages` is a
    /// to-many with no inverse.
    @Test func testCoreDataPlusBookDerivedAttribute() throws {
        let author = RelationshipDescription(name: "author", destination: "Author", inverse: "books", isOptional: false)
        author.declaredMinCount = 1
        let pagesCount = attribute("pagesCount", .integer64)
        pagesCount.derivation = "count:(pages)"
        let book = entity("Book", [
            author,
            attribute("cover", .transformable, optional: false),
            RelationshipDescription(
                name: "pages", destination: "Page", isToMany: true, deleteRule: .cascade, isOptional: false,
                minCount: 1, maxCount: 10000),
            pagesCount,
            attribute("price", .decimal, optional: false),
            attribute("publishedAt", .date, optional: false),
            attribute("title", .string, optional: false),
            attribute("uniqueID", .uuid, optional: false),
        ])
        book.uniquenessConstraints = [["uniqueID"]]
        let model = try ManagedObjectModel(entities: [
            book,
            entity("Author", [
                RelationshipDescription(name: "books", destination: "Book", inverse: "author", isToMany: true),
            ]),
            entity("Page", [attribute("number", .integer32)]),
        ])
        #expect(hash(model, "Book") == "52c037264a8ab276d07b8becb9ca0bee8d688e192023ed9177b9a19c3e8d19a9")
        pagesCount.derivation = nil
        var hasher = VersionHasher()
        #expect(hex(hasher.hash(book)) != "52c037264a8ab276d07b8becb9ca0bee8d688e192023ed9177b9a19c3e8d19a9")
    }

    /// DataUsage.sqlite: an ordered to-one, and to-ones stating
    /// `minCount="1"` whether optional or not.
    @Test func testDataUsageEvent() throws {
        func toOne(_ name: String, _ destination: String, inverse: String, optional: Bool, ordered: Bool = false)
            -> RelationshipDescription
        {
            let r = RelationshipDescription(
                name: name, destination: destination, inverse: inverse, isOrdered: ordered, isOptional: optional)
            r.declaredMinCount = 1
            return r
        }
        func back(_ name: String, _ inverse: String) -> RelationshipDescription {
            RelationshipDescription(name: name, destination: "Event", inverse: inverse, isToMany: true)
        }
        let model = try ManagedObjectModel(entities: [
            entity("Event", [
                attribute("failureImpact", .string),
                attribute("failureString", .string),
                toOne("happenedOnNet", "WiFiData", inverse: "tookHit", optional: false, ordered: true),
                toOne("hasPeer", "Peer", inverse: "withEvent", optional: true),
                toOne("hasScene", "EventScene", inverse: "withEvent", optional: false),
                RelationshipDescription(
                    name: "hasTshootingData", destination: "TshootingData", inverse: "withEvent", isToMany: true),
                attribute("rfu1", .double), attribute("rfu2", .double), attribute("rfu3", .double),
                attribute("rfu4", .double), attribute("rfu5", .double),
                attribute("syndromeID", .string),
                attribute("timeStamp", .date),
            ]),
            entity("WiFiData", [back("tookHit", "happenedOnNet")]),
            entity("Peer", [back("withEvent", "hasPeer")]),
            entity("EventScene", [back("withEvent", "hasScene")]),
            entity("TshootingData", [back("withEvent", "hasTshootingData")]),
        ])
        #expect(hash(model, "Event") == "22ece5374a3bd8aa864eb5e7555abd19d6d539731902f5040579afbb39493145")
    }

    /// RMAdminStore-Local.sqlite, built with `ModelBuilder`: a required
    /// to-one that states no `minCount`, as current Xcode writes it.
    @Test func testScreenTimeDailySchedule() throws {
        let model = try ManagedObjectModel {
            Entity("DailySchedule") {
                ToOne("downtime", "Downtime", inverse: "schedule").required()
                Attribute("endHour", .integer64).required()
                Attribute("endMinute", .integer64).required()
                Attribute("startHour", .integer64).required()
                Attribute("startMinute", .integer64).required()
                Attribute("weekday", .integer64).required()
            }
            Entity("Downtime") {
                ToMany("schedule", "DailySchedule", inverse: "downtime")
            }
        }
        #expect(hash(model, "DailySchedule") == "f0d53dbbc7d700f2e734d03076b06f339f0668894bf1bb5057676fdd7cfc0341")
    }

    /// knowledgeC.db (macOS 10.14): a uniqueness constraint over two
    /// attributes.
    @Test func testKnowledgeKeyValue() throws {
        let model = try ManagedObjectModel {
            Entity("KeyValue") {
                Attribute("domain", .string)
                Attribute("key", .string).required()
                Attribute("value", .transformable)
                Unique("domain", "key")
            }
        }
        #expect(hash(model, "KeyValue") == "f5e07a3bbedf7eed1054342d5e889599d465a8415a63df0c3f9020fc88067f45")
    }

    /// knowledgeC.db (macOS 10.14), from Xcode's XML: an entity's version
    /// hash modifier and attributes preserved after deletion.
    @Test func testKnowledgeAdditionChangeSetFromXML() throws {
        let model = try ModelFixtures.parse(
            ModelFixtures.model(
                entities: """
                    <entity name="AdditionChangeSet" versionHashModifier="rdar://41988633">
                        <attribute name="changeSet" optional="YES" attributeType="Binary"/>
                        <attribute name="ckForeignKey" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>
                        <attribute name="ckRecordID" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>
                        <attribute name="ckRecordSystemFields" optional="YES" attributeType="Binary" preserveAfterDeletion="YES"/>
                        <attribute name="deviceIdentifier" attributeType="String"/>
                        <attribute name="endDate" attributeType="Date"/>
                        <attribute name="sequenceNumber" attributeType="Integer 64" usesScalarValueType="YES"/>
                        <attribute name="startDate" attributeType="Date"/>
                        <attribute name="version" attributeType="Integer 16" usesScalarValueType="YES"/>
                    </entity>
                    """))
        let expected = "010d21e0f4eb125653a79fa8aa465d6daa262af49f991a2516797b989b818063"
        #expect(hash(model, "AdditionChangeSet") == expected)
        #expect(hash(try ManagedObjectModel(archive: model.archived()), "AdditionChangeSet") == expected)
        #expect(hash(try ModelFixtures.parse(model.xcdatamodelContents()), "AdditionChangeSet") == expected)
    }

    /// Accounts3.sqlite's digest, from the seven hashes its metadata holds.
    @Test func testAccountsDigest() {
        let hashes = [
            "AccessOptionsKey": "97183309876f89fc67b37d1a6a845b03789ea0303f739aaf729b318edc81167f",
            "Account": "3548d8fd6c7e42c90cd0a67ecd5b281213de346733dc95d575b3f1259b0c4d00",
            "AccountProperty": "f4af6c571d4c33102e053d2ee5e27e0de2b99f1a0ad951b4b496c43b88678ca4",
            "AccountType": "62ca513b5e7ed973628501bfa75a9cf007ca98a1ec09ca831c32d5763f0a7364",
            "Authorization": "472883efb6b60f07445dcb51df562ecaac0582fb32812ef3fb5168513dccfaa4",
            "CredentialItem": "baa931bf0c45bacd398736fd5c6d128f2d8e3e81c0a1b0418763d28132597e4a",
            "Dataclass": "ced5db715c59c07911e43cd095883ac1fc537d4ff33cb48b984fdfdee9e66af8",
        ].mapValues(bytes)
        let digest = CoreDataMetadata.versionHashesDigest(of: hashes)
        #expect(
            digest.base64EncodedString()
                == "hz4YqtKEKqQ2sBqNfhbv20ZR2na64uzlsmxUGbiLsiekQpGlsVjmA7ABCBZApPEPzI0GTF+fd/qGpE+UrAgN+w==")
    }

    // MARK: What counts and what does not

    /// Changes Core Data counts as a new version of `Person`.
    enum RelevantChange: String, CaseIterable {
        case attributeName, attributeOptional, attributeType, attributeTransient, externalStorage
        case preserveAfterDeletion, attributeModifier, entityModifier, abstract, parentAttribute, noParent
        case destination, noInverse, toMany, minCount, maxCount, ordered, statedToOneMinCount
        case relationshipOptional, relationshipTransient, relationshipModifier, uniquenessConstraint
        case addedAttribute, derivation
    }

    @Test(arguments: RelevantChange.allCases)
    func testRelevantChangeChangesTheHash(change: RelevantChange) throws {
        func removeInverse(_ d: Draft) {
            d.relationship("department").inverseName = nil
            d["Department"].relationship("people").inverseName = nil
        }
        // A new destination is judged against the same relationship with no
        // inverse, so that only the destination differs.
        let base = try personModel { d in if change == .destination { removeInverse(d) } }
        let changed = try personModel { d in
            switch change {
            case .attributeName: d.rename("name", to: "fullName")
            case .attributeOptional: d.attribute("name").isOptional = false
            case .attributeType: d.attribute("age").type = .integer32
            case .attributeTransient: d.attribute("age").isTransient = true
            case .externalStorage: d.attribute("photo").allowsExternalBinaryDataStorage = true
            case .preserveAfterDeletion: d.attribute("name").preservesValueInHistoryOnDeletion = true
            case .attributeModifier: d.attribute("name").versionHashModifier = "2"
            case .entityModifier: d["Person"].versionHashModifier = "2"
            case .abstract: d["Person"].isAbstract = true
            case .parentAttribute: d["Party"].add(attribute("closed", .date))
            case .noParent: d["Person"].parentName = nil
            case .destination:
                removeInverse(d)
                d.relationship("department").destinationName = "Team"
            case .noInverse: removeInverse(d)
            case .toMany: d.relationship("department").isToMany = true
            case .minCount: d.relationship("friends").minCount = 1
            case .maxCount: d.relationship("friends").maxCount = 5
            case .ordered: d.relationship("friends").isOrdered = true
            case .statedToOneMinCount: d.relationship("department").declaredMinCount = 1
            case .relationshipOptional: d.relationship("department").isOptional = false
            case .relationshipTransient: d.relationship("friends").isTransient = true
            case .relationshipModifier: d.relationship("friends").versionHashModifier = "2"
            case .uniquenessConstraint: d["Person"].uniquenessConstraints = [["name"]]
            case .addedAttribute: d.personProperties.append(attribute("nickname", .string))
            case .derivation: d.attribute("age").derivation = "now()"
            }
        }
        #expect(hash(changed, "Person") != hash(base, "Person"))
        #expect(changed.versionHashesDigest != base.versionHashesDigest)
    }

    @Test func testRenamedEntityChangesTheHash() throws {
        let base = try personModel { _ in }
        let renamed = try personModel(personName: "Human") { _ in }
        #expect(hash(renamed, "Human") != hash(base, "Person"))
        #expect(renamed.versionHashesDigest != base.versionHashesDigest)
    }

    /// Changes Core Data does not count: the store stays compatible.
    enum IrrelevantChange: String, CaseIterable {
        case entityUserInfo, attributeUserInfo, relationshipUserInfo, defaultValue, className
        case declarationOrder, entityOrder, deleteRule, renamingIdentifiers, validation, indexed, fetchIndex
        case valueTransformer, fetchedProperty, transientAttribute, otherEntity
    }

    @Test(arguments: IrrelevantChange.allCases)
    func testIrrelevantChangeKeepsTheHash(change: IrrelevantChange) throws {
        let base = try personModel { _ in }
        let changed = try personModel { d in
            switch change {
            case .entityUserInfo: d["Person"].userInfo = ["mappedKeyName": "person"]
            case .attributeUserInfo: d.attribute("name").userInfo = ["mappedKeyName": "Name"]
            case .relationshipUserInfo: d.relationship("friends").userInfo = ["relatedByAttribute": "name"]
            case .defaultValue: d.attribute("name").defaultValue = .string("y")
            case .className: d["Person"].className = "PersonObject"
            case .declarationOrder: d.personProperties.reverse()
            case .entityOrder: d.entities.reverse()
            case .deleteRule: d.relationship("department").deleteRule = .cascade
            case .renamingIdentifiers:
                d["Person"].renamingIdentifier = "OldPerson"
                d.attribute("name").renamingIdentifier = "oldName"
            case .validation:
                d.attribute("age").minValue = .int(0)
                d.attribute("name").regularExpression = "[a-z]+"
                d.attribute("name").validationPredicates = [(format: "length > 1", message: "too short")]
            case .indexed: d.attribute("name").isIndexed = true
            case .fetchIndex:
                d["Person"].fetchIndexes = [FetchIndexDescription(name: "byName", elements: [("name", true)])]
            case .valueTransformer: d.attribute("photo").valueTransformerName = "NSSecureUnarchiveFromData"
            case .fetchedProperty:
                d.personProperties.append(
                    FetchedPropertyDescription(name: "elders", destination: "Person", predicate: "age > 60"))
            case .transientAttribute: d.personProperties.append(attribute("scratch", .string, transient: true))
            case .otherEntity: d["Department"].add(attribute("budget", .decimal))
            }
        }
        #expect(hash(changed, "Person") == hash(base, "Person"))
        if change != .otherEntity {
            #expect(changed.versionHashesDigest == base.versionHashesDigest)
        }
    }

    /// A relationship that is its own inverse does not hash the inverse's
    /// name: it hashes as if it had none.
    @Test func testOwnInverseHashesAsNoInverse() throws {
        let withInverse = try personModel { _ in }
        let without = try personModel { d in d.relationship("friends").inverseName = nil }
        func friends(_ model: ManagedObjectModel) -> RelationshipDescription? {
            model.entity(named: "Person")?.relationship(named: "friends")
        }
        #expect(friends(withInverse)?.inverse === friends(withInverse))
        #expect(friends(withInverse)?.versionHash == friends(without)?.versionHash)
    }

    /// An inheritance chain hashes each ancestor once, without recursing,
    /// and gives each entity what it gives alone.
    @Test func testInheritanceChain() throws {
        let depth = 100
        var entities = [entity("Level0", [attribute("a0", .string)])]
        for level in 1..<depth {
            entities.append(entity("Level\(level)", parent: "Level\(level - 1)", [attribute("a\(level)", .integer32)]))
        }
        let model = try ManagedObjectModel(entities: entities)
        let hashes = model.entityVersionHashesByName
        #expect(hashes.count == depth)
        #expect(Set(hashes.values).count == depth)
        for level in [0, depth / 2, depth - 1] {
            #expect(hashes["Level\(level)"] == model.entity(named: "Level\(level)")?.versionHash)
        }
    }

    @Test func testAttributeTypeNumbers() {
        #expect(AttributeType.allCases.map(\.coreDataAttributeType) == [
            100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1800, 2000, 0, 2100,
        ])
        for type in AttributeType.allCases {
            #expect(AttributeType(coreDataAttributeType: type.coreDataAttributeType) == type)
        }
        #expect(AttributeType(coreDataAttributeType: 2200) == nil)
        #expect(AttributeType(coreDataAttributeType: 150) == nil)
    }

    // MARK: Metadata

    @Test func testMetadataValuesHaveCoreDataTypes() throws {
        let model = try personModel { _ in }
        let plist = CoreDataMetadata.plist(for: model)
        #expect(Set(plist.keys) == [
            "NSStoreType", "NSStoreModelVersionHashes", "NSStoreModelVersionIdentifiers",
            "NSPersistenceFrameworkVersion", "NSStoreModelVersionHashesVersion", "NSStoreModelVersionHashesDigest",
            "_NSAutoVacuumLevel",
        ])
        #expect(plist["NSStoreType"] as? String == "SQLite")
        #expect(plist["_NSAutoVacuumLevel"] as? String == "2")
        #expect(plist["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(plist["NSPersistenceFrameworkVersion"] as? Int == 1145)
        #expect(plist["NSStoreModelVersionIdentifiers"] as? [String] == [""])
        #expect(plist["NSStoreModelVersionHashes"] as? [String: Data] == model.entityVersionHashesByName)
        let digest = try #require(plist["NSStoreModelVersionHashesDigest"] as? String)
        #expect(Data(base64Encoded: digest) == model.versionHashesDigest)
        #expect(model.versionHashesDigest.count == 64)

        model.versionIdentifier = "25"
        #expect(CoreDataMetadata.plist(for: model)["NSStoreModelVersionIdentifiers"] as? [String] == ["25"])
        #expect(CoreDataMetadata.plist(for: model, identifiers: ["a", "b"])["NSStoreModelVersionIdentifiers"] as? [String] == ["a", "b"])
    }

    /// The dictionary goes through a binary plist and comes back with the
    /// same types, as Z_METADATA needs.
    @Test func testMetadataSurvivesABinaryPlist() throws {
        let model = try personModel { _ in }
        let blob = try PropertyListSerialization.data(
            fromPropertyList: CoreDataMetadata.plist(for: model), format: .binary, options: 0)
        let back = try #require(try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any])
        #expect(back["NSStoreType"] as? String == "SQLite")
        #expect(back["NSPersistenceFrameworkVersion"] as? Int == 1145)
        #expect(back["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(back["NSStoreModelVersionHashes"] as? [String: Data] == model.entityVersionHashesByName)
        #expect(back["NSStoreModelVersionIdentifiers"] as? [String] == [""])
    }

    // MARK: Real stores

    static let realStores = URL(
        fileURLWithPath: ProcessInfo.processInfo.environment["MRQ_REAL_FILES"] ?? "/work/real"
    ).appendingPathComponent("plaso")

    /// For every real store: the digest of its own hashes is the digest it
    /// records, and the keys our metadata shares with it have the same
    /// types. A store written by Core Data 1145 has exactly our keys.
    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: realStores.path),
            "skipped: no real Core Data stores under MRQ_REAL_FILES (default /work/real)"))
    func testRealStoresDigestAndTypes() throws {
        let names = [
            "Accounts3.sqlite", "DataUsage.sqlite", "IMODb2.sqlite", "NoteStore.sqlite", "RMAdminStore-Local.sqlite",
            "netusage.sqlite", "kik.sqlite", "knowledgec-10.13.db", "knowledgec-10.14.db",
        ]
        let ours = try personModel { _ in }
        let ourPlist = try roundTrip(CoreDataMetadata.plist(for: ours))
        var digests = 0, sameVersion = 0
        for name in names {
            let path = Self.realStores.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let database = try Database(path: path, readOnly: true, immutable: true)
            guard case .data(let blob)? = try database.scalar("SELECT Z_PLIST FROM Z_METADATA") else {
                Issue.record("\(name): no metadata plist")
                continue
            }
            let real = try #require(try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any])
            let hashes = try #require(real["NSStoreModelVersionHashes"] as? [String: Data], "\(name)")
            #expect(hashes.values.allSatisfy { $0.count == 32 }, "\(name)")
            if let digest = real["NSStoreModelVersionHashesDigest"] as? String {
                #expect(CoreDataMetadata.versionHashesDigest(of: hashes).base64EncodedString() == digest, "\(name)")
                digests += 1
            }
            for (key, value) in real where ourPlist[key] != nil {
                #expect(kind(value) == kind(ourPlist[key]!), "\(name): \(key)")
            }
            if real["NSPersistenceFrameworkVersion"] as? Int == CoreDataMetadata.frameworkVersion {
                #expect(Set(real.keys) == Set(ourPlist.keys), "\(name)")
                sameVersion += 1
            }
        }
        #expect(digests == 6)
        #expect(sameVersion == 3)
    }

    // MARK: Helpers

    /// Party (abstract) ← Person, with Department and Team; `change` edits
    /// the draft before the model is built.
    private func personModel(personName: String = "Person", _ change: (Draft) -> Void) throws -> ManagedObjectModel {
        let draft = Draft(
            entities: [
                entity("Party", abstract: true, [attribute("created", .date)]),
                EntityDescription(name: personName, parent: "Party"),
                entity("Department", [
                    attribute("title", .string, optional: false),
                    RelationshipDescription(
                        name: "people", destination: personName, inverse: "department", isToMany: true),
                ]),
                entity("Team", [attribute("motto", .string)]),
            ],
            personProperties: [
                attribute("name", .string, defaultValue: .string("x")),
                attribute("age", .integer16, defaultValue: .int(0)),
                attribute("photo", .binary),
                RelationshipDescription(name: "department", destination: "Department", inverse: "people"),
                RelationshipDescription(name: "friends", destination: personName, inverse: "friends", isToMany: true),
            ])
        change(draft)
        for property in draft.personProperties { draft[personName].add(property) }
        return try ManagedObjectModel(entities: draft.entities)
    }
}

/// A model before it is built: its entities, and the person's properties
/// still in a list a test may reorder.
private final class Draft {
    var entities: [EntityDescription]
    var personProperties: [PropertyDescription]

    init(entities: [EntityDescription], personProperties: [PropertyDescription]) {
        self.entities = entities
        self.personProperties = personProperties
    }

    subscript(name: String) -> EntityDescription { entities.first { $0.name == name }! }

    func attribute(_ name: String) -> AttributeDescription {
        personProperties.first { $0.name == name } as! AttributeDescription
    }

    func relationship(_ name: String) -> RelationshipDescription {
        personProperties.first { $0.name == name } as! RelationshipDescription
    }

    func rename(_ name: String, to newName: String) {
        let old = attribute(name)
        let renamed = AttributeDescription(
            name: newName, type: old.type, isOptional: old.isOptional, isTransient: old.isTransient,
            defaultValue: old.defaultValue)
        personProperties = personProperties.map { $0 === old ? renamed : $0 }
    }
}

// MARK: - Building entities by hand

private func entity(
    _ name: String, parent: String? = nil, abstract: Bool = false, _ properties: [PropertyDescription]
) -> EntityDescription {
    let entity = EntityDescription(name: name, isAbstract: abstract, parent: parent)
    for property in properties { entity.add(property) }
    return entity
}

private func attribute(
    _ name: String, _ type: AttributeType, optional: Bool = true, transient: Bool = false, defaultValue: Value = .null
) -> AttributeDescription {
    AttributeDescription(name: name, type: type, isOptional: optional, isTransient: transient, defaultValue: defaultValue)
}

extension EntityDescription {
    /// The declared relationship `name`, for a test to change.
    fileprivate func relationship(_ name: String) -> RelationshipDescription {
        declaredProperties.first { $0.name == name } as! RelationshipDescription
    }
}

private func hash(_ model: ManagedObjectModel, _ entity: String) -> String? {
    model.entityVersionHashesByName[entity].map { hex(Array($0)) }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

private func bytes(_ hex: String) -> Data {
    var data = Data()
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        data.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return data
}

/// What kind of plist value `value` is, as Core Data's readers see it.
private func kind(_ value: Any) -> String {
    switch value {
    case is String: "string"
    case is Data: "data"
    case is [Any]: "array"
    case is [String: Any]: "dictionary"
    case let number as NSNumber: "number \(String(cString: number.objCType))"
    default: "\(type(of: value))"
    }
}

private func roundTrip(_ plist: [String: Any]) throws -> [String: Any] {
    let blob = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    return try #require(try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any])
}
