import Foundation
import Predicates

/// A user info value that is not a string, kept as the model file holds
/// it: Core Data's `userInfo` is a dictionary of any property-list values
/// (Photos' models hold arrays there), while mrq's `userInfo` holds the
/// strings that MagicalRecord's import reads.
///
/// ```swift
/// let components = attribute.otherUserInfo["_NSLocationAttributeDerivedComponents"]
/// components?.text   // ["latitude", "longitude"]
/// ```
public indirect enum UserInfoValue: Sendable, Hashable {
    /// A number, date, data, UUID, URL or null.
    case value(Value)
    /// An array.
    case array([UserInfoValue])
    /// A set, in the order the file holds it.
    case set([UserInfoValue])
    /// A dictionary, by key.
    case dictionary([String: UserInfoValue])

    /// The value as one line of JSON-like text: strings quoted, keys
    /// sorted, data as `x'…'`.
    ///
    /// ```swift
    /// UserInfoValue.array([.value(.int(1)), .value(.string("a"))]).text   // [1, "a"]
    /// ```
    public var text: String {
        switch self {
        case .value(let value): Printer.format(Predicates.Expression(.constant(value)))
        case .array(let items): "[" + items.map(\.text).joined(separator: ", ") + "]"
        case .set(let items): "{" + items.map(\.text).joined(separator: ", ") + "}"
        case .dictionary(let entries):
            "{ " + entries.sorted { $0.key < $1.key }.map { Printer.format(Predicates.Expression(.constant(.string($0.key)))) + ": " + $0.value.text }
                .joined(separator: ", ") + " }"
        }
    }
}

/// `UserInfoValue` in a model's JSON archive: exactly one field is set.
struct UserInfoArchive: Codable, Equatable {
    var value: ValueArchive?
    var array: [UserInfoArchive]?
    var set: [UserInfoArchive]?
    var dictionary: [String: UserInfoArchive]?

    init(_ value: UserInfoValue) {
        switch value {
        case .value(let v): self.value = ValueArchive(v)
        case .array(let items): array = items.map(UserInfoArchive.init)
        case .set(let items): set = items.map(UserInfoArchive.init)
        case .dictionary(let entries): dictionary = entries.mapValues(UserInfoArchive.init)
        }
    }

    func decoded() throws -> UserInfoValue {
        if let value { return .value(try value.decoded()) }
        if let array { return .array(try array.map { try $0.decoded() }) }
        if let set { return .set(try set.map { try $0.decoded() }) }
        if let dictionary { return .dictionary(try dictionary.mapValues { try $0.decoded() }) }
        throw ModelError.invalidArchive("a user info value with no content")
    }

    static func archive(_ info: [String: UserInfoValue]) -> [String: UserInfoArchive]? {
        info.isEmpty ? nil : info.mapValues(UserInfoArchive.init)
    }

    static func decoded(_ info: [String: UserInfoArchive]?) throws -> [String: UserInfoValue] {
        try (info ?? [:]).mapValues { try $0.decoded() }
    }
}
