import Foundation
import Predicates
import struct Predicates.Predicate

/// A model-level `<fetchRequest>` of an `.xcdatamodel`: a fetch request
/// template, as Xcode's model editor writes it.
///
/// ```xml
/// <fetchRequest name="Adults" entity="Person" predicateString="age &gt;= $minAge" fetchLimit="10"/>
/// ```
///
/// Absent options keep Core Data's defaults (sub-entities included,
/// pending changes included, objects as faults, no limit). Both spellings
/// seen in the wild are read (`includeSubentities` and
/// `includesSubentities`, ...); `includePropertyValues` is read and
/// dropped, mrq always loads property values.
struct XcodeFetchRequest {
    var name: String
    var entity: String
    var predicateString: String?
    var attributes: [String: String]
    var line: Int

    init(_ attributes: [String: String], line: Int) throws {
        guard let name = attributes["name"], !name.isEmpty else { throw ModelError.missingName("fetch request") }
        guard let entity = attributes["entity"], !entity.isEmpty else {
            throw ModelError.missingAttribute(element: "fetch request", name: name, attribute: "entity")
        }
        self.name = name
        self.entity = entity
        self.predicateString = XcodeXML.nonEmpty(attributes["predicateString"])
        self.attributes = attributes
        self.line = line
    }

    /// The template as a fetch request; throws for a predicate that does
    /// not parse or an option that is not a number or a flag.
    func request() throws -> FetchRequest {
        var request = FetchRequest(entityName: entity)
        if let predicateString {
            do {
                request.predicate = try Predicate(format: predicateString)
            } catch {
                throw ModelError("fetch request '\(name)' has predicate '\(predicateString)', which does not parse: \(error.message)")
            }
        }
        request.fetchLimit = try count("fetchLimit")
        request.fetchBatchSize = try count("fetchBatchSize")
        request.includesSubentities = flag("includeSubentities", "includesSubentities", default: true)
        request.includesPendingChanges = flag("includePendingChanges", "includesPendingChanges", default: true)
        request.returnsObjectsAsFaults = flag("returnObjectsAsFaults", "returnsObjectsAsFaults", default: true)
        request.returnsDistinctResults = flag("returnDistinctResults", "returnsDistinctResults", default: false)
        if let text = attributes["resultType"] {
            guard let type = Self.resultTypes[text.trimmingCharacters(in: .whitespaces)] else {
                throw ModelError("fetch request '\(name)' has unknown resultType '\(text)'")
            }
            request.resultType = type
        }
        return request
    }

    private func count(_ key: String) throws -> Int {
        guard let text = attributes[key], !text.isEmpty else { return 0 }
        guard let n = Int(text), n >= 0 else {
            throw ModelError.invalidNumber(element: "fetch request", name: name, attribute: key, text: text)
        }
        return n
    }

    private func flag(_ key: String, _ other: String, default value: Bool) -> Bool {
        guard let text = attributes[key] ?? attributes[other] else { return value }
        return XcodeXML.flag(text)
    }

    /// `NSFetchRequestResultType`'s raw values, and names.
    private static let resultTypes: [String: FetchRequest.ResultType] = [
        "0": .managedObject, "1": .managedObjectID, "2": .dictionary, "4": .count,
        "NSManagedObjectResultType": .managedObject, "NSManagedObjectIDResultType": .managedObjectID,
        "NSDictionaryResultType": .dictionary, "NSCountResultType": .count,
    ]

    /// The XML attributes that write `request` back under `name`: only
    /// what differs from the defaults.
    static func attributes(of request: FetchRequest, name: String) -> [(String, String?)] {
        func yesNo(_ flag: Bool, unless defaultValue: Bool) -> String? { flag == defaultValue ? nil : (flag ? "YES" : "NO") }
        let resultType: String? = switch request.resultType {
        case .managedObject: nil
        case .managedObjectID: "1"
        case .dictionary: "2"
        case .count: "4"
        }
        return [
            ("name", name), ("entity", request.entityName), ("predicateString", request.predicate?.format),
            ("fetchLimit", request.fetchLimit > 0 ? String(request.fetchLimit) : nil),
            ("fetchBatchSize", request.fetchBatchSize > 0 ? String(request.fetchBatchSize) : nil),
            ("includeSubentities", yesNo(request.includesSubentities, unless: true)),
            ("includePendingChanges", yesNo(request.includesPendingChanges, unless: true)),
            ("returnObjectsAsFaults", yesNo(request.returnsObjectsAsFaults, unless: true)),
            ("returnDistinctResults", yesNo(request.returnsDistinctResults, unless: false)),
            ("resultType", resultType),
        ]
    }
}
