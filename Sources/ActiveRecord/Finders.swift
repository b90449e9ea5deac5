import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// An unknown key in a sort string or attribute name.
public struct FinderError: Error, CustomStringConvertible, Equatable {
    /// What was wrong, with a suggestion when there is a close name:
    /// `unknown sort key 'agee' on Person; did you mean 'age'?`.
    public let message: String
    public var description: String { message }
}

/// The entity-level machinery behind the finders: works with entity names,
/// so both typed subclasses and plain `ManagedObject`s can use it.
public enum Finder {
    /// The context to use: the given one, or the default stack's.
    static func context(_ context: ManagedObjectContext?) throws -> ManagedObjectContext {
        if let context { return context }
        return try MagicalRecord.defaultContext
    }

    static func entity(_ name: String, in context: ManagedObjectContext) throws -> EntityDescription {
        guard let entity = context.persistentStoreCoordinator?.model.entity(named: name) else {
            throw FinderError(message: "unknown entity '\(name)'")
        }
        return entity
    }

    /// Parses a MagicalRecord sort string (`"LastName:NO,FirstName"`;
    /// `ASC`/`DESC` too) and checks each key against the entity.
    public static func sortKeys(_ spec: String?, ascending: Bool, entity: EntityDescription) throws -> [SortKey] {
        guard let spec, !spec.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        let keys = try SortSpec.parse(spec, defaultAscending: ascending)
        for key in keys {
            var current = entity
            for (i, part) in key.keyPath.enumerated() {
                let last = i == key.keyPath.count - 1
                if last, current.attribute(named: part) != nil { break }
                guard let relationship = current.relationship(named: part), relationship.isToOne,
                      let destination = relationship.destination, !last else {
                    var message = "unknown sort key '\(key.key)' on \(entity.name)"
                    if let suggestion = Suggestions.closest(to: part, in: current.propertyNames) { message += "; did you mean '\(suggestion)'?" }
                    throw FinderError(message: message)
                }
                current = destination
            }
        }
        return keys
    }

    /// A request for every object of `entity`, filtered and sorted.
    public static func request(_ entityName: String, where predicate: Predicate? = nil, sortedBy: String? = nil,
                               ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        let context = try self.context(context)
        let entity = try self.entity(entityName, in: context)
        var request = FetchRequest(entityName: entityName, predicate: predicate)
        request.sortDescriptors = try sortKeys(sortedBy, ascending: ascending, entity: entity)
        return request
    }

    /// Makes `type` its entity's class if it is not yet, after
    /// `ManagedObjectModel.register`'s check: a finder on a class never
    /// registered works, or says why it cannot.
    static func register(_ type: ManagedObject.Type, in context: ManagedObjectContext) throws {
        guard type != ManagedObject.self, let model = context.persistentStoreCoordinator?.model,
              !model.isRegistered(type) else { return }
        try model.register(type)
    }

    /// The predicate of an optional format and its arguments (nil: none).
    static func predicate(_ format: String?, _ arguments: [FormatArgument]) throws -> Predicate? {
        try format.map { try Predicate(format: $0, arguments: arguments) }
    }

    static func predicate(_ format: String?, _ arguments: [any PredicateArgument]) throws -> Predicate? {
        try predicate(format, arguments.map(\.formatArgument))
    }

    /// `attribute == value` (with `.null`, `attribute == nil`): the predicate
    /// of `findFirst(byAttribute:withValue:)`. Throws a ``FinderError`` when
    /// `entity` has no property of that name.
    public static func predicate(attribute: String, value: Value, entity: EntityDescription) throws -> Predicate {
        try predicate(attribute: attribute, equalTo: .constant(value), entity: entity)
    }

    /// `attribute == constant`, a value or an object (`department ==
    /// <…/Department/p3>`).
    static func predicate(attribute: String, equalTo constant: Expression, entity: EntityDescription) throws -> Predicate {
        guard entity.attribute(named: attribute) != nil || entity.relationship(named: attribute) != nil else {
            var message = "unknown attribute '\(attribute)' on \(entity.name)"
            if let suggestion = Suggestions.closest(to: attribute, in: entity.propertyNames) { message += "; did you mean '\(suggestion)'?" }
            throw FinderError(message: message)
        }
        return Predicate(.comparison(Comparison(.direct, .equal, .keyPath(attribute), constant)))
    }

    /// Sets `key` of a new `object` to a constant of
    /// `findFirstOrCreate(byAttribute:withValue:)`: a value, or an object
    /// (the same object in `object`'s context) for a to-one relationship.
    static func set(_ constant: Expression, forKey key: String, of object: ManagedObject) throws {
        guard case .object(let reference) = constant.kind else {
            if case .constant(let value) = constant.kind { object[key] = value }
            return
        }
        guard let context = object.managedObjectContext else { return }
        guard let argument = reference.object as? ObjectArgument else {
            throw FinderError(message: "\(reference) is no managed object or object ID: '\(key)' cannot be set to it")
        }
        guard object.entity.relationship(named: key)?.isToOne == true else {
            throw FinderError(message: "'\(key)' of \(object.entity.name) is no to-one relationship: it cannot be set to \(reference)")
        }
        try context.performAndWait {
            let target: ManagedObject
            if let given = argument.object, given.managedObjectContext === context {
                target = given
            } else {
                target = try context.existingObject(with: argument.currentID)
            }
            object.setObject(target, forKey: key)
        }
    }

    /// Runs `request` in `context` (the default context when nil) and returns
    /// its objects, typed `ManagedObject`: MagicalRecord's
    /// `MR_executeFetchRequest:inContext:` for code that has an entity name
    /// rather than a class.
    ///
    /// ```swift
    /// let request = try Finder.request("Person", sortedBy: "LastName")
    /// let people = try Finder.execute(request, in: context)
    /// ```
    public static func execute(_ request: FetchRequest, in context: ManagedObjectContext? = nil) throws -> [ManagedObject] {
        Array(try self.context(context).fetch(request))
    }
}

/// The finders, creators and deleters of MagicalRecord, on every managed
/// object class: `Person.findAll(…)` returns `[Person]`.
public protocol ActiveRecordObject: ManagedObject {}

extension ManagedObject: ActiveRecordObject {}

extension ActiveRecordObject {
    // MARK: - Requests

    /// A request for every object of this class's entity; tune it, then
    /// `execute` it.
    ///
    /// ```swift
    /// var request = try Person.requestAll(where: "age > %d", 18, sortedBy: "LastName:NO,FirstName")
    /// request.fetchLimit = 10
    /// let people = try Person.execute(request)
    /// ```
    public static func requestAll(where format: String? = nil, _ arguments: FormatArgument..., sortedBy: String? = nil,
                                  ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        try requestAll(where: Finder.predicate(format, arguments), sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// `requestAll` with Swift values for the placeholders (see `PredicateArgument`).
    @_disfavoredOverload
    public static func requestAll(where format: String? = nil, _ arguments: any PredicateArgument..., sortedBy: String? = nil,
                                  ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        try requestAll(where: Finder.predicate(format, arguments), sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// A request for the objects matching `predicate` (every object when
    /// nil), sorted by a MagicalRecord sort string: MagicalRecord's
    /// `MR_requestAllSortedBy:ascending:withPredicate:inContext:`. Throws a
    /// ``FinderError`` for an unknown sort key.
    ///
    /// ```swift
    /// let adults = try Predicate(format: "age >= 18")
    /// let request = try Person.requestAll(where: adults, sortedBy: "LastName")
    /// ```
    public static func requestAll(where predicate: Predicate?, sortedBy: String? = nil, ascending: Bool = true,
                                  in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        try Finder.request(entityName, where: predicate, sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// `requestAll` with a limit of one.
    public static func requestFirst(where format: String? = nil, _ arguments: FormatArgument..., sortedBy: String? = nil,
                                    ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        try requestFirst(where: Finder.predicate(format, arguments), sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// `requestFirst` with Swift values for the placeholders.
    @_disfavoredOverload
    public static func requestFirst(where format: String? = nil, _ arguments: any PredicateArgument..., sortedBy: String? = nil,
                                    ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        try requestFirst(where: Finder.predicate(format, arguments), sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// `requestAll` with a limit of one.
    public static func requestFirst(where predicate: Predicate?, sortedBy: String? = nil, ascending: Bool = true,
                                    in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        var request = try Finder.request(entityName, where: predicate, sortedBy: sortedBy, ascending: ascending, in: context)
        request.fetchLimit = 1
        return request
    }

    /// `attribute == value` (or `attribute == nil`), limit one.
    public static func requestFirst(byAttribute attribute: String, withValue value: Value,
                                    in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        try requestFirst(byAttribute: attribute, equalTo: .constant(value), in: context)
    }

    /// `requestFirst(byAttribute:withValue:)` with a Swift value or an
    /// object: `withValue: email`, `withValue: sales` (a to-one
    /// relationship's destination, compared by identity).
    @_disfavoredOverload
    public static func requestFirst(byAttribute attribute: String, withValue value: some PredicateConstant,
                                    in context: ManagedObjectContext? = nil) throws -> FetchRequest {
        try requestFirst(byAttribute: attribute, equalTo: value.predicateExpression, in: context)
    }

    private static func requestFirst(byAttribute attribute: String, equalTo constant: Expression,
                                     in context: ManagedObjectContext?) throws -> FetchRequest {
        let context = try Finder.context(context)
        let entity = try Finder.entity(entityName, in: context)
        var request = FetchRequest(entityName: entityName, predicate: try Finder.predicate(attribute: attribute, equalTo: constant, entity: entity))
        request.fetchLimit = 1
        return request
    }

    /// Runs a request, returning objects of this class (registered with
    /// the model first if it is not yet: see `ManagedObjectModel.register`).
    public static func execute(_ request: FetchRequest, in context: ManagedObjectContext? = nil) throws -> [Self] {
        let context = try Finder.context(context)
        try Finder.register(Self.self, in: context)
        return try Finder.execute(request, in: context).map { object in
            guard let typed = object as? Self else {
                throw FinderError(message: "\(object.entity.name) objects were loaded as \(type(of: object)), not \(Self.self): "
                    + "register the class with model.register(\(Self.self).self) before any context loads its objects")
            }
            return typed
        }
    }

    // MARK: - Finding

    /// Every object of this class's entity.
    public static func findAll(in context: ManagedObjectContext? = nil) throws -> [Self] {
        try execute(try requestAll(where: nil, in: context), in: context)
    }

    /// Every object, sorted by a MagicalRecord sort string: `"LastName:NO,FirstName"`.
    public static func findAll(sortedBy: String, ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> [Self] {
        try execute(try requestAll(where: nil, sortedBy: sortedBy, ascending: ascending, in: context), in: context)
    }

    /// The objects matching a predicate format string with arguments.
    ///
    /// ```swift
    /// let adults = try Person.findAll(where: "age >= %d", 18, sortedBy: "LastName")
    /// ```
    public static func findAll(where format: String, _ arguments: FormatArgument..., sortedBy: String? = nil,
                               ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> [Self] {
        try findAll(where: Predicate(format: format, arguments: arguments), sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// `findAll` with Swift values for the placeholders (see `PredicateArgument`):
    ///
    /// ```swift
    /// let minAge = 18
    /// let adults = try Person.findAll(where: "age >= %d", minAge)
    /// ```
    @_disfavoredOverload
    public static func findAll(where format: String, _ arguments: any PredicateArgument..., sortedBy: String? = nil,
                               ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> [Self] {
        try findAll(where: Predicate(format: format, arguments: arguments.map(\.formatArgument)), sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// The objects matching a parsed `Predicate`, optionally sorted:
    /// MagicalRecord's `MR_findAllSortedBy:ascending:withPredicate:inContext:`.
    /// Parse a predicate once and reuse it to skip the parsing on every call.
    ///
    /// ```swift
    /// let adults = try Predicate(format: "age >= %d", 18)
    /// let people = try Person.findAll(where: adults, sortedBy: "LastName:NO")
    /// ```
    public static func findAll(where predicate: Predicate, sortedBy: String? = nil, ascending: Bool = true,
                               in context: ManagedObjectContext? = nil) throws -> [Self] {
        try execute(try requestAll(where: predicate, sortedBy: sortedBy, ascending: ascending, in: context), in: context)
    }

    /// The first object (in the given order), or nil.
    public static func findFirst(where format: String? = nil, _ arguments: FormatArgument..., sortedBy: String? = nil,
                                 ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> Self? {
        try findFirst(where: Finder.predicate(format, arguments), sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// `findFirst` with Swift values for the placeholders.
    @_disfavoredOverload
    public static func findFirst(where format: String? = nil, _ arguments: any PredicateArgument..., sortedBy: String? = nil,
                                 ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> Self? {
        try findFirst(where: Finder.predicate(format, arguments), sortedBy: sortedBy, ascending: ascending, in: context)
    }

    /// The first object matching `predicate` (any object when nil) in the
    /// given order, or nil.
    public static func findFirst(where predicate: Predicate?, sortedBy: String? = nil, ascending: Bool = true,
                                 in context: ManagedObjectContext? = nil) throws -> Self? {
        try execute(try requestFirst(where: predicate, sortedBy: sortedBy, ascending: ascending, in: context), in: context).first
    }

    /// The first object whose `attribute` equals `value`.
    public static func findFirst(byAttribute attribute: String, withValue value: Value,
                                 in context: ManagedObjectContext? = nil) throws -> Self? {
        try execute(try requestFirst(byAttribute: attribute, withValue: value, in: context), in: context).first
    }

    /// `findFirst(byAttribute:withValue:)` with a Swift value or an object:
    /// `withValue: email`, `withValue: sales` (compared by identity; a nil
    /// optional finds `attribute == nil`).
    @_disfavoredOverload
    public static func findFirst(byAttribute attribute: String, withValue value: some PredicateConstant,
                                 in context: ManagedObjectContext? = nil) throws -> Self? {
        try execute(try requestFirst(byAttribute: attribute, withValue: value, in: context), in: context).first
    }

    /// `find(byAttribute:withValue:)` with a Swift value or an object:
    /// `find(byAttribute: "department", withValue: sales)`.
    @_disfavoredOverload
    public static func find(byAttribute attribute: String, withValue value: some PredicateConstant, orderedBy: String? = nil,
                            ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> [Self] {
        try find(byAttribute: attribute, equalTo: value.predicateExpression, orderedBy: orderedBy, ascending: ascending, in: context)
    }

    /// Every object whose `attribute` equals `value`, optionally ordered by a
    /// sort string: MagicalRecord's
    /// `MR_findByAttribute:withValue:andOrderBy:ascending:inContext:`. Throws a
    /// ``FinderError`` for an unknown attribute or sort key.
    ///
    /// ```swift
    /// let engineers = try Person.find(byAttribute: "department.name",
    ///                                 withValue: "Engineering",
    ///                                 orderedBy: "LastName")
    /// ```
    public static func find(byAttribute attribute: String, withValue value: Value, orderedBy: String? = nil,
                            ascending: Bool = true, in context: ManagedObjectContext? = nil) throws -> [Self] {
        try find(byAttribute: attribute, equalTo: .constant(value), orderedBy: orderedBy, ascending: ascending, in: context)
    }

    private static func find(byAttribute attribute: String, equalTo constant: Expression, orderedBy: String?,
                             ascending: Bool, in context: ManagedObjectContext?) throws -> [Self] {
        let context = try Finder.context(context)
        let entity = try Finder.entity(entityName, in: context)
        var request = FetchRequest(entityName: entityName, predicate: try Finder.predicate(attribute: attribute, equalTo: constant, entity: entity))
        request.sortDescriptors = try Finder.sortKeys(orderedBy, ascending: ascending, entity: entity)
        return try execute(request, in: context)
    }

    /// `findFirstOrCreate(byAttribute:withValue:)` with a Swift value or an
    /// object: a new object gets the value, or has its to-one relationship
    /// set to the object (the same object in `context`).
    @_disfavoredOverload
    public static func findFirstOrCreate(byAttribute attribute: String, withValue value: some PredicateConstant,
                                         in context: ManagedObjectContext? = nil) throws -> Self {
        if let found = try findFirst(byAttribute: attribute, withValue: value, in: context) { return found }
        let object = try create(in: context)
        try Finder.set(value.predicateExpression, forKey: attribute, of: object)
        return object
    }

    /// The first object whose `attribute` equals `value`, or a new one with
    /// that value in `context`.
    public static func findFirstOrCreate(byAttribute attribute: String, withValue value: Value,
                                         in context: ManagedObjectContext? = nil) throws -> Self {
        if let found = try findFirst(byAttribute: attribute, withValue: value, in: context) { return found }
        let object = try create(in: context)
        object[attribute] = value
        return object
    }

    // MARK: - Counting

    /// How many objects of this class's entity there are, counted in SQL and
    /// adjusted for the context's pending changes: MagicalRecord's
    /// `MR_countOfEntities` (`MR_countOfEntitiesWithContext:`).
    ///
    /// ```swift
    /// let total = try Person.count()
    /// ```
    public static func count(in context: ManagedObjectContext? = nil) throws -> Int {
        try Finder.context(context).count(for: try requestAll(where: nil, in: context))
    }

    /// How many objects match a predicate format string with arguments:
    /// MagicalRecord's `MR_countOfEntitiesWithPredicate:`. Throws a
    /// `SyntaxError` for a malformed format.
    ///
    /// ```swift
    /// let adults = try Person.count(where: "age >= %d", 18)
    /// ```
    public static func count(where format: String, _ arguments: FormatArgument..., in context: ManagedObjectContext? = nil) throws -> Int {
        try count(where: Predicate(format: format, arguments: arguments), in: context)
    }

    /// `count(where:)` with Swift values for the placeholders.
    @_disfavoredOverload
    public static func count(where format: String, _ arguments: any PredicateArgument..., in context: ManagedObjectContext? = nil) throws -> Int {
        try count(where: Predicate(format: format, arguments: arguments.map(\.formatArgument)), in: context)
    }

    /// How many objects match a parsed `Predicate`.
    public static func count(where predicate: Predicate, in context: ManagedObjectContext? = nil) throws -> Int {
        try Finder.context(context).count(for: try requestAll(where: predicate, in: context))
    }

    /// Whether at least one object matches.
    public static func hasAtLeastOne(where format: String? = nil, _ arguments: FormatArgument...,
                                     in context: ManagedObjectContext? = nil) throws -> Bool {
        try hasAtLeastOne(where: Finder.predicate(format, arguments), in: context)
    }

    /// `hasAtLeastOne` with Swift values for the placeholders.
    @_disfavoredOverload
    public static func hasAtLeastOne(where format: String? = nil, _ arguments: any PredicateArgument...,
                                     in context: ManagedObjectContext? = nil) throws -> Bool {
        try hasAtLeastOne(where: Finder.predicate(format, arguments), in: context)
    }

    /// Whether at least one object matches `predicate` (any object when nil).
    public static func hasAtLeastOne(where predicate: Predicate?, in context: ManagedObjectContext? = nil) throws -> Bool {
        try Finder.context(context).count(for: try requestFirst(where: predicate, in: context)) > 0
    }

    // MARK: - Aggregates

    /// One aggregate over the saved objects, in SQL: MagicalRecord's
    /// `aggregateOperation:onAttribute:withPredicate:`.
    ///
    /// ```swift
    /// let payroll = try Person.aggregate(.sum, of: "salary", where: "active == YES")
    /// ```
    public static func aggregate(_ function: PropertyToFetch.Function, of keyPath: String, where format: String? = nil,
                                 _ arguments: FormatArgument..., in context: ManagedObjectContext? = nil) throws -> Value {
        try aggregate(function, of: keyPath, where: Finder.predicate(format, arguments), in: context)
    }

    /// `aggregate` with Swift values for the placeholders.
    @_disfavoredOverload
    public static func aggregate(_ function: PropertyToFetch.Function, of keyPath: String, where format: String? = nil,
                                 _ arguments: any PredicateArgument..., in context: ManagedObjectContext? = nil) throws -> Value {
        try aggregate(function, of: keyPath, where: Finder.predicate(format, arguments), in: context)
    }

    /// One aggregate over the saved objects matching `predicate` (all when nil).
    public static func aggregate(_ function: PropertyToFetch.Function, of keyPath: String, where predicate: Predicate?,
                                 in context: ManagedObjectContext? = nil) throws -> Value {
        try Finder.context(context).aggregate(function, of: keyPath, entity: entityName, where: predicate)
    }

    /// One aggregate per group of `groupBy` key paths, sorted by them.
    public static func aggregate(_ function: PropertyToFetch.Function, of keyPath: String, where format: String? = nil,
                                 _ arguments: FormatArgument..., groupBy: [String],
                                 in context: ManagedObjectContext? = nil) throws -> [AggregateGroup] {
        try aggregate(function, of: keyPath, where: Finder.predicate(format, arguments), groupBy: groupBy, in: context)
    }

    /// Grouped `aggregate` with Swift values for the placeholders.
    @_disfavoredOverload
    public static func aggregate(_ function: PropertyToFetch.Function, of keyPath: String, where format: String? = nil,
                                 _ arguments: any PredicateArgument..., groupBy: [String],
                                 in context: ManagedObjectContext? = nil) throws -> [AggregateGroup] {
        try aggregate(function, of: keyPath, where: Finder.predicate(format, arguments), groupBy: groupBy, in: context)
    }

    /// One aggregate per group, over the objects matching `predicate`.
    public static func aggregate(_ function: PropertyToFetch.Function, of keyPath: String, where predicate: Predicate?,
                                 groupBy: [String], in context: ManagedObjectContext? = nil) throws -> [AggregateGroup] {
        try Finder.context(context).aggregate(function, of: keyPath, entity: entityName, where: predicate, groupBy: groupBy)
    }

    // MARK: - Creating and deleting

    /// A new object of this class in `context` (the default context when
    /// nil). Throws when there is no such context (no stack set up), or the
    /// class does not fit its entity (see `ManagedObjectModel.register`).
    @discardableResult
    public static func create(in context: ManagedObjectContext? = nil) throws -> Self {
        let context = try Finder.context(context)
        try Finder.register(Self.self, in: context)
        return context.performAndWait {
            let entity = context.entity(for: Self.self)
            return Self(entity: entity, insertInto: context)
        }
    }

    /// Deletes this object from `context` (its own context when nil).
    public func delete(in context: ManagedObjectContext? = nil) {
        guard let owner = managedObjectContext else { return }
        if let context, context !== owner {
            if let other = try? context.existingObject(with: objectID) { context.delete(other) }
        } else {
            owner.delete(self)
        }
    }

    /// Deletes every object of this class's entity; returns how many.
    @discardableResult
    public static func truncateAll(in context: ManagedObjectContext? = nil) throws -> Int {
        try deleteAll(matching: nil, in: context)
    }

    /// Deletes the objects matching `format`; returns how many.
    @discardableResult
    public static func deleteAll(matching format: String?, _ arguments: FormatArgument..., in context: ManagedObjectContext? = nil) throws -> Int {
        try deleteAll(matching: Finder.predicate(format, arguments), in: context)
    }

    /// `deleteAll(matching:)` with Swift values for the placeholders.
    @discardableResult @_disfavoredOverload
    public static func deleteAll(matching format: String?, _ arguments: any PredicateArgument..., in context: ManagedObjectContext? = nil) throws -> Int {
        try deleteAll(matching: Finder.predicate(format, arguments), in: context)
    }

    /// Deletes the objects matching `predicate` (every object when nil);
    /// returns how many.
    @discardableResult
    public static func deleteAll(matching predicate: Predicate?, in context: ManagedObjectContext? = nil) throws -> Int {
        let context = try Finder.context(context)
        let objects = try Finder.execute(try Finder.request(entityName, where: predicate, in: context), in: context)
        context.performAndWait { for object in objects { context.delete(object) } }
        return objects.count
    }

    /// The same object in another context, or nil if it does not exist there.
    public func `in`(_ context: ManagedObjectContext) -> Self? {
        if managedObjectContext === context { return self }
        return (try? context.existingObject(with: objectID)).map(ManagedObject.cast)
    }

    // MARK: - Importing

    /// Imports one JSON object into this class's entity (in `context`, the
    /// default context when nil): MagicalRecord's `importFromObject:`. The
    /// object its key names is updated, or a new one made; nil when an
    /// `ImportHooks` method declined the data. See `Importer` for the rules.
    ///
    /// ```swift
    /// let ada = try Person.import(from: JSON(parsing: #"{"personID": 1, "name": "Ada"}"#))
    /// ```
    @discardableResult
    public static func `import`(from json: JSON, options: ImportOptions = ImportOptions(),
                                in context: ManagedObjectContext? = nil) throws -> Self? {
        let context = try Finder.context(context)
        return try context.performAndWait {
            let entity = try importEntity(in: context)
            return try Importer(context: context, options: options).importObject(json, into: entity).map(ManagedObject.cast)
        }
    }

    /// Imports an array of JSON objects (or bare key values) into this
    /// class's entity: MagicalRecord's `importFromArray:`, with one
    /// uniquing query per batch. A single object is imported as an array
    /// of one.
    ///
    /// ```swift
    /// let people = try Person.import(fromArray: JSON(data: data), in: context)
    /// ```
    @discardableResult
    public static func `import`(fromArray json: JSON, options: ImportOptions = ImportOptions(),
                                in context: ManagedObjectContext? = nil) throws -> [Self] {
        let context = try Finder.context(context)
        return try context.performAndWait {
            let entity = try importEntity(in: context)
            return try Importer(context: context, options: options).importArray(json, into: entity).map(ManagedObject.cast)
        }
    }

    /// This class's entity, with the class registered for it so that the
    /// objects an import makes are of this class.
    private static func importEntity(in context: ManagedObjectContext) throws -> EntityDescription {
        _ = try Finder.entity(entityName, in: context)
        return context.entity(for: Self.self)
    }

    // MARK: - RZVinyl's lookups

    /// The object whose `relatedByAttribute` (the entity's primary key for
    /// imports) equals `value`; with `createNew`, a new one when none exists.
    public static func object(primaryKeyValue value: Value, createNew: Bool, in context: ManagedObjectContext? = nil) throws -> Self? {
        let context = try Finder.context(context)
        let entity = try Finder.entity(entityName, in: context)
        guard let key = Importer(context: context).primaryAttribute(of: entity) else {
            throw FinderError(message: "\(entity.name) has no primary key attribute: set relatedByAttribute in its userInfo")
        }
        if let found = try findFirst(byAttribute: key.name, withValue: value, in: context) { return found }
        guard createNew else { return nil }
        let object = try create(in: context)
        object[key.name] = value
        return object
    }

    /// The first object whose attributes equal all of `attributes`; with
    /// `createNew`, a new one with those values when none exists.
    public static func object(attributes: [String: Value], createNew: Bool, in context: ManagedObjectContext? = nil) throws -> Self? {
        let context = try Finder.context(context)
        let entity = try Finder.entity(entityName, in: context)
        let parts = try attributes.sorted { $0.key < $1.key }.map { try Finder.predicate(attribute: $0.key, value: $0.value, entity: entity) }
        let predicate = parts.isEmpty ? Predicate.truePredicate : parts.count == 1 ? parts[0] : Predicate(.and(parts))
        if let found = try findFirst(where: predicate, in: context) { return found }
        guard createNew else { return nil }
        let object = try create(in: context)
        for (key, value) in attributes { object[key] = value }
        return object
    }

    /// Deletes the stale objects of this class's entity; returns how many.
    @discardableResult
    public static func purgeStale(in context: ManagedObjectContext? = nil) throws -> Int {
        guard let predicate = stalenessPredicate else { return 0 }
        let context = try Finder.context(context)
        let objects = try Finder.execute(try Finder.request(entityName, where: predicate, in: context), in: context)
        context.performAndWait { for object in objects { context.delete(object) } }
        return objects.count
    }
}
