// QueryNode: what a typed query (`Query<T>`) holds while its closure runs, and how the finished tree becomes the
// query AST (QueryVM's `QueryPredicate`).
//
// The builder cannot produce the AST directly, because some decisions need the whole expression. A Bool property
// used as a condition (`where { $0.isActive }`) is only a key path until it turns out to stand where a condition
// is expected; then it becomes `isActive == TRUE` (and `!$0.isActive` becomes `isActive == FALSE`, as RealmSwift
// does, so that a null optional Bool matches neither). A subquery (`($0.dogs.age > 3 && $0.dogs.name == "x")
// .count > 1`) is written with ordinary key paths that only become paths from the subquery's variable once the
// `.count` says they are one. So the builder keeps a small tree whose key paths remember which steps are to-many,
// and `QueryLowering` turns it into the AST at the end.
//
// Quantifiers: a comparison through a to-many step compares each element, and the AST says so with `ANY`, as the
// predicate strings RealmSwift builds do (`$0.dogs.age > 3` is `ANY dogs.age > 3`). Aggregates, `@count` and map
// subscripts turn a to-many path back into one value per object and drop the `ANY`.

import QueryVM

/// A key path under construction, with what the builder knows of its to-many steps.
struct QueryPath {
    var root: QueryKeyPath.Root = .object
    var steps: [QueryKeyPath.Step] = []
    /// Indices in `steps` of the properties that hold many values (lists, sets, maps, linking objects).
    var collectionSteps: [Int] = []
    /// Whether a comparison through this path compares each element (an `ANY` comparison): true after a to-many
    /// step, false again after an aggregate, `@count` or a map subscript.
    var requiresAny = false

    /// The path of a primitive collection's elements (`List<Int>.where { $0 > 3 }`), which queries call `self`.
    static var primitiveElement: QueryPath {
        QueryPath(steps: [.property("self")], collectionSteps: [0], requiresAny: false)
    }

    func appending(property name: String, isCollection: Bool) -> QueryPath {
        var path = self
        if isCollection {
            path.collectionSteps.append(path.steps.count)
            path.requiresAny = true
        }
        path.steps.append(.property(name))
        return path
    }

    /// The path with a collection operator after its last step (`tags.@count`, `scores.@avg`, `map.@allKeys`).
    func appending(_ op: CollectionOperator, keepingAny: Bool) -> QueryPath {
        var path = self
        path.steps.append(.collectionOperator(op))
        if !keepingAny { path.requiresAny = false }
        return path
    }

    /// The path with an aggregate over the elements of its first to-many step: `dogs.age` with `@avg` is
    /// `dogs.@avg.age` (the average age of the dogs). A path without a to-many step gets it at the end, which
    /// the type checker then refuses with the property named.
    func inserting(aggregate op: CollectionOperator) -> QueryPath {
        guard let first = collectionSteps.first else { return appending(op, keepingAny: false) }
        // Operators right after the collection (`map.@allValues`) belong to it.
        var position = first + 1
        while position < steps.count, case .collectionOperator = steps[position] { position += 1 }
        var path = self
        path.steps.insert(.collectionOperator(op), at: position)
        path.collectionSteps = collectionSteps.map { $0 >= position ? $0 + 1 : $0 }
        path.requiresAny = false
        return path
    }

    /// The path with a map subscript (`prices["eur"]`): one value per object.
    func appending(mapKey key: String) -> QueryPath {
        var path = self
        path.steps.append(.mapSubscript(key))
        path.requiresAny = false
        return path
    }

    /// The path with a subscript into the collection nested in a mixed value (`value[0]`, `value["k"]`,
    /// `value[*]`); `[*]` reaches many values, compared with `ANY`.
    func appending(nested step: QueryKeyPath.Step) -> QueryPath {
        var path = self
        if case .allSubscript = step {
            path.collectionSteps.append(path.steps.count)
            path.requiresAny = true
        }
        path.steps.append(step)
        return path
    }

    /// The path without its `ANY` (for `@count`, `IN` on the collection itself, aggregates on primitives).
    var erasingAny: QueryPath {
        var path = self
        path.requiresAny = false
        return path
    }

    var keyPath: QueryKeyPath { QueryKeyPath(root: root, steps: steps) }
}

/// The tree a typed query builds: the analogue of the AST before Bool key paths and subqueries are resolved.
indirect enum QueryNode {
    case keyPath(QueryPath)
    case constant(QueryValue)
    case comparison(ComparisonOperator, QueryNode, QueryNode, ComparisonOptions)
    case between(QueryNode, lower: QueryNode, upper: QueryNode)
    case and(QueryNode, QueryNode)
    case or(QueryNode, QueryNode)
    case not(QueryNode)
    /// The number of elements of one collection for which the condition holds (`Query<Bool>.count`).
    case subqueryCount(QueryNode)

    /// The key path this node is; a programmer error for anything else (`($0.age > 3).name` cannot be written,
    /// but a map subscript's result or a subquery count could otherwise be extended).
    func path(for operation: String) -> QueryPath {
        guard case .keyPath(let path) = self else {
            fatalError("Columnar: cannot apply \(operation) to \(QueryLowering.describe(self)) in a typed query")
        }
        return path
    }
}

/// Turns a finished `QueryNode` into the query AST.
struct QueryLowering {
    /// Subqueries are numbered in the order they appear, from 1, naming their variables `$col1`, `$col2`, … as
    /// RealmSwift's predicate strings do.
    private var subqueryCount = 0

    static func predicate(_ node: QueryNode) -> QueryPredicate {
        var lowering = QueryLowering()
        return lowering.predicate(node)
    }

    /// A readable form of a node for error messages.
    static func describe(_ node: QueryNode) -> String {
        switch node {
        case .keyPath(let path): return path.keyPath.description
        case .constant(let value): return value.description
        default:
            var lowering = QueryLowering()
            if let expression = try? lowering.tryExpression(node) { return expression.description }
            return lowering.predicate(node).description
        }
    }

    // MARK: Conditions

    private mutating func predicate(_ node: QueryNode) -> QueryPredicate {
        switch node {
        case .keyPath(let path):
            return boolComparison(path, value: true)
        case .not(.keyPath(let path)):
            return boolComparison(path, value: false)
        case .not(let operand):
            return QueryPredicate(.not(predicate(operand)))
        case .and(let left, let right):
            return QueryPredicate(.and(predicate(left), predicate(right)))
        case .or(let left, let right):
            return QueryPredicate(.or(predicate(left), predicate(right)))
        case .comparison(let op, let lhs, let rhs, let options):
            return comparison(op, lhs, rhs, options)
        case .between(let value, let lower, let upper):
            let quantifier: Quantifier? = Self.requiresAny(value) ? .any : nil
            return QueryPredicate(.between(QueryBetween(quantifier: quantifier, value: expression(value),
                                                        lower: expression(lower), upper: expression(upper))))
        case .constant, .subqueryCount:
            fatalError("Columnar: \(Self.describe(node)) is not a condition; compare it with a value")
        }
    }

    /// A Bool key path standing as a condition: `flag == TRUE` (or FALSE under `!`), `ANY` through a to-many step.
    private func boolComparison(_ path: QueryPath, value: Bool) -> QueryPredicate {
        let comparison = QueryComparison(
            quantifier: path.requiresAny ? .any : nil, lhs: QueryExpression(.keyPath(path.keyPath)), op: .equal,
            rhs: QueryExpression(.constant(.bool(value), argumentIndex: nil)))
        return QueryPredicate(.comparison(comparison))
    }

    private mutating func comparison(_ op: ComparisonOperator, _ lhs: QueryNode, _ rhs: QueryNode,
                                     _ options: ComparisonOptions) -> QueryPredicate {
        let lhsAny = Self.requiresAny(lhs)
        let rhsAny = Self.requiresAny(rhs)
        if lhsAny && rhsAny {
            fatalError("Columnar: comparing two collection columns is not permitted (\(Self.describe(lhs)) and "
                       + "\(Self.describe(rhs))); use an aggregate such as .min, .max or .count on one side")
        }
        // The AST puts the quantifier in front of the comparison, so a to-many path on the right moves to the left
        // when the operator can be mirrored (`age < ANY dogs.age` is `ANY dogs.age > age`). Otherwise the
        // comparison stays unquantified, which the AST defines as ANY.
        if rhsAny, let mirrored = Self.mirrored(op) {
            return comparison(mirrored, rhs, lhs, options)
        }
        let quantifier: Quantifier? = lhsAny ? .any : nil
        let comparison = QueryComparison(quantifier: quantifier, lhs: expression(lhs), op: op, options: options,
                                         rhs: expression(rhs))
        return QueryPredicate(.comparison(comparison))
    }

    private static func mirrored(_ op: ComparisonOperator) -> ComparisonOperator? {
        switch op {
        case .equal, .notEqual: return op
        case .lessThan: return .greaterThan
        case .lessThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .lessThan
        case .greaterThanOrEqual: return .lessThanOrEqual
        case .beginsWith, .endsWith, .contains, .like, .in: return nil
        }
    }

    private static func requiresAny(_ node: QueryNode) -> Bool {
        if case .keyPath(let path) = node { return path.requiresAny }
        return false
    }

    // MARK: Operands

    private struct NotAnExpression: Error {}

    private mutating func expression(_ node: QueryNode) -> QueryExpression {
        do {
            return try tryExpression(node)
        } catch {
            fatalError("Columnar: the condition \(predicate(node)) cannot be compared with a value in a typed "
                       + "query; combine conditions with &&, || and !")
        }
    }

    fileprivate mutating func tryExpression(_ node: QueryNode) throws -> QueryExpression {
        switch node {
        case .keyPath(let path):
            return QueryExpression(.keyPath(path.keyPath))
        case .constant(let value):
            return QueryExpression(.constant(value, argumentIndex: nil))
        case .subqueryCount(let condition):
            subqueryCount += 1
            let variable = "col\(subqueryCount)"
            var rewriter = SubqueryRewriter(variable: variable)
            let rewritten = rewriter.rewrite(condition)
            guard let collection = rewriter.collection else {
                fatalError("Columnar: a subquery (.count on a condition) needs a key path through a collection, "
                           + "such as ($0.dogs.age > 3).count")
            }
            let subquery = QuerySubquery(collection: collection, variable: variable, predicate: predicate(rewritten),
                                         steps: [.collectionOperator(.count)])
            return QueryExpression(.subquery(subquery))
        case .comparison, .between, .and, .or, .not:
            throw NotAnExpression()
        }
    }
}

/// Rewrites the key paths of a subquery's condition to start from its variable: `dogs.age` becomes `$col1.age`,
/// with `dogs` as the subquery's collection.
private struct SubqueryRewriter {
    let variable: String
    private(set) var collection: QueryKeyPath?

    init(variable: String) {
        self.variable = variable
    }

    mutating func rewrite(_ node: QueryNode) -> QueryNode {
        switch node {
        case .keyPath(let path):
            guard path.root == .object, let first = path.collectionSteps.first else { return node }
            let prefix = QueryKeyPath(steps: Array(path.steps[...first]))
            if let collection, collection != prefix {
                fatalError("Columnar: a subquery can look into one collection only, but this one uses both "
                           + "\(collection) and \(prefix)")
            }
            collection = prefix
            var rewritten = QueryPath(root: .variable(variable), steps: Array(path.steps[(first + 1)...]))
            rewritten.collectionSteps = path.collectionSteps.dropFirst().map { $0 - (first + 1) }
            // Each element is one value unless the rest of the path goes through another collection.
            rewritten.requiresAny = path.requiresAny && !rewritten.collectionSteps.isEmpty
            return .keyPath(rewritten)
        case .constant:
            return node
        case .comparison(let op, let lhs, let rhs, let options):
            return .comparison(op, rewrite(lhs), rewrite(rhs), options)
        case .between(let value, let lower, let upper):
            return .between(rewrite(value), lower: rewrite(lower), upper: rewrite(upper))
        case .and(let left, let right):
            return .and(rewrite(left), rewrite(right))
        case .or(let left, let right):
            return .or(rewrite(left), rewrite(right))
        case .not(let operand):
            return .not(rewrite(operand))
        case .subqueryCount:
            // A nested subquery keeps its own paths; it is rewritten when it is lowered.
            return node
        }
    }
}
