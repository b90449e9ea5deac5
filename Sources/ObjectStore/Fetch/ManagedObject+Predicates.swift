import Foundation
import Predicates
import struct Predicates.Predicate

extension ManagedObject: PredicateObject {
    /// Attributes as values, to-one relationships as objects (or null),
    /// to-many as collections: what the evaluator reads.
    public func predicateValue(forKey key: String) throws -> Operand {
        if let index = entity.attributeSlot(named: key) {
            willAccessValues()
            return .value(values[index])
        }
        if let index = entity.relationshipSlot(named: key) {
            if entity.relationships[index].isToMany {
                return .collection(objects(forKey: key).map { .object($0) })
            }
            return object(forKey: key).map { .object($0) } ?? .value(.null)
        }
        if let composite = entity.compositeOperand(named: key, value: { slot in
            willAccessValues()
            return values[slot]
        }) {
            return composite
        }
        if entity.fetchedProperties.contains(where: { $0.name == key }) {
            do {
                return .collection(try fetchedObjects(forKey: key).map { .object($0) })
            } catch let error as EvaluationError {
                throw error
            } catch {
                throw EvaluationError(message: "\(error)")
            }
        }
        var message = "unknown key '\(key)' on \(entity.name)"
        if let suggestion = Suggestions.closest(to: key, in: entity.propertyNames) {
            message += "; did you mean '\(suggestion)'?"
        }
        throw EvaluationError(message: message)
    }

    /// Whether the object satisfies `predicate`, by the reference evaluator.
    public func matches(_ predicate: Predicate) throws -> Bool {
        try Evaluator().evaluate(predicate, on: self)
    }

    /// The value at a key path through to-one relationships; null past a
    /// nil relationship or a to-many.
    func sortValue(_ keyPath: [String]) -> Value {
        var object: ManagedObject = self
        for (i, key) in keyPath.enumerated() {
            if i < keyPath.count - 1, object.entity.compositeAttribute(named: key) != nil,
               let index = object.entity.attributeSlot(named: keyPath[i...].joined(separator: ".")) {
                // An element of a composite: one slot named by the rest of the path.
                object.willAccessValues()
                return object.values[index]
            }
            if i == keyPath.count - 1 {
                guard let index = object.entity.attributeSlot(named: key) else { return .null }
                object.willAccessValues()
                return object.values[index]
            }
            guard let index = object.entity.relationshipSlot(named: key), object.entity.relationships[index].isToOne,
                  let next = object.object(forKey: key) else { return .null }
            object = next
        }
        return .null
    }
}

extension EntityDescription {
    /// The composite attribute `key` as the evaluator reads it: its
    /// elements' values as nested dictionaries (`magnitude.richter` is
    /// `richter` of `magnitude`, `address.geo.lat` is `lat` of `geo` of
    /// `address`), each read from its slot with `value`. Nil when `key` is
    /// no composite.
    func compositeOperand(named key: String, value: (Int) -> Value) -> Operand? {
        guard let composite = compositeAttribute(named: key) else { return nil }
        func entries(_ slots: [AttributeDescription], prefix: String) -> [String: Operand] {
            var result: [String: Operand] = [:]
            var nested: [String: [AttributeDescription]] = [:]
            for slot in slots {
                let rest = slot.name.dropFirst(prefix.count)
                if let dot = rest.firstIndex(of: ".") {
                    nested[String(rest[..<dot]), default: []].append(slot)
                } else if let index = attributeSlot(named: slot.name) {
                    result[String(rest)] = .value(value(index))
                }
            }
            for (name, inner) in nested {
                result[name] = .object(DictionaryObject(entries(inner, prefix: prefix + name + ".")))
            }
            return result
        }
        return .object(DictionaryObject(entries(composite.compositeSlots, prefix: key + ".")))
    }
}
