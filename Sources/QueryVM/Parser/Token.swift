// Token: what the predicate lexer hands the parser.
//
// Keywords are not told apart from names here: the lexer returns words as `.word` and the parser decides,
// case-insensitively, whether a word is a keyword where a keyword may stand. Literals arrive already decoded
// (numbers parsed, escapes resolved, timestamps converted), so the parser only builds the tree.

/// One token of a predicate-format string.
struct Token: Equatable {
    enum Kind: Equatable {
        /// A name or keyword: letters, digits and `_`, not starting with a digit.
        case word(String)
        /// A SUBQUERY variable, `$name`, without its `$`.
        case variable(String)
        /// `@count`, `@sum`, …, already recognised.
        case collectionOperator(CollectionOperator)
        /// A literal of a value type.
        case literal(QueryValue)
        /// `%@` or a printf conversion (`%d`, `%f`, …), with the 0-based index of the argument it takes.
        case valueArgument(Int, FormatSpecifier)
        /// `%K`, with the 0-based index of the argument it takes.
        case keyPathArgument(Int)
        /// Punctuation and operators; `=` arrives as `==`, `<>` as `!=`, `=<` as `<=` and `=>` as `>=`.
        case symbol(String)
        /// The end of the query.
        case end
    }

    var kind: Kind
    var range: SourceRange

    /// How error messages name the token: "'AND'", "string \"x\"", "end of query".
    var display: String {
        switch kind {
        case .word(let word): return "'\(word)'"
        case .variable(let name): return "'$\(name)'"
        case .collectionOperator(let op): return "'\(op.spelling)'"
        case .literal(let value):
            switch value {
            case .string: return "string \(value)"
            case .int, .double, .float: return "number \(value)"
            default: return "literal \(value)"
            }
        case .valueArgument(_, let specifier): return "'\(specifier.spelling)'"
        case .keyPathArgument: return "'%K'"
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "end of query"
        }
    }
}
