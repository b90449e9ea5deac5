import Foundation

extension ManagedObjectModel {
    /// The user-facing name of an entity: `Entity/Person` in the
    /// localization dictionary, or the entity's name.
    ///
    /// ```swift
    /// model.localizationDictionary = ["Entity/Person": "Employee"]
    /// model.localizedName(ofEntity: "Person")   // "Employee"
    /// ```
    public func localizedName(ofEntity entity: String) -> String {
        localizationDictionary["Entity/\(entity)"] ?? entity
    }

    /// The user-facing name of a property: `Property/name/Entity/Person`,
    /// then `Property/name`, then the property's name. When `entity` does not
    /// have its own entry, the entities it inherits from are tried in turn.
    public func localizedName(ofProperty property: String, entity: String? = nil) -> String {
        var current = entity.flatMap { entitiesByName[$0] }
        if current == nil, let entity, let text = localizationDictionary["Property/\(property)/Entity/\(entity)"] {
            return text
        }
        while let e = current {
            if let text = localizationDictionary["Property/\(property)/Entity/\(e.name)"] { return text }
            current = e.parent
        }
        return localizationDictionary["Property/\(property)"] ?? property
    }

    /// The localized form of an error string: `ErrorString/<text>`, or the
    /// text itself.
    public func localizedErrorString(_ text: String) -> String {
        localizationDictionary["ErrorString/\(text)"] ?? text
    }
}
