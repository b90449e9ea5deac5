import Foundation
import Predicates

extension ManagedObjectModel {
    /// The model as the `contents` XML of an `.xcdatamodel`, in the form
    /// Xcode writes, so that Xcode and `init(contentsOf:)` read it back.
    ///
    /// ```swift
    /// let xml = try model.xcdatamodelContents()
    /// let again = try ManagedObjectModel(xcdatamodelContents: Data(xml.utf8))
    /// again.isEquivalent(to: model)   // true, but for localizationDictionary
    /// ```
    ///
    /// Properties keep their declaration order (Xcode sorts them by name;
    /// both read the same). Validation predicates, which Xcode keeps only in
    /// compiled models, are written as `<validationPredicates>` inside their
    /// attribute. The localization dictionary goes to a separate strings
    /// file: see `localizationStrings()`. Throws `StoreError` when a name
    /// or value holds a character XML 1.0 cannot hold (a control character
    /// other than tab, line feed and carriage return).
    public func xcdatamodelContents() throws -> String {
        var xml = IndentedXML()
        xml.line(#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#)
        xml.open("model", [
            ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
            ("lastSavedToolsVersion", "1"), ("systemVersion", "mrq"),
            ("minimumToolsVersion", "Automatic"), ("sourceLanguage", "Swift"),
            ("userDefinedModelVersionIdentifier", versionIdentifier ?? ""),
        ])
        xml.composites = CompositeNames(entities)
        for entity in entities { xml.write(entity) }
        for (name, request) in fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            xml.leaf("fetchRequest", XcodeFetchRequest.attributes(of: request, name: name))
        }
        for (name, members) in configurations.sorted(by: { $0.key < $1.key }) {
            xml.open("configuration", [("name", name)], empty: members.isEmpty)
            guard !members.isEmpty else { continue }
            for member in members { xml.leaf("memberEntity", [("name", member)]) }
            xml.close("configuration")
        }
        for (name, elements) in xml.composites.definitions {
            xml.open("composite", [("name", name)], empty: elements.isEmpty)
            guard !elements.isEmpty else { continue }
            for element in elements { xml.write(element) }
            xml.close("composite")
        }
        xml.close("model")
        if let (key, unwritable) = xml.unwritable {
            throw unwritable.refusal("the model's \(key)", in: "an Xcode model")
        }
        return xml.text
    }

    /// The localization dictionary as a `<Name>Model.strings` file, sorted
    /// by key.
    public func localizationStrings() -> String {
        StringsFile.write(localizationDictionary)
    }

    private static func escapedFileName(_ name: String) throws -> String {
        do { return try XMLText.escaped(name, in: .content) } catch { throw error.refusal("the model's file name", in: "an Xcode model") }
    }

    /// Writes the model where `init(contentsOf:)` and Xcode find it: for an
    /// `.xcdatamodeld` URL, a bundle with one version named after it and its
    /// `.xccurrentversion`; otherwise an `.xcdatamodel` directory. A
    /// non-empty localization dictionary goes next to `contents` as
    /// `<Name>Model.strings`. Existing files are replaced.
    public func writeXcodeModel(to url: URL) throws {
        let fileManager = FileManager.default
        var directory = url
        if url.pathExtension == "xcdatamodeld" {
            let name = url.deletingPathExtension().lastPathComponent
            directory = url.appendingPathComponent("\(name).xcdatamodel")
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            let plist = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>_XCCurrentVersionName</key>
                \t<string>\(try Self.escapedFileName(name)).xcdatamodel</string>
                </dict>
                </plist>

                """
            try Data(plist.utf8).write(to: url.appendingPathComponent(".xccurrentversion"))
        } else {
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        try Data(xcdatamodelContents().utf8).write(to: directory.appendingPathComponent("contents"))
        if !localizationDictionary.isEmpty {
            let name = directory.deletingPathExtension().lastPathComponent
            try Data(localizationStrings().utf8).write(to: directory.appendingPathComponent("\(name)Model.strings"))
        }
    }
}

/// The names under which composite attributes' types are written: the
/// name Xcode gave each (`composite="Address"`), or one made from the
/// attribute's name; two different composites never share a name.
private struct CompositeNames {
    private var names: [ObjectIdentifier: String] = [:]
    /// Each name once, with its elements, in the order first met.
    private(set) var definitions: [(name: String, elements: [AttributeDescription])] = []

    init() {}

    init(_ entities: [EntityDescription]) {
        for entity in entities {
            for case let attribute as AttributeDescription in entity.declaredProperties { visit(attribute) }
        }
    }

    private mutating func visit(_ attribute: AttributeDescription) {
        guard attribute.type == .composite else { return }
        let archive = attribute.elements.map(PropertyArchive.init)
        let base = attribute.compositeName ?? attribute.name.prefix(1).uppercased() + attribute.name.dropFirst()
        var name = base
        var n = 1
        while let existing = definitions.first(where: { $0.name == name }) {
            if existing.elements.map(PropertyArchive.init) == archive { break }
            n += 1
            name = "\(base)\(n)"
        }
        names[ObjectIdentifier(attribute)] = name
        guard !definitions.contains(where: { $0.name == name }) else { return }
        definitions.append((name, attribute.elements))
        for element in attribute.elements { visit(element) }
    }

    func name(of attribute: AttributeDescription) -> String? { names[ObjectIdentifier(attribute)] }
}

/// Indented XML, four spaces a level, attributes in the order given.
private struct IndentedXML {
    var text = ""
    private var depth = 0
    var composites = CompositeNames()
    /// The first value XML cannot hold, with the attribute it was for.
    var unwritable: (key: String, character: XMLText.Unwritable)?

    mutating func line(_ s: String) {
        text += String(repeating: "    ", count: depth) + s + "\n"
    }

    private mutating func tag(_ name: String, _ attributes: [(String, String?)]) -> String {
        var s = "<\(name)"
        for case let (key, value?) in attributes {
            do {
                s += " \(key)=\"\(try XMLText.escaped(value, in: .attribute))\""
            } catch {
                if unwritable == nil { unwritable = ("<\(name)> \(key)", error) }
            }
        }
        return s
    }

    mutating func open(_ name: String, _ attributes: [(String, String?)], empty: Bool = false) {
        line(tag(name, attributes) + (empty ? "/>" : ">"))
        if !empty { depth += 1 }
    }

    mutating func leaf(_ name: String, _ attributes: [(String, String?)]) {
        open(name, attributes, empty: true)
    }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }

    mutating func userInfo(_ info: [String: String]) {
        guard !info.isEmpty else { return }
        open("userInfo", [])
        for (key, value) in info.sorted(by: { $0.key < $1.key }) { leaf("entry", [("key", key), ("value", value)]) }
        close("userInfo")
    }

    private static func yes(_ flag: Bool) -> String? { flag ? "YES" : nil }

    mutating func write(_ entity: EntityDescription) {
        open("entity", [
            ("name", entity.name), ("representedClassName", entity.className),
            ("parentEntity", entity.parentName), ("isAbstract", Self.yes(entity.isAbstract)),
            ("elementID", entity.renamingIdentifier), ("versionHashModifier", entity.versionHashModifier),
            ("syncable", "YES"),
        ])
        for property in entity.declaredProperties {
            switch property {
            case let a as AttributeDescription: write(a)
            case let r as RelationshipDescription: write(r)
            case let f as FetchedPropertyDescription: write(f)
            default: break
            }
        }
        if !entity.uniquenessConstraints.isEmpty {
            open("uniquenessConstraints", [])
            for constraint in entity.uniquenessConstraints {
                open("uniquenessConstraint", [])
                for name in constraint { leaf("constraint", [("value", name)]) }
                close("uniquenessConstraint")
            }
            close("uniquenessConstraints")
        }
        // Xcode's reader drops expression elements: so does its writer.
        for index in entity.fetchIndexes where index.elements.contains(where: { index.expressions[$0.property] == nil }) {
            open("fetchIndex", [("name", index.name)])
            for element in index.elements where index.expressions[element.property] == nil {
                leaf("fetchIndexElement", [
                    ("property", element.property), ("type", "Binary"),
                    ("order", element.ascending ? "ascending" : "descending"),
                ])
            }
            close("fetchIndex")
        }
        userInfo(entity.userInfo)
        close("entity")
    }

    mutating func write(_ a: AttributeDescription) {
        var attributes: [(String, String?)] = [
            ("name", a.name), ("optional", Self.yes(a.isOptional)), ("transient", Self.yes(a.isTransient)),
            ("attributeType", a.type.rawValue), ("composite", composites.name(of: a)),
        ]
        let boundKeys = a.type == .date ? ("minDateTimeInterval", "maxDateTimeInterval") : ("minValueString", "maxValueString")
        attributes.append((boundKeys.0, a.minValue.map(XcodeXML.text)))
        attributes.append((boundKeys.1, a.maxValue.map(XcodeXML.text)))
        if case .date(let date) = a.defaultValue {
            attributes.append(("defaultDateTimeInterval", String(date.timeIntervalSinceReferenceDate)))
        } else if !a.defaultValue.isNull {
            attributes.append(("defaultValueString", XcodeXML.text(a.defaultValue)))
        }
        attributes += [
            ("regularExpressionString", a.regularExpression),
            ("allowsExternalBinaryDataStorage", Self.yes(a.allowsExternalBinaryDataStorage)),
            ("indexed", Self.yes(a.isIndexed)),
            ("valueTransformerName", a.valueTransformerName),
            ("elementID", a.renamingIdentifier), ("versionHashModifier", a.versionHashModifier),
            ("usesScalarValueType", a.type.isNumeric || a.type == .boolean ? "YES" : nil),
            ("preserveAfterDeletion", Self.yes(a.preservesValueInHistoryOnDeletion)),
        ]
        let empty = a.userInfo.isEmpty && a.validationPredicates.isEmpty
        open("attribute", attributes, empty: empty)
        guard !empty else { return }
        if !a.validationPredicates.isEmpty {
            open("validationPredicates", [])
            for rule in a.validationPredicates {
                leaf("validationPredicate", [("predicateString", rule.format), ("message", rule.message)])
            }
            close("validationPredicates")
        }
        userInfo(a.userInfo)
        close("attribute")
    }

    private mutating func write(_ r: RelationshipDescription) {
        let attributes: [(String, String?)] = [
            ("name", r.name), ("optional", Self.yes(r.isOptional)), ("transient", Self.yes(r.isTransient)),
            ("toMany", Self.yes(r.isToMany)),
            ("minCount", r.isToMany ? (r.minCount > 0 ? String(r.minCount) : nil) : r.declaredMinCount.map(String.init)),
            ("maxCount", r.isToMany ? (r.maxCount > 0 ? String(r.maxCount) : nil) : "1"),
            ("deletionRule", r.deleteRule.rawValue), ("ordered", Self.yes(r.isOrdered)),
            ("destinationEntity", r.destinationName), ("inverseName", r.inverseName),
            ("inverseEntity", r.inverseName == nil ? nil : r.destinationName),
            ("elementID", r.renamingIdentifier), ("versionHashModifier", r.versionHashModifier),
        ]
        open("relationship", attributes, empty: r.userInfo.isEmpty)
        guard !r.userInfo.isEmpty else { return }
        userInfo(r.userInfo)
        close("relationship")
    }

    private mutating func write(_ f: FetchedPropertyDescription) {
        open("fetchedProperty", [
            ("name", f.name), ("optional", Self.yes(f.isOptional)), ("elementID", f.renamingIdentifier),
            ("versionHashModifier", f.versionHashModifier),
        ])
        leaf("fetchRequest", [("name", f.fetchRequestName), ("entity", f.destinationName), ("predicateString", f.predicateFormat)])
        userInfo(f.userInfo)
        close("fetchedProperty")
    }
}
