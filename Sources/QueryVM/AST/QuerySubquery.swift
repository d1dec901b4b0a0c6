// QuerySubquery: SUBQUERY(collection, $variable, predicate), the elements of a to-many collection for which a
// predicate holds.

/// The elements of `collection` for which `predicate` holds, with `$variable` bound to each element in turn;
/// `steps` are what follows the closing parenthesis (in practice `.@count`).
public struct QuerySubquery: Hashable, Sendable {
    public var collection: QueryKeyPath
    /// The variable's name without its `$`.
    public var variable: String
    public var predicate: QueryPredicate
    public var steps: [QueryKeyPath.Step]

    public init(collection: QueryKeyPath, variable: String, predicate: QueryPredicate, steps: [QueryKeyPath.Step]) {
        self.collection = collection
        self.variable = variable
        self.predicate = predicate
        self.steps = steps
    }
}
