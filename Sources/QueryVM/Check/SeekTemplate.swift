// SeekTemplate: a repeated `filter("indexedProperty == %@", v)` made again for a new value without parsing,
// checking or building a predicate.
//
// The parse cache (ParsedPredicateCache) and the reused check (CheckedTemplate.swift) already skip the lexer, the
// parser and the key path's resolution, but each call still hashes the format, substitutes the value into a parsed
// tree, walks it beside the checked template and copies both: about four fifths of a one-object lookup's cost
// outside the engine. A predicate that is one equality of an indexed property with the format's only argument is
// answered by one index seek, so all a new call needs is the argument, converted to the column's type. A seek
// template keeps what the first call's full check decided (the column, the placeholder, the argument's kind) and
// makes the rest again only when something asks for the checked predicate itself (a scan, `explain`, a
// notification).
//
// A new argument goes through the same steps as in the full path: QueryArgument's value, the placeholder's
// conversion, the cache's kind (a value of another kind is parsed and checked afresh, as a new parse-cache key would
// be), the checker's conversion to the column's type (`Checker.plainConstant`, which the full check calls too), and
// the compiler's test that the index answers it exactly. A value that fails any of them is left to the full path,
// which gives the answer or the positioned error it always gives.

import CColumnar

/// The checked form of `property == %@` on an indexed property, ready to take another argument value.
public final class SeekTemplate: @unchecked Sendable {
    /// The indexed column the seek searches.
    public let column: columnar_col_id
    private let columnType: columnar_type
    private let specifier: FormatSpecifier
    private let kind: UInt8
    /// The first call's checked comparison, whose constant each materialized predicate replaces.
    private let checked: CheckedComparison

    private init(column: columnar_col_id, columnType: columnar_type, specifier: FormatSpecifier, kind: UInt8,
                 checked: CheckedComparison) {
        self.column = column
        self.columnType = columnType
        self.specifier = specifier
        self.kind = kind
        self.checked = checked
    }

    /// A template for later calls of `format`, made from a call's arguments and its checked predicate (checked
    /// against `table` of `model`), or nil when that predicate is not one exact index seek on the format's only
    /// argument.
    public static func make(format: String, arguments: [Any], checked predicate: CheckedPredicate,
                            table: columnar_table_id, model: QueryModel) -> SeekTemplate? {
        // The cheap tests first: every cacheable one-argument filter of a class comes through here once.
        guard arguments.count == 1, case .comparison(let comparison) = predicate, comparison.op == .equal,
              case .path(let path) = comparison.lhs, case .comparison(let written) = comparison.source.kind,
              Self.comparesAKeyPathWithTheArgument(written),
              case let type = path.type, let seek = QueryCompiler.exactIndexSeek(predicate, table: table, model: model),
              let specifiers = ParsedPredicateCache.shared.specifiers(of: format), specifiers.count == 1,
              let value = argumentValue(arguments[0], specifier: specifiers[0]),
              // The shortcut must convert as the full check did, or it is not used at all.
              Checker.plainConstant(value, toColumnOf: type) == seek.constant
        else { return nil }
        return SeekTemplate(column: seek.column, columnType: type, specifier: specifiers[0], kind: value.kindTag,
                            checked: comparison)
    }

    /// The argument as the query takes it and the constant the seek looks up, or nil when the arguments do not fit
    /// this template (the caller then takes the full path).
    public func seek(_ arguments: [Any]) -> (value: QueryValue, constant: ScalarValue)? {
        guard arguments.count == 1, let value = Self.argumentValue(arguments[0], specifier: specifier),
              value.kindTag == kind, let constant = Checker.plainConstant(value, toColumnOf: columnType),
              QueryCompiler.isExactSeekConstant(constant, type: columnType)
        else { return nil }
        return (value, constant)
    }

    /// The checked predicate for an argument value and its constant (from `seek(_:)`): what the full check gives
    /// for the same call.
    public func predicate(value: QueryValue, constant: ScalarValue) -> CheckedPredicate {
        var comparison = checked
        comparison.rhs = .constant(constant)
        comparison.source = comparison.source.substituting([value])
        return .comparison(comparison)
    }

    /// A placeholder's argument as a query value, as the parse cache takes it.
    private static func argumentValue(_ argument: Any, specifier: FormatSpecifier) -> QueryValue? {
        let value = QueryArgument.value(of: argument)
        guard let converted = specifier == .object ? value : specifier.convert(value, argument: argument) else {
            return nil
        }
        if case .list = converted { return nil }
        return converted
    }

    /// Whether a written comparison puts a key path against the format's argument, on either side.
    private static func comparesAKeyPathWithTheArgument(_ comparison: QueryComparison) -> Bool {
        switch (comparison.lhs.kind, comparison.rhs.kind) {
        case (.keyPath, .constant(_, 0?)), (.constant(_, 0?), .keyPath): return true
        default: return false
        }
    }
}
