// QueryExpression: the operands of a predicate.
//
// An operand is a key path, a constant (written in the query or substituted for a `%@` placeholder, which is
// resolved while parsing so that later steps never see placeholders), a `{…}` list, or a SUBQUERY.

/// An operand of a comparison, with the range of query text it came from.
public struct QueryExpression: Hashable, Sendable {
    public indirect enum Kind: Hashable, Sendable {
        /// A path through the object's properties.
        case keyPath(QueryKeyPath)
        /// A constant. `argumentIndex` is the 0-based index of the `%@` argument it was substituted from, or nil
        /// for a literal; error messages use it to name the argument.
        case constant(QueryValue, argumentIndex: Int?)
        /// A `{a, b, …}` list of operands (the right side of `IN` and `BETWEEN`).
        case list([QueryExpression])
        /// `SUBQUERY(collection, $variable, predicate)`, usually followed by `.@count`.
        case subquery(QuerySubquery)
    }

    public var kind: Kind
    public var range: SourceRange

    public init(_ kind: Kind, range: SourceRange = .none) {
        self.kind = kind
        self.range = range
    }
}
