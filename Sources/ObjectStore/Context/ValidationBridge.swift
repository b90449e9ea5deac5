import Foundation
import Predicates

// The context's view of the model's validation rules.
extension AttributeDescription {
    func validationMessages(for value: Value) -> [String] {
        if value.isNull && !isOptional { return ["\(name) is required"] }
        return []
    }
}

extension RelationshipDescription {
    func countValidationMessage(_ count: Int) -> String? {
        if count == 0 && !isOptional { return "\(name) is required" }
        if minCount > 0 && count < minCount && !(count == 0 && isOptional) {
            return "\(name) has \(count) objects, fewer than the minimum \(minCount)"
        }
        if maxCount > 0 && count > maxCount { return "\(name) has \(count) objects, more than the maximum \(maxCount)" }
        return nil
    }
}

extension AttributeType {
    func coerceValue(_ value: Value) throws -> Value {
        switch (self, value) {
        case (.double, .int(let i)), (.float, .int(let i)): return .double(Double(i))
        case (.boolean, .int(let i)): return .bool(i != 0)
        default: return value
        }
    }
}
