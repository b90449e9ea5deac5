import Foundation

extension ManagedObjectModel {
    /// A stable hash of everything that shapes storage, as 16 hex digits
    /// (64-bit FNV-1a): entity names, inheritance and abstractness,
    /// attribute names, types, optionality and transience, relationship
    /// names, destinations, inverses, cardinality, ordering and optionality,
    /// and version hash modifiers.
    ///
    /// ```swift
    /// if storedFingerprint != model.fingerprint { /* migrate */ }
    /// ```
    ///
    /// Declaration order, user info, validation rules, default values,
    /// delete rules, indexes, configurations, class names and layout do not
    /// count: two models with the same fingerprint can share a store.
    public var fingerprint: String {
        var hash = FingerprintHasher()
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            hash.add("entity", entity.name, entity.parentName ?? "", entity.isAbstract ? "abstract" : "",
                entity.versionHashModifier ?? "")
            for property in entity.declaredProperties.sorted(by: { $0.name < $1.name }) {
                switch property {
                case let a as AttributeDescription:
                    hash.add("attribute", a.name, a.type.rawValue, a.isOptional ? "optional" : "required",
                        a.isTransient ? "transient" : "", a.versionHashModifier ?? "")
                    if a.type == .composite { hash.addElements(of: a, path: a.name) }
                case let r as RelationshipDescription:
                    hash.add("relationship", r.name, r.destinationName, r.inverseName ?? "",
                        r.isToMany ? "to-many" : "to-one", r.isOrdered ? "ordered" : "",
                        r.isOptional ? "optional" : "required", r.isTransient ? "transient" : "",
                        r.versionHashModifier ?? "")
                default:
                    break  // fetched properties are not stored
                }
            }
        }
        return hash.hex
    }
}

/// 64-bit FNV-1a over fields, each ended by a separator byte so that
/// ("ab", "c") and ("a", "bc") differ.
struct FingerprintHasher {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ fields: String...) {
        for field in fields {
            for byte in field.utf8 { mix(byte) }
            mix(0x1f)
        }
        mix(0x1e)
    }

    /// A composite's elements, each under its path (`magnitude.richter`):
    /// they are stored as columns of their own.
    mutating func addElements(of composite: AttributeDescription, path: String) {
        for element in composite.elements {
            let elementPath = path + "." + element.name
            add("element", elementPath, element.type.rawValue, element.isOptional ? "optional" : "required",
                element.isTransient ? "transient" : "")
            if element.type == .composite { addElements(of: element, path: elementPath) }
        }
    }

    private mutating func mix(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01b3
    }

    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
