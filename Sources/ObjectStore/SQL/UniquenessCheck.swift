import Foundation
import Predicates

/// Objects of one save that break a uniqueness constraint: they share the
/// constraint's values with each other or with a row already stored.
package struct StoreConstraintConflict: Sendable {
    /// The entity declaring the constraint, and its properties.
    package var entity: EntityDescription
    package var constraint: [String]
    /// The shared values, in constraint order.
    package var values: [Value]
    /// The saved objects holding them, in save order.
    package var objects: [ObjectID]
    /// The stored row holding them, unless this save changes or deletes it.
    package var existing: Snapshot?
}

/// A save refused because it would break uniqueness constraints (Core
/// Data's constraint conflicts); nothing was written.
package struct StoreConstraintConflictError: Error {
    package var conflicts: [StoreConstraintConflict]

    package init(conflicts: [StoreConstraintConflict]) { self.conflicts = conflicts }
}

/// Finds the constraint conflicts of a save, before it is written.
///
/// Stores look only when it matters: SQLite's unique indexes refuse the
/// write, and then this says who collided with whom, against the rows as
/// they were before the save (the write rolls back to a savepoint first).
/// A constraint over a value that is nil in an object binds nothing, as
/// SQL's unique indexes treat NULL.
package struct UniquenessCheck {
    /// The rows of `entity` (sub-entities included) whose `attribute` is
    /// one of the values: the store's own lookup.
    let rows: (EntityDescription, String, [Value]) throws -> [Snapshot]
    /// Every row of `entity`, for constraints made of relationships only.
    let allRows: (EntityDescription) throws -> [Snapshot]

    package init(rows: @escaping (EntityDescription, String, [Value]) throws -> [Snapshot],
                 allRows: @escaping (EntityDescription) throws -> [Snapshot]) {
        self.rows = rows
        self.allRows = allRows
    }

    package func conflicts(in changes: StoreChanges) throws -> [StoreConstraintConflict] {
        // Rows this save deletes, or whose constrained values it changes,
        // no longer hold their stored values.
        let deleted = Set(changes.deleted.map(\.id))
        var result: [StoreConstraintConflict] = []
        for (entity, constraint) in Self.constraints(of: changes) {
            let key = KeyReader(entity: entity, constraint: constraint)
            var saved: [[Value]: [ObjectID]] = [:]
            var order: [[Value]] = []
            var moved: Set<ObjectID> = []
            func add(_ snapshot: Snapshot) {
                guard let values = key.values(of: snapshot) else { return }
                if saved[values] == nil { order.append(values) }
                saved[values, default: []].append(snapshot.id)
            }
            for snapshot in changes.inserted where snapshot.id.entity.isKind(of: entity) { add(snapshot) }
            for update in changes.updated where update.snapshot.id.entity.isKind(of: entity) {
                guard key.isChanged(by: update) else { continue }
                moved.insert(update.snapshot.id)
                add(update.snapshot)
            }
            guard !order.isEmpty else { continue }
            var stored: [[Value]: Snapshot] = [:]
            for row in try storedRows(of: entity, key: key, values: order)
            where !deleted.contains(row.id) && !moved.contains(row.id) {
                if let values = key.values(of: row), saved[values] != nil { stored[values] = stored[values] ?? row }
            }
            for values in order {
                let objects = saved[values]!
                let existing = stored[values]
                // An object updated in place keeps its own row's values.
                if objects.count > 1 || (existing != nil && existing!.id != objects[0]) {
                    result.append(StoreConstraintConflict(entity: entity, constraint: constraint, values: values,
                                                          objects: objects, existing: existing))
                }
            }
        }
        return result
    }

    /// The constraints the saved objects fall under: each entity's own and
    /// its ancestors'.
    private static func constraints(of changes: StoreChanges) -> [(EntityDescription, [String])] {
        var seen: Set<ObjectIdentifier> = []
        var result: [(EntityDescription, [String])] = []
        let entities = changes.inserted.lazy.map(\.id.entity) + changes.updated.lazy.map(\.snapshot.id.entity)
        var last: ObjectIdentifier?
        for entity in entities {
            guard last != ObjectIdentifier(entity) else { continue }
            last = ObjectIdentifier(entity)
            var current: EntityDescription? = entity
            while let e = current {
                if seen.insert(ObjectIdentifier(e)).inserted {
                    for constraint in e.uniquenessConstraints { result.append((e, constraint)) }
                }
                current = e.parent
            }
        }
        return result
    }

    private func storedRows(of entity: EntityDescription, key: KeyReader, values: [[Value]]) throws -> [Snapshot] {
        if let (position, attribute) = key.firstAttribute {
            return try rows(entity, attribute, values.map { $0[position] })
        }
        return try allRows(entity)
    }

    /// Reads a constraint's values from snapshots of one entity's kind.
    private struct KeyReader {
        enum Part { case attribute(String), toOne(String) }
        let parts: [Part]

        init(entity: EntityDescription, constraint: [String]) {
            // A composite stands for its elements.
            parts = constraint.flatMap { name -> [Part] in
                if let composite = entity.compositeAttribute(named: name) {
                    return composite.compositeSlots.map { .attribute($0.name) }
                }
                return [entity.attribute(named: name) != nil ? .attribute(name) : .toOne(name)]
            }
        }

        /// The first attribute of the constraint: rows are looked up by it.
        var firstAttribute: (Int, String)? {
            for (n, part) in parts.enumerated() {
                if case .attribute(let name) = part { return (n, name) }
            }
            return nil
        }

        /// The values, or nil when one is nil (no constraint applies).
        func values(of snapshot: Snapshot) -> [Value]? {
            let entity = snapshot.id.entity
            var result: [Value] = []
            result.reserveCapacity(parts.count)
            for part in parts {
                switch part {
                case .attribute(let name):
                    guard let i = entity.attributeSlot(named: name), i < snapshot.values.count else { return nil }
                    let value = snapshot.values[i]
                    if value.isNull { return nil }
                    result.append(value)
                case .toOne(let name):
                    guard let i = entity.relationshipSlot(named: name), i < snapshot.links.count,
                          let id = snapshot.toOneID(at: i) else { return nil }
                    // Temporary destinations are new rows: no stored row
                    // can name them, and two new objects naming the same
                    // one still collide.
                    result.append(.string(id.uriRepresentation.absoluteString))
                }
            }
            return result
        }

        /// Whether an update writes one of the constraint's properties.
        func isChanged(by update: StoreChanges.Update) -> Bool {
            let entity = update.snapshot.id.entity
            for part in parts {
                switch part {
                case .attribute(let name):
                    if let i = entity.attributeSlot(named: name), update.changedAttributes.contains(i) { return true }
                case .toOne(let name):
                    if let i = entity.relationshipSlot(named: name), update.changedToOne.contains(i) { return true }
                }
            }
            return false
        }
    }
}
