import Foundation
import ObjectStore
import Predicates
import struct Predicates.Expression

extension ShellSession {
    /// `.dump [Entity]`: an mrq script that rebuilds the store in an empty
    /// one: the entity statements (see `schemaScript`), then an insert per
    /// object, as the session sees them (pending changes included), then
    /// `save`. With an entity, only its objects (and its sub-entities'),
    /// and their relationships among themselves.
    ///
    /// ```
    /// let o1 = insert Department { name: "Research" }
    /// insert Person { FirstName: "Ivan", department: $o1 }
    /// ```
    ///
    /// An object another one names is bound to a variable. Each link is
    /// written once, by the later of its two objects (its inverse follows);
    /// an ordered to-many or a relationship without inverse is written
    /// whole by its own object, whose destinations come first. Returns the
    /// script and what it could not write.
    func dumpScript(_ only: EntityDescription?) throws -> (script: String, unwritten: [String]) {
        var lines = ["# mrq dump: rebuild the store with mrq -c '.read FILE' -c '.save-as new.sqlite'"]
        lines += schemaScript()
        var objects: [ManagedObject] = []
        let roots = only.map { [$0] } ?? model.entities.filter { $0.parent == nil }.sorted { $0.name < $1.name }
        for entity in roots {
            let fetched = try context.fetch(FetchRequest(entityName: entity.name))
            objects += fetched.sorted { Self.order($0.objectID) < Self.order($1.objectID) }
        }
        let dumped = Set(objects.map(ObjectIdentifier.init))
        func dumps(_ object: ManagedObject) -> Bool { dumped.contains(ObjectIdentifier(object)) }

        // Destinations an object's own relationship writes whole: they
        // must be inserted before it.
        func firstNeeded(_ object: ManagedObject) -> [ManagedObject] {
            object.entity.relationships.filter { !$0.isTransient && Self.writesWhole($0) }
                .flatMap { destinations(of: object, $0) }.filter(dumps)
        }
        var emitted: [ObjectIdentifier: Int] = [:]
        var inProgress = Set<ObjectIdentifier>()
        var order: [ManagedObject] = []
        func emit(_ object: ManagedObject) {
            let id = ObjectIdentifier(object)
            guard emitted[id] == nil, inProgress.insert(id).inserted else { return }
            for destination in firstNeeded(object) { emit(destination) }
            inProgress.remove(id)
            emitted[id] = order.count
            order.append(object)
        }
        for object in objects { emit(object) }
        // Every destination dumped was emitted above: its place in `order`.
        func place(_ object: ManagedObject) -> Int { emitted[ObjectIdentifier(object)] ?? order.count }

        // What each object's insert sets, and which objects it names.
        var unwritten: [String] = []
        var named = Set<ObjectIdentifier>()
        var assignments: [[String]] = []
        for (position, object) in order.enumerated() {
            var parts: [String] = []
            for attribute in object.entity.attributes where !attribute.isTransient {
                let value = object[attribute.name]
                guard value != attribute.defaultValue else { continue }
                let key = attribute.name.split(separator: ".").map { Printer.formatKey(String($0)) }.joined(separator: ".")
                parts.append(key + ": " + Printer.format(Expression(.constant(value))))
            }
            for relationship in object.entity.relationships where !relationship.isTransient {
                let whole = Self.writesWhole(relationship)
                // The ordered side writes an ordered pair, whole.
                if !whole, relationship.inverse?.isOrdered == true { continue }
                var destinations = self.destinations(of: object, relationship).filter(dumps)
                if !whole {
                    if destinations.contains(where: { $0 === object }) {
                        unwritten.append("\(object.entity.name).\(relationship.name) of \(keyValueText(object)): it names the object itself")
                    }
                    destinations = destinations.filter { place($0) < position }
                }
                let late = destinations.filter { place($0) >= position }
                if !late.isEmpty {
                    unwritten.append("\(object.entity.name).\(relationship.name) of \(keyValueText(object)): it and its destinations name each other through relationships without inverse")
                    destinations.removeAll { place($0) >= position }
                }
                guard !destinations.isEmpty else { continue }
                destinations.forEach { named.insert(ObjectIdentifier($0)) }
                let variables = destinations.map { "$o\(place($0) + 1)" }
                parts.append(Printer.formatKey(relationship.name) + ": "
                             + (relationship.isToMany ? "{" + variables.joined(separator: ", ") + "}" : variables[0]))
            }
            assignments.append(parts)
        }
        for (position, object) in order.enumerated() {
            let binding = named.contains(ObjectIdentifier(object)) ? "let o\(position + 1) = " : ""
            lines.append(binding + "insert \(object.entity.name) { " + assignments[position].joined(separator: ", ") + " }")
        }
        if !order.isEmpty { lines.append("save") }
        for problem in unwritten { lines.append("# not restored: " + TerminalText.escaped(problem)) }
        try Self.checkScriptLines(lines)
        return (lines.joined(separator: "\n") + "\n", unwritten)
    }

    /// Refuses a dump one of whose lines would not read back as the one
    /// statement or comment it is: a line holding a line break or another
    /// control character, or starting as a dot command. Names cannot hold
    /// them (see `ModelName`) and values are written escaped, so this
    /// guards the script against what might slip through later.
    static func checkScriptLines(_ lines: [String]) throws {
        for statement in lines {
            let physical = statement.split(separator: "\n", omittingEmptySubsequences: false)
            // Only an entity statement spans lines, its properties inside braces.
            let spans = physical.count > 1 && !statement.hasPrefix("entity ")
            for line in physical where spans || line.trimmingCharacters(in: .whitespaces).hasPrefix(".")
                || line.unicodeScalars.contains(where: TerminalText.isUnsafe) {
                throw LocatedError("cannot dump: the line '\(TerminalText.escaped(String(line.prefix(80))))' would not read back as written",
                                   .unknown)
            }
        }
    }

    /// Whether an object writes `relationship` whole at its insert (its
    /// destinations inserted first): an ordered to-many, whose order the
    /// other side cannot give, or one without inverse.
    static func writesWhole(_ relationship: RelationshipDescription) -> Bool {
        relationship.isOrdered || relationship.inverse == nil
    }

    private func destinations(of object: ManagedObject, _ relationship: RelationshipDescription) -> [ManagedObject] {
        relationship.isToMany ? object.objects(forKey: relationship.name) : object.object(forKey: relationship.name).map { [$0] } ?? []
    }

    /// Saved objects by primary key, then new ones as made.
    private static func order(_ id: ObjectID) -> (Int, Int64) {
        id.isTemporaryID ? (1, -id.primaryKey) : (0, id.primaryKey)
    }

    /// `.dump [Entity]`, to the result output (or `.output`'s file).
    func runDump(_ arguments: [String], output: OutputSink) throws {
        guard arguments.count <= 1 else { throw LocatedError("usage: .dump [ENTITY]", .unknown) }
        let entity = try arguments.first.map { try self.entity(Name(text: $0, range: .unknown)) }
        let (script, unwritten) = try dumpScript(entity)
        output.result(script)
        for problem in unwritten { output.error("warning: not restored: \(TerminalText.escaped(problem))\n") }
    }
}
