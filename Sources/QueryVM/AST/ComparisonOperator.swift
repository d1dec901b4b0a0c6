// ComparisonOperator and ComparisonOptions: the operator of a comparison and its `[c]`, `[d]`, `[cd]` modifiers.

/// A binary comparison operator.
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    /// Wildcard match: `?` is one character, `*` is zero or more.
    case like = "LIKE"
    /// Membership of the left side in the right side (a list, an array argument or a collection key path).
    case `in` = "IN"
}

/// How strings are compared: the modifiers written in brackets after an operator.
public struct ComparisonOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: letters compare equal regardless of case.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1 << 0)
    /// `[d]`: letters compare equal regardless of diacritics (accents).
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 1 << 1)

    /// The bracketed form, e.g. `[cd]`, or "" for no options.
    public var spelling: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }
}
