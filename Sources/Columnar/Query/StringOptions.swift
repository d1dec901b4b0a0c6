// StringOptions: the case- and diacritic-insensitivity flags of the typed query builder's string comparisons
// (`$0.name.starts(with: "r", options: [.caseInsensitive])`), RealmSwift's `StringOptions`.
//
// They become the `[c]`, `[d]` and `[cd]` modifiers of the query AST (QueryVM's `ComparisonOptions`); the raw
// values are RealmSwift's, so code that builds options from raw values keeps working.

import QueryVM

/// Options of the string comparisons of `Query`: `contains`, `starts(with:)`, `ends(with:)`, `equals`, `notEquals`.
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int8

    public init(rawValue: Int8) {
        self.rawValue = rawValue
    }

    /// Letters compare equal regardless of case (`[c]`).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Letters compare equal regardless of accents and other diacritic marks (`[d]`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    /// The same flags as the query AST spells them.
    var comparisonOptions: ComparisonOptions {
        var options: ComparisonOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }
}
