// CollectionOperator: the `@`-operators that turn a collection (list, set, map, to-many link) into a value or
// into another collection.

/// An operator applied to the collection that the key path before it names.
public enum CollectionOperator: String, Hashable, Sendable, CaseIterable {
    /// The number of elements (`@count`; RealmSwift also accepts `@size`).
    case count
    /// The smallest element, nulls skipped; null for an empty collection.
    case min
    /// The largest element, nulls skipped; null for an empty collection.
    case max
    /// The sum of the elements, nulls skipped; zero for an empty collection.
    case sum
    /// The mean of the elements, nulls skipped; null for an empty collection.
    case avg
    /// The keys of a map.
    case allKeys
    /// The values of a map.
    case allValues
    /// The type of a mixed value (`value.@type == 'string'`), compared with type names (MixedTypeNames.swift).
    case type

    /// The operator that `@name` spells, case-insensitively, or nil when there is none.
    public init?(spelling name: String) {
        switch name.lowercased() {
        case "count", "size": self = .count
        case "min": self = .min
        case "max": self = .max
        case "sum": self = .sum
        case "avg": self = .avg
        case "allkeys": self = .allKeys
        case "allvalues": self = .allValues
        case "type": self = .type
        default: return nil
        }
    }

    /// The canonical spelling, with its `@`.
    public var spelling: String { "@" + rawValue }
}
