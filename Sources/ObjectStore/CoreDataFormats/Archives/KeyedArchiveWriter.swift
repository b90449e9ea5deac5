import Foundation

/// Writes an `NSKeyedArchiver` archive from a graph of `ArchiveNode`s, the
/// way Apple's archiver lays one out.
///
/// ```swift
/// let array = ArchiveNode("NSArray", ["NSArray", "NSObject"])
/// array.set("NS.objects", .items([.string("a"), .string("b")]))
/// let data = KeyedArchiveWriter.archive(root: array)   // a binary plist
/// ```
///
/// Objects get their UIDs in the order the archiver meets them, depth
/// first: an object's number comes before its fields', and its class's
/// after them. A conditional reference reserves a UID and leaves the
/// object's fields for where it is encoded unconditionally. Strings and
/// numbers are written once per value, `$null` is UID 0.
///
/// The property list is written by `BinaryPropertyListWriter`, not
/// Foundation: Foundation has no public way to make a UID (its XML reader
/// turns `{CF$UID = n}` dictionaries into UIDs, so an archive could go
/// through XML and back), and its dictionaries come out in a different
/// order from one run to the next. This way the same graph always gives
/// the same bytes.
package struct KeyedArchiveWriter {
    private typealias Value = BinaryPropertyListWriter.Value
    private var objects: [Value] = [.string("$null")]
    private var nodeUIDs: [ObjectIdentifier: Int] = [:]
    private var written: Set<ObjectIdentifier> = []
    /// Nodes kept alive while their identifiers are in use.
    private var retained: [ArchiveNode] = []
    private var stringUIDs: [String: Int] = [:]
    private var intUIDs: [Int64: Int] = [:]
    private var doubleUIDs: [UInt64: Int] = [:]
    private var boolUIDs: [Bool: Int] = [:]
    private var dataUIDs: [Data: Int] = [:]
    private var classUIDs: [[String]: Int] = [:]

    /// The archive of `root` (under `$top`'s `root`), as a binary plist.
    package static func archive(root: ArchiveNode) -> Data {
        var writer = KeyedArchiveWriter()
        let rootUID = writer.encode(.node(root))
        precondition(writer.unwritten().isEmpty, "conditional references to objects never encoded")
        return BinaryPropertyListWriter.write(.dictionary([
            "$archiver": .string("NSKeyedArchiver"),
            "$version": .int(100_000),
            "$top": .dictionary(["root": .uid(rootUID)]),
            "$objects": .array(writer.objects),
        ]))
    }

    /// The nodes that were referenced conditionally but never encoded.
    private func unwritten() -> [ArchiveNode] {
        retained.filter { !written.contains(ObjectIdentifier($0)) }
    }

    private mutating func encode(_ item: ArchiveItem) -> Int {
        switch item {
        case .null:
            return 0
        case .string(let s):
            return unique(s, in: \.stringUIDs, .string(s))
        case .int(let n):
            return unique(n, in: \.intUIDs, .int(n))
        case .double(let d):
            return unique(d.bitPattern, in: \.doubleUIDs, .real(d))
        case .bool(let b):
            return unique(b, in: \.boolUIDs, .bool(b))
        case .data(let d):
            return unique(d, in: \.dataUIDs, .data(d))
        case .node(let node):
            let uid = reserve(node)
            let id = ObjectIdentifier(node)
            if !written.contains(id) {
                written.insert(id)
                write(node, at: uid)
            }
            return uid
        }
    }

    private mutating func unique<Key: Hashable>(
        _ key: Key, in table: WritableKeyPath<KeyedArchiveWriter, [Key: Int]>, _ value: Value
    ) -> Int {
        if let uid = self[keyPath: table][key] { return uid }
        let uid = objects.count
        objects.append(value)
        self[keyPath: table][key] = uid
        return uid
    }

    /// The node's UID, given it now if it has none.
    private mutating func reserve(_ node: ArchiveNode) -> Int {
        let id = ObjectIdentifier(node)
        if let uid = nodeUIDs[id] { return uid }
        let uid = objects.count
        objects.append(.string("$null"))  // filled in when the node is written
        nodeUIDs[id] = uid
        retained.append(node)
        return uid
    }

    private mutating func write(_ node: ArchiveNode, at uid: Int) {
        var fields: [String: Value] = [:]
        for (key, field) in node.fields {
            switch field {
            case .object(let item): fields[key] = .uid(encode(item))
            case .conditional(let target): fields[key] = .uid(target.map { reserve($0) } ?? 0)
            case .items(let items): fields[key] = .array(items.map { .uid(encode($0)) })
            case .int(let n): fields[key] = .int(Int64(n))
            case .bool(let b): fields[key] = .bool(b)
            case .double(let d): fields[key] = .real(d)
            case .inlineData(let d): fields[key] = .data(d)
            case .inlineString(let s): fields[key] = .string(s)
            }
        }
        let classUID: Int
        if let known = classUIDs[node.classes] {
            classUID = known
        } else {
            classUID = objects.count
            objects.append(.dictionary(["$classname": .string(node.classes[0]), "$classes": .array(node.classes.map(Value.string))]))
            classUIDs[node.classes] = classUID
        }
        fields["$class"] = .uid(classUID)
        objects[uid] = .dictionary(fields)
    }
}

/// An object to archive: its class, with its superclasses, and its fields
/// in the order its `encodeWithCoder:` writes them.
package final class ArchiveNode {
    /// The class and its superclasses, most derived first
    /// (`["NSMutableDictionary", "NSDictionary", "NSObject"]`).
    package let classes: [String]
    package private(set) var fields: [(String, ArchiveField)] = []

    package init(_ classes: [String]) {
        precondition(!classes.isEmpty, "an archived object needs a class")
        self.classes = classes
    }

    /// Adds a field; fields are written in the order they are set.
    package func set(_ key: String, _ field: ArchiveField) {
        fields.append((key, field))
    }

    /// An NSArray (or another class given) of `items`.
    package static func array(_ items: [ArchiveItem], classes: [String] = ["NSArray", "NSObject"]) -> ArchiveNode {
        let node = ArchiveNode(classes)
        node.set("NS.objects", .items(items))
        return node
    }

    /// An NSDictionary (or another class given): all keys, then all values.
    package static func dictionary(
        _ pairs: [(ArchiveItem, ArchiveItem)], classes: [String] = ["NSDictionary", "NSObject"]
    ) -> ArchiveNode {
        let node = ArchiveNode(classes)
        node.set("NS.keys", .items(pairs.map(\.0)))
        node.set("NS.objects", .items(pairs.map(\.1)))
        return node
    }
}

/// A field of an archived object.
package enum ArchiveField {
    /// `encodeObject:forKey:`: a UID, the object written where it is first
    /// met.
    case object(ArchiveItem)
    /// `encodeConditionalObject:forKey:`: a UID of an object written
    /// elsewhere.
    case conditional(ArchiveNode?)
    /// A list of UIDs in place (`NS.objects`, `NS.keys`).
    case items([ArchiveItem])
    case int(Int)
    case bool(Bool)
    case double(Double)
    case inlineData(Data)
    case inlineString(String)
}

/// What a UID points at: `$null`, a string or number written once per
/// value, or an object.
package enum ArchiveItem {
    case null
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case data(Data)
    case node(ArchiveNode)
}
