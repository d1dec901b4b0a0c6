// ParsedPredicateCache: parsed predicates kept by format string and argument kinds, so that a query made again
// with other values (`filter("name == %@", name)` in a loop: what a prepared statement is to SQLite) skips the
// lexer and the parser and only puts the new values in.
//
// A parsed predicate is already a template: every constant that came from a placeholder records its argument's index.
// Putting other arguments in is sound when the parse could not have come out differently for them, which holds when (1)
// no placeholder shaped the structure — `%K` becomes a key path and `[%@]` a key or a position, so formats with either
// are not cached — and (2) no value shaped it: `BETWEEN %@` splits a two-element array into its bounds, so arguments
// that are arrays are not cached either, and the key holds each argument's kind (null, int, string, …), so a value of
// another kind is parsed afresh. An argument whose placeholder cannot take it is parsed afresh too, which throws the
// parser's positioned error.

import Foundation

final class ParsedPredicateCache: @unchecked Sendable {
    static let shared = ParsedPredicateCache()

    /// Entries kept; past that the cache starts over (a program uses a bounded set of query strings).
    private static let capacity = 512

    /// What the cache knows of one format string: the placeholder of each argument index (nil when the format
    /// cannot be cached, `%K` or `[%@]`, or does not lex: the parser then reports it), and its parsed templates
    /// by the kinds of their arguments. One entry per format, so a cached call hashes the string once.
    private struct FormatEntry {
        let specifiers: [FormatSpecifier]?
        var templates: [ArgumentKinds: Template] = [:]
    }

    /// A parsed predicate to put arguments into, and the number that names it for as long as the process runs
    /// (never given to another template, even after this one is dropped), so that later stages can keep what
    /// they derive from it (TypeChecker's reuse of a checked template) under that number.
    private struct Template {
        let predicate: QueryPredicate
        let id: Int
    }

    private var nextTemplateID = 1

    /// Templates kept per format (argument kinds rarely vary much for one format string).
    private static let templatesPerFormat = 32

    private let lock = NSLock()
    private var formats: [String: FormatEntry] = [:]

    /// The predicate `format` with `arguments` means, from a cached template when there is one; `parse` parses.
    func predicate(_ format: String, _ arguments: [Any], parse: (String, [Any]) throws -> QueryPredicate) throws
        -> QueryPredicate
    {
        try templatedPredicate(format, arguments, parse: parse).predicate
    }

    /// The predicate, and the number of the template it was made from (nil when the format or its arguments cannot
    /// be cached). Two predicates with the same template number differ only in the values of their arguments.
    func templatedPredicate(_ format: String, _ arguments: [Any], parse: (String, [Any]) throws -> QueryPredicate)
        throws -> (predicate: QueryPredicate, templateID: Int?)
    {
        let entry = self.entry(format)
        guard let specifiers = entry.specifiers, specifiers.count <= arguments.count,
              specifiers.count <= ArgumentKinds.capacity else {
            return (try parse(format, arguments), nil)
        }
        var values: [QueryValue] = []
        values.reserveCapacity(specifiers.count)
        var kinds = ArgumentKinds()
        for (index, specifier) in specifiers.enumerated() {
            let argument = arguments[index]
            let value = QueryArgument.value(of: argument)
            let converted = specifier == .object ? value : specifier.convert(value, argument: argument)
            guard let converted, !converted.isList else { return (try parse(format, arguments), nil) }
            values.append(converted)
            kinds.append(converted.kindTag)
        }
        if let template = entry.templates[kinds] { return (template.predicate.substituting(values), template.id) }
        let parsed = try parse(format, arguments)
        let id = lock.withLock { () -> Int? in
            guard formats[format] != nil else { return nil }
            if formats[format]!.templates.count >= Self.templatesPerFormat {
                formats[format]!.templates.removeAll(keepingCapacity: true)
            }
            let id = nextTemplateID
            nextTemplateID += 1
            formats[format]!.templates[kinds] = Template(predicate: parsed, id: id)
            return id
        }
        return (parsed, id)
    }

    /// The placeholders of `format`, one per argument index, or nil when the format cannot be cached (`%K`,
    /// `[%@]`) or does not lex.
    func specifiers(of format: String) -> [FormatSpecifier]? { entry(format).specifiers }

    /// The entry of a format string, lexing it the first time it is seen.
    private func entry(_ format: String) -> FormatEntry {
        if let entry = lock.withLock({ formats[format] }) { return entry }
        let entry = FormatEntry(specifiers: Self.specifiers(of: format))
        lock.withLock {
            if formats.count >= Self.capacity { formats.removeAll(keepingCapacity: true) }
            if formats[format] == nil { formats[format] = entry }
        }
        return entry
    }

    private static func specifiers(of format: String) -> [FormatSpecifier]? {
        guard let tokens = try? PredicateLexer.tokenize(format) else { return nil }
        var specifiers: [Int: FormatSpecifier] = [:]
        for (position, token) in tokens.enumerated() {
            switch token.kind {
            case .keyPathArgument: return nil
            case .valueArgument(let index, let specifier):
                if position > 0, case .symbol("[") = tokens[position - 1].kind { return nil }
                guard specifiers[index] == nil else { return nil }
                specifiers[index] = specifier
            default: continue
            }
        }
        // Placeholders take the arguments in order, so their indices are 0 ..< count.
        guard specifiers.keys.sorted() == Array(0..<specifiers.count) else { return nil }
        return (0..<specifiers.count).map { specifiers[$0]! }
    }
}

/// The kinds of a call's arguments, in order: the key of a format's templates. Packed into one integer, four bits
/// an argument, so that a cached call makes no array for its key and hashes one word.
private struct ArgumentKinds: Hashable {
    /// Arguments a key can describe; formats with more placeholders are parsed afresh on every call.
    static let capacity = 15

    private var packed: UInt64 = 0

    /// Adds the next argument's kind (a `kindTag`, below 16).
    mutating func append(_ kind: UInt8) {
        precondition(kind < 16 && packed >> 60 < UInt64(Self.capacity), "ArgumentKinds: too many or too large")
        // The top four bits count the arguments, so that keys of different lengths never collide.
        let count = packed >> 60
        packed = ((count + 1) << 60) | (packed & ((1 << 60) - 1)) | (UInt64(kind) << (4 * count))
    }
}

extension QueryValue {
    fileprivate var isList: Bool {
        if case .list = self { return true }
        return false
    }

    /// Which case the value is, for the cache's key (and a prepared seek's, SeekTemplate.swift).
    var kindTag: UInt8 {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int: return 2
        case .float: return 3
        case .double: return 4
        case .string: return 5
        case .data: return 6
        case .timestamp: return 7
        case .objectId: return 8
        case .uuid: return 9
        case .object: return 10
        case .list: return 11
        case .decimal128: return 12
        case .nestedList: return 13
        case .nestedDictionary: return 14
        }
    }
}

extension QueryPredicate {
    /// The predicate with each constant that came from argument `i` replaced by `values[i]`.
    func substituting(_ values: [QueryValue]) -> QueryPredicate {
        var result = self
        switch kind {
        case .constant: break
        case .comparison(var comparison):
            comparison.lhs = comparison.lhs.substituting(values)
            comparison.rhs = comparison.rhs.substituting(values)
            result.kind = .comparison(comparison)
        case .between(var between):
            between.value = between.value.substituting(values)
            between.lower = between.lower.substituting(values)
            between.upper = between.upper.substituting(values)
            result.kind = .between(between)
        case .and(let left, let right): result.kind = .and(left.substituting(values), right.substituting(values))
        case .or(let left, let right): result.kind = .or(left.substituting(values), right.substituting(values))
        case .not(let operand): result.kind = .not(operand.substituting(values))
        }
        return result
    }
}

extension QueryExpression {
    func substituting(_ values: [QueryValue]) -> QueryExpression {
        var result = self
        switch kind {
        case .constant(_, let index?): result.kind = .constant(values[index], argumentIndex: index)
        case .constant, .keyPath: break
        case .list(let items): result.kind = .list(items.map { $0.substituting(values) })
        case .subquery(var subquery):
            subquery.predicate = subquery.predicate.substituting(values)
            result.kind = .subquery(subquery)
        }
        return result
    }
}
