import Foundation
import Predicates

/// What opening a store with another model would change, worked out
/// before anything is written: the migration's steps, and the data it
/// would drop.
///
/// ```swift
/// if let preview = try PersistentStoreCoordinator.migrationPreview(at: url, model: model) {
///     print(preview)   // "added entity Tag; removed attribute Person.fax (12 values dropped)"
/// }
/// ```
///
/// A store opens with a model other than its own only when migration is
/// asked for (`PersistentStoreOptions.migratesAutomatically`); one that
/// would drop data only when that is asked for too
/// (`allowsMigrationDataLoss`); and never with an earlier version of the
/// store's own model bundle.
public struct MigrationPreview: Sendable, CustomStringConvertible {
    /// Data the migration would drop: the rows of a removed entity, the
    /// values or links of a removed property, or the links a changed
    /// relationship can no longer hold (a to-many made to-one keeps one
    /// per object).
    public struct Loss: Sendable, Equatable {
        /// The entity (its name in the store's model) and the property, or
        /// nil when whole rows go.
        public let entity: String
        /// The property whose values go, or nil when whole rows go.
        public let property: String?
        /// How many rows, or how many non-nil values.
        public let count: Int
    }

    /// The migration's steps, inferred from the store's model and the given
    /// one.
    public let plan: MigrationPlan
    /// The store's model version and the given one (`People 3`), when known.
    public let storedVersion: String?
    /// The given model's version, when known.
    public let givenVersion: String?
    /// The given model is an earlier version of the store's own bundle.
    public let isEarlierVersion: Bool
    /// What the migration would drop, entity by entity.
    public let losses: [Loss]

    /// The constraints the migration adds to a PostgreSQL store made
    /// before mrq made them (`Person.department names a Department`).
    public internal(set) var addedConstraints: [String] = []

    /// Whether the migration would drop data, which it does only with
    /// `allowsMigrationDataLoss`.
    public var dropsData: Bool { !losses.isEmpty }

    /// Each change, for people: `added entity Tag`, `renamed attribute
    /// Person.fax to phone`, `removed entity Memo (3 rows dropped)`.
    public var changes: [String] {
        var lines: [String] = []
        func loss(_ entity: String, _ property: String?) -> String {
            guard let found = losses.first(where: { $0.entity == entity && $0.property == property }) else { return "" }
            let unit = property == nil ? "row" : "value"
            return " (\(found.count) \(unit)\(found.count == 1 ? "" : "s") dropped)"
        }
        for step in plan.entities {
            switch step {
            case .added(let name): lines.append("added entity \(name)")
            case .removed(let name): lines.append("removed entity \(name)" + loss(name, nil))
            case .renamed(let from, let to): lines.append("renamed entity \(from) to \(to)")
            case .moved(let entity, let from, let to):
                lines.append("moved entity \(entity) " + (from.map { "from under \($0) " } ?? "") + (to.map { "under \($0)" } ?? "to the top"))
            }
        }
        for step in plan.properties {
            switch step {
            case .addedAttribute(let entity, let name): lines.append("added attribute \(entity).\(name)")
            case .addedRelationship(let entity, let name): lines.append("added relationship \(entity).\(name)")
            case .removedAttribute(let entity, let name):
                lines.append("removed attribute \(entity).\(name)" + loss(oldEntityName(entity), name))
            case .removedRelationship(let entity, let name):
                lines.append("removed relationship \(entity).\(name)" + loss(oldEntityName(entity), name))
            case .renamedAttribute(let entity, let from, let to): lines.append("renamed attribute \(entity).\(from) to \(to)")
            case .renamedRelationship(let entity, let from, let to):
                lines.append("renamed relationship \(entity).\(from) to \(to)")
            case .madeOptional(let entity, let name): lines.append("made \(entity).\(name) optional")
            case .madeRequired(let entity, let name, _): lines.append("made \(entity).\(name) required (nil becomes the default)")
            case .madeToMany(let entity, let name): lines.append("made \(entity).\(name) to-many")
            case .madeToOne(let entity, let name):
                lines.append("made \(entity).\(name) to-one" + loss(oldEntityName(entity), name))
            case .madeOrdered(let entity, let name): lines.append("made \(entity).\(name) ordered")
            case .madeUnordered(let entity, let name): lines.append("made \(entity).\(name) unordered")
            case .changedInverse(let entity, let name, let manyToMany):
                lines.append("changed the inverse of \(entity).\(name) (\(manyToMany ? "many-to-many" : "one-to-many") now)")
            }
        }
        if !addedConstraints.isEmpty {
            let shown = addedConstraints.prefix(3).joined(separator: ", ")
            let more = addedConstraints.count > 3 ? " and \(addedConstraints.count - 3) more" : ""
            lines.append("added \(addedConstraints.count) constraint\(addedConstraints.count == 1 ? "" : "s") (\(shown)\(more))")
        }
        if lines.isEmpty { lines.append("changed indexes or constraints") }
        return lines
    }

    /// The first few changes, then how many more.
    public var summary: String {
        let all = changes
        let shown = all.prefix(5).joined(separator: "; ")
        return all.count > 5 ? shown + "; and \(all.count - 5) more" : shown
    }

    public var description: String { changes.joined(separator: "; ") }

    /// What the drop would take: `Memo: 3 rows; Person.fax: 12 values`.
    public var lossSummary: String {
        losses.map { loss in
            let unit = loss.property == nil ? "row" : "value"
            let place = loss.property.map { "\(loss.entity).\($0)" } ?? loss.entity
            return "\(place): \(loss.count) \(unit)\(loss.count == 1 ? "" : "s")"
        }.joined(separator: "; ")
    }

    static func earlierVersionMessage(_ path: String, _ preview: MigrationPreview) -> String {
        "'\(path)' was written by model version '\(preview.storedVersion ?? "?")'; the model given is "
            + "'\(preview.givenVersion ?? "?")', an earlier version: open it with '\(preview.storedVersion ?? "?")' or later"
    }

    static func notAskedMessage(_ path: String, _ preview: MigrationPreview, hint: String,
                                dropHint: String = "PersistentStoreOptions.allowsMigrationDataLoss") -> String {
        // Both options at once when it drops data: one refusal, not two.
        let drops = preview.dropsData ? " that drops data (\(preview.lossSummary))" : ""
        return "'\(path)' was made with another model (\(preview.summary)); opening it with this one needs a migration\(drops): "
            + "ask for it with \(hint)" + (preview.dropsData ? " and \(dropHint)" : "")
    }

    static func dropsDataMessage(_ path: String, _ preview: MigrationPreview, hint: String) -> String {
        "migrating '\(path)' would drop data (\(preview.lossSummary)); ask for that too with \(hint)"
    }

    /// This preview, adding `constraints` to what the migration does.
    package func adding(constraints: [String]) -> MigrationPreview {
        var preview = self
        preview.addedConstraints += constraints
        return preview
    }

    /// The preview of a migration that only adds `constraints`, to a store
    /// of `model`.
    package static func addingConstraints(_ constraints: [String], model: ManagedObjectModel) -> MigrationPreview {
        MigrationPreview(plan: MigrationPlan(), storedVersion: model.versionName, givenVersion: model.versionName,
                         isEarlierVersion: false, losses: [], addedConstraints: constraints)
    }

    private func oldEntityName(_ name: String) -> String {
        for case .renamed(let from, name) in plan.entities { return from }
        return name
    }

    /// Works out the preview for the store open on `db`, made with `old`,
    /// opened with `new`. Throws when the change cannot be migrated.
    static func make(_ db: MigrationConnection, old: ManagedObjectModel, new: ManagedObjectModel) throws -> MigrationPreview {
        let plan = try MigrationPlan.infer(from: old, to: new, empty: try StoreMigrator.emptyEntities(db, old))
        var earlier = false
        if let stored = old.versionName, let given = new.versionName {
            earlier = ModelVersionOrder.isEarlier(given, than: stored)
        }
        let losses = try countLosses(db, plan: plan, old: old, new: new)
        return MigrationPreview(plan: plan, storedVersion: old.versionName, givenVersion: new.versionName,
                                isEarlierVersion: earlier, losses: losses)
    }

    /// The rows of removed entities, the non-nil values of removed
    /// properties, and the destinations a to-one made of a to-many drops,
    /// that the store holds now.
    private static func countLosses(_ db: MigrationConnection, plan: MigrationPlan, old: ManagedObjectModel,
                                    new: ManagedObjectModel) throws -> [Loss] {
        let mapping = try SchemaMapping(model: old)
        var renamedFrom: [String: String] = [:]
        for case .renamed(let from, let to) in plan.entities { renamedFrom[to] = from }
        func count(_ entity: EntityDescription, where condition: String?, table: SQLIdentifier? = nil) throws -> Int {
            let storeTable = mapping.table(for: entity)
            let name = table ?? storeTable.name
            guard try db.tableExists(name) else { return 0 }
            var clauses: [String] = []
            if let condition { clauses.append(condition) }
            if table == nil, let entityColumn = storeTable.entityColumn {
                let codes = entity.selfAndDescendants.map { String(mapping.entityCode($0)) }.joined(separator: ",")
                clauses.append("\(entityColumn) IN (\(codes))")
            }
            let filter = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
            guard case .int(let n)? = try db.scalar("SELECT COUNT(*) FROM \(name)\(filter)") else { return 0 }
            return Int(n)
        }
        var losses: [Loss] = []
        func add(_ entity: String, _ property: String?, _ n: Int) {
            if n > 0 { losses.append(Loss(entity: entity, property: property, count: n)) }
        }
        for case .removed(let name) in plan.entities {
            guard let entity = old.entity(named: name) else { continue }
            add(name, nil, try count(entity, where: nil))
        }
        for step in plan.properties {
            switch step {
            case .removedAttribute(let newName, let attribute):
                let name = renamedFrom[newName] ?? newName
                guard let entity = old.entity(named: name), let column = mapping.column(for: attribute, of: entity) else { continue }
                add(name, attribute, try count(entity, where: "\(column.name) IS NOT NULL"))
            case .removedRelationship(let newName, let relationship):
                let name = renamedFrom[newName] ?? newName
                guard let entity = old.entity(named: name) else { continue }
                if let columns = mapping.toOne(relationship, of: entity) {
                    add(name, relationship, try count(entity, where: "\(columns.foreignKey) IS NOT NULL"))
                } else if let join = mapping.joinTable(relationship, of: entity), join.isOwner {
                    add(name, relationship, try count(entity, where: nil, table: join.name))
                }
            default:
                continue
            }
        }
        // Links that go: a to-one whose links were a to-many's keeps one per
        // object; a link to a row no longer of its destination's kind (an
        // entity removed, or moved out of the hierarchy) goes.
        let pairs = try MigrationLinks(old: old, oldMapping: mapping, new: new)
        let newMapping = try SchemaMapping(model: new)
        for entity in new.entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties where !relationship.isTransient {
                guard let destination = relationship.destination, relationship.isToOne
                        || newMapping.joinTable(relationship.name, of: entity)?.isOwner == true else { continue }
                var n = 0
                var links = try pairs.changedSource(for: relationship, db: db)
                if let links, relationship.isToOne { n += try MigrationLinks.dropped(by: links, db: db) }
                if links == nil, let previous = try pairs.oldRelationship(relationship) { links = try pairs.links(of: previous, db: db) }
                guard let links else { continue }
                n += try pairs.strays(links, column: "dst", endingAt: destination, db: db)
                if relationship.isToMany { n += try pairs.strays(links, column: "src", endingAt: entity, db: db) }
                add(pairs.oldEntity(entity)?.name ?? entity.name, relationship.name, n)
            }
        }
        return losses
    }
}
