// Object+KeyValueCoding: `value(forKey:)`, `value(forKeyPath:)` and `setValue(_:forKey:)` on objects.
//
// RealmSwift's objects are NSObjects and answer key-value coding: a property by name, a path through links
// (`owner.name`), a path into a to-many property answered by that collection (`dogs.name` is each dog's name,
// `dogs.@count` their number), and a property set by name. Linux objects are not NSObjects, so the same calls are
// provided here over the subscript's reads and writes (an unknown key stops the program, as RealmSwift raises).

import Foundation

extension ObjectBase {
    /// The value of a property by name (nil for nil), as the subscript reads it.
    public func value(forKey key: String) -> Any? {
        guard let value = subscriptValue(key).map(ObjectValueAssignment.unwrapped) else { return nil }
        if let optional = value as? OptionalProtocol, optional.isNone { return nil }
        return value
    }

    /// The value at a key path: properties through to-one links (`owner.name`), and, once the path reaches a
    /// to-many property, what that collection answers for the rest (`dogs.name`, `dogs.@count`, `dogs.@sum.age`).
    /// nil when a link on the way is nil.
    public func value(forKeyPath keyPath: String) -> Any? {
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current: Any = self
        while !components.isEmpty {
            let name = components.removeFirst()
            switch current {
            case let object as ObjectBase:
                guard let next = object.value(forKey: name) else { return nil }
                current = next
            case let collection as any KeyValueCodingCollection:
                return collection._value(forKeyPath: ([name] + components).joined(separator: "."))
            default:
                fatalError("[<\(type(of: current))> valueForUndefinedKey:]: this class is not key value "
                           + "coding-compliant for the key \(name).")
            }
        }
        return current
    }

    /// Sets a property by name (a managed object needs a write transaction), as the subscript writes it.
    public func setValue(_ value: Any?, forKey key: String) {
        switch self {
        case let object as Object: object[key] = value
        case let object as EmbeddedObject: object[key] = value
        default: _setValue(value, forProperty: key)
        }
    }

    /// Reads through the class's subscript, which a migration's DynamicObject overrides.
    private func subscriptValue(_ key: String) -> Any? {
        switch self {
        case let object as Object: return object[key]
        case let object as EmbeddedObject: return object[key]
        default: return _value(forProperty: key)
        }
    }
}

/// A collection that answers key-value coding with one value (an array, or a collection operator's answer), so a
/// key path through an object can continue into it.
protocol KeyValueCodingCollection {
    func _value(forKeyPath keyPath: String) -> Any?
}

extension List: KeyValueCodingCollection {
    func _value(forKeyPath keyPath: String) -> Any? { CollectionKeyValueCoding.value(of: self, keyPath: keyPath) }
}

extension MutableSet: KeyValueCodingCollection {
    func _value(forKeyPath keyPath: String) -> Any? { CollectionKeyValueCoding.value(of: self, keyPath: keyPath) }
}

extension LinkingObjects: KeyValueCodingCollection {
    func _value(forKeyPath keyPath: String) -> Any? { CollectionKeyValueCoding.value(of: self, keyPath: keyPath) }
}

extension Results: KeyValueCodingCollection {
    func _value(forKeyPath keyPath: String) -> Any? { value(forKeyPath: keyPath) }
}
