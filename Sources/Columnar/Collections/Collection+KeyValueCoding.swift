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
/// | `@sum.price` | the sum of the non-nil values: `Int` for integers, `Decimal128` for decimals, else `Double`; 0 when there are none |
/// | `@avg.price` | their mean as a `Double` (`Decimal128` for decimals), nil when there are none |
/// | `@min.price`, `@max.price` | the least or greatest non-nil value, of its own type; nil when there are none |
/// | `@unionOfObjects.name` | every non-nil value, in order |
/// | `@distinctUnionOfObjects.name` | the non-nil values without repeats, in order of first appearance |
///
/// An unknown operator, or one without the key path it needs, stops with a message (RealmSwift raises an
/// exception).
enum CollectionKeyValueCoding {
    static let operators = ["@count", "@sum", "@avg", "@min", "@max", "@unionOfObjects", "@distinctUnionOfObjects"]

    /// `value(forKeyPath:)` of a collection: the values (an array), or an operator's answer.
    static func value<C: Collection>(of collection: C, keyPath: String) -> Any? {
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
        let items = values(of: collection, keyPath: rest).compactMap { $0 }
        switch op {
        case "@sum": return KeyValueFold.sum(items, keyPath: keyPath)
        case "@avg": return KeyValueFold.average(items, keyPath: keyPath)
        case "@min": return KeyValueFold.extreme(items, greatest: false, keyPath: keyPath)
        case "@max": return KeyValueFold.extreme(items, greatest: true, keyPath: keyPath)
        case "@unionOfObjects": return items
        default: return KeyValueFold.distinct(items)
        }
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

/// The folds of the collection operators, over non-nil values of one property.
enum KeyValueFold {
    /// A value as a number: exact for integers, a Decimal128 for decimals, else a Double.
    private enum Number {
        case integer(Int64)
        case decimal(Decimal128)
        case double(Double)
    }

    private static func number(_ value: Any, keyPath: String) -> Number {
        switch value {
        case let value as Int: return .integer(Int64(value))
        case let value as Int8: return .integer(Int64(value))
        case let value as Int16: return .integer(Int64(value))
        case let value as Int32: return .integer(Int64(value))
        case let value as Int64: return .integer(value)
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as Decimal128: return .decimal(value)
        case let value as any PersistableEnum:
            return number(value.rawValue, keyPath: keyPath)
        default:
            fatalError("'\(keyPath)': \(type(of: value)) values cannot be summed or averaged")
        }
    }

    static func sum(_ items: [Any], keyPath: String) -> Any {
        let numbers = items.map { number($0, keyPath: keyPath) }
        if numbers.allSatisfy({ if case .integer = $0 { return true } else { return false } }) {
            return Int(numbers.reduce(Int64(0)) { total, number in
                guard case .integer(let value) = number else { return total }
                return total &+ value
            })
        }
        if numbers.contains(where: { if case .decimal = $0 { return true } else { return false } }) {
            return numbers.reduce(Decimal128(0)) { total, number in
                switch number {
                case .integer(let value): return total + Decimal128(integerLiteral: value)
                case .decimal(let value): return total + value
                case .double(let value): return total + Decimal128(floatLiteral: value)
                }
            }
        }
        return numbers.reduce(0.0) { total, number in
            switch number {
            case .integer(let value): return total + Double(value)
            case .double(let value): return total + value
            case .decimal(let value): return total + value.doubleValue
            }
        }
    }

    static func average(_ items: [Any], keyPath: String) -> Any? {
        guard !items.isEmpty else { return nil }
        switch sum(items, keyPath: keyPath) {
        case let total as Int: return Double(total) / Double(items.count)
        case let total as Decimal128: return total / Decimal128(integerLiteral: Int64(items.count))
        case let total as Double: return total / Double(items.count)
        default: return nil
        }
    }

    static func extreme(_ items: [Any], greatest: Bool, keyPath: String) -> Any? {
        guard var best = items.first else { return nil }
        for item in items.dropFirst() {
            let ordered = isLess(item, than: best, keyPath: keyPath)
            if greatest ? isLess(best, than: item, keyPath: keyPath) : ordered { best = item }
        }
        return best
    }

    private static func isLess(_ lhs: Any, than rhs: Any, keyPath: String) -> Bool {
        switch (lhs, rhs) {
        case let (lhs as String, rhs as String): return Array(lhs.utf8).lexicographicallyPrecedes(rhs.utf8)
        case let (lhs as Date, rhs as Date): return lhs < rhs
        case let (lhs as ObjectId, rhs as ObjectId): return lhs < rhs
        default: break
        }
        switch (number(lhs, keyPath: keyPath), number(rhs, keyPath: keyPath)) {
        case let (.integer(lhs), .integer(rhs)): return lhs < rhs
        case let (.decimal(lhs), .decimal(rhs)): return lhs < rhs
        case let (.double(lhs), .double(rhs)): return lhs < rhs
        case let (.integer(lhs), .double(rhs)): return Double(lhs) < rhs
        case let (.double(lhs), .integer(rhs)): return lhs < Double(rhs)
        default: return false
        }
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
}
