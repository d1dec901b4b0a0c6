// Query+Comparisons: ordering, ranges and string matching on single values (`$0.age > 3`,
// `$0.age.contains(18...65)`, `$0.name.starts(with: "R")`), and aggregates over the elements a to-many key path
// reaches (`$0.dogs.age.avg`).
//
// Which operations exist for which property types follows RealmSwift: ordering for numbers, dates, strings and
// data; string matching for strings and data; `like` for strings; ranges for anything Comparable. Persistable
// enums compare by raw value (QueryConstant.swift converts the constant), ordered when the raw value is, and
// `.rawValue` reaches the raw value's operations (`$0.kind.rawValue.starts(with: "a")`).

import QueryVM

// MARK: Ordering

/// Numbers and dates by value; strings and data bytewise (UTF-8 order is Unicode scalar order).
extension Query where T: _QueryOrdered {
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, constant(rhs))
    }

    public static func > (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, rhs.node)
    }

    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, constant(rhs))
    }

    public static func >= (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, rhs.node)
    }

    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, constant(rhs))
    }

    public static func < (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, rhs.node)
    }

    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, constant(rhs))
    }

    public static func <= (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, rhs.node)
    }
}

// MARK: Numbers and dates

extension Query where T: _QueryNumeric {
    // MARK: Aggregates over a to-many key path

    /// The smallest value among the elements of the collection this key path goes through
    /// (`$0.dogs.age.min` is `dogs.@min.age`).
    public var min: Query {
        Query(.keyPath(path.inserting(aggregate: .min)))
    }

    /// The largest value among the elements of the collection this key path goes through.
    public var max: Query {
        Query(.keyPath(path.inserting(aggregate: .max)))
    }

    /// The mean of the values of the elements of the collection this key path goes through.
    public var avg: Query {
        Query(.keyPath(path.inserting(aggregate: .avg)))
    }

    /// The sum of the values of the elements of the collection this key path goes through.
    public var sum: Query {
        Query(.keyPath(path.inserting(aggregate: .sum)))
    }
}

// MARK: Ranges

extension Query where T: Comparable {
    /// Whether the value lies in the half-open range: `value >= lower AND value < upper`.
    public func contains(_ range: Range<T>) -> Query<Bool> {
        Self.halfOpen(node, range.lowerBound, range.upperBound)
    }

    /// Whether the value lies in the closed range: `value BETWEEN {lower, upper}`.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        Self.between(node, range.lowerBound, range.upperBound)
    }
}

extension Query where T: _QueryOptional, T.Wrapped: Comparable {
    /// Whether the value lies in the half-open range (never for nil): `value >= lower AND value < upper`.
    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        Self.halfOpen(node, range.lowerBound, range.upperBound)
    }

    /// Whether the value lies in the closed range (never for nil): `value BETWEEN {lower, upper}`.
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> {
        Self.between(node, range.lowerBound, range.upperBound)
    }
}

extension Query {
    static func halfOpen(_ value: QueryNode, _ lower: Any, _ upper: Any) -> Query<Bool> {
        Query<Bool>(.and(.comparison(.greaterThanOrEqual, value, constant(lower), []),
                         .comparison(.lessThan, value, constant(upper), [])))
    }

    static func between(_ value: QueryNode, _ lower: Any, _ upper: Any) -> Query<Bool> {
        Query<Bool>(.between(value, lower: constant(lower), upper: constant(upper)))
    }
}

// MARK: Strings and data

extension Query where T: _QueryString {
    /// Wildcard match: `?` matches one character and `*` any number of characters.
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        .comparison(.like, node, Self.constant(value), options: caseInsensitive ? [.caseInsensitive] : [])
    }

    /// Wildcard match against the pattern another property holds.
    public func like<U>(_ column: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> {
        .comparison(.like, node, column.node, options: caseInsensitive ? [.caseInsensitive] : [])
    }
}

extension Query where T: _QueryBinary {
    /// Whether the value contains the given string or bytes.
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        .comparison(.contains, node, Self.constant(value), options: options.comparisonOptions)
    }

    /// Whether the value contains the value of another property.
    public func contains<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> where U: _QueryBinary {
        .comparison(.contains, node, column.node, options: options.comparisonOptions)
    }

    /// Whether the value starts with the given string or bytes.
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        .comparison(.beginsWith, node, Self.constant(value), options: options.comparisonOptions)
    }

    /// Whether the value starts with the value of another property.
    public func starts<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        .comparison(.beginsWith, node, column.node, options: options.comparisonOptions)
    }

    /// Whether the value ends with the given string or bytes.
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        .comparison(.endsWith, node, Self.constant(value), options: options.comparisonOptions)
    }

    /// Whether the value ends with the value of another property.
    public func ends<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        .comparison(.endsWith, node, column.node, options: options.comparisonOptions)
    }

    /// Equality with options (`==` compares exactly).
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        .comparison(.equal, node, Self.constant(value), options: options.comparisonOptions)
    }

    /// Equality with another property's value, with options.
    public func equals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        .comparison(.equal, node, column.node, options: options.comparisonOptions)
    }

    /// Inequality with options (`!=` compares exactly).
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        .comparison(.notEqual, node, Self.constant(value), options: options.comparisonOptions)
    }

    /// Inequality with another property's value, with options.
    public func notEquals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        .comparison(.notEqual, node, column.node, options: options.comparisonOptions)
    }

}

// MARK: Persistable enums

/// Enums are ordered by raw value, as RealmSwift orders them (its constraint is the raw value's type; every raw
/// value type an enum can have here — integers, floating point, strings — is ordered).
extension Query where T: PersistableEnum, T.RawValue: Comparable {
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, constant(rhs))
    }

    public static func > (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, rhs.node)
    }

    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, constant(rhs))
    }

    public static func >= (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, rhs.node)
    }

    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, constant(rhs))
    }

    public static func < (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, rhs.node)
    }

    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, constant(rhs))
    }

    public static func <= (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, rhs.node)
    }
}

extension Query where T: _QueryOptional, T.Wrapped: PersistableEnum, T.Wrapped.RawValue: Comparable {
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, constant(rhs))
    }

    public static func > (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, rhs.node)
    }

    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, constant(rhs))
    }

    public static func >= (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, rhs.node)
    }

    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, constant(rhs))
    }

    public static func < (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, rhs.node)
    }

    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, constant(rhs))
    }

    public static func <= (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, rhs.node)
    }
}

extension Query where T: PersistableEnum {
    /// The enum's raw value, for what the raw value's type allows beyond the enum's cases
    /// (`$0.kind.rawValue.starts(with: "a")`).
    public var rawValue: Query<T.RawValue> {
        Query<T.RawValue>(node)
    }
}

extension Query where T: _QueryOptional, T.Wrapped: PersistableEnum {
    /// The optional enum's raw value (nil where the enum is nil).
    public var rawValue: Query<T.Wrapped.RawValue?> {
        Query<T.Wrapped.RawValue?>(node)
    }
}
