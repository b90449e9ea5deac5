import Foundation
import ObjectStore
import Predicates

/// Imports JSON into a context the way MagicalRecord does, driven by the
/// model's `userInfo`, with one uniquing query per batch instead of one per
/// row.
///
/// ```swift
/// let importer = Importer(context: context)
/// let people = try importer.importArray(json, into: personEntity)
/// ```
///
/// Rules: a property reads the JSON key named by its `mappedKeyName` (a
/// dotted key path) or else its own name, falling back to
/// `mappedKeyName.1` … `.9`. An entity's objects are unique by its
/// `relatedByAttribute` (default `<entity>ID`, first letter lowercased):
/// existing objects are updated, duplicates inside one import become one
/// object. A key that is absent leaves the property alone (or sets the
/// default with `useDefaultValueWhenNotPresent`); JSON null sets nil, and
/// empties a to-many.
///
/// The model is read once per importer (`EntityPlan`): keys, conversions
/// and date formats per property, set by index. Pending objects of the
/// context are looked at once per import call, the store once per batch.
///
/// Use an importer on its context's queue, one call at a time, as the
/// context itself.
public final class Importer {
    /// The context the imported objects are made in; use the importer on its
    /// queue.
    public let context: ManagedObjectContext
    /// How the import treats what it reads.
    public var options: ImportOptions {
        get { settings }
        set { settings = newValue }
    }
    // Read for every key of every row; the importer is used on its
    // context's queue, one call at a time: its accesses skip the runtime's
    // exclusivity bookkeeping (mrq-bench d. import).
    @exclusivity(unchecked) private var settings: ImportOptions
    var dateFormatters = DateFormatterCache()
    var plans: [ObjectIdentifier: EntityPlan] = [:]
    /// Objects found or made, by entity and key value.
    var keyIndexes: [KeyIndexID: KeyIndex] = [:]
    /// Counts the calls to `importArray` and `importObject`: each one
    /// looks at the context's pending objects again.
    private var generation = 0
    /// Whether the current call imports a list in batches (see
    /// `mayHaveSaved`).
    private var inBatches = false

    /// An importer into `context`. Keep one for several calls on the same
    /// context to reuse what it learned of the model; it finds the objects
    /// the earlier calls made.
    ///
    /// ```swift
    /// try MagicalRecord.saveAndWait { context in
    ///     let importer = Importer(context: context)
    ///     let department = model.entity(named: "Department")!
    ///     let person = model.entity(named: "Person")!
    ///     try importer.importArray(departments, into: department)
    ///     try importer.importArray(people, into: person)
    /// }
    /// ```
    public init(context: ManagedObjectContext, options: ImportOptions = ImportOptions()) {
        self.context = context
        self.settings = options
    }

    // MARK: - Entry points

    /// Imports an array of objects (or bare key values) into `entity`.
    @discardableResult
    public func importArray(_ json: JSON, into entity: EntityDescription) throws -> [ManagedObject] {
        guard case .array(let items) = json else {
            if case .object = json { return try importObject(json, into: entity).map { [$0] } ?? [] }
            throw ImportError(message: "expected an array of objects, found \(json.kindName)", path: "$")
        }
        var result: [ManagedObject] = []
        result.reserveCapacity(items.count)
        try importBatches(into: entity, expected: items.count, next: { start, count in
            start < items.count ? items[start..<min(start + count, items.count)] : nil
        }, each: { result.append($0) }, afterBatch: { done in options.progress?(done, items.count) })
        return result
    }

    /// Imports the elements of `reader`'s array into `entity` as it reads
    /// them, a batch at a time: the document is never one tree in memory.
    /// `afterBatch` hears how many elements are done so far; throw from it
    /// to stop. Returns how many objects were imported. A document that
    /// is not an array imports as `importArray` would import it.
    ///
    /// A large array (1 MB of text or more) is parsed a few batches ahead
    /// on a thread of its own when a core is idle. It changes nothing you
    /// see: a syntax error stops the import before the batch it falls in,
    /// with its line and column, as reading in turn does, and however the
    /// call ends the thread has stopped when it returns. Set
    /// `MRQ_JSON_READ_AHEAD=0` in the environment to always read in turn,
    /// `MRQ_JSON_READ_AHEAD=1` to read ahead whatever the machine's load.
    ///
    /// ```swift
    /// let reader = JSONArrayReader(bytes: Array(data))
    /// let count = try importer.importArray(from: reader, into: person) { done in print(done) }
    /// ```
    @discardableResult
    public func importArray(from reader: JSONArrayReader, into entity: EntityDescription,
                            afterBatch: (_ done: Int) throws -> Void = { _ in }) throws -> Int {
        guard reader.isArray else {
            guard let document = try reader.next() else { return 0 }
            let count = try importArray(document, into: entity).count
            try afterBatch(1)
            return count
        }
        // The next batches parse on another core while this one imports;
        // stopped before returning, however the import ends.
        reader.startReadingAhead(chunk: max(1, options.batchSize))
        defer { reader.stopReadingAhead() }
        var count = 0
        var batch: [JSON] = []
        // After the first batch, room for the keys of about as many more
        // as the rest of the text holds: growing as they come would
        // rehash all the keys seen so far at each doubling.
        var reserved = false
        try importBatches(into: entity, expected: 0, next: { _, size in
            try reader.nextElements(size, replacing: &batch)
            return batch.isEmpty ? nil : batch[...]
        }, each: { _ in count += 1 }, afterBatch: { done in
            if !reserved, let index = plan(for: entity).key, let more = reader.estimatedRemainingCount() {
                reserved = true
                index.reserve(more)
            }
            try afterBatch(done)
        })
        return count
    }

    /// The batch loop of both `importArray`s: `next(start, size)` gives
    /// the items from `start` on, at most `size` of them (nil at the end);
    /// `each` takes every object imported.
    private func importBatches(into entity: EntityDescription, expected: Int,
                               next: (_ start: Int, _ size: Int) throws -> ArraySlice<JSON>?,
                               each: (ManagedObject) -> Void, afterBatch: (Int) throws -> Void) throws {
        generation += 1
        let plan = self.plan(for: entity)
        let batchSize = max(1, options.batchSize)
        // Room for every item's key at once: growing batch by batch would
        // rehash all the keys seen so far at each doubling.
        if let index = plan.key, expected > 0 { index.reserve(expected) }
        inBatches = true
        defer { inBatches = false }
        var start = 0
        while let batch = try next(start, batchSize) {
            let keys = try prefetch(batch, plan: plan)
            for (n, item) in batch.enumerated() {
                do {
                    if let object = try importOne(item, into: plan, via: nil, key: keys[n]) { each(object) }
                } catch let error as ImportError {
                    throw error.under("$[\(start + n)]")
                }
            }
            start += batch.count
            try afterBatch(start)
        }
    }

    /// Imports one object into `entity`; nil when its hook declined it.
    @discardableResult
    public func importObject(_ json: JSON, into entity: EntityDescription) throws -> ManagedObject? {
        generation += 1
        let plan = self.plan(for: entity)
        let keys = try prefetch([json][...], plan: plan)
        do {
            return try importOne(json, into: plan, via: nil, key: keys[0])
        } catch let error as ImportError {
            throw error.under("$")
        }
    }

    // MARK: - Uniquing

    /// The attribute that identifies objects of `entity` in imported data.
    func primaryAttribute(of entity: EntityDescription, via relationship: RelationshipDescription? = nil) -> AttributeDescription? {
        if let name = relationship?.userInfo[ImportKey.relatedByAttribute], let attribute = entity.attribute(named: name) {
            return attribute
        }
        var current: EntityDescription? = entity
        while let e = current {
            if let name = e.userInfo[ImportKey.relatedByAttribute] { return entity.attribute(named: name) }
            current = e.parent
        }
        let first = entity.name.prefix(1).lowercased()
        return entity.attribute(named: first + entity.name.dropFirst() + "ID")
    }

    /// Loads, in one query per entity, the existing objects a batch names:
    /// the top-level objects and the destinations of their relationships.
    /// Returns the top-level objects' key values (nil where absent or
    /// invalid: `importOne` reads those again and reports the error).
    private func prefetch(_ items: ArraySlice<JSON>, plan: EntityPlan) throws -> [Value?] {
        for index in keyIndexes.values { index.forgetAsked() }
        // Known values need no query: the context's pending objects first.
        if let index = plan.key { try seedPending(index) }
        for step in plan.relationships {
            if let index = step.destinationKey { try seedPending(index) }
        }
        // Whether the store may hold the items' objects, asked at the
        // first key not known: once it says no (it held none of the entity
        // when the call began), the other keys are not looked up here.
        var asksStore: Bool?
        // The items' own keys rarely repeat: a list, without hashing them
        // again. Related keys repeat (a department per person): a set each.
        var keysWanted: [Value] = []
        var relatedWanted: [ObjectIdentifier: (KeyIndex, Set<Value>)] = [:]
        func wantRelated(_ index: KeyIndex, _ value: Value) {
            guard !value.isNull, index[value] == nil else { return }
            relatedWanted[ObjectIdentifier(index), default: (index, [])].1.insert(value)
        }
        var keys: [Value?] = []
        keys.reserveCapacity(items.count)
        for item in items {
            let key = plan.key.flatMap { try? keyValue(of: item, $0) }
            keys.append(key)
            if asksStore != false, let key, !key.isNull, let index = plan.key, index[key] == nil {
                if asksStore == nil { asksStore = try mayHaveSaved(index) }
                if asksStore == true { keysWanted.append(key) }
            }
            guard case .object = item else { continue }
            for step in plan.relationships {
                guard let index = step.destinationKey, let related = lookup(item, keys: step.keys)?.json else { continue }
                if case .array(let elements) = related {
                    for element in elements {
                        if let value = try? keyValue(of: element, index) { wantRelated(index, value) }
                    }
                } else if let value = try? keyValue(of: related, index) {
                    wantRelated(index, value)
                }
            }
        }
        // The items' keys are looked for as prefetched (`findOrCreate`):
        // `asked` serves the related ones.
        if let index = plan.key, !keysWanted.isEmpty {
            let found = try context.savedObjects(of: index.entity, where: index.attribute.name, in: keysWanted)
            index.add(found)
        }
        for (index, values) in relatedWanted.values {
            if try mayHaveSaved(index) {
                let found = try context.savedObjects(of: index.entity, where: index.attribute.name, in: Array(values))
                index.add(found)
            }
            index.noteAsked(values)
        }
        return keys
    }

    /// Whether the store may hold saved objects of `index`'s entity: asked
    /// once per import call. A store with none when the call began holds,
    /// until it ends, only objects the call made, which `known` has.
    private func mayHaveSaved(_ index: KeyIndex) throws -> Bool {
        // One object per call (importObject) would pay a query more for
        // the look than the look saves.
        guard inBatches else { return true }
        if index.savedLook.generation != generation {
            index.savedLook = (generation, try context.mayHaveSavedObjects(of: index.entity))
        }
        return index.savedLook.mayHaveSaved
    }

    /// Adds the context's pending objects to `index`, once per import call.
    private func seedPending(_ index: KeyIndex) throws {
        guard index.pendingSeen != generation else { return }
        index.pendingSeen = generation
        index.add(context.pendingObjects(of: index.entity, where: index.attribute.name))
    }

    /// The identifying value of one item: a bare value is the key itself.
    private func keyValue(of item: JSON, _ index: KeyIndex) throws -> Value? {
        switch item {
        case .object:
            guard let found = lookup(item, keys: index.step.keys) else { return nil }
            do {
                return try convert(found.json, index.step)
            } catch {
                throw error.under("." + found.key)
            }
        case .array, .null:
            return nil
        default:
            return try convert(item, index.step)
        }
    }

    /// The object of `entity` whose key is `key`, made when there is none.
    /// `prefetched`: the batch's prefetch looked `key` up already, so one
    /// not known is in neither the store nor the context.
    private func findOrCreate(_ entity: EntityDescription, key: Value?, index: KeyIndex?, prefetched: Bool = false) throws -> (ManagedObject, isNew: Bool) {
        guard let key, !key.isNull, let index else { return (try create(entity), true) }
        // Prefetched, the key is known or new: found or made with one
        // hash of it when the object is a plain one (a subclass's, whose
        // code may import again, is made outside the index: two hashes).
        if prefetched, !entity.isAbstract {
            let plain = context.makesPlainObjects(of: entity)
            let (object, isNew) = index.object(for: key, plain: plain) { context.insertObject(of: entity) }
            if isNew { object.setAttributeValue(key, at: index.step.index) }
            return (object, isNew)
        }
        if let object = index[key] { return (object, false) }
        // Not prefetched (a nested level): ask once.
        if !prefetched, index.pendingSeen != generation {
            try seedPending(index)
            if let object = index[key] { return (object, false) }
        }
        if !prefetched, !index.wasAsked(key), try mayHaveSaved(index),
           let object = try context.savedObjects(of: entity, where: index.attribute.name, in: [key])[key] {
            index[key] = object
            return (object, false)
        }
        let object = try create(entity)
        object.setAttributeValue(key, at: index.step.index)
        index[key] = object
        return (object, true)
    }

    private func create(_ entity: EntityDescription) throws -> ManagedObject {
        guard !entity.isAbstract else {
            let concrete = entity.selfAndDescendants.filter { !$0.isAbstract }.map(\.name)
            throw ImportError(
                message: "cannot create an object of abstract entity \(entity.name); add a key '\(entity.userInfo[ImportKey.entityKey] ?? "entity")' naming one of: \(concrete.joined(separator: ", "))",
                path: "")
        }
        return context.insertObject(of: entity)
    }

    /// For an abstract (or parent) destination, the sub-entity the data names.
    private func concreteEntity(_ entity: EntityDescription, for item: JSON) throws -> EntityDescription {
        guard entity.subentities.count > 0, case .object(let members) = item else { return entity }
        let key = entity.userInfo[ImportKey.entityKey] ?? "entity"
        guard let named = members[key] else { return entity }
        guard case .string(let name) = named, let sub = entity.selfAndDescendants.first(where: { $0.name == name }) else {
            throw ImportError(message: "'\(key)' must name \(entity.name) or one of its sub-entities", path: "." + key)
        }
        return sub
    }

    // MARK: - One object

    /// Imports one object, or finds the one a bare key value names; nil
    /// for null or when a hook declined the data. `key` is the object's
    /// key value when the batch's prefetch read it already.
    private func importOne(_ item: JSON, into declared: EntityPlan, via relationship: RelationshipStep?, key known: Value?) throws -> ManagedObject? {
        if item.isNull { return nil }
        let entity = try concreteEntity(declared.entity, for: item)
        let index: KeyIndex?
        if entity === declared.entity {
            index = relationship.map { $0.destinationKey } ?? declared.key
        } else {
            index = keyIndex(entity, via: relationship?.relationship)
        }
        guard case .object = item else {
            if case .array = item {
                throw ImportError(message: "expected an object or a key value, found an array", path: "")
            }
            guard let index else {
                throw ImportError(message: "a bare value needs '\(ImportKey.relatedByAttribute)' on \(relationship?.relationship.name ?? entity.name) or an attribute '\(entity.name.prefix(1).lowercased() + entity.name.dropFirst())ID'", path: "")
            }
            let key = try convert(item, index.step)
            return try findOrCreate(entity, key: key, index: index).0
        }
        // The prefetched key was read for the declared entity's key attribute.
        let prefetched = entity === declared.entity ? known : nil
        let key = try prefetched ?? index.flatMap { try keyValue(of: item, $0) }
        let (object, isNew) = try findOrCreate(entity, key: key, index: index, prefetched: prefetched != nil)
        let plan = object.entity === declared.entity ? declared : self.plan(for: object.entity)
        let hooks = plan.hooks(of: object)
        if let hooks, !hooks.shouldImport(item) {
            if isNew {
                if let key, let index { index[key] = nil }
                context.delete(object)
            }
            return nil
        }
        guard case .object(let members) = item else { return object }
        // The same data nested again in this call finds its object as it
        // left it: nothing to import (see `EntityPlan.isUnchanged`).
        if relationship != nil, hooks == nil, !isNew, plan.isUnchanged(object, by: members, generation: generation) {
            return object
        }
        hooks?.willImport(item)
        try importAttributes(item, into: object, plan: plan, hooks: hooks)
        try importRelationships(item, into: object, plan: plan, hooks: hooks)
        hooks?.didImport(item)
        // Data may stand for an object later only if importing it again
        // would change nothing: no hooks, and no relationships (importing
        // those again could undo what later rows added). The object's own
        // plan keeps it, whichever plan led here.
        let repeatable = relationship != nil && hooks == nil
            && !plan.relationships.contains { lookup(in: members, keys: $0.keys) != nil }
        plan.noteImport(repeatable ? members : nil, into: object, generation: generation)
        return object
    }

    private func importAttributes(_ item: JSON, into object: ManagedObject, plan: EntityPlan, hooks: ImportHooks?) throws {
        guard case .object(let members) = item else { return }
        // Without hooks to see each value land, a new object takes its
        // values straight into its slots: its insert is on record already.
        let silently = hooks == nil && object.takesValuesSilently
        func set(_ value: Value, _ index: Int) {
            if silently { object.storeSilently(value, at: index) } else { object.setAttributeValue(value, at: index) }
        }
        let places = plan.places(in: members, normalizesKeys: options.normalizesKeys)
        // The plan holds its steps throughout: each is used as a
        // guaranteed reference, not retained and released per row.
        try plan.attributes.withUnsafeBufferPointer { steps in
            for n in steps.indices {
                try Unmanaged.passUnretained(steps[n])._withUnsafeGuaranteedRef { step in
                    let json: JSON
                    var searchedKey: String?
                    switch places?[n] {
                    case .member(let position, _)?:
                        json = members.value(at: position)
                    case .absent?:
                        if let value = step.defaultWhenAbsent { set(value, step.index) }
                        return
                    case .search?, nil:
                        guard let found = lookup(in: members, keys: step.keys) else {
                            if let value = step.defaultWhenAbsent { set(value, step.index) }
                            return
                        }
                        (json, searchedKey) = (found.json, found.key)
                    }
                    if let hooks, hooks.importValue(json, forKey: step.attribute.name) { return }
                    let value: Value
                    do throws(ImportError) {
                        value = try convert(json, step)
                    } catch {
                        var key = searchedKey ?? ""
                        if case .member(_, let memberKey)? = places?[n] { key = memberKey }
                        throw error.under("." + key)
                    }
                    set(value, step.index)
                }
            }
        }
    }

    private func importRelationships(_ item: JSON, into object: ManagedObject, plan: EntityPlan, hooks: ImportHooks?) throws {
        for step in plan.relationships {
            guard let found = lookup(item, keys: step.keys) else { continue }
            let relationship = step.relationship
            if let hooks, hooks.importValue(found.json, forKey: relationship.name) { continue }
            let destination = self.plan(for: step.destination)
            if relationship.isToOne {
                if found.json.isNull {
                    context.setToOne(object, relationshipAt: step.index, to: nil)
                    continue
                }
                if case .array = found.json {
                    throw ImportError(message: "expected an object or a key value for to-one '\(relationship.name)', found an array", path: "." + found.key)
                }
                do {
                    let related = try importOne(found.json, into: destination, via: step, key: nil)
                    context.setToOne(object, relationshipAt: step.index, to: related)
                } catch let error as ImportError {
                    throw error.under("." + found.key)
                }
            } else {
                let elements: [JSON]
                switch found.json {
                case .null: elements = []
                case .array(let array): elements = array
                default: elements = [found.json]
                }
                var related: [ManagedObject] = []
                for (n, element) in elements.enumerated() {
                    do {
                        if let object = try importOne(element, into: destination, via: step, key: nil) {
                            related.append(object)
                        }
                    } catch let error as ImportError {
                        throw error.under(".\(found.key)[\(n)]")
                    }
                }
                if found.json.isNull || options.toManyMode == .replacing {
                    object.setObjects(related, forKey: relationship.name)
                } else {
                    for destinationObject in related { object.add(destinationObject, toKey: relationship.name) }
                }
            }
        }
    }
}
