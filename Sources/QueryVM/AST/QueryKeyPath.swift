// QueryKeyPath: a path from the object being tested (or from a SUBQUERY variable) through its properties.
//
// Whether a step is a to-one link, a to-many link, a list, a map or a backlink is not known here; the type checker
// resolves each property name against the model. The path only records names, collection operators and
// subscripts (of maps, and of the collections nested in mixed values), in order.

/// A key path such as `owner.name`, `toys.@sum.price`, `tags.@count`, `prices['eur']` or `$t.price`.
public struct QueryKeyPath: Hashable, Sendable {
    /// Where the path starts.
    public enum Root: Hashable, Sendable {
        /// The object being tested.
        case object
        /// A SUBQUERY's iteration variable, named without its `$`.
        case variable(String)
    }

    /// One step of the path.
    public enum Step: Hashable, Sendable {
        /// A property, by name.
        case property(String)
        /// A collection operator applied to what the path names so far.
        case collectionOperator(CollectionOperator)
        /// The value for a key of a map, or of a dictionary nested in a mixed value: `map['key']`.
        case mapSubscript(String)
        /// The element at a position of a list nested in a mixed value: `value[0]` (`[FIRST]` is `[0]`).
        case indexSubscript(Int)
        /// The last element of a list nested in a mixed value: `value[LAST]`.
        case lastSubscript
        /// Every element of a list, or every value of a dictionary, nested in a mixed value: `value[*]`.
        case allSubscript
    }

    public var root: Root
    public var steps: [Step]
    public var range: SourceRange

    public init(root: Root = .object, steps: [Step], range: SourceRange = .none) {
        self.root = root
        self.steps = steps
        self.range = range
    }
}
