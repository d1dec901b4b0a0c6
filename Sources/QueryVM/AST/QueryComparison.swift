// QueryComparison and QueryBetween: the leaves of a predicate that compare operands.

/// `[quantifier] lhs operator[options] rhs`, e.g. `ANY toys.brand BEGINSWITH[c] 'lego'`.
public struct QueryComparison: Hashable, Sendable {
    public var quantifier: Quantifier?
    public var lhs: QueryExpression
    public var op: ComparisonOperator
    public var options: ComparisonOptions
    public var rhs: QueryExpression

    public init(
        quantifier: Quantifier? = nil, lhs: QueryExpression, op: ComparisonOperator,
        options: ComparisonOptions = [], rhs: QueryExpression
    ) {
        self.quantifier = quantifier
        self.lhs = lhs
        self.op = op
        self.options = options
        self.rhs = rhs
    }
}

/// `[quantifier] value BETWEEN {lower, upper}`: `lower <= value AND value <= upper`.
public struct QueryBetween: Hashable, Sendable {
    public var quantifier: Quantifier?
    public var value: QueryExpression
    public var lower: QueryExpression
    public var upper: QueryExpression

    public init(quantifier: Quantifier? = nil, value: QueryExpression, lower: QueryExpression, upper: QueryExpression) {
        self.quantifier = quantifier
        self.value = value
        self.lower = lower
        self.upper = upper
    }
}
