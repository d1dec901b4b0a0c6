// UnmanagedAggregate: min, max, sum and average of an unmanaged List, MutableSet or Map, computed in memory.
//
// RealmSwift answers aggregates of unmanaged collections itself (they are not in a Realm, where queries run), and
// so does Columnar, with the rules the engine applies to managed ones (docs/QueryVM.md, section 4): nulls are
// skipped, min and max skip NaN and are nil for no values, the sum of no values is zero and integers are summed
// exactly (stopping when the sum does not fit the requested type), Decimal128 exactly in Decimal128, other numbers
// in Double, and the average is nil for no values. The property is checked against the class's schema first, so a misspelt name or an
// unsupported type stops with the message a managed collection gives even when the collection is empty. Values
// are read with `object[propertyName]`, following to-one links for dotted key paths; the elements of a collection of
// values are aggregated through `self`. Minimum and maximum return the element (or property value) itself.

import CColumnar
import Foundation
import QueryVM

struct UnmanagedAggregate {
    /// What is known of the aggregated values so far; `minimum` and `maximum` keep the values themselves.
    private var result = AggregateResult()
    private var minimumValue: Any?
    private var maximumValue: Any?
    /// The engine type of the aggregated values.
    private let type: columnar_type
    private let property: String

    /// Aggregates `property` of the elements (`self` for the elements themselves) for `use` (`.minMax` or
    /// `.sumAverage`).
    init<Element>(_ elements: [Element], _ property: String, _ use: TypeChecker.KeyPathUse) {
        self.property = property
        let objectType = (Element.self as? ObjectBase.Type)
            ?? ((Element.self as? OptionalProtocol.Type)?.wrappedType as? ObjectBase.Type)
        let names: [String]
        if let objectType {
            (names, type) = Self.resolve(property, in: objectType, for: use)
        } else {
            guard property == "self" else {
                fatalError("Columnar: invalid key path '\(property)' on a collection of \(Element.self): the elements "
                           + "of a collection of values are aggregated through 'self'")
            }
            guard let storage = (Element.self as? any _Persistable.Type)?._storage,
                  Self.accepts(storage.type, for: use) else {
                fatalError("Columnar: cannot \(Self.verb(use)) the elements of a collection of \(Element.self)")
            }
            (names, type) = ([], storage.type)
        }
        for element in elements {
            guard let value = Self.value(of: element, at: names) else { continue }
            add(value)
        }
    }

    func minimum<T>() -> T? {
        // Mixed extremes are kept as the engine's values (MixedAggregation), converted once here.
        if type == COLUMNAR_TYPE_MIXED {
            return AggregateConversion.value(result.minimum, as: T.self, property: property)
        }
        return minimumValue.flatMap { AggregateConversion.convert($0, as: T.self, property: property) }
    }

    func maximum<T>() -> T? {
        if type == COLUMNAR_TYPE_MIXED {
            return AggregateConversion.value(result.maximum, as: T.self, property: property)
        }
        return maximumValue.flatMap { AggregateConversion.convert($0, as: T.self, property: property) }
    }

    func sum<T>() -> T {
        // RealmSwift's unmanaged collections answer the integer 0 when no mixed value is a number.
        if type == COLUMNAR_TYPE_MIXED && result.count == 0 {
            return AggregateConversion.value(.int(0), as: T.self, property: property)!
        }
        return AggregateConversion.sum(result, type: type, as: T.self, property: property)
    }

    func average<T>() -> T? {
        AggregateConversion.average(result, type: type, as: T.self, property: property)
    }

    // MARK: Accumulating

    /// Adds one non-null value: to the count and the sum (NaN included, as the engine does), and to the extremes
    /// unless it is NaN.
    private mutating func add(_ value: Any) {
        if type == COLUMNAR_TYPE_MIXED {
            // As the engine aggregates mixed values.
            guard let mixed = value as? AnyRealmValue, let scalar = mixed.aggregateScalar else { return }
            MixedAggregation.add(scalar, to: &result, decimals: RealmCore.decimalSupport)
            return
        }
        result.count += 1
        switch value {
        case let integer as any BinaryInteger:
            result.integerSum += Int128(integer)
        case let float as Float:
            result.doubleSum += Double(float)
            if float.isNaN { return }
        case let double as Double:
            result.doubleSum += double
            if double.isNaN { return }
        case let decimal as Decimal128:
            // Exactly, in Decimal128, as the engine sums and averages Decimal128 values.
            result.decimalSum = (result.decimalSum.map { Decimal128(bits: $0) + decimal } ?? decimal).bits
            if decimal.isNaN { return }
        default:
            break  // dates: only minimum and maximum
        }
        if minimumValue.map({ Self.isLess(value, than: $0) }) ?? true { minimumValue = value }
        if maximumValue.map({ Self.isLess($0, than: value) }) ?? true { maximumValue = value }
    }

    /// The order of two non-null, non-NaN values of one property.
    private static func isLess(_ left: Any, than right: Any) -> Bool {
        switch (left, right) {
        case let (left as any BinaryInteger, right as any BinaryInteger): return Int128(left) < Int128(right)
        case let (left as Float, right as Float): return left < right
        case let (left as Double, right as Double): return left < right
        case let (left as Decimal128, right as Decimal128): return left < right
        case let (left as Date, right as Date): return left < right
        default: return false
        }
    }

    // MARK: Reading values

    /// The value at a key path from an element (the element itself for an empty path), or nil when it or a link on
    /// the way is null.
    private static func value(of element: Any, at names: [String]) -> Any? {
        var current: Any = element
        for name in names {
            guard let object = ObjectValueAssignment.unwrapped(current) as? ObjectBase else { return nil }
            guard let next = object._value(forProperty: name) else { return nil }
            current = next
        }
        if let optional = current as? OptionalProtocol, optional.isNone { return nil }
        let value = ObjectValueAssignment.unwrapped(current)
        // A persistable enum is stored, and aggregated, as its raw value.
        if let enumeration = value as? any PersistableEnum { return enumeration.rawValue }
        return value
    }

    /// The property names of a key path on `type` and the type it reaches; stops, as a managed collection does,
    /// when a name is unknown, a step is not a to-one link, or `use` does not accept the type.
    private static func resolve(_ keyPath: String, in type: ObjectBase.Type,
                                for use: TypeChecker.KeyPathUse) -> ([String], columnar_type) {
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var schema = SchemaDiscovery.info(for: type).schema
        for (index, name) in names.enumerated() {
            guard let property = schema[name] else {
                fatalError("Columnar: invalid key path '\(keyPath)': property '\(name)' not found in class "
                           + "\(schema.className)")
            }
            let storage = property.storage
            guard storage.collection == COLUMNAR_COLLECTION_NONE, property.type != .linkingObjects else {
                fatalError("Columnar: cannot use key path '\(keyPath)' on \(type): it passes a list, set, map or "
                           + "linking objects; only to-one links can be followed here")
            }
            if index == names.count - 1 {
                guard accepts(storage.type, for: use) else {
                    fatalError("Columnar: cannot \(verb(use)) '\(keyPath)' on \(type): its type "
                               + "\(PropertyType(storage.type)) is not supported")
                }
                return (names, storage.type)
            }
            guard storage.type == COLUMNAR_TYPE_LINK, let linked = storage.objectType else {
                fatalError("Columnar: invalid key path '\(keyPath)': \(schema.className).\(name) is "
                           + "\(PropertyType(storage.type)), which has no property '\(names[index + 1])'")
            }
            schema = SchemaDiscovery.info(for: linked).schema
        }
        fatalError("Columnar: invalid key path '\(keyPath)' on \(type)")
    }

    private static func accepts(_ type: columnar_type, for use: TypeChecker.KeyPathUse) -> Bool {
        let numbers = [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_DECIMAL128,
                       COLUMNAR_TYPE_MIXED]
        return use == .minMax ? (numbers + [COLUMNAR_TYPE_TIMESTAMP]).contains(type) : numbers.contains(type)
    }

    private static func verb(_ use: TypeChecker.KeyPathUse) -> String {
        use == .minMax ? "compute the minimum or maximum of" : "sum or average"
    }
}
