// CheckedTemplate: checking a predicate again by reusing the check of one parsed from the same template.
//
// `filter("name == %@", v)` in a loop parses from a cached template (ParsedPredicateCache), but type checking would
// still resolve every key path against the model and decide every operator again, although only the values
// differ. When the caller kept the checked form of an earlier predicate of the same template (same format string,
// same argument kinds, same model), the checker walks the two side by side and only converts the new constants to
// the types the template found for their key paths.
//
// Reuse is limited to what a value cannot change. The walk requires the same tree of AND, OR, NOT and constant
// predicates, and comparisons of one key path with one constant whose checked form compares a path with a constant
// (not IN, BETWEEN, @type, collection aggregates or SUBQUERY, whose checks look at the values more closely). The
// key paths, operators, options and quantifiers must be equal, and so must every constant that was written into
// the format rather than passed as an argument. A new value is converted exactly as the full check converts it;
// anything that does not fit, including a value the conversion refuses, falls back to the full check, which then
// reports the positioned error it always reports.

import CColumnar

extension TypeChecker {
    /// Checks `predicate` against the model, reusing `template`, the checked form of a predicate parsed from the
    /// same template (`PredicateParser.parseTemplated`) against the same table and model, where it can; otherwise
    /// checks it in full. The answer is the one `check(_:table:model:query:)` gives.
    public static func check(_ predicate: QueryPredicate, reusing template: CheckedPredicate,
                             table: columnar_table_id, model: QueryModel, query: String? = nil) throws
        -> CheckedPredicate
    {
        if let root = model.table(table),
           let reused = Checker(model: model, root: root).reuse(template, for: predicate) {
            return reused
        }
        return try check(predicate, table: table, model: model, query: query)
    }
}

extension Checker {
    /// `node` checked by following `template`, or nil when the template does not fit it.
    func reuse(_ template: CheckedPredicate, for node: QueryPredicate) -> CheckedPredicate? {
        switch (template, node.kind) {
        case (.constant(let checked), .constant(let written)):
            return checked == written ? template : nil
        case (.and(let parts), .and(let left, let right)) where parts.count == 2:
            guard let first = reuse(parts[0], for: left), let second = reuse(parts[1], for: right) else { return nil }
            return .and([first, second])
        case (.or(let parts), .or(let left, let right)) where parts.count == 2:
            guard let first = reuse(parts[0], for: left), let second = reuse(parts[1], for: right) else { return nil }
            return .or([first, second])
        case (.not(let operand), .not(let written)):
            return reuse(operand, for: written).map(CheckedPredicate.not)
        case (.comparison(let checked), .comparison(let written)):
            return reuse(checked, for: written).map(CheckedPredicate.comparison)
        default:
            return nil
        }
    }

    /// A comparison of a key path with a constant, checked by putting the new constant into the template's.
    private func reuse(_ template: CheckedComparison, for node: QueryComparison) -> CheckedComparison? {
        guard case .comparison(let earlier) = template.source.kind, node.op != .in, template.upperBound == nil,
              node.op == earlier.op, node.options == earlier.options, node.quantifier == earlier.quantifier,
              case .path(let path) = template.lhs, case .constant = template.rhs
        else { return nil }
        let constant: QueryExpression
        let earlierConstant: QueryExpression
        switch (node.lhs.kind, node.rhs.kind, earlier.lhs.kind, earlier.rhs.kind) {
        case (.keyPath(let written), .constant, .keyPath(let before), .constant) where written == before:
            constant = node.rhs
            earlierConstant = earlier.rhs
        case (.constant, .keyPath(let written), .constant, .keyPath(let before)) where written == before:
            constant = node.lhs
            earlierConstant = earlier.lhs
        default:
            return nil
        }
        guard case .constant(let value, let argument) = constant.kind,
              case .constant(let earlierValue, let earlierArgument) = earlierConstant.kind,
              argument == earlierArgument, !value.isListValue else { return nil }
        var reused = template
        reused.source = QueryPredicate(.comparison(node))
        if argument == nil {
            // Written into the format: the template's own value, already converted.
            guard value == earlierValue else { return nil }
            return reused
        }
        let operand = TypedOperand(operand: template.lhs, type: path.type, target: path.target,
                                   nullable: path.isMany, keyPath: path.source)
        guard let converted = try? convert(value, to: operand, at: constant.range),
              converted.isNull == earlierValue.isNullValue
        else { return nil }
        reused.rhs = .constant(converted)
        return reused
    }
}

extension QueryValue {
    fileprivate var isListValue: Bool { if case .list = self { return true } else { return false } }
    fileprivate var isNullValue: Bool { self == .null }
}
