import Predicates

/// A fetch request template as read from an archive: its predicate as
/// the archive's tree reads (nil: none, so every object).
struct DecodedTemplate {
    var name: String
    var entityName: String
    var predicate: Predicates.Predicate?
}

/// A model archive's fetch request templates, not read yet: templates
/// are conveniences that most uses of a model never ask for, and reading
/// their predicates costs as much as a tenth of a model's decoding. The
/// archive stays with them until they are read, and the reading is
/// charged to the same ``ArchiveWork`` as the rest of the model.
struct PendingTemplates {
    let decoder: CoreDataModelDecoder
    /// The UIDs of the names and requests in `NSFetchRequestTemplates`.
    let entries: [(key: Int, value: Int)]
    let root: KeyedObject

    /// Whether there is nothing to read.
    var isEmpty: Bool { entries.isEmpty }

    /// Every template, sorted by name; one mrq cannot read is left out;
    /// damage throws, naming the object and key.
    func read() throws -> [DecodedTemplate] {
        try entries.compactMap { key, value in
            try decoder.template(value, name: try decoder.templateName(key, root: root))
        }.sorted { $0.name < $1.name }
    }

    /// What `read()` reads, template by template: the damage of one
    /// keeps it out and says why under its name (`byName`), and damage to
    /// the names themselves stops the reading (`all`), keeping what was
    /// read before.
    func readEach() -> (templates: [DecodedTemplate], byName: [String: String], all: String?) {
        var templates: [DecodedTemplate] = [], byName: [String: String] = [:]
        for (key, value) in entries {
            let name: String
            do {
                name = try decoder.templateName(key, root: root)
            } catch {
                return (templates, byName, Self.message(error))
            }
            do {
                if let template = try decoder.template(value, name: name) { templates.append(template) }
            } catch {
                byName[name] = Self.message(error)
            }
        }
        return (templates.sorted { $0.name < $1.name }, byName, nil)
    }

    private static func message(_ error: Error) -> String {
        "not a Core Data model: " + ((error as? KeyedArchiveError)?.description ?? "\(error)")
    }
}

/// A model's fetch request template as a Core Data archive holds it: its
/// name, entity and predicate.
///
/// ```swift
/// let templates = try ManagedObjectModel.fetchRequestTemplates(coreDataArchive: data)
/// templates.first?.predicateFormat   // name BEGINSWITH $PREFIX
/// ```
public struct ArchivedFetchRequestTemplate: Sendable, Hashable {
    /// The template's name.
    public var name: String
    /// The entity it fetches.
    public var entityName: String
    /// Its predicate as mrq prints it, `$variables` and all;
    /// `TRUEPREDICATE` when it has none.
    public var predicateFormat: String

    /// A template fetching `entityName` with `predicateFormat`.
    public init(name: String, entityName: String, predicateFormat: String) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
    }
}
