// QueryPredicate: the root of the query AST that all three front ends (predicate strings, the typed builder and
// Foundation's #Predicate) produce, and that the compiler turns into bytecode.

/// A condition on an object, with the range of query text it came from.
public struct QueryPredicate: Hashable, Sendable {
    public indirect enum Kind: Hashable, Sendable {
        /// `TRUEPREDICATE` (true) or `FALSEPREDICATE` (false).
        case constant(Bool)
        case comparison(QueryComparison)
        case between(QueryBetween)
        case and(QueryPredicate, QueryPredicate)
        case or(QueryPredicate, QueryPredicate)
        case not(QueryPredicate)
    }

    public var kind: Kind
    public var range: SourceRange

    public init(_ kind: Kind, range: SourceRange = .none) {
        self.kind = kind
        self.range = range
    }
}
