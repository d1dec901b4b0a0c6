// PredicateTranslation: Foundation's `#Predicate` as a query AST, the third front end.
//
// `#Predicate<Dog> { $0.age > 3 && $0.name.starts(with: "R") }` is a tree of generic `PredicateExpressions`
// values. Each expression type that has a meaning in a query conforms to `PredicateQueryTranslatable` below and
// translates itself, asking the translator for its children, so the walk needs no knowledge of the generic
// parameters. Key paths are named with KeyPathNames (the property-probe the typed builder uses). An expression of
// any other type — arithmetic, conditionals, string methods without a query equivalent, closures over captured
// state — is refused with an error that names its type, before anything runs.

import Foundation
import QueryVM

/// What a part of a `#Predicate` stands for in a query.
enum TranslatedExpression {
    case predicate(QueryPredicate)
    case keyPath(QueryKeyPath)
    case constant(QueryValue)
}

/// An expression type of `#Predicate` that has a query equivalent.
protocol PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression
}

struct PredicateTranslator {
    /// The `#Predicate`'s input variable, whose key paths start at the object under test.
    let inputVariable: PredicateExpressions.VariableID
    /// Variables of `contains(where:)` / `allSatisfy` closures, named for SUBQUERY (`$v0`, `$v1`, …).
    private var variables: [PredicateExpressions.VariableID: String] = [:]

    init(inputVariable: PredicateExpressions.VariableID) {
        self.inputVariable = inputVariable
    }

    static func translate<Element>(_ predicate: Predicate<Element>) throws -> QueryPredicate {
        var translator = PredicateTranslator(inputVariable: predicate.variable.key)
        return try translator.predicate(predicate.expression)
    }

    static func unsupported(_ expression: Any, _ reason: String = "") -> ColumnarError {
        let name = String(describing: type(of: expression)).split(separator: "<").first.map(String.init) ?? "?"
        return ColumnarError(code: .misuse, message: "#Predicate: \(name) has no translation to a Columnar query"
                             + (reason.isEmpty ? "" : " (\(reason))") + " — expression type \(type(of: expression))")
    }

    mutating func translate(_ expression: Any) throws -> TranslatedExpression {
        guard let translatable = expression as? PredicateQueryTranslatable else {
            throw Self.unsupported(expression)
        }
        return try translatable.translate(&self)
    }

    mutating func predicate(_ expression: Any) throws -> QueryPredicate {
        switch try translate(expression) {
        case .predicate(let predicate): return predicate
        case .keyPath(let path):
            // A Bool property used as a condition.
            return QueryPredicate(.comparison(QueryComparison(lhs: QueryExpression(.keyPath(path)), op: .equal,
                                                              rhs: QueryExpression(.constant(.bool(true), argumentIndex: nil)))))
        case .constant(.bool(let value)): return QueryPredicate(.constant(value))
        case .constant: throw Self.unsupported(expression, "a constant that is not a Bool")
        }
    }

    mutating func operand(_ expression: Any) throws -> QueryExpression {
        switch try translate(expression) {
        case .keyPath(let path): return QueryExpression(.keyPath(path))
        case .constant(let value): return QueryExpression(.constant(value, argumentIndex: nil))
        case .predicate: throw Self.unsupported(expression, "a condition where a value is expected")
        }
    }

    mutating func keyPath(_ expression: Any) throws -> QueryKeyPath {
        guard case .keyPath(let path) = try translate(expression) else {
            throw Self.unsupported(expression, "a key path of the object is expected here")
        }
        return path
    }

    mutating func comparison(_ lhs: Any, _ op: ComparisonOperator, _ rhs: Any,
                             options: ComparisonOptions = []) throws -> TranslatedExpression {
        .predicate(QueryPredicate(.comparison(QueryComparison(lhs: try operand(lhs), op: op, options: options,
                                                              rhs: try operand(rhs)))))
    }

    /// The root of a key path expression: the input object or a closure's variable.
    func root(of variable: PredicateExpressions.VariableID) throws -> QueryKeyPath.Root {
        if variable == inputVariable { return .object }
        guard let name = variables[variable] else {
            throw ColumnarError(code: .misuse, message: "#Predicate: a variable that is not the predicate's input "
                                + "or a contains(where:)/allSatisfy element")
        }
        return .variable(name)
    }

    /// A SUBQUERY over `collection` whose variable is `variable`, counting the elements satisfying `body`.
    mutating func subqueryCount(_ collection: Any, _ variable: PredicateExpressions.VariableID, _ body: Any,
                                negated: Bool) throws -> QueryExpression {
        let path = try keyPath(collection)
        let name = "v\(variables.count)"
        variables[variable] = name
        defer { variables[variable] = nil }
        var inner = try predicate(body)
        if negated { inner = QueryPredicate(.not(inner)) }
        return QueryExpression(.subquery(QuerySubquery(collection: path, variable: name, predicate: inner,
                                                       steps: [.collectionOperator(.count)])))
    }
}

// MARK: Leaves

extension PredicateExpressions.Variable: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        .keyPath(QueryKeyPath(root: try translator.root(of: key), steps: []))
    }
}

extension PredicateExpressions.KeyPath: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        var path = try translator.keyPath(root)
        let erased: AnyKeyPath = keyPath
        let rootType = type(of: erased).rootType
        if let collection = rootType as? CountableQueryCollection.Type, collection._countKeyPath == erased {
            path.steps.append(.collectionOperator(.count))
            return .keyPath(path)
        }
        guard let objectType = rootType as? ObjectBase.Type,
              let names = KeyPathNames.propertyNames(for: erased, rootType: objectType), !names.isEmpty else {
            throw PredicateTranslator.unsupported(self, "\(erased) is not a @Persisted property")
        }
        path.steps += names.map { .property($0) }
        return .keyPath(path)
    }
}

extension PredicateExpressions.Value: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        .constant(QueryConstant.value(of: value))
    }
}

extension PredicateExpressions.NilLiteral: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression { .constant(.null) }
}

extension PredicateExpressions.ForcedUnwrap: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        try translator.translate(inner)
    }
}

extension PredicateExpressions.OptionalFlatMap: PredicateQueryTranslatable {
    /// `$0.owner?.name`: the path to the optional, continued by the transform's path from the unwrapped value.
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        let head = try translator.keyPath(wrapped)
        var tail = PredicateTranslator(inputVariable: variable.key)
        let rest = try tail.keyPath(transform)
        guard rest.root == .object else { throw PredicateTranslator.unsupported(self) }
        return .keyPath(QueryKeyPath(root: head.root, steps: head.steps + rest.steps))
    }
}

// MARK: Logic and comparisons

extension PredicateExpressions.Conjunction: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        .predicate(QueryPredicate(.and(try translator.predicate(lhs), try translator.predicate(rhs))))
    }
}

extension PredicateExpressions.Disjunction: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        .predicate(QueryPredicate(.or(try translator.predicate(lhs), try translator.predicate(rhs))))
    }
}

extension PredicateExpressions.Negation: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        .predicate(QueryPredicate(.not(try translator.predicate(wrapped))))
    }
}

extension PredicateExpressions.Equal: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        try translator.comparison(lhs, .equal, rhs)
    }
}

extension PredicateExpressions.NotEqual: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        try translator.comparison(lhs, .notEqual, rhs)
    }
}

extension PredicateExpressions.Comparison: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        let queryOp: ComparisonOperator
        switch op {
        case .lessThan: queryOp = .lessThan
        case .lessThanOrEqual: queryOp = .lessThanOrEqual
        case .greaterThan: queryOp = .greaterThan
        case .greaterThanOrEqual: queryOp = .greaterThanOrEqual
        @unknown default: throw PredicateTranslator.unsupported(self, "comparison operator \(op)")
        }
        return try translator.comparison(lhs, queryOp, rhs)
    }
}

// MARK: Strings and sequences

extension PredicateExpressions.SequenceStartsWith: PredicateQueryTranslatable {
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        try translator.comparison(base, .beginsWith, prefix)
    }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateQueryTranslatable {
    /// `$0.name.contains("ab")`: substring.
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        try translator.comparison(base, .contains, other)
    }
}

extension PredicateExpressions.SequenceContains: PredicateQueryTranslatable {
    /// `[1, 2].contains($0.age)` is `age IN {1, 2}`; `$0.tags.contains("x")` is `"x" IN tags`.
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        try translator.comparison(element, .in, sequence)
    }
}

extension PredicateExpressions.SequenceContainsWhere: PredicateQueryTranslatable {
    /// `$0.toys.contains { $0.price > 5 }`: at least one element satisfies the closure.
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        let count = try translator.subqueryCount(sequence, variable.key, test, negated: false)
        return .predicate(QueryPredicate(.comparison(QueryComparison(
            lhs: count, op: .greaterThan, rhs: QueryExpression(.constant(.int(0), argumentIndex: nil))))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: PredicateQueryTranslatable {
    /// `$0.toys.allSatisfy { $0.price > 5 }`: no element fails the closure (true for an empty collection).
    func translate(_ translator: inout PredicateTranslator) throws -> TranslatedExpression {
        let failing = try translator.subqueryCount(sequence, variable.key, test, negated: true)
        return .predicate(QueryPredicate(.comparison(QueryComparison(
            lhs: failing, op: .equal, rhs: QueryExpression(.constant(.int(0), argumentIndex: nil))))))
    }
}

// MARK: Collection counts

/// Collection types whose `count` a `#Predicate` key path may read (`$0.toys.count` is `toys.@count`).
protocol CountableQueryCollection {
    static var _countKeyPath: AnyKeyPath { get }
}

extension List: CountableQueryCollection {
    static var _countKeyPath: AnyKeyPath { \List<Element>.count }
}

extension MutableSet: CountableQueryCollection {
    static var _countKeyPath: AnyKeyPath { \MutableSet<Element>.count }
}

extension Map: CountableQueryCollection {
    static var _countKeyPath: AnyKeyPath { \Map<Key, Value>.count }
}

extension LinkingObjects: CountableQueryCollection {
    static var _countKeyPath: AnyKeyPath { \LinkingObjects<Element>.count }
}
