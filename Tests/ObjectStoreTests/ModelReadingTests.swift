import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// How a stored model is read fast (issue 31, big models): property lists
/// typed from the binary reader to the model decoder, and fetch request
/// templates read when first asked for.
@Suite struct ModelReadingTests {
    /// A model with a template `adults` on `Person`.
    static func model() throws -> ManagedObjectModel {
        try ArchiveWorkTests.model()
    }

    /// A binary plist read typed and as Foundation's reader returns it
    /// agrees, and the same plist as XML (read by Foundation, then typed)
    /// reads as the same values: UIDs, integers, reals, booleans, strings,
    /// data and dates alike (dates in whole seconds: an XML plist's
    /// `<date>` has no fraction).
    @Test func binaryAndXMLPlistsReadAsTheSameTypedValues() throws {
        let values: [String: Any] = [
            "int": 7, "large": 9_000_000_000, "negative": -3, "real": 1.5, "whole": 2.0, "yes": true, "no": false,
            "when": Date(timeIntervalSinceReferenceDate: 12), "bytes": Data([0, 1, 255]), "text": "Zoë ✓",
            "list": [1, "two", [3.5], ["k": "v"]] as [Any], "empty": [Any](),
        ]
        let binary = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
        let xml = try PropertyListSerialization.data(fromPropertyList: values, format: .xml, options: 0)
        let typed = try KeyedArchive.plistValue(binary)
        let fromXMLPlist = try KeyedArchive.plistValue(xml)
        #expect(fromXMLPlist == typed, "\(fromXMLPlist)\n\(typed)")
        let entries = try #require(typed.entries)
        #expect(entries["int"] == .int(7))
        #expect(entries["large"] == .int(9_000_000_000))
        #expect(entries["negative"] == .int(-3))
        #expect(entries["real"] == .real(1.5))
        #expect(entries["whole"] == .real(2))
        #expect(entries["yes"] == .bool(true))
        #expect(entries["no"] == .bool(false))
        #expect(entries["text"] == .string("Zoë ✓"))
        #expect(entries["list"] == .array([.int(1), .string("two"), .array([.real(3.5)]), .dictionary(PlistDictionary([("k", PlistValue.string("v"))]))]))
        // A whole model archive: its XML form (UIDs as {CF$UID = n}) reads
        // as the binary one does, UID for UID.
        let archive = try Self.model().coreDataArchive()
        let asXML = try PropertyListSerialization.data(
            fromPropertyList: ArchivedObjectTests.xmlForm(try BinaryPropertyList.parse(archive)), format: .xml, options: 0)
        let fromXML = try KeyedArchive(asXML), fromBinary = try KeyedArchive(archive)
        let xmlObjects = try fromXML.allObjects()
        #expect(xmlObjects.count > 10)
        #expect(try xmlObjects == fromBinary.allObjects())
        #expect(xmlObjects.contains { $0.entries?["$class"]?.uid != nil })
    }

    /// 128-bit integers: those that fit 64 bits signed are integers, the
    /// others (NSUIntegerMax, which Core Data writes for "no bound") reals,
    /// as Foundation's unsigned NSNumber reads.
    @Test func integersPast64BitsSignedAreReals() throws {
        func plist(_ high: UInt64, _ low: UInt64) -> Data {
            func be(_ n: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: n >> (56 - 8 * UInt64($0))) } }
            return BinaryPropertyListTests.plist([[0x14] + be(high) + be(low)])
        }
        #expect(try BinaryPropertyList.value(plist(0, 5)) == .int(5))
        #expect(try BinaryPropertyList.value(plist(0, UInt64.max)) == .real(Double(UInt64.max)))
        #expect(try BinaryPropertyList.parse(plist(0, UInt64.max)) as? NSNumber == NSNumber(value: UInt64.max))
        #expect(throws: KeyedArchiveError.self) { try BinaryPropertyList.value(plist(1, 0)) }
    }

    /// A model read from an archive keeps its templates unread until they
    /// are asked for, then has them as an eager reading had them.
    @Test func templatesAreReadWhenFirstAskedFor() throws {
        let decoded = try ManagedObjectModel(coreDataArchive: try Self.model().coreDataArchive())
        #expect(decoded.templateStore.isPending)
        #expect(decoded.entity(named: "Person") != nil)
        #expect(decoded.templateStore.isPending)
        let adults = try #require(decoded.fetchRequestTemplate(forName: "adults"))
        #expect(!decoded.templateStore.isPending)
        #expect(adults.entityName == "Person")
        #expect(adults.predicate?.format == "age >= 18")
        #expect(decoded.fetchRequestTemplatesByName.keys.sorted() == ["adults"])
        // A model without templates keeps nothing to read.
        let none = try ManagedObjectModel(coreDataArchive: try ManagedObjectModel(entities: [EntityDescription(name: "Thing")]).coreDataArchive())
        #expect(!none.templateStore.isPending)
        #expect(none.fetchRequestTemplatesByName.isEmpty)
    }

    /// Many threads asking at once: the templates are read once, and every
    /// thread sees them whole.
    @Test func templatesReadOnceFromManyThreads() throws {
        let decoded = try ManagedObjectModel(coreDataArchive: try Self.model().coreDataArchive())
        let seen = Mutexed<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let names = decoded.fetchRequestTemplatesByName.map { "\($0.key): \($0.value.predicate?.format ?? "")" }
            seen.update { $0 += names }
        }
        #expect(seen.value == Array(repeating: "adults: age >= 18", count: 16))
    }

    /// A damaged template no longer refuses the model: the model opens
    /// with its entities, the template is left out, and using it says why
    /// (and is as bounded as reading it eagerly was).
    @Test func aDamagedTemplateIsReportedWhenUsed() throws {
        let data = try ArchiveWorkTests.archive { root in
            let request = try #require(ArchiveWorkTests.node(in: root, "NSFetchRequest"))
            request.set("NSPredicate", .object(.node(ArchiveWorkTests.doublingPredicate(ArchiveWorkTests.levels))))
        }
        let model = try ManagedObjectModel(coreDataArchive: data)
        #expect(model.entity(named: "Person")?.attribute(named: "age") != nil)
        #expect(model.fetchRequestTemplatesByName.isEmpty)
        let damage = try #require(model.damageOfFetchRequestTemplate(named: "adults"))
        #expect(damage.hasPrefix("not a Core Data model: "), "\(damage)")
        #expect(damage.contains("visits more than"))
        #expect(model.damageOfFetchRequestTemplate(named: "other") == nil)
        let error = #expect(throws: ModelError.self) {
            try model.fetchRequestFromTemplate(withName: "adults", substitutionVariables: [:])
        }
        #expect(error?.message == "fetch request template 'adults' cannot be read: \(damage)")
        // Set again by hand, the template is the model's and no longer damaged.
        try model.setFetchRequestTemplate(FetchRequest(entityName: "Person"), forName: "adults")
        #expect(model.damageOfFetchRequestTemplate(named: "adults") == nil)
        #expect(try model.fetchRequestFromTemplate(withName: "adults", substitutionVariables: [:]).entityName == "Person")
        // The eager reading still refuses it.
        #expect(throws: ModelError.self) { try ManagedObjectModel.fetchRequestTemplates(coreDataArchive: data) }
    }
}

/// A value behind a lock, for tests that gather from many threads.
final class Mutexed<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
