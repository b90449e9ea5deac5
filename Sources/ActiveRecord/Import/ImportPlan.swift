import Foundation
import ObjectStore
import Predicates

/// A JSON key a property reads: a member name, or a dotted key path.
/// (A class: it remembers where the last object had the key.)
final class JSONKey {
    /// As written in the model: `address.city`.
    let text: String
    /// Split at the dots; one element for a plain member name.
    let path: [String]
    /// The member position the key had in the last object that had it.
    // Read and written for every key of every row, only by the importer
    // that owns the plan (an importer is confined to its context): its
    // accesses skip the runtime's exclusivity bookkeeping (mrq-bench
    // d. import).
    @exclusivity(unchecked) private var hint = 0

    init(_ text: String) {
        self.text = text
        self.path = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The value of this (single-member) key in `members`, looked for
    /// first where the last object had it.
    @inline(__always)
    func value(in members: JSONObject) -> JSON? {
        members.value(forKey: text, near: &hint)
    }

    /// The keys a property reads, in order: its `mappedKeyName` or its
    /// name, then `mappedKeyName.1` … `.9`.
    static func candidates(for property: PropertyDescription) -> [JSONKey] {
        var keys = [JSONKey(property.userInfo[ImportKey.mappedKeyName] ?? property.name)]
        for n in 1...9 {
            if let key = property.userInfo["\(ImportKey.mappedKeyName).\(n)"] { keys.append(JSONKey(key)) }
        }
        return keys
    }
}

/// How an attribute's JSON value becomes a `Value`, decided once.
enum Conversion {
    case string
    case integer(ClosedRange<Int64>)
    case real
    case decimal
    case boolean
    case date(DateRule)
    case uuid
    case uri
    case binary
    case serialized
}

/// How a date attribute reads numbers and text.
///
/// A class: `Importer.convert` takes it out of the step's conversion for
/// every date it reads, and a struct of four references was retained and
/// released four times there, where one reference is once (mrq-bench
/// d. import).
final class DateRule {
    let format: String
    /// `dateFormat` is `UnixTime`: numbers are milliseconds since 1970
    /// (otherwise seconds).
    let unixMilliseconds: Bool
    /// Parses text in `format`; nil for `UnixTime`.
    let formatter: DateFormatter?
    /// The hand-written parser of `format`, tried first, when it has one.
    let fast: FastDateFormat?
    /// The default format also accepts ISO 8601 text.
    let acceptsISO8601: Bool

    /// Other forms read after `format` (and before ISO 8601).
    let alsoReads: [FastDateFormat]

    /// With no `format`, ISO 8601 only.
    init(format: String?, formatter: (String) -> DateFormatter, acceptsISO8601: Bool, alsoReads: [FastDateFormat] = []) {
        self.format = format ?? "ISO 8601"
        unixMilliseconds = format == ImportKey.unixTime
        let parsed = unixMilliseconds ? nil : format
        self.formatter = parsed.map(formatter)
        fast = parsed.flatMap { FastDateFormat($0) }
        self.alsoReads = alsoReads
        self.acceptsISO8601 = acceptsISO8601 || format == nil
    }

    /// The date `text` writes in `format`, another form it reads, or ISO
    /// 8601 when accepted.
    func date(from text: String) -> Date? {
        if let date = fast?.date(from: text) ?? formatter?.date(from: text) { return date }
        for form in alsoReads {
            if let date = form.date(from: text) { return date }
        }
        guard acceptsISO8601 else { return nil }
        for form in FastDateFormat.iso8601 {
            if let date = form.date(from: text) { return date }
        }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

/// One attribute's part of an import: where its value comes from and how
/// it is converted, worked out once per import instead of once per row.
/// (A class: the row loop then copies one reference per step, not five.)
final class AttributeStep {
    let attribute: AttributeDescription
    /// The attribute's place in `entity.attributes`.
    let index: Int
    let keys: [JSONKey]
    let conversion: Conversion
    /// Set when no key is present (`useDefaultValueWhenNotPresent`).
    let defaultWhenAbsent: Value?

    init(attribute: AttributeDescription, index: Int, keys: [JSONKey], conversion: Conversion, defaultWhenAbsent: Value?) {
        self.attribute = attribute
        self.index = index
        self.keys = keys
        self.conversion = conversion
        self.defaultWhenAbsent = defaultWhenAbsent
    }
}

/// One relationship's part of an import.
final class RelationshipStep {
    let relationship: RelationshipDescription
    /// The relationship's place in `entity.relationships`.
    let index: Int
    let keys: [JSONKey]
    let destination: EntityDescription
    /// How the declared destination's objects are told apart.
    let destinationKey: KeyIndex?

    init(relationship: RelationshipDescription, index: Int, keys: [JSONKey], destination: EntityDescription, destinationKey: KeyIndex?) {
        self.relationship = relationship
        self.index = index
        self.keys = keys
        self.destination = destination
        self.destinationKey = destinationKey
    }
}

/// What importing an object of one entity does, property by property.
final class EntityPlan {
    let entity: EntityDescription
    /// Identifies the entity's objects when no relationship says otherwise.
    let key: KeyIndex?
    let attributes: [AttributeStep]
    let relationships: [RelationshipStep]
    /// The class of the objects last seen, and whether it adopts
    /// `ImportHooks` (a cast per object costs more than this check).
    /// Asked for every object imported: its accesses skip the runtime's
    /// exclusivity bookkeeping, as the rest of a plan's private state
    /// (mrq-bench d. import).
    @exclusivity(unchecked) private var lastClass: ObjectIdentifier?
    @exclusivity(unchecked) private var lastClassHasHooks = false

    init(entity: EntityDescription, key: KeyIndex?, attributes: [AttributeStep], relationships: [RelationshipStep]) {
        self.entity = entity
        self.key = key
        self.attributes = attributes
        self.relationships = relationships
    }

    // MARK: Where rows keep their values

    /// The keys of the last row whose attributes were read by position,
    /// and per attribute step the member position and key that held its
    /// value (nil where absent). Rows of one document share their keys'
    /// order: the next row with the same keys reads each value straight
    /// from its position. Read for every row (mrq-bench d. import).
    @exclusivity(unchecked) private var layoutKeys: [String]?
    @exclusivity(unchecked) private var layoutPlaces: [MemberPlace] = []

    /// Where an attribute step finds its value in rows of one layout.
    enum MemberPlace {
        /// The member at this position, under this key.
        case member(Int, key: String)
        /// None of its keys: absent.
        case absent
        /// A key path, which positions do not describe: look it up.
        case search
    }

    /// Where each attribute step's value is in `members`; nil when keys
    /// are normalised, which positions do not describe.
    func places(in members: JSONObject, normalizesKeys: Bool) -> [MemberPlace]? {
        guard !normalizesKeys else { return nil }
        if let layoutKeys, members.hasKeys(layoutKeys) { return layoutPlaces }
        layoutPlaces = attributes.map { step in
            for candidate in step.keys {
                guard candidate.path.count == 1 else { return .search }
                if let position = members.index(forKey: candidate.text) { return .member(position, key: candidate.text) }
            }
            return .absent
        }
        layoutKeys = members.keys
        return layoutPlaces
    }

    // MARK: Nested data seen again

    /// The data last imported into objects of this entity from nested
    /// data, in the current import call, by object: the same data nested
    /// again, as a department is in every one of its people, would change
    /// nothing, and `isUnchanged` says so with one comparison instead of
    /// importing it again. Asked for every object imported (mrq-bench
    /// d. import). Each object is held until the call ends: filed by its
    /// address, one freed meanwhile (a save in a progress callback lets
    /// go of new objects nobody holds) could leave its address, and its
    /// data, to a new object.
    @exclusivity(unchecked) private var lastData: [ObjectIdentifier: (object: ManagedObject, data: JSONObject)] = [:]
    @exclusivity(unchecked) private var lastDataGeneration = -1

    private func startGeneration(_ generation: Int) {
        guard lastDataGeneration != generation else { return }
        lastDataGeneration = generation
        lastData.removeAll()
    }

    /// Whether `data` is what was last imported into `object` in this
    /// import call.
    func isUnchanged(_ object: ManagedObject, by data: JSONObject, generation: Int) -> Bool {
        startGeneration(generation)
        guard !lastData.isEmpty, let last = lastData[ObjectIdentifier(object)] else { return false }
        return last.data == data
    }

    /// Notes that `data` was just imported into `object`, or with nil that
    /// importing what came in again could change it (hooks, relationships).
    func noteImport(_ data: JSONObject?, into object: ManagedObject, generation: Int) {
        startGeneration(generation)
        if let data {
            lastData[ObjectIdentifier(object)] = (object, data)
        } else if !lastData.isEmpty {
            lastData[ObjectIdentifier(object)] = nil
        }
    }

    func hooks(of object: ManagedObject) -> ImportHooks? {
        let type = ObjectIdentifier(Swift.type(of: object))
        if type != lastClass {
            lastClass = type
            lastClassHasHooks = object is ImportHooks
        }
        return lastClassHasHooks ? object as? ImportHooks : nil
    }
}

/// The objects of one entity an import found or made, by the value of
/// the attribute that identifies them.
final class KeyIndex {
    let entity: EntityDescription
    let step: AttributeStep
    var attribute: AttributeDescription { step.attribute }
    // Read and written for every row and every related key, only by the
    // importer that owns the index (confined to its context's queue): its
    // accesses skip the runtime's exclusivity bookkeeping (mrq-bench
    // d. import).
    @exclusivity(unchecked) private var known: [Value: ManagedObject] = [:]
    /// Values the current batch's prefetch asked the store for: one not
    /// in `known` is new, with no need to ask again.
    @exclusivity(unchecked) private var asked: Set<Value> = []
    /// The import call (`Importer.generation`) whose pending objects
    /// `known` holds.
    var pendingSeen = -1
    /// Whether the store held saved objects of `entity` when the import
    /// call `generation` began: when it held none, none is asked for
    /// during that call (those it makes are in `known`).
    var savedLook = (generation: -1, mayHaveSaved: true)

    init(entity: EntityDescription, step: AttributeStep) {
        self.entity = entity
        self.step = step
    }

    /// The object found or made for `key`, or nil.
    @inline(__always)
    subscript(key: Value) -> ManagedObject? {
        get { known[key] }
        set { known[key] = newValue }
    }

    /// The object known for `key`, or else the one `make` makes, known
    /// for it from then on.
    ///
    /// `plain`: `make` runs no code of the user's (the entity's objects
    /// are plain `ManagedObject`s, with no `init` or `awakeFromInsert` of
    /// a subclass): the object is made inside the dictionary's in-place
    /// `default:` access, which inserts it in the slot its one look-up
    /// found. Otherwise it is made outside any access to the index, and
    /// inserted with a second hash: a subclass's `awakeFromInsert` may
    /// import again through the same importer, adding to this very
    /// dictionary, which would move the storage the outer access writes
    /// to (`known` skips the exclusivity check that would stop it).
    @inline(__always)
    func object(for key: Value, plain: Bool, orMake make: () -> ManagedObject) -> (ManagedObject, isNew: Bool) {
        guard plain else {
            if let found = known[key] { return (found, false) }
            let made = make()
            known[key] = made
            return (made, true)
        }
        var isNew = false
        func inPlace(_ object: inout ManagedObject) -> ManagedObject { object }
        let object = inPlace(&known[key, default: { isNew = true; return make() }()])
        return (object, isNew)
    }

    /// Adds the objects `found` by key; one already known stays.
    func add(_ found: [Value: ManagedObject]) {
        known.merge(found) { a, _ in a }
    }

    /// Makes room for `count` more objects.
    func reserve(_ count: Int) {
        known.reserveCapacity(known.count + count)
    }

    /// Whether the current batch's prefetch asked the store for `key`.
    func wasAsked(_ key: Value) -> Bool { asked.contains(key) }

    /// Notes that the store was asked for `values`.
    func noteAsked(_ values: Set<Value>) { asked.formUnion(values) }

    /// Forgets what the last batch asked.
    func forgetAsked() {
        if !asked.isEmpty { asked.removeAll(keepingCapacity: true) }
    }
}

extension Importer {
    /// The plan for `entity`, made on first use.
    func plan(for entity: EntityDescription) -> EntityPlan {
        let id = ObjectIdentifier(entity)
        if let plan = plans[id] { return plan }
        let attributes = entity.attributes.enumerated().map { makeStep($1, index: $0) }
        let relationships = entity.relationships.enumerated().compactMap { index, relationship -> RelationshipStep? in
            guard let destination = relationship.destination else { return nil }
            return RelationshipStep(relationship: relationship, index: index, keys: JSONKey.candidates(for: relationship),
                                    destination: destination, destinationKey: keyIndex(destination, via: relationship))
        }
        let plan = EntityPlan(entity: entity, key: keyIndex(entity, via: nil), attributes: attributes, relationships: relationships)
        plans[id] = plan
        return plan
    }

    /// The index of `entity`'s objects by their identifying attribute
    /// (see `primaryAttribute`), shared by the whole import.
    func keyIndex(_ entity: EntityDescription, via relationship: RelationshipDescription?) -> KeyIndex? {
        guard let attribute = primaryAttribute(of: entity, via: relationship),
              let index = entity.attributeSlot(named: attribute.name) else { return nil }
        let id = KeyIndexID(entity: ObjectIdentifier(entity), attribute: ObjectIdentifier(attribute))
        if let existing = keyIndexes[id] { return existing }
        let made = KeyIndex(entity: entity, step: makeStep(attribute, index: index))
        keyIndexes[id] = made
        return made
    }

    private func makeStep(_ attribute: AttributeDescription, index: Int) -> AttributeStep {
        let conversion: Conversion
        switch attribute.type {
        case .string: conversion = .string
        case .integer16: conversion = .integer(Int64(Int16.min)...Int64(Int16.max))
        case .integer32: conversion = .integer(Int64(Int32.min)...Int64(Int32.max))
        case .integer64: conversion = .integer(Int64.min...Int64.max)
        case .double, .float: conversion = .real
        case .decimal: conversion = .decimal
        case .boolean: conversion = .boolean
        case .date:
            let format = attribute.userInfo[ImportKey.dateFormat] ?? ImportKey.defaultDateFormat
            conversion = .date(DateRule(format: format, formatter: formatter, acceptsISO8601: format == ImportKey.defaultDateFormat))
        case .uuid: conversion = .uuid
        case .uri: conversion = .uri
        case .binary: conversion = .binary
        case .transformable, .objectID, .undefined, .composite: conversion = .serialized
        }
        // Spelled out: `Value` is `ExpressibleByNilLiteral`, so a bare `nil`
        // here would be `.some(.null)`, which clears every absent key.
        let useDefault = attribute.userInfo[ImportKey.useDefaultValueWhenNotPresent]?.isTrue == true
        let defaultWhenAbsent: Value? = useDefault ? .some(attribute.defaultValue) : .none
        return AttributeStep(attribute: attribute, index: index, keys: JSONKey.candidates(for: attribute),
                             conversion: conversion, defaultWhenAbsent: defaultWhenAbsent)
    }

    // MARK: - Keys

    /// The JSON value a property reads from `item`, and the key that held
    /// it (for error paths): the first of `keys` present.
    @inline(__always)
    func lookup(_ item: JSON, keys: [JSONKey]) -> (key: String, json: JSON)? {
        guard case .object(let members) = item else { return nil }
        return lookup(in: members, keys: keys)
    }

    /// `lookup` in an object's members.
    func lookup(in members: JSONObject, keys: [JSONKey]) -> (key: String, json: JSON)? {
        let normalizesKeys = options.normalizesKeys
        // The plan holds its keys throughout: each is used as a guaranteed
        // reference, not retained and released per lookup.
        return keys.withUnsafeBufferPointer { keys in
            for n in keys.indices {
                let found = Unmanaged.passUnretained(keys[n])._withUnsafeGuaranteedRef { candidate -> (key: String, json: JSON)? in
                    if candidate.path.count == 1 {
                        if let value = candidate.value(in: members) { return (candidate.text, value) }
                    } else if let value = JSON.object(members).value(atPath: candidate.path) {
                        return (candidate.text, value)
                    }
                    if normalizesKeys, let (found, value) = normalizedLookup(.object(members), keyPath: candidate.text) {
                        return (found, value)
                    }
                    return nil
                }
                if let found { return found }
            }
            return nil
        }
    }

    private func normalizedLookup(_ item: JSON, keyPath: String) -> (String, JSON)? {
        var current = item
        var used: [String] = []
        for part in keyPath.split(separator: ".") {
            guard case .object(let members) = current else { return nil }
            let wanted = Self.normalize(String(part))
            guard let match = members.first(where: { Self.normalize($0.key) == wanted }) else { return nil }
            used.append(match.key)
            current = match.value
        }
        return (used.joined(separator: "."), current)
    }

    static func normalize(_ key: String) -> String {
        String(key.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
    }
}

struct KeyIndexID: Hashable {
    let entity: ObjectIdentifier
    let attribute: ObjectIdentifier
}
