// PredicateParser: a recursive-descent parser from RealmSwift's predicate-format strings to the query AST.
//
// The grammar is in docs/QueryVM.md. Precedence, loosest first: OR, AND, NOT, then comparisons; AND and OR
// associate to the left. `%@` and printf placeholders (`%d`, `%f`, …) are replaced by constants and `%K`
// placeholders by key paths while parsing, so the AST never holds a placeholder. The parser knows no schema: whether `age` is a property, and
// whether `3` fits it, is checked later against the model.
//
// Every failure is a `ColumnarError` (code `.misuse`) whose message gives the 0-based character offset, what was
// expected and what was found, with the query repeated and a caret under the offset.

/// Parses predicate-format strings such as `"age > %@ AND name BEGINSWITH[c] %@"`.
public enum PredicateParser {
    /// Parses `format`, substituting `arguments` for its `%@`, `%K` and printf placeholders in order. Arguments beyond
    /// those the placeholders take are ignored, as NSPredicate ignores them.
    ///
    /// - Throws: `ColumnarError` with code `.misuse` when the string is malformed, a placeholder has no argument,
    ///   or an argument cannot be used where its placeholder stands.
    ///
    /// A format parsed before with arguments of the same kinds is not parsed again (ParsedPredicateCache.swift).
    public static func parse(_ format: String, arguments: [Any] = []) throws -> QueryPredicate {
        try ParsedPredicateCache.shared.predicate(format, arguments, parse: parseAfresh)
    }

    /// Like `parse(_:arguments:)`, with the number of the cached template the predicate was made from, or nil.
    /// Predicates with the same number come from one format string and arguments of the same kinds: only the
    /// arguments' values differ, which lets `TypeChecker.check(_:reusing:table:model:query:)` reuse a check.
    public static func parseTemplated(_ format: String, arguments: [Any] = []) throws
        -> (predicate: QueryPredicate, templateID: Int?)
    {
        try ParsedPredicateCache.shared.templatedPredicate(format, arguments, parse: parseAfresh)
    }

    /// Parses `format` from its characters, without the cache.
    static func parseAfresh(_ format: String, arguments: [Any]) throws -> QueryPredicate {
        do {
            var parser = try Parser(tokens: PredicateLexer.tokenize(format), arguments: arguments)
            return try parser.parseQuery()
        } catch let error as QuerySyntaxError {
            throw error.columnarError(query: format)
        }
    }

    /// How many arguments `format`'s placeholders (`%@`, `%K`, printf conversions) take, so that predicates built
    /// separately can be joined into one format string with their arguments side by side.
    ///
    /// - Throws: `ColumnarError` with code `.misuse` when the string does not lex.
    public static func placeholderCount(in format: String) throws -> Int {
        do {
            return try PredicateLexer.tokenize(format).reduce(0) { count, token in
                switch token.kind {
                case .valueArgument, .keyPathArgument: return count + 1
                default: return count
                }
            }
        } catch let error as QuerySyntaxError {
            throw error.columnarError(query: format)
        }
    }
}

/// The parser's state: the tokens, the position in them, and the arguments.
private struct Parser {
    /// Deeper nesting than this (parentheses, NOT, lists, SUBQUERY) is refused, so that no query can exhaust the
    /// stack of the thread that parses it.
    static let maximumNestingDepth = 256

    static let keywords: Set<String> = [
        "and", "or", "not", "truepredicate", "falsepredicate", "nil", "null", "true", "false", "yes", "no",
        "beginswith", "endswith", "contains", "like", "in", "between", "any", "some", "all", "none", "subquery",
    ]

    let tokens: [Token]
    let arguments: [Any]
    var position = 0
    var depth = 0

    init(tokens: [Token], arguments: [Any]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    // MARK: - Token helpers

    var current: Token { tokens[position] }

    mutating func advance() -> Token {
        let token = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    /// The lower-cased keyword the current token spells, or nil.
    var currentKeyword: String? {
        guard case .word(let word) = current.kind else { return nil }
        let lowered = word.lowercased()
        return Self.keywords.contains(lowered) ? lowered : nil
    }

    func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    func failure(_ expected: String, at token: Token? = nil) -> QuerySyntaxError {
        let token = token ?? current
        return QuerySyntaxError(offset: token.range.start, message: "expected \(expected), found \(token.display)")
    }

    mutating func expectSymbol(_ symbol: String, _ context: String) throws -> Token {
        guard isSymbol(symbol) else { throw failure("'\(symbol)' \(context)") }
        return advance()
    }

    mutating func nest() throws {
        depth += 1
        guard depth <= Self.maximumNestingDepth else {
            throw QuerySyntaxError(
                offset: current.range.start, message: "expected at most \(Self.maximumNestingDepth) levels of nesting, found more")
        }
    }

    // MARK: - Predicates

    mutating func parseQuery() throws -> QueryPredicate {
        let predicate = try parseOr()
        guard current.kind == .end else {
            throw failure(isSymbol(")") ? "end of query (this ')' has no matching '(')" : "AND, OR or end of query")
        }
        return predicate
    }

    mutating func parseOr() throws -> QueryPredicate {
        var left = try parseAnd()
        while currentKeyword == "or" || isSymbol("||") {
            _ = advance()
            let right = try parseAnd()
            left = QueryPredicate(.or(left, right), range: left.range.union(right.range))
        }
        return left
    }

    mutating func parseAnd() throws -> QueryPredicate {
        var left = try parseNot()
        while currentKeyword == "and" || isSymbol("&&") {
            _ = advance()
            let right = try parseNot()
            left = QueryPredicate(.and(left, right), range: left.range.union(right.range))
        }
        return left
    }

    mutating func parseNot() throws -> QueryPredicate {
        guard currentKeyword == "not" || isSymbol("!") else { return try parsePrimary() }
        let notToken = advance()
        try nest()
        defer { depth -= 1 }
        let operand = try parseNot()
        return QueryPredicate(.not(operand), range: notToken.range.union(operand.range))
    }

    mutating func parsePrimary() throws -> QueryPredicate {
        if isSymbol("(") {
            let open = advance()
            try nest()
            defer { depth -= 1 }
            var inner = try parseOr()
            let close = try expectSymbol(")", "to close the '(' at offset \(open.range.start)")
            inner.range = open.range.union(close.range)
            return inner
        }
        switch currentKeyword {
        case "truepredicate": return QueryPredicate(.constant(true), range: advance().range)
        case "falsepredicate": return QueryPredicate(.constant(false), range: advance().range)
        default: return try parseComparison()
        }
    }

    mutating func parseComparison() throws -> QueryPredicate {
        let start = current.range
        var quantifier: Quantifier?
        switch currentKeyword {
        case "any", "some": quantifier = .any
        case "all": quantifier = .all
        case "none": quantifier = .noElement
        default: break
        }
        if quantifier != nil { _ = advance() }

        let lhs = try parseExpression(expected: quantifier == nil ? "a predicate" : "a key path after \(quantifier!.rawValue)")
        if currentKeyword == "between" {
            _ = advance()
            let bounds = try parseExpression(expected: "{lower, upper} after BETWEEN")
            let lower: QueryExpression, upper: QueryExpression
            switch bounds.kind {
            case .list(let items) where items.count == 2:
                (lower, upper) = (items[0], items[1])
            case .constant(.list(let values), let index) where values.count == 2:
                lower = QueryExpression(.constant(values[0], argumentIndex: index), range: bounds.range)
                upper = QueryExpression(.constant(values[1], argumentIndex: index), range: bounds.range)
            default:
                throw QuerySyntaxError(
                    offset: bounds.range.start, message: "expected {lower, upper} (two values) after BETWEEN, found \(bounds)")
            }
            let between = QueryBetween(quantifier: quantifier, value: lhs, lower: lower, upper: upper)
            return QueryPredicate(.between(between), range: start.union(bounds.range))
        }

        let op = try parseOperator()
        let options = try parseOptions()
        let rhs = try parseExpression(expected: "a value or key path after \(op.rawValue)")
        let comparison = QueryComparison(quantifier: quantifier, lhs: lhs, op: op, options: options, rhs: rhs)
        return QueryPredicate(.comparison(comparison), range: start.union(rhs.range))
    }

    mutating func parseOperator() throws -> ComparisonOperator {
        let op: ComparisonOperator?
        switch current.kind {
        case .symbol(let symbol): op = ComparisonOperator.symbolic[symbol]
        case .word: op = currentKeyword.flatMap { ComparisonOperator.named[$0] }
        default: op = nil
        }
        guard let op else {
            throw failure("a comparison operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN, BETWEEN)")
        }
        _ = advance()
        return op
    }

    /// `[c]`, `[d]`, `[cd]` (or `[dc]`) after an operator.
    mutating func parseOptions() throws -> ComparisonOptions {
        guard isSymbol("[") else { return [] }
        _ = advance()
        var options: ComparisonOptions = []
        guard case .word(let letters) = current.kind, !letters.isEmpty,
            letters.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
            throw failure("c, d or cd in a comparison modifier")
        }
        for letter in letters.lowercased() {
            let option: ComparisonOptions = letter == "c" ? .caseInsensitive : .diacriticInsensitive
            guard !options.contains(option) else { throw failure("c, d or cd in a comparison modifier") }
            options.insert(option)
        }
        _ = advance()
        _ = try expectSymbol("]", "to close the comparison modifier")
        return options
    }

    // MARK: - Expressions

    mutating func parseExpression(expected: String) throws -> QueryExpression {
        let token = current
        switch token.kind {
        case .literal(let value):
            _ = advance()
            return QueryExpression(.constant(value, argumentIndex: nil), range: token.range)
        case .valueArgument(let index, let specifier):
            _ = advance()
            return QueryExpression(
                .constant(try argumentValue(index, specifier, token: token), argumentIndex: index), range: token.range)
        case .symbol("{"):
            return try parseList()
        case .word(let word):
            switch word.lowercased() {
            case "nil", "null":
                _ = advance()
                return QueryExpression(.constant(.null, argumentIndex: nil), range: token.range)
            case "true", "yes":
                _ = advance()
                return QueryExpression(.constant(.bool(true), argumentIndex: nil), range: token.range)
            case "false", "no":
                _ = advance()
                return QueryExpression(.constant(.bool(false), argumentIndex: nil), range: token.range)
            case "subquery":
                return try parseSubquery()
            case let keyword where Self.keywords.contains(keyword):
                throw failure(expected)
            default:
                let path = try parseKeyPath()
                return QueryExpression(.keyPath(path), range: path.range)
            }
        case .variable, .collectionOperator, .keyPathArgument:
            let path = try parseKeyPath()
            return QueryExpression(.keyPath(path), range: path.range)
        default:
            throw failure(expected)
        }
    }

    mutating func parseList() throws -> QueryExpression {
        let open = advance()
        try nest()
        defer { depth -= 1 }
        var items: [QueryExpression] = []
        if !isSymbol("}") {
            repeat {
                if !items.isEmpty { _ = advance() }
                items.append(try parseExpression(expected: "a value in the list"))
            } while isSymbol(",")
        }
        let close = try expectSymbol("}", "or ',' in the list that starts at offset \(open.range.start)")
        return QueryExpression(.list(items), range: open.range.union(close.range))
    }

    /// `SUBQUERY(collection, $variable, predicate)` and the steps after it.
    mutating func parseSubquery() throws -> QueryExpression {
        let keyword = advance()
        try nest()
        defer { depth -= 1 }
        _ = try expectSymbol("(", "after SUBQUERY")
        guard isKeyPathStart else { throw failure("the key path of a collection as SUBQUERY's first argument") }
        let collection = try parseKeyPath()
        _ = try expectSymbol(",", "after SUBQUERY's collection")
        guard case .variable(let variable) = current.kind else {
            throw failure("a variable such as $x as SUBQUERY's second argument")
        }
        _ = advance()
        _ = try expectSymbol(",", "after SUBQUERY's variable")
        let predicate = try parseOr()
        var range = keyword.range.union(try expectSymbol(")", "to close SUBQUERY").range)
        let steps = try parseSteps(after: &range)
        let subquery = QuerySubquery(collection: collection, variable: variable, predicate: predicate, steps: steps)
        return QueryExpression(.subquery(subquery), range: range)
    }

    var isKeyPathStart: Bool {
        switch current.kind {
        case .variable, .collectionOperator, .keyPathArgument: return true
        case .word: return currentKeyword == nil
        default: return false
        }
    }

    /// A key path starting at the current token: a name, `$variable`, `@operator` or `%K`, then steps.
    mutating func parseKeyPath() throws -> QueryKeyPath {
        let head = advance()
        var root = QueryKeyPath.Root.object
        var steps: [QueryKeyPath.Step] = []
        switch head.kind {
        case .word(let name): steps.append(.property(name))
        case .variable(let name): root = .variable(name)
        case .collectionOperator(let op): steps.append(.collectionOperator(op))
        case .keyPathArgument(let index): steps += try keyPathArgumentSteps(index, token: head)
        default: throw failure("a key path", at: head)
        }
        var range = head.range
        steps += try parseSteps(after: &range)
        return QueryKeyPath(root: root, steps: steps, range: range)
    }

    /// `.name`, `.@operator`, `.%K` and `['key']` steps, extending `range` over them.
    mutating func parseSteps(after range: inout SourceRange) throws -> [QueryKeyPath.Step] {
        var steps: [QueryKeyPath.Step] = []
        while true {
            if isSymbol(".") {
                _ = advance()
                let token = advance()
                switch token.kind {
                case .word(let name): steps.append(.property(name))
                case .collectionOperator(let op): steps.append(.collectionOperator(op))
                case .keyPathArgument(let index): steps += try keyPathArgumentSteps(index, token: token)
                default: throw failure("a property name or collection operator after '.'", at: token)
                }
                range = range.union(token.range)
            } else if isSymbol("[") {
                _ = advance()
                let token = advance()
                steps.append(try subscriptStep(token))
                range = range.union(try expectSymbol("]", "to close the subscript").range)
            } else {
                return steps
            }
        }
    }

    /// What `[…]` holds: a key (of a map, or of a dictionary nested in a mixed value), or for a list nested in a
    /// mixed value a position, FIRST, LAST, or `*` (every element; RealmSwift spells it `[%K]` with "#any").
    func subscriptStep(_ token: Token) throws -> QueryKeyPath.Step {
        switch token.kind {
        case .literal(.string(let text)): return .mapSubscript(text)
        case .literal(.int(let position)) where position >= 0 && position <= Int64(Int32.max):
            return .indexSubscript(Int(position))
        case .symbol("*"): return .allSubscript
        case .word(let word) where word.uppercased() == "FIRST": return .indexSubscript(0)
        case .word(let word) where word.uppercased() == "LAST": return .lastSubscript
        case .keyPathArgument(let index):
            try checkArgumentExists(index, token: token)
            guard arguments[index] as? String == "#any" else {
                throw QuerySyntaxError(offset: token.range.start,
                                       message: "expected \"#any\" for %K in a subscript at argument index \(index), found \(typeName(index))")
            }
            return .allSubscript
        case .valueArgument(let index, let specifier):
            switch try argumentValue(index, specifier, token: token) {
            case .string(let text): return .mapSubscript(text)
            case .int(let position) where position >= 0 && position <= Int64(Int32.max):
                return .indexSubscript(Int(position))
            default:
                throw QuerySyntaxError(
                    offset: token.range.start,
                    message: "expected a String key or a non-negative Int position at argument index \(index) for a subscript, found \(typeName(index))")
            }
        default:
            throw failure("a string key, a non-negative position, FIRST, LAST or * in a subscript", at: token)
        }
    }

    // MARK: - Arguments

    func checkArgumentExists(_ index: Int, token: Token) throws {
        guard index < arguments.count else {
            let given = arguments.count == 1 ? "1 argument was" : "\(arguments.count) arguments were"
            throw QuerySyntaxError(
                offset: token.range.start,
                message: "expected an argument for placeholder \(token.display) at argument index \(index), but only \(given) given")
        }
    }

    func typeName(_ index: Int) -> String { "a value of type \(type(of: arguments[index]))" }

    func argumentValue(_ index: Int, _ specifier: FormatSpecifier, token: Token) throws -> QueryValue {
        try checkArgumentExists(index, token: token)
        let argument = arguments[index]
        let value = QueryArgument.value(of: argument)
        if specifier == .object {
            guard let value else {
                throw QuerySyntaxError(
                    offset: token.range.start,
                    message: "expected a query value (Bool, integer, Float, Double, String, Data, Date, UUID, nil or an array of these) for %@ at argument index \(index), found \(typeName(index))")
            }
            return value
        }
        guard let converted = specifier.convert(value, argument: argument) else {
            let found = value == .null ? "nil" : value.map { "\(typeName(index)) (\($0))" } ?? typeName(index)
            throw QuerySyntaxError(
                offset: token.range.start,
                message: "expected \(specifier.expectation) for \(specifier.spelling) at argument index \(index), found \(found)")
        }
        return converted
    }

    /// The steps that the String argument of a `%K` spells, e.g. "owner.name" or "toys.@count".
    func keyPathArgumentSteps(_ index: Int, token: Token) throws -> [QueryKeyPath.Step] {
        try checkArgumentExists(index, token: token)
        guard let text = arguments[index] as? String else {
            throw QuerySyntaxError(
                offset: token.range.start, message: "expected a String key path for %K at argument index \(index), found \(typeName(index))")
        }
        return try text.split(separator: ".", omittingEmptySubsequences: false).map { component in
            if component.hasPrefix("@"), let op = CollectionOperator(spelling: String(component.dropFirst())) {
                return .collectionOperator(op)
            }
            guard let first = component.first, first.isLetter || first == "_",
                component.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw QuerySyntaxError(
                    offset: token.range.start,
                    message: "expected a key path such as \"owner.name\" for %K at argument index \(index), found \(QueryValue.quoted(text))")
            }
            return .property(String(component))
        }
    }
}

extension ComparisonOperator {
    /// Operators spelled with symbols, after the lexer's normalisation (`=` → `==`, `<>` → `!=`, …).
    static let symbolic: [String: ComparisonOperator] = [
        "==": .equal, "!=": .notEqual, "<": .lessThan, "<=": .lessThanOrEqual, ">": .greaterThan,
        ">=": .greaterThanOrEqual,
    ]
    /// Operators spelled with (lower-cased) keywords.
    static let named: [String: ComparisonOperator] = [
        "beginswith": .beginsWith, "endswith": .endsWith, "contains": .contains, "like": .like, "in": .in,
    ]
}
