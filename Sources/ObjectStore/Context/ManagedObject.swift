import Foundation
import Predicates

/// An object of the graph: an entity's values, tracked by a context.
///
/// ```swift
/// let person = context.insertObject(forEntityName: "Person")
/// person["age"] = .int(42)
/// person.setValue("Ada", forKey: "firstName")
/// try context.save()
/// ```
///
/// A managed object's state is a few words plus one slot per attribute and
/// relationship; it belongs to one context and is used on that context's
/// queue only. Subclass it for typed properties (see `Managed`).
open class ManagedObject: CustomStringConvertible {
    /// The object's own state, read and written through the accessors
    /// below.
    private struct Record {
        var objectID: ObjectID
        var hearing: ChangeHearing?
        var values: [Value]
        var relationshipSlots: [RelationshipSlot]
        var committed: Snapshot?
        var version: Int64 = 0
        var isFault: Bool
        var state: State = .clean
        var changeOrder = 0
        var changedRelationshipSet = SlotSet()
        var hasAwokenFromInsert = false
    }
    // An object is used on its context's queue only, one access at a time,
    // and every read and write of a property goes through this state: its
    // accesses skip the runtime's exclusivity bookkeeping, which would
    // otherwise cost more than the accesses themselves (mrq-bench b. fetch,
    // a. insert, d. import).
    @exclusivity(unchecked) private var record: Record

    /// The entity the object is an instance of (Core Data's `entity`).
    public let entity: EntityDescription
    /// The object's identity (Core Data's `objectID`): a temporary ID from
    /// insertion until the save that gives it its row, a permanent one after.
    /// Keep the ID, not the object, to find the object again in another
    /// context with `ManagedObjectContext.object(with:)`.
    public internal(set) final var objectID: ObjectID {
        get { record.objectID }
        set { record.objectID = newValue }
    }
    /// The context that owns the object, or nil once the object has left
    /// it: its delete was saved, its unsaved insert was deleted or undone,
    /// or the context was reset. The context is held weakly, as in Core
    /// Data: keep a reference to the context yourself.
    public final var managedObjectContext: ManagedObjectContext? {
        hearing?.context
    }

    /// Joins `context` (or leaves, with nil): the object holds the
    /// context's `hearing`, which holds the context weakly.
    @inline(__always)
    func setContext(_ context: ManagedObjectContext?) {
        hearing = context?.hearing
    }
    /// The context's `hearing`, shared by its objects: the way to the
    /// context, and whether it must hear of every change of an object
    /// already in its change set, read without loading the context's
    /// weak reference (which costs more than the rest of a write).
    private final var hearing: ChangeHearing? {
        get { record.hearing }
        set { record.hearing = newValue }
    }

    /// Whether the object is in `context`, without loading the weak
    /// reference: each context shares its own `hearing` with its objects.
    @inline(__always)
    func belongs(to context: ManagedObjectContext) -> Bool {
        hearing === context.hearing
    }

    /// Whether a write needs no word to the context: the object is in its
    /// change set already, and nothing (undo, observers) wants each change,
    /// or it was made since its context began undoing changes as one action.
    var changeIsOnRecord: Bool {
        guard changeOrder != 0, state != .clean, let hearing else { return false }
        return !hearing.everyChange || objectID.primaryKey < hearing.bornBelow
    }

    /// Attribute values in `entity.attributes` order.
    final var values: [Value] {
        get { record.values }
        _modify { yield &record.values }
    }
    /// Relationship contents in `entity.relationships` order.
    final var relationshipSlots: [RelationshipSlot] {
        get { record.relationshipSlots }
        _modify { yield &record.relationshipSlots }
    }
    /// The values as last read from or written to the parent store.
    final var committed: Snapshot? {
        get { record.committed }
        _modify { yield &record.committed }
    }
    final var version: Int64 {
        get { record.version }
        set { record.version = newValue }
    }
    package internal(set) final var isFault: Bool {
        get { record.isFault }
        set { record.isFault = newValue }
    }
    final var state: State {
        get { record.state }
        set { record.state = newValue }
    }
    /// Order of first change in the context, for stable change lists; 0
    /// while the object is not in its context's change set.
    final var changeOrder: Int {
        get { record.changeOrder }
        set { record.changeOrder = newValue }
    }
    /// Relationships changed since the last save.
    final var changedRelationshipSet: SlotSet {
        get { record.changedRelationshipSet }
        _modify { yield &record.changedRelationshipSet }
    }
    /// Whether `awakeFromInsert` ran: it runs once in an object's life,
    /// not again when an undone insert is redone.
    final var hasAwokenFromInsert: Bool {
        get { record.hasAwokenFromInsert }
        set { record.hasAwokenFromInsert = newValue }
    }

    enum State { case clean, inserted, updated, deleted }

    /// Creates an object of `entity`; the context, if any, inserts it.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.entity = entity
        self.record = Record(
            objectID: ObjectID.temporary(for: entity), values: Self.ownValues(entity.defaultValues),
            relationshipSlots: entity.emptySlots, isFault: false)
        if let context { context.insert(self) }
    }

    /// A new object's values: the entity's defaults in a buffer of its
    /// own. Sharing the entity's buffer until the first write made that
    /// write copy it through the runtime's generic element copy, several
    /// times the cost of these appends (mrq-bench a. insert, d. import).
    /// (`Array(unsafeUninitializedCapacity:)` allocates through an
    /// unspecialized runtime call that costs more than the copy saved.)
    private static func ownValues(_ defaults: [Value]) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(defaults.count)
        for value in defaults { values.append(value) }
        return values
    }

    /// A fault for `id`: no values until first accessed. Contexts make
    /// these for fetched rows and relationship destinations.
    ///
    /// The context is borrowed, not taken: the object keeps only its
    /// `hearing`, and a context's retain and release go through its side
    /// table (it is held weakly), a slow path once per fetched row
    /// (mrq-bench b. fetch).
    public required init(fault id: ObjectID, context: borrowing ManagedObjectContext) {
        self.entity = id.entity
        // A fault stands for a saved object: it was inserted long ago.
        self.record = Record(
            objectID: id, hearing: context.hearing, values: [], relationshipSlots: id.entity.faultSlots,
            isFault: true, hasAwokenFromInsert: true)
    }

    /// A typed subclass names its entity: its class name by default.
    open class var entityName: String {
        String(describing: self)
    }

    /// What makes an object of this class stale, for ActiveRecord's
    /// `purgeStale`; nil (the default) never.
    open class var stalenessPredicate: Predicates.Predicate? { nil }

    /// Creates an object of this class's entity in `context`.
    public convenience init(context: ManagedObjectContext) {
        let entity = context.entity(forClass: Self.self)
        self.init(entity: entity, insertInto: context)
    }

    // MARK: - Lifecycle hooks (override in subclasses)

    /// Called once, when the object is first inserted into a context.
    open func awakeFromInsert() {}
    /// Called when a fault is fulfilled from its store.
    open func awakeFromFetch() {}
    /// Called before the object is saved.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is being deleted, before delete rules run.
    open func prepareForDeletion() {}
    /// Extra checks at save time; throw `ValidationError` to refuse.
    open func validateForInsert() throws {}
    /// Extra checks at save time for an object that was already saved and
    /// has changed; throw `ValidationError` (or any error) to refuse. Its
    /// failures are reported together with the model's own.
    open func validateForUpdate() throws {}
    /// Extra checks at save time for an object being deleted, after the
    /// model's deny rules; throw `ValidationError` (or any error) to refuse
    /// the delete.
    open func validateForDelete() throws {}

    /// Checks, and may replace, the value of one changed attribute at save
    /// time: Core Data's `validate<Key>:error:` in one method. Throw
    /// `ValidationError` (or any error) to refuse; failures are reported
    /// together with the model's own.
    ///
    /// ```swift
    /// override func validateValue(_ value: inout Value, forKey key: String) throws {
    ///     if key == "email", case .string(let s) = value { value = .string(s.lowercased()) }
    /// }
    /// ```
    open func validateValue(_ value: inout Value, forKey key: String) throws {}

    /// Called when nil is assigned through `setValue(_:forKey:)` or
    /// `@Managed` to a scalar attribute (number or boolean) the model does
    /// not allow to be nil. The default stores the attribute's default
    /// value, or zero.
    open func setNilValueForKey(_ key: String) {
        guard let attribute = entity.attribute(named: key) else { return }
        let value = attribute.defaultValue.isNull ? Self.zero(of: attribute.type) : attribute.defaultValue
        setAttributeValue(value, forKey: key)
    }

    private static func zero(of type: AttributeType) -> Value {
        switch type {
        case .double, .float: return .double(0)
        case .boolean: return .bool(false)
        case .decimal: return .decimal(0)
        default: return .int(0)
        }
    }

    /// Sets an attribute from a key-value-coding path (`setValue`,
    /// `@Managed`): nil for a required scalar goes to `setNilValueForKey`.
    func setAttributeValueCodingNil(_ value: Value, forKey key: String) {
        if value.isNull, let attribute = entity.attribute(named: key), !attribute.isOptional, attribute.type.isScalar {
            setNilValueForKey(key)
        } else {
            setAttributeValue(value, forKey: key)
        }
    }

    // MARK: - State

    /// Whether the object was inserted into its context and not saved yet
    /// (Core Data's `isInserted`).
    public var isInserted: Bool { state == .inserted }
    /// Whether the object was saved before and has unsaved changes to an
    /// attribute or relationship (Core Data's `isUpdated`). Setting a value
    /// back to what was saved makes it false again.
    public var isUpdated: Bool { state == .updated && hasChanges }
    /// Whether the object is deleted in its context and the delete is not
    /// saved yet (Core Data's `isDeleted`).
    public var isDeleted: Bool { state == .deleted }

    /// Whether the object has unsaved changes.
    public var hasChanges: Bool {
        switch state {
        case .inserted, .deleted: return true
        case .updated: return !changedAttributeIndexes.isEmpty || !changedRelationshipIndexes.isEmpty
        case .clean: return false
        }
    }

    public var description: String {
        var text = "<\(entity.name) \(objectID)"
        if isFault { return text + " fault>" }
        for (i, attribute) in entity.attributes.enumerated() {
            text += " \(attribute.name)=\(values[i])"
        }
        return text + ">"
    }

    /// Loads the object's values if it is a fault.
    @inline(__always)
    func willAccessValues() {
        if isFault { fireFault() }
    }

    /// Fills a fault: from the row it was fetched with, if it holds one
    /// and its context is still there (without loading the context's weak
    /// reference), else through its context.
    private func fireFault() {
        if committed != nil, let hearing, hearing.isOpen {
            fillFromFetchedRow()
        } else {
            managedObjectContext?.fulfillFault(self)
        }
    }

    /// Fills a fault fetched with its row (`committed`) from that row.
    func fillFromFetchedRow() {
        guard let committed else { return }
        values = committed.values
        for (i, relationship) in entity.relationships.enumerated() where relationship.isToOne {
            relationshipSlots[i] = .toOne(committed.toOneID(at: i))
        }
        isFault = false
        awakeFromFetch()
    }

    // MARK: - Attribute access

    /// An attribute's value by name.
    public subscript(key: String) -> Value {
        get { attributeValue(forKey: key) }
        set { setAttributeValue(newValue, forKey: key) }
    }

    /// The value of the attribute named `key`, fulfilling the object first if
    /// it is a fault (Core Data's `value(forKey:)` for attributes).
    /// `object["age"]` reads the same.
    ///
    /// Naming an attribute the entity does not have is a programming error
    /// and stops the program; check with `entity.attribute(named:)` first
    /// when the name comes from input.
    public func attributeValue(forKey key: String) -> Value {
        guard let index = entity.attributeSlot(named: key) else {
            preconditionFailure("entity \(entity.name) has no attribute '\(key)'")
        }
        willAccessValues()
        // Short only for a fault that could not be filled (its context is
        // gone): nil, as for a row that is gone, rather than a trap.
        return index < values.count ? values[index] : .null
    }

    /// Sets the attribute named `key` (Core Data's `setValue(_:forKey:)` for
    /// attributes), recording the change in the context for save, undo and
    /// observers. A value of another representation is converted to the
    /// attribute's type when that loses nothing (`.int(1)` for a Double
    /// attribute becomes `.double(1)`, see `AttributeType.coerce(_:)`);
    /// otherwise it is kept, and the save reports it as invalid.
    ///
    /// ```swift
    /// person.setAttributeValue(.string("Ada"), forKey: "firstName")
    /// person["age"] = .int(36)        // the same, through the subscript
    /// ```
    ///
    /// Naming an attribute the entity does not have is a programming error
    /// and stops the program.
    public func setAttributeValue(_ value: consuming Value, forKey key: String) {
        guard let index = entity.attributeSlot(named: key) else {
            preconditionFailure("entity \(entity.name) has no attribute '\(key)'")
        }
        setAttribute(at: index, to: value)
    }

    /// Sets the attribute at `index`. The value is taken, not copied: it
    /// is compared where it lies and swapped into its slot, and the slot's
    /// old value comes out the same way, with no retain or release of
    /// either (mrq-bench a. insert, d. import).
    func setAttribute(at index: Int, to value: consuming Value) {
        willAccessValues()
        let type = entity.attributeTypes[index]
        if !type.accepts(value), let converted = try? type.coerce(value) { value = converted }
        // (Past the end only for a fault that could not be filled: the
        // swap below stops the program, as any write there did.)
        guard index >= record.values.count
              || record.values.withUnsafeBufferPointer({ !Self.slot(index, of: $0, equals: value) }) else { return }
        swap(&record.values[index], &value)
        // `value` is the old value now. Already changed, and no undo
        // manager or observer to tell: the context has nothing to record.
        if changeIsOnRecord { return }
        managedObjectContext?.didChange(self, attribute: index, from: value)
    }

    /// Whether the slot at `index` holds `value` (`==`). Numbers, booleans,
    /// dates and nil are compared where they lie: reading the whole value
    /// out of the slot for `==` made an outlined copy of it and a consume
    /// after, on every set (mrq-bench a. insert, d. import).
    @inline(__always)
    private static func slot(_ index: Int, of values: UnsafeBufferPointer<Value>, equals value: Value) -> Bool {
        switch values[index] {
        case .null: if case .null = value { return true }
        case .int(let old): if case .int(let new) = value { return old == new }
        case .double(let old): if case .double(let new) = value { return old == new }
        case .bool(let old): if case .bool(let new) = value { return old == new }
        case .date(let old): if case .date(let new) = value { return old == new }
        default: return values[index] == value
        }
        return false
    }

    /// The value without change tracking: Core Data's primitive accessors,
    /// for use inside custom accessors and lifecycle hooks. A fault is
    /// still filled first.
    public func primitiveValue(forKey key: String) -> Value {
        guard let index = entity.attributeSlot(named: key) else { return .null }
        willAccessValues()
        return index < values.count ? values[index] : .null
    }

    /// Sets an attribute without change tracking (Core Data's
    /// `setPrimitiveValue(_:forKey:)`): no conversion, no undo, no observer,
    /// and the object is not marked as changed. For custom accessors and
    /// lifecycle hooks such as `awakeFromInsert`; an unknown key does
    /// nothing.
    public func setPrimitiveValue(_ value: Value, forKey key: String) {
        guard let index = entity.attributeSlot(named: key) else { return }
        willAccessValues()
        values[index] = value
    }

    // MARK: - Relationship access

    /// The destination of a to-one relationship; nil when it has none,
    /// and when its key names a row that is gone (deleted behind mrq's
    /// back, in a store without a foreign key to prevent it).
    public func object(forKey key: String) -> ManagedObject? {
        guard let index = entity.relationshipSlot(named: key), entity.relationships[index].isToOne else {
            preconditionFailure("entity \(entity.name) has no to-one relationship '\(key)'")
        }
        willAccessValues()
        guard case .toOne(let id?) = relationshipSlots[index] else { return nil }
        return managedObjectContext?.destination(id, of: self, relationship: index)
    }

    /// Sets a to-one relationship; the inverse follows.
    public func setObject(_ object: ManagedObject?, forKey key: String) {
        guard let index = entity.relationshipSlot(named: key), entity.relationships[index].isToOne else {
            preconditionFailure("entity \(entity.name) has no to-one relationship '\(key)'")
        }
        managedObjectContext?.setToOne(self, relationship: index, to: object)
    }

    /// The destinations of a to-many relationship, in order when ordered.
    public func objects(forKey key: String) -> [ManagedObject] {
        guard let index = entity.relationshipSlot(named: key), entity.relationships[index].isToMany else {
            preconditionFailure("entity \(entity.name) has no to-many relationship '\(key)'")
        }
        guard let context = managedObjectContext else { return [] }
        return context.toManyIDs(self, relationship: index).ids.map { context.object(with: $0) }
    }

    /// Adds `object` to a to-many relationship; the inverse follows.
    public func add(_ object: ManagedObject, toKey key: String) {
        guard let index = entity.relationshipSlot(named: key), entity.relationships[index].isToMany else {
            preconditionFailure("entity \(entity.name) has no to-many relationship '\(key)'")
        }
        managedObjectContext?.addToMany(self, relationship: index, object, at: nil)
    }

    /// Inserts `object` at `position` in an ordered to-many relationship.
    public func insert(_ object: ManagedObject, at position: Int, inKey key: String) {
        guard let index = entity.relationshipSlot(named: key), entity.relationships[index].isToMany else {
            preconditionFailure("entity \(entity.name) has no to-many relationship '\(key)'")
        }
        managedObjectContext?.addToMany(self, relationship: index, object, at: position)
    }

    /// Removes `object` from a to-many relationship; the inverse follows.
    public func remove(_ object: ManagedObject, fromKey key: String) {
        guard let index = entity.relationshipSlot(named: key), entity.relationships[index].isToMany else {
            preconditionFailure("entity \(entity.name) has no to-many relationship '\(key)'")
        }
        managedObjectContext?.removeFromMany(self, relationship: index, object)
    }

    /// Replaces the whole contents of a to-many relationship.
    public func setObjects(_ objects: [ManagedObject], forKey key: String) {
        for existing in self.objects(forKey: key) where !objects.contains(where: { $0 === existing }) {
            remove(existing, fromKey: key)
        }
        for (position, object) in objects.enumerated() {
            if entity.relationships[entity.relationshipSlot(named: key)!].isOrdered {
                remove(object, fromKey: key)
                insert(object, at: position, inKey: key)
            } else {
                add(object, toKey: key)
            }
        }
    }

    // MARK: - Key-value coding

    /// A property's value as a Swift value: attributes as their natural type
    /// (`String`, `Int64`, `Double`, `Bool`, `Date`, ...), to-one as a
    /// `ManagedObject`, to-many as `[ManagedObject]`; nil for null. A
    /// composite attribute is a `[String: Any]` of its elements' values (a
    /// nested composite a dictionary inside), as in Core Data; an element
    /// reads as `composite.element`.
    public func value(forKey key: String) -> Any? {
        if let index = entity.attributeSlot(named: key) {
            willAccessValues()
            return index < values.count ? values[index].anyValue : nil
        }
        if let index = entity.relationshipSlot(named: key) {
            return entity.relationships[index].isToMany ? objects(forKey: key) : object(forKey: key)
        }
        if let composite = entity.compositeAttribute(named: key) {
            return compositeDictionary(composite.elements, path: key)
        }
        preconditionFailure("entity \(entity.name) has no property '\(key)'")
    }

    private func compositeDictionary(_ elements: [AttributeDescription], path: String) -> [String: Any] {
        var result: [String: Any] = [:]
        for element in elements {
            let elementPath = path + "." + element.name
            if element.type == .composite {
                result[element.name] = compositeDictionary(element.elements, path: elementPath)
            } else if let value = value(forKey: elementPath) {
                result[element.name] = value
            }
        }
        return result
    }

    /// Sets a property from a Swift value (see `value(forKey:)`). A
    /// composite takes a `[String: Any]`: each element gets its entry, nil
    /// when it has none.
    public func setValue(_ value: Any?, forKey key: String) {
        if entity.attributeSlot(named: key) != nil {
            setAttributeValueCodingNil(Value(any: value), forKey: key)
        } else if let composite = entity.compositeAttribute(named: key) {
            setComposite(composite.elements, path: key, to: value as? [String: Any] ?? [:])
        } else if let index = entity.relationshipSlot(named: key) {
            if entity.relationships[index].isToMany {
                setObjects((value as? [ManagedObject]) ?? [], forKey: key)
            } else {
                setObject(value as? ManagedObject, forKey: key)
            }
        } else {
            preconditionFailure("entity \(entity.name) has no property '\(key)'")
        }
    }

    private func setComposite(_ elements: [AttributeDescription], path: String, to dictionary: [String: Any]) {
        for element in elements {
            let elementPath = path + "." + element.name
            if element.type == .composite {
                setComposite(element.elements, path: elementPath, to: dictionary[element.name] as? [String: Any] ?? [:])
            } else {
                setValue(dictionary[element.name], forKey: elementPath)
            }
        }
    }

    /// Follows a dotted key path: through to-one relationships to a value,
    /// or through a to-many to an array of values; into a composite's
    /// elements (`magnitude.richter`).
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: [ManagedObject] = [self]
        var isCollection = false
        let parts = keyPath.split(separator: ".").map(String.init)
        for (n, part) in parts.enumerated() {
            let last = n == parts.count - 1
            if !last, let first = current.first, first.entity.compositeAttribute(named: part) != nil {
                let rest = parts[n...].joined(separator: ".")
                let values = current.map { $0.entity.attributeSlot(named: rest) != nil ? $0.value(forKey: rest) : nil }
                return isCollection ? values.map { $0 ?? NSNull() } : values.first ?? nil
            }
            if last {
                let values = current.map { $0.value(forKey: part) }
                return isCollection ? values.map { $0 ?? NSNull() } : values.first ?? nil
            }
            var next: [ManagedObject] = []
            for object in current {
                guard let index = object.entity.relationshipSlot(named: part) else {
                    preconditionFailure("entity \(object.entity.name) has no relationship '\(part)'")
                }
                if object.entity.relationships[index].isToMany {
                    isCollection = true
                    next += object.objects(forKey: part)
                } else if let destination = object.object(forKey: part) {
                    next.append(destination)
                }
            }
            if next.isEmpty && !isCollection { return nil }
            current = next
        }
        return nil
    }

    // MARK: - Changes

    var changedAttributeIndexes: [Int] {
        guard let committed else { return state == .inserted ? Array(values.indices) : [] }
        return values.indices.filter { values[$0] != committed.values[$0] }
    }

    /// The relationships that differ from what was last read: a to-one
    /// naming another object, a to-many holding other objects (in another
    /// order, when ordered) than before its first change. A change undone
    /// is no change.
    var changedRelationshipIndexes: [Int] {
        guard !changedRelationshipSet.isEmpty else { return [] }
        let before = state == .inserted ? nil : managedObjectContext?.committedToMany[ObjectIdentifier(self)]
        return changedRelationshipSet.sorted().filter { i in
            switch relationshipSlots[i] {
            case .toOne(let id):
                guard let committed else { return id != nil }
                return committed.toOneID(at: i) != id
            case .toMany(let ids):
                guard let old = before?[i] else { return true }
                return !ids.hasSameMembers(as: old, ordered: entity.relationships[i].isOrdered)
            case .toManyFault:
                return true
            }
        }
    }

    /// The keys and new values of every changed property.
    public var changedValues: [String: Any] {
        var result: [String: Any] = [:]
        for i in changedAttributeIndexes {
            result[entity.attributes[i].name] = values[i].anyValue ?? NSNull()
        }
        for i in changedRelationshipIndexes {
            let name = entity.relationships[i].name
            result[name] = value(forKey: name) ?? NSNull()
        }
        return result
    }

    /// The values as last saved or fetched, for the given keys (all when nil).
    public func committedValues(forKeys keys: [String]? = nil) -> [String: Any] {
        guard let committed else { return [:] }
        var result: [String: Any] = [:]
        for (i, attribute) in entity.attributes.enumerated() where keys?.contains(attribute.name) ?? true {
            result[attribute.name] = committed.values[i].anyValue ?? NSNull()
        }
        for (i, relationship) in entity.relationships.enumerated()
        where relationship.isToOne && (keys?.contains(relationship.name) ?? true) {
            if let id = committed.toOneID(at: i), let context = managedObjectContext {
                result[relationship.name] = context.object(with: id)
            } else {
                result[relationship.name] = NSNull()
            }
        }
        return result
    }
}

extension Value {
    /// The natural Swift value, or nil for null.
    public var anyValue: Any? {
        switch self {
        case .null: return nil
        case .bool(let b): return b
        case .int(let i): return i
        case .double(let d): return d
        case .decimal(let d): return d
        case .string(let s): return s
        case .date(let d): return d
        case .data(let d): return d
        case .uuid(let u): return u
        case .url(let u): return u
        }
    }

    /// Wraps a Swift value; unknown types become their description.
    public init(any value: Any?) {
        switch value {
        case nil, is NSNull: self = .null
        case let v as Value: self = v
        case let b as Bool: self = .bool(b)
        case let i as Int: self = .int(Int64(i))
        case let i as Int64: self = .int(i)
        case let i as Int32: self = .int(Int64(i))
        case let i as Int16: self = .int(Int64(i))
        case let i as Int8: self = .int(Int64(i))
        case let i as UInt: self = .int(Int64(i))
        case let i as UInt32: self = .int(Int64(i))
        case let i as UInt16: self = .int(Int64(i))
        case let d as Double: self = .double(d)
        case let f as Float: self = .double(Double(f))
        case let d as Decimal: self = .decimal(d)
        case let s as String: self = .string(s)
        case let s as Substring: self = .string(String(s))
        case let d as Date: self = .date(d)
        case let d as Data: self = .data(d)
        case let u as UUID: self = .uuid(u)
        case let u as URL: self = .url(u)
        case let n as NSNumber: self = .double(n.doubleValue)
        case let some?: self = .string(String(describing: some))
        }
    }
}

/// A set of property indexes: a bit for each below 64 (every entity in
/// practice), a hash set for the rest. Adding to it is on the path of every
/// relationship change.
struct SlotSet {
    private var bits: UInt64 = 0
    private var more: Set<Int> = []

    var isEmpty: Bool { bits == 0 && more.isEmpty }

    @inline(__always)
    mutating func insert(_ index: Int) {
        if index < 64 { bits |= 1 << UInt64(index) } else { more.insert(index) }
    }

    mutating func remove(_ index: Int) {
        if index < 64 { bits &= ~(1 << UInt64(index)) } else { more.remove(index) }
    }

    func contains(_ index: Int) -> Bool {
        index < 64 ? bits & (1 << UInt64(index)) != 0 : more.contains(index)
    }

    mutating func removeAll() {
        bits = 0
        if !more.isEmpty { more.removeAll() }
    }

    /// The indexes in increasing order.
    func sorted() -> [Int] {
        var result: [Int] = []
        var rest = bits
        while rest != 0 {
            result.append(rest.trailingZeroBitCount)
            rest &= rest - 1
        }
        return result + more.sorted()
    }
}
