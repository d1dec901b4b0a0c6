// Collection+KeyValueCoding: `value(forKey:)`, `value(forKeyPath:)` and `setValue(_:forKey:)` on collections, as
// RealmSwift offers them on every collection: each element's value of a property (or at a path through to-one
// links, or `self`), a collection operator's answer (`@count`, `@sum.price`, …), or one property set on every
// element. List and MutableSet also answer `value(forKey:)` with
// `[AnyObject]`, as RealmSwift's do; that form is declared on the classes, so it is the one an unannotated call
// picks, and the `Any?` form below is chosen where the context asks for it.

import Foundation

extension QueryableValueCollection {
    /// Each element's value of a property, in order (an array; nil where the value is nil).
    public func value(forKey key: String) -> Any? { value(forKeyPath: key) }

    /// Each element's value at a key path through to-one links (`owner.name`, `self`), in order, or a collection
    /// operator's answer (`@count`, `@sum.price`, …; see CollectionKeyValueCoding).
    public func value(forKeyPath keyPath: String) -> Any? {
        CollectionKeyValueCoding.value(of: self, keyPath: keyPath)
    }

    /// Sets a property of every element (objects; managed ones need a write transaction).
    public func setValue(_ value: Any?, forKey key: String) {
        CollectionKeyValueCoding.setValue(value, forKey: key, in: self)
    }
}

/// Key-value coding over the elements of a collection, as Foundation's collections answer it and RealmSwift's
/// inherit: `self` is each element itself, a key path (through to-one links, `owner.name`) gives each element's
/// value, and a leading collection operator folds the values into one answer:
///
/// | Key path | Answer |
/// |---|---|
/// | `@count` | the number of elements (`Int`) |
/// | `@sum.price`, `@avg.price`, `@min.price`, `@max.price` | the collection's own `sum`, `average`, `min` or `max` of the property, as RealmSwift delegates them (numbers; dates for `@min` and `@max`): integers as `Int`, other values of their type; nil for no values, except a sum, which is 0 |
/// | `@unionOfObjects.name` | every non-nil value, in order |
/// | `@distinctUnionOfObjects.name` | the non-nil values without repeats, in order of first appearance |
///
/// An unknown operator, or one without the key path it needs, stops with a message (RealmSwift raises an
/// exception), as does a property the aggregates do not take.
enum CollectionKeyValueCoding {
    static let operators = ["@count", "@sum", "@avg", "@min", "@max", "@unionOfObjects", "@distinctUnionOfObjects"]

    /// `value(forKeyPath:)` of a collection: the values (an array), or an operator's answer.
    static func value<C: RealmCollection>(of collection: C, keyPath: String) -> Any? {
        guard keyPath.hasPrefix("@") else { return values(of: collection, keyPath: keyPath) }
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let op = components.removeFirst()
        let rest = components.joined(separator: ".")
        guard operators.contains(op) else {
            fatalError("Unsupported collection operator '\(op)' in key path '\(keyPath)': use one of "
                       + operators.joined(separator: ", "))
        }
        if op == "@count" {
            // `@count` may be followed by nothing: `toys.@count` is the count of toys.
            guard rest.isEmpty else { fatalError("'@count' takes no key path after it, in '\(keyPath)'") }
            return collection.count
        }
        guard !rest.isEmpty else {
            fatalError("'\(op)' needs the key path of the values it folds, as in '\(op).price' (in '\(keyPath)')")
        }
        let answer: AggregateValue?
        switch op {
        case "@sum": answer = collection.sum(ofProperty: rest)
        case "@avg": answer = collection.average(ofProperty: rest)
        case "@min": answer = collection.min(ofProperty: rest)
        case "@max": answer = collection.max(ofProperty: rest)
        case "@unionOfObjects": return values(of: collection, keyPath: rest).compactMap { $0 }
        default: return distinct(values(of: collection, keyPath: rest).compactMap { $0 })
        }
        return answer?.value
    }

    /// Each element's value at `keyPath`, in order; nil where a link on the path is nil. `self` is the element.
    static func values<C: Collection>(of collection: C, keyPath: String) -> [Any?] {
        let names = keyPath.split(separator: ".").map(String.init)
        return collection.map { element -> Any? in
            var current: Any? = element
            for name in names where name != "self" {
                guard let object = current as? ObjectBase else {
                    fatalError("[<\(type(of: current ?? ()))> valueForUndefinedKey:]: this class is not key value "
                               + "coding-compliant for the key \(name).")
                }
                guard let value = object._value(forProperty: name).map(ObjectValueAssignment.unwrapped) else {
                    return nil
                }
                if let optional = value as? OptionalProtocol, optional.isNone { return nil }
                current = value
            }
            return current
        }
    }

    /// The same values as Objective-C style objects (nil as `NSNull`), as RealmSwift's List returns them.
    static func objects<C: Collection>(of collection: C, keyPath: String) -> [AnyObject] {
        if keyPath.hasPrefix("@") {
            fatalError("'\(keyPath)' folds the values into one answer, which the [AnyObject] form of "
                       + "value(forKeyPath:) cannot return; ask for the Any? form (value(forKeyPath:) as Any?)")
        }
        return values(of: collection, keyPath: keyPath).map { $0.map { $0 as AnyObject } ?? NSNull() }
    }

    /// The values without repeats, in order of first appearance: objects are the same when they are the same
    /// stored object, other values when they are equal.
    static func distinct(_ items: [Any]) -> [Any] {
        var seen = Set<AnyHashable>()
        var objects: [ObjectBase] = []
        var result: [Any] = []
        for item in items {
            if let object = item as? ObjectBase {
                if objects.contains(where: { $0._isSameObject(as: object) }) { continue }
                objects.append(object)
                result.append(item)
            } else if let hashable = item as? AnyHashable {
                if seen.insert(hashable).inserted { result.append(item) }
            } else {
                result.append(item)
            }
        }
        return result
    }

    /// Sets a property of every element (which must be objects; managed ones need a write transaction).
    static func setValue<C: Collection>(_ value: Any?, forKey key: String, in collection: C) {
        for element in Array(collection) {
            guard let object = element as? ObjectBase else {
                fatalError("Columnar: setValue(_:forKey:) needs a collection of objects; \(C.Element.self) is a value")
            }
            object._setValue(value, forProperty: key)
        }
    }
}

/// An aggregate's value as the aggregates make it, for the key-value coding operators, which answer `Any`:
/// integers as `Int` (whatever their width), other values (Double, Float, Decimal128, Date) of their own type.
struct AggregateValue: MinMaxType, AddableType, AggregateValueWrapping {
    let value: Any

    static func _wrapAggregate(_ value: Any, property: String) -> AggregateValue? {
        if let integer = value as? any BinaryInteger, let exact = Int(exactly: integer) {
            return AggregateValue(value: exact)
        }
        return AggregateValue(value: value)
    }
}
