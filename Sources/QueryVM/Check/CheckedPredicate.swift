// CheckedPredicate: the query AST after type checking, resolved against a model.
//
// Property names have become column ids and tables, every step of a key path knows whether it leads to one value
// or many, constants have been converted to the type they are compared with, and the operator is known to apply
// to the operands' types. The compiler turns this into bytecode; the row evaluator runs it directly.

import CColumnar

/// A condition on an object of `table`.
public indirect enum CheckedPredicate: Sendable {
    case constant(Bool)
    case and([CheckedPredicate])
    case or([CheckedPredicate])
    case not(CheckedPredicate)
    case comparison(CheckedComparison)
}

/// `[quantifier] lhs op[options] rhs` with resolved operands. `rhsIsSet` marks a right side whose values are
/// alternatives (IN, or a to-many path): the comparison holds for a left value when it holds against any of them.
public struct CheckedComparison: Sendable {
    public var quantifier: Quantifier
    public var lhs: CheckedOperand
    public var op: ComparisonOperator
    public var options: ComparisonOptions
    public var rhs: CheckedOperand
    /// For BETWEEN: the upper bound (`op` is then `>=` against the lower bound in `rhs`, and the comparison holds
    /// for a value that is also `<=` this).
    public var upperBound: ScalarValue?
    /// The comparison as the query wrote it. Its text is made only when `explain` or a message asks for it: a
    /// repeated `filter(format, value)` would otherwise spend more on describing each comparison than on checking it.
    public var source: QueryPredicate
    /// The text of the comparison, for `explain` and messages.
    public var text: String { source.description }
}

/// An operand: a constant, a set of constants, a key path, or a value computed from a collection.
public indirect enum CheckedOperand: Sendable {
    case constant(ScalarValue)
    case constants([ScalarValue])
    case path(CheckedPath)
    /// `@count` of a to-many path (elements, entries or linked objects).
    case count(CheckedPath)
    /// `@min`, `@max`, `@sum`, `@avg` over the values a to-many path reaches.
    case aggregate(CollectionOperator, CheckedPath)
    /// `SUBQUERY(path, $var, predicate).@count`: how many objects the path reaches satisfy the predicate.
    case subqueryCount(CheckedPath, variable: Int, predicate: CheckedPredicate)
    /// `@type` of the mixed values a path reaches: each value's columnar_type number, 0 for null
    /// (MixedTypeNames.swift).
    case valueType(CheckedPath)

    /// Whether the operand stands for several values per object.
    var isMany: Bool {
        switch self {
        case .constants: return true
        case .path(let path), .valueType(let path): return path.isMany
        default: return false
        }
    }
}

/// A resolved key path: from the object under test (or a SUBQUERY variable), through properties.
public struct CheckedPath: Sendable {
    public enum Root: Sendable, Equatable {
        case object
        /// The SUBQUERY variable with this depth (0 = outermost).
        case variable(Int)
    }

    public enum Step: Sendable {
        /// A single-valued column (a link when the value type is LINK: then the path continues in `target`).
        case column(columnar_col_id, type: columnar_type, target: columnar_table_id?)
        /// Every element of a list or set column.
        case elements(columnar_col_id, type: columnar_type, target: columnar_table_id?)
        /// Every value of a map column.
        case mapValues(columnar_col_id, type: columnar_type, target: columnar_table_id?)
        /// Every key of a map column.
        case mapKeys(columnar_col_id)
        /// The value of one key of a map column (null when absent).
        case mapValue(columnar_col_id, key: [UInt8], type: columnar_type, target: columnar_table_id?)
        /// The objects of `originTable` linking here through `originColumn`.
        case backlinks(originTable: columnar_table_id, originColumn: columnar_col_id)
        /// The element of the collection of values a program runs over (`Program.Source.elements`), at the
        /// position the row's key gives: the property `self` of `QueryModel.elementTable`.
        case element(type: columnar_type)
        /// A step into the list or dictionary nested in the mixed values reached so far.
        case nested(NestedStep)
    }

    /// A step into a collection nested in a mixed value (columnar.h, "Nested collections").
    public enum NestedStep: Sendable, Hashable {
        /// The value of a key of a dictionary (null when absent, or when the value is not a dictionary).
        case key([UInt8])
        /// The element at a position of a list (null when absent, or when the value is not a list).
        case index(Int)
        /// The last element of a list (null when empty, or when the value is not a list).
        case last
        /// Every element of a list, or every value of a dictionary (none for other values).
        case all
    }

    public var root: Root
    /// The table the path starts in.
    public var table: columnar_table_id
    public var steps: [Step]
    /// The type of the values the path reaches.
    public var type: columnar_type
    /// For paths ending at links: the table linked to.
    public var target: columnar_table_id?
    /// Whether the path reaches any number of values (it passes a to-many step).
    public var isMany: Bool
    /// The path as the query wrote it; its text is made when a message or `explain` asks for it.
    public var source: QueryKeyPath
    /// The path as the query wrote it, for messages and `explain`.
    public var text: String { source.description }

    /// The column and type when the path is one single-valued property of the object under test (what the
    /// kernels, the sort's cluster gather and the whole-table aggregates read straight from the column).
    public var ownColumn: (column: columnar_col_id, type: columnar_type)? {
        guard root == .object, steps.count == 1, case .column(let column, let type, _) = steps[0] else { return nil }
        return (column, type)
    }
}
