// TypeChecker: resolves a query AST against a model before anything runs.
//
// Every property name is looked up in its class, every key path is followed through links, collections, maps and
// linking objects, every constant is converted to the type it is compared with, and every operator is checked
// against its operands' types. A failure names the class, the property or operator, what was expected, and (for
// predicate strings) the offset of the offending text.

import CColumnar
import Foundation

/// A type error in a query: where (a range of the query text, `.none` without text) and what.
struct QueryTypeError: Error {
    var range: SourceRange
    var message: String

    /// The user-facing error. With the query's text, the message points at the offending part with carets.
    func columnarError(query: String?) -> ColumnarError {
        guard let query, range != .none || !query.isEmpty else {
            return ColumnarError(code: .misuse, message: "invalid query: \(message)")
        }
        let echoed = String(query.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        let width = max(1, min(range.end, echoed.count) - range.start)
        let caret = String(repeating: " ", count: range.start) + String(repeating: "^", count: width)
        return ColumnarError(code: .misuse,
                             message: "invalid query at offset \(range.start): \(message)\n  \(echoed)\n  \(caret)")
    }
}

public enum TypeChecker {
    /// Checks `predicate` against objects of `table`. `query` is the text it was parsed from, if any, for messages.
    /// Throws a `ColumnarError` of code `.misuse`.
    public static func check(_ predicate: QueryPredicate, table: columnar_table_id, model: QueryModel,
                             query: String? = nil) throws -> CheckedPredicate {
        guard let root = model.table(table) else {
            throw ColumnarError(code: .misuse, message: "invalid query: table \(table) is not in the model")
        }
        var checker = Checker(model: model, root: root)
        do {
            return try checker.predicate(predicate)
        } catch let error as QueryTypeError {
            throw error.columnarError(query: query)
        }
    }
}

extension TypeChecker {
    /// What a key path given by name is used for, which decides the types it may reach.
    public enum KeyPathUse: Sendable {
        /// Sorting: bools, numbers, dates and strings (the types RealmSwift sorts), through to-one links only.
        case sort
        /// Distinct: any single value, through to-one links only.
        case distinct
        /// min and max: numbers and dates.
        case minMax
        /// sum and average: numbers.
        case sumAverage
    }

    /// Resolves a dotted key path such as `owner.name` on objects of `table` for `use`. Throws a `ColumnarError`
    /// of code `.misuse` naming the class and property when the path does not exist, passes a to-many property,
    /// or reaches a type `use` does not accept.
    public static func resolveKeyPath(_ text: String, table: columnar_table_id, model: QueryModel,
                                      for use: KeyPathUse) throws -> CheckedPath {
        guard let root = model.table(table) else {
            throw ColumnarError(code: .misuse, message: "invalid key path: table \(table) is not in the model")
        }
        let names = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, !names.contains(where: \.isEmpty) else {
            throw ColumnarError(code: .misuse, message: "invalid key path '\(text)' on \(root.className)")
        }
        var checker = Checker(model: model, root: root)
        let typed: Checker.TypedOperand
        do {
            typed = try checker.keyPath(QueryKeyPath(steps: names.map { .property($0) }), range: .none)
        } catch let error as QueryTypeError {
            throw ColumnarError(code: .misuse, message: "invalid key path '\(text)': \(error.message)")
        }
        guard case .path(let path) = typed.operand, !path.isMany else {
            throw ColumnarError(code: .misuse, message: "cannot use key path '\(text)' on \(root.className): it passes a list, set, map or linking objects; only to-one links can be followed here")
        }
        let accepted: [columnar_type]
        let numbers = [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_DECIMAL128]
        switch use {
        case .sort: accepted = numbers + [COLUMNAR_TYPE_BOOL, COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_TYPE_STRING,
                                          COLUMNAR_TYPE_MIXED]
        case .distinct: accepted = numbers + [COLUMNAR_TYPE_BOOL, COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_TYPE_STRING,
                                             COLUMNAR_TYPE_BINARY, COLUMNAR_TYPE_OBJECTID, COLUMNAR_TYPE_UUID,
                                             COLUMNAR_TYPE_LINK, COLUMNAR_TYPE_MIXED]
        // Mixed values aggregate as Realm defines it (MixedAggregation.swift).
        case .minMax: accepted = numbers + [COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_TYPE_MIXED]
        case .sumAverage: accepted = numbers + [COLUMNAR_TYPE_MIXED]
        }
        guard accepted.contains(path.type) else {
            let verb: String
            switch use {
            case .sort: verb = "sort on"
            case .distinct: verb = "find distinct values of"
            case .minMax: verb = "compute the minimum or maximum of"
            case .sumAverage: verb = "sum or average"
            }
            throw ColumnarError(code: .misuse, message: "cannot \(verb) '\(text)' on \(root.className): its type \(Checker.typeName(path.type)) is not supported")
        }
        if path.type == COLUMNAR_TYPE_DECIMAL128 && model.decimals == nil {
            throw ColumnarError(code: .misuse, message: "Decimal128 values of '\(text)' cannot be compared in this model")
        }
        return path
    }
}

struct Checker {
    let model: QueryModel
    let root: QueryTable
    /// SUBQUERY variables in scope, innermost last: name and the class its elements belong to.
    var variables: [(name: String, table: QueryTable)] = []

    init(model: QueryModel, root: QueryTable) {
        self.model = model
        self.root = root
    }

    mutating func predicate(_ node: QueryPredicate) throws -> CheckedPredicate {
        switch node.kind {
        case .constant(let value): return .constant(value)
        case .and(let left, let right): return .and([try predicate(left), try predicate(right)])
        case .or(let left, let right): return .or([try predicate(left), try predicate(right)])
        case .not(let operand): return .not(try predicate(operand))
        case .comparison(let comparison): return try self.comparison(comparison, range: node.range)
        case .between(let between): return try self.between(between, range: node.range)
        }
    }

    // MARK: Comparisons

    mutating func comparison(_ node: QueryComparison, range: SourceRange) throws -> CheckedPredicate {
        var lhs = try operand(node.lhs)
        var rhs = try operand(node.rhs)
        if case .valueType = lhs.operand { return try typeComparison(node, lhs: lhs, range: range) }
        var op = node.op
        let source = QueryPredicate(.comparison(node))
        if op == .in {
            return try membership(node, lhs: lhs, rhs: rhs, source: source, range: range)
        }
        // Constants take the type of the other side.
        switch (node.lhs.kind, node.rhs.kind) {
        case (.constant, .constant):
            throw QueryTypeError(range: range, message: "cannot compare two constants; one side must be a key path")
        case (_, .constant(let value, _)):
            rhs = try constantOperand(value, as: lhs, at: node.rhs.range)
        case (.constant(let value, _), _):
            lhs = try constantOperand(value, as: rhs, at: node.lhs.range)
        default: break
        }
        if case .constants = rhs.operand {
            throw QueryTypeError(range: node.rhs.range, message: "a list of values is only allowed after IN or BETWEEN")
        }
        // A constant on the left of a comparison is turned around (`5 < age` is `age > 5`) so that the key path is
        // on the left, where the compiler looks for it.
        if lhs.operand.isConstant, !rhs.operand.isConstant, let flipped = op.flipped, node.quantifier == nil {
            swap(&lhs, &rhs)
            op = flipped
        }
        let quantifier = try self.quantifier(node.quantifier, lhs: lhs, range: range)
        try checkOperator(op, node.options, lhs: lhs, rhs: rhs, range: range)
        return .comparison(CheckedComparison(quantifier: quantifier, lhs: lhs.operand, op: op, options: node.options,
                                             rhs: rhs.operand, upperBound: nil, source: source))
    }

    /// `value.@type == 'name'`, `!=`, and `IN {names}`: the type numbers the names stand for, as IN (for `!=`, IN
    /// every other type), so that quantifiers over lists of mixed values keep their meaning.
    mutating func typeComparison(_ node: QueryComparison, lhs: TypedOperand, range: SourceRange) throws
        -> CheckedPredicate {
        var names: [(String, SourceRange)] = []
        switch node.rhs.kind {
        case .constant(.string(let name), _): names = [(name, node.rhs.range)]
        case .constant(.list(let items), _):
            for item in items {
                guard case .string(let name) = item else {
                    throw QueryTypeError(range: node.rhs.range, message: "@type is compared with type names, found \(item)")
                }
                names.append((name, node.rhs.range))
            }
        case .list(let items):
            for item in items {
                guard case .constant(.string(let name), _) = item.kind else {
                    throw QueryTypeError(range: item.range, message: "@type is compared with type names, found \(item)")
                }
                names.append((name, item.range))
            }
        default:
            throw QueryTypeError(range: node.rhs.range, message: "@type is compared with a type name such as 'string', found \(node.rhs)")
        }
        guard node.op == .equal || node.op == .notEqual || node.op == .in, node.options.isEmpty else {
            throw QueryTypeError(range: range, message: "@type takes ==, != and IN, not \(node.op.rawValue)\(node.options.spelling)")
        }
        var types = Set<Int64>()
        for (name, nameRange) in names {
            guard let named = MixedTypeNames.types(named: name) else {
                throw QueryTypeError(range: nameRange, message: "'\(name)' is not a type name; @type takes \(MixedTypeNames.spellings)")
            }
            types.formUnion(named)
        }
        if node.op == .notEqual { types = MixedTypeNames.all.subtracting(types) }
        let quantifier = try self.quantifier(node.quantifier, lhs: lhs, range: range)
        return .comparison(CheckedComparison(quantifier: quantifier, lhs: lhs.operand, op: .in, options: [],
                                             rhs: .constants(types.sorted().map { .int($0) }), upperBound: nil,
                                             source: QueryPredicate(.comparison(node))))
    }

    /// `x IN {…}`, `x IN %@` (array) and `x IN collection`.
    mutating func membership(_ node: QueryComparison, lhs: TypedOperand, rhs: TypedOperand, source: QueryPredicate,
                             range: SourceRange) throws -> CheckedPredicate {
        var rhs = rhs
        var lhs = lhs
        switch node.rhs.kind {
        case .list(let items):
            var values: [ScalarValue] = []
            for item in items {
                guard case .constant(let value, _) = item.kind else {
                    throw QueryTypeError(range: item.range, message: "the list after IN may hold only constants")
                }
                values.append(try convert(value, to: lhs, at: item.range))
            }
            rhs = TypedOperand(operand: .constants(values), type: lhs.type, target: lhs.target, nullable: true,
                               description: "{…}")
        case .constant(.list(let items), _):
            rhs = TypedOperand(operand: .constants(try items.map { try convert($0, to: lhs, at: node.rhs.range) }),
                               type: lhs.type, target: lhs.target, nullable: true, description: "%@")
        case .constant(let value, _):
            if rhs.isPathLike { break }
            // `x IN 5` is `x == 5`, as NSPredicate treats a single value.
            rhs = TypedOperand(operand: .constants([try convert(value, to: lhs, at: node.rhs.range)]),
                               type: lhs.type, target: lhs.target, nullable: true, description: "\(value)")
        default:
            guard rhs.operand.isMany else {
                throw QueryTypeError(range: node.rhs.range,
                                     message: "IN needs a list, an array argument or a to-many key path on its right, found \(node.rhs)")
            }
            if case .constant(let value) = lhs.operand, case .constant(let raw, _) = node.lhs.kind, !value.isNull {
                // The description is made later, when a message needs it: from the operand as it was, not from
                // `lhs` itself, which by then is this new operand (a description that called itself forever).
                let unconverted = lhs
                lhs = TypedOperand(operand: .constant(try convert(raw, to: rhs, at: node.lhs.range)),
                                   type: rhs.type, target: rhs.target, nullable: false,
                                   description: unconverted.description)
            }
        }
        let quantifier = try self.quantifier(node.quantifier, lhs: lhs, range: range)
        try checkOperator(.equal, node.options, lhs: lhs, rhs: rhs, range: range)
        return .comparison(CheckedComparison(quantifier: quantifier, lhs: lhs.operand, op: .in, options: node.options,
                                             rhs: rhs.operand, upperBound: nil, source: source))
    }

    mutating func between(_ node: QueryBetween, range: SourceRange) throws -> CheckedPredicate {
        let value = try operand(node.value)
        let source = QueryPredicate(.between(node))
        func bound(_ expression: QueryExpression) throws -> ScalarValue {
            guard case .constant(let constant, _) = expression.kind else {
                throw QueryTypeError(range: expression.range, message: "the bounds of BETWEEN must be constants")
            }
            return try convert(constant, to: value, at: expression.range)
        }
        let lower: ScalarValue, upper: ScalarValue
        if case .constant(.list(let items), _) = node.lower.kind, node.upper.kind == node.lower.kind {
            guard items.count == 2 else {
                throw QueryTypeError(range: node.lower.range,
                                     message: "BETWEEN needs exactly two values, found \(items.count)")
            }
            lower = try convert(items[0], to: value, at: node.lower.range)
            upper = try convert(items[1], to: value, at: node.lower.range)
        } else {
            lower = try bound(node.lower)
            upper = try bound(node.upper)
        }
        let quantifier = try self.quantifier(node.quantifier, lhs: value, range: range)
        let lowerOperand = TypedOperand(operand: .constant(lower), type: value.type, target: nil, nullable: false,
                                        description: "\(node.lower)")
        try checkOperator(.greaterThanOrEqual, [], lhs: value, rhs: lowerOperand, range: range)
        return .comparison(CheckedComparison(quantifier: quantifier, lhs: value.operand, op: .greaterThanOrEqual,
                                             options: [], rhs: .constant(lower), upperBound: upper, source: source))
    }

    func quantifier(_ written: Quantifier?, lhs: TypedOperand, range: SourceRange) throws -> Quantifier {
        guard let written else { return .any }
        guard lhs.operand.isMany else {
            throw QueryTypeError(range: range,
                                 message: "\(written.rawValue) needs a key path through a list, set, map or linking objects on its left, but \(lhs.description) is a single value")
        }
        return written
    }

    /// Whether `op` with `options` applies to values of the operands' types.
    func checkOperator(_ op: ComparisonOperator, _ options: ComparisonOptions, lhs: TypedOperand,
                       rhs: TypedOperand, range: SourceRange) throws {
        let types = [lhs.type, rhs.type].compactMap { $0 }
        // A mixed value compares with anything (values of types that do not compare are simply unequal).
        if types.contains(COLUMNAR_TYPE_MIXED) { return }
        // Both sides must hold the same kind of value (numbers of any width mix).
        if types.count == 2, Self.family(types[0]) != Self.family(types[1]) {
            throw QueryTypeError(range: range,
                                 message: "cannot compare \(lhs.description) (\(Self.typeName(types[0]))) with \(rhs.description) (\(Self.typeName(types[1])))")
        }
        guard let type = types.first else { return }
        let name = Self.typeName(type)
        switch op {
        case .beginsWith, .endsWith, .contains, .like:
            guard type == COLUMNAR_TYPE_STRING || (type == COLUMNAR_TYPE_BINARY && op != .like) else {
                throw QueryTypeError(range: range,
                                     message: "\(op.rawValue) applies to strings\(op == .like ? "" : " and data"), but \(lhs.description) is \(name)")
            }
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if type == COLUMNAR_TYPE_BOOL || type == COLUMNAR_TYPE_LINK {
                throw QueryTypeError(range: range, message: "\(op.rawValue) cannot order \(name) values (\(lhs.description))")
            }
        default: break
        }
        if !options.isEmpty && type != COLUMNAR_TYPE_STRING {
            throw QueryTypeError(range: range,
                                 message: "the modifier \(options.spelling) applies to strings, but \(lhs.description) is \(name)")
        }
        if type == COLUMNAR_TYPE_DECIMAL128 && model.decimals == nil {
            throw QueryTypeError(range: range, message: "Decimal128 comparisons are not available in this model")
        }
    }

    static func family(_ type: columnar_type) -> Int {
        switch type {
        case COLUMNAR_TYPE_INT, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_DECIMAL128: return 1
        default: return Int(type.rawValue) + 100
        }
    }

    static func typeName(_ type: columnar_type) -> String {
        switch type {
        case COLUMNAR_TYPE_INT: return "int"
        case COLUMNAR_TYPE_BOOL: return "bool"
        case COLUMNAR_TYPE_FLOAT: return "float"
        case COLUMNAR_TYPE_DOUBLE: return "double"
        case COLUMNAR_TYPE_STRING: return "string"
        case COLUMNAR_TYPE_BINARY: return "data"
        case COLUMNAR_TYPE_TIMESTAMP: return "date"
        case COLUMNAR_TYPE_OBJECTID: return "object id"
        case COLUMNAR_TYPE_UUID: return "uuid"
        case COLUMNAR_TYPE_DECIMAL128: return "decimal128"
        case COLUMNAR_TYPE_LINK: return "object"
        case COLUMNAR_TYPE_MIXED: return "mixed"
        default: return "unknown"
        }
    }

    // MARK: Operands

    /// An operand with its static type (nil for a constant whose type is decided by the other side).
    struct TypedOperand {
        var operand: CheckedOperand
        var type: columnar_type?
        var target: columnar_table_id?
        var nullable: Bool
        /// How error messages name the operand. Made into text only when a message needs it: formatting every
        /// constant of every query took a tenth of a simple query's time. A key path is kept as written and
        /// formatted when needed: a closure would need a context allocated for every operand, and a reused check
        /// (CheckedTemplate.swift) makes one for every value it converts.
        private enum Naming {
            case keyPath(QueryKeyPath)
            case described(() -> String)
        }
        private let naming: Naming
        var description: String {
            switch naming {
            case .keyPath(let path): return "'\(path)'"
            case .described(let describe): return describe()
            }
        }

        init(operand: CheckedOperand, type: columnar_type?, target: columnar_table_id?, nullable: Bool,
             description: @autoclosure @escaping () -> String) {
            self.operand = operand
            self.type = type
            self.target = target
            self.nullable = nullable
            self.naming = .described(description)
        }

        /// An operand that messages name by the key path written in the query, quoted.
        init(operand: CheckedOperand, type: columnar_type?, target: columnar_table_id?, nullable: Bool,
             keyPath: QueryKeyPath) {
            self.operand = operand
            self.type = type
            self.target = target
            self.nullable = nullable
            self.naming = .keyPath(keyPath)
        }

        var isPathLike: Bool {
            switch operand {
            case .constant, .constants: return false
            default: return true
            }
        }
    }

    mutating func operand(_ expression: QueryExpression, expecting: columnar_type? = nil) throws -> TypedOperand {
        switch expression.kind {
        case .constant(let value, _):
            if case .list = value {
                return TypedOperand(operand: .constants([]), type: nil, target: nil, nullable: true,
                                    description: "\(value)")
            }
            // Kept raw until the other side's type is known (see comparison()).
            return TypedOperand(operand: .constant(value == .null ? .null : .bool(false)), type: nil, target: nil,
                                nullable: value == .null, description: "\(value)")
        case .list:
            return TypedOperand(operand: .constants([]), type: nil, target: nil, nullable: true,
                                description: "\(expression)")
        case .keyPath(let path):
            return try keyPath(path, range: expression.range)
        case .subquery(let subquery):
            return try self.subquery(subquery, range: expression.range)
        }
    }

    func constantOperand(_ value: QueryValue, as other: TypedOperand, at range: SourceRange) throws -> TypedOperand {
        TypedOperand(operand: .constant(try convert(value, to: other, at: range)), type: other.type,
                     target: other.target, nullable: value == .null, description: "\(value)")
    }

    /// Converts a constant to the type of the operand it is compared with.
    func convert(_ value: QueryValue, to other: TypedOperand, at range: SourceRange) throws -> ScalarValue {
        guard let type = other.type else {
            throw QueryTypeError(range: range, message: "cannot compare two constants; one side must be a key path")
        }
        func mismatch() -> QueryTypeError {
            QueryTypeError(range: range,
                           message: "\(other.description) is \(Self.typeName(type)), but the value \(value) is not")
        }
        switch (type, value) {
        case (_, .null): return .null
        case (_, .list): throw QueryTypeError(range: range, message: "a list of values is only allowed after IN or BETWEEN")
        case (COLUMNAR_TYPE_MIXED, _): return try mixedConstant(value, at: range)
        case (COLUMNAR_TYPE_DECIMAL128, _):
            guard let bits = model.decimals?.encode(value) else { throw mismatch() }
            return .decimal128(bits)
        case (COLUMNAR_TYPE_LINK, .object(let object)):
            return .link(table: other.target ?? 0, key: try linkedKey(object, comparedWith: other, at: range))
        case (COLUMNAR_TYPE_LINK, _):
            throw QueryTypeError(range: range, message: "\(other.description) is a link; it can only be compared with nil, an object or another link")
        default:
            guard let converted = Self.plainConstant(value, toColumnOf: type) else { throw mismatch() }
            return converted
        }
    }

    /// A non-null constant converted to a column type whose conversion needs nothing of the model (every type but
    /// mixed, decimal and link), or nil when the type does not take the value. `convert` goes through this, and so
    /// does a prepared seek (SeekTemplate.swift), so both convert a value the same way.
    static func plainConstant(_ value: QueryValue, toColumnOf type: columnar_type) -> ScalarValue? {
        switch (type, value) {
        case (COLUMNAR_TYPE_INT, .int(let int)), (COLUMNAR_TYPE_FLOAT, .int(let int)),
             (COLUMNAR_TYPE_DOUBLE, .int(let int)):
            return .int(int)
        case (COLUMNAR_TYPE_INT, .float(let float)), (COLUMNAR_TYPE_FLOAT, .float(let float)),
             (COLUMNAR_TYPE_DOUBLE, .float(let float)):
            return .float(float)
        case (COLUMNAR_TYPE_INT, .double(let double)), (COLUMNAR_TYPE_FLOAT, .double(let double)),
             (COLUMNAR_TYPE_DOUBLE, .double(let double)):
            return .double(double)
        case (COLUMNAR_TYPE_BOOL, .bool(let bool)): return .bool(bool)
        case (COLUMNAR_TYPE_BOOL, .int(let int)) where int == 0 || int == 1: return .bool(int == 1)
        case (COLUMNAR_TYPE_STRING, .string(let text)): return .string(Array(text.utf8))
        case (COLUMNAR_TYPE_BINARY, .data(let bytes)): return .data(bytes)
        case (COLUMNAR_TYPE_BINARY, .string(let text)): return .data(Array(text.utf8))
        case (COLUMNAR_TYPE_TIMESTAMP, .timestamp(let time)): return Self.stored(time)
        case (COLUMNAR_TYPE_OBJECTID, .objectId(let bytes)): return .objectId(bytes)
        case (COLUMNAR_TYPE_OBJECTID, .string(let text)):
            guard let bytes = QueryValue.bytes(fromHex: text), bytes.count == 12 else { return nil }
            return .objectId(bytes)
        case (COLUMNAR_TYPE_UUID, .uuid(let bytes)): return .uuid(bytes)
        case (COLUMNAR_TYPE_UUID, .string(let text)):
            guard let uuid = UUID(uuidString: text) else { return nil }
            return .uuid(withUnsafeBytes(of: uuid.uuid) { Array($0) })
        default:
            return nil
        }
    }

    static func stored(_ time: QueryTimestamp) -> ScalarValue { ScalarValue(stored: time) }

    /// A constant compared with a mixed value: the value as its own type (a mixed value holds any of them).
    func mixedConstant(_ value: QueryValue, at range: SourceRange) throws -> ScalarValue {
        switch value {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .int(let int): return .int(int)
        case .float(let float): return .float(float)
        case .double(let double): return .double(double)
        case .string(let text): return .string(Array(text.utf8))
        case .data(let bytes): return .data(bytes)
        case .timestamp(let time): return Self.stored(time)
        case .objectId(let bytes): return .objectId(bytes)
        case .uuid(let bytes): return .uuid(bytes)
        case .decimal128:
            guard let bits = model.decimals?.encode(value) else {
                throw QueryTypeError(range: range, message: "the value \(value) is not a decimal number")
            }
            return .decimal128(bits)
        case .object(let object):
            // An object of any stored class; one that is not stored (or of another database) matches nothing.
            guard let table = model.tables.values.first(where: { $0.className == object.className })?.id,
                  case .stored(let key, let database) = object.storage,
                  database == nil || model.database == nil || model.database == database else {
                return .link(table: .max, key: Self.keyOfNoObject)
            }
            return .link(table: table, key: key)
        case .list: throw QueryTypeError(range: range, message: "a list of values is only allowed after IN or BETWEEN")
        // A nested collection constant, encoded as a stored one is, and compared with those by contents.
        case .nestedList(let elements):
            return .nestedCollection(NestedCollectionValue.list(try elements.map { element in
                try NestedCollectionValue.encoding(of: mixedConstant(element, at: range))
            }))
        case .nestedDictionary(let entries):
            var encoded: [String: [UInt8]?] = [:]
            for (key, element) in entries {
                encoded[key] = .some(try NestedCollectionValue.encoding(of: mixedConstant(element, at: range)))
            }
            return .nestedCollection(NestedCollectionValue.dictionary(encoded))
        }
    }

    /// The key an unmanaged object compares as: one no stored object can have.
    static let keyOfNoObject = Int64.max

    /// The key of an object compared with a link: the object must be of the class the link points to and
    /// stored in the database being queried (or unmanaged, which matches nothing).
    func linkedKey(_ object: QueryObjectReference, comparedWith link: TypedOperand, at range: SourceRange) throws -> Int64 {
        let targetName = link.target.flatMap { model.table($0)?.className }
        guard let targetName, targetName == object.className else {
            throw QueryTypeError(range: range, message: "\(link.description) links \(targetName ?? "unknown") objects, but the value is a \(object.className) object")
        }
        switch object.storage {
        case .unmanaged:
            // As in RealmSwift, an object that was never added equals no link: `==` and IN match nothing and
            // `!=` everything. No object can have the key INT64_MAX (the engine refuses it), so the comparison
            // runs as any other and finds no match.
            return Self.keyOfNoObject
        case .invalidated:
            throw QueryTypeError(range: range, message: "the \(object.className) object compared with \(link.description) has been deleted or invalidated")
        case .stored(let key, let database):
            if let database, let queried = model.database, database != queried {
                throw QueryTypeError(range: range, message: "the \(object.className) object compared with \(link.description) belongs to another Realm; only objects from the Realm being queried can be compared with a link")
            }
            return key
        }
    }

    // MARK: Key paths

    mutating func keyPath(_ path: QueryKeyPath, range: SourceRange) throws -> TypedOperand {
        var table: QueryTable
        let root: CheckedPath.Root
        switch path.root {
        case .object:
            table = root0
            root = .object
        case .variable(let name):
            guard let depth = variables.lastIndex(where: { $0.name == name }) else {
                throw QueryTypeError(range: range, message: "the variable $\(name) is not defined by an enclosing SUBQUERY")
            }
            table = variables[depth].table
            root = .variable(depth)
        }
        let startTable = table.id
        var steps: [CheckedPath.Step] = []
        var currentTable: QueryTable? = table
        var type: columnar_type? = COLUMNAR_TYPE_LINK
        var target: columnar_table_id? = table.id
        var nullable = false
        var isMany = false
        var reducer: (CollectionOperator, stepIndex: Int)?
        // The name of what the path reached so far, for messages: made only when one needs it.
        var previousClass = table.className
        var previousProperty: String?
        var previousName: String { previousProperty.map { "\(previousClass).\($0)" } ?? previousClass }
        var typeOf = false

        for (index, step) in path.steps.enumerated() {
            switch step {
            case .property(let name):
                guard let current = currentTable else {
                    throw QueryTypeError(range: range,
                                         message: "\(previousName) is \(type.map(Self.typeName) ?? "a value"), which has no property '\(name)'")
                }
                guard let property = current.property(named: name) else {
                    throw QueryTypeError(range: range, message: "property '\(name)' not found in class \(current.className)")
                }
                if reducer?.0 == .count {
                    throw QueryTypeError(range: range, message: "@count must end the key path, found '\(name)' after it")
                }
                if typeOf {
                    throw QueryTypeError(range: range, message: "@type must end the key path, found '\(name)' after it")
                }
                previousClass = current.className
                previousProperty = name
                let elementTable = property.targetTable.flatMap { model.table($0) }
                switch property.kind {
                case .value:
                    steps.append(.column(property.column, type: property.type, target: property.targetTable))
                    nullable = nullable || property.isNullable
                case .list, .set:
                    steps.append(.elements(property.column, type: property.type, target: property.targetTable))
                    isMany = true
                    nullable = property.isNullable
                case .map:
                    steps.append(.mapValues(property.column, type: property.type, target: property.targetTable))
                    isMany = true
                    nullable = property.isNullable
                case .linkingObjects(let originTable, let originColumn):
                    steps.append(.backlinks(originTable: originTable, originColumn: originColumn))
                    isMany = true
                    nullable = false
                case .element:
                    steps.append(.element(type: property.type))
                    nullable = nullable || property.isNullable
                }
                type = property.type
                target = property.targetTable
                currentTable = property.type == COLUMNAR_TYPE_LINK ? elementTable : nil
                if property.type == COLUMNAR_TYPE_LINK && elementTable == nil {
                    throw QueryTypeError(range: range, message: "the class linked by \(previousName) is not in the model")
                }
            case .mapSubscript(let key) where type == COLUMNAR_TYPE_MIXED && !steps.isEmpty && !steps.last!.isMapValues:
                try requireNestable(step, typeOf: typeOf, reducer: reducer, previousName: previousName, range: range)
                steps.append(.nested(.key(Array(key.utf8))))
                nullable = true
            case .indexSubscript, .lastSubscript, .allSubscript:
                try requireNestable(step, typeOf: typeOf, reducer: reducer, previousName: previousName, range: range)
                guard type == COLUMNAR_TYPE_MIXED, let last = steps.last, !last.isCollectionOfValues else {
                    let what = steps.last?.isCollectionOfValues == true
                        ? "is a collection: compare its elements with ANY, ALL or NONE" : "is not a mixed value"
                    throw QueryTypeError(range: range, message: "\(step) applies to a list or dictionary nested in a "
                                         + "mixed value, but \(previousName) \(what)")
                }
                switch step {
                case .indexSubscript(let position): steps.append(.nested(.index(position)))
                case .lastSubscript: steps.append(.nested(.last))
                default:
                    steps.append(.nested(.all))
                    isMany = true
                }
                nullable = true
            case .mapSubscript(let key):
                guard case .mapValues(let column, let valueType, let valueTarget)? = steps.last else {
                    throw QueryTypeError(range: range, message: "[\"\(key)\"] applies to a map, but \(previousName) is not one")
                }
                steps[steps.count - 1] = .mapValue(column, key: Array(key.utf8), type: valueType, target: valueTarget)
                isMany = steps.dropLast().contains { $0.isToMany }
                nullable = true
            case .collectionOperator(let op):
                switch op {
                case .allKeys:
                    guard case .mapValues(let column, _, _)? = steps.last else {
                        throw QueryTypeError(range: range, message: "@allKeys applies to a map, but \(previousName) is not one")
                    }
                    steps[steps.count - 1] = .mapKeys(column)
                    type = COLUMNAR_TYPE_STRING
                    target = nil
                    currentTable = nil
                    nullable = false
                case .allValues:
                    guard case .mapValues? = steps.last else {
                        throw QueryTypeError(range: range, message: "@allValues applies to a map, but \(previousName) is not one")
                    }
                case .type:
                    guard type == COLUMNAR_TYPE_MIXED, !typeOf, reducer == nil else {
                        throw QueryTypeError(range: range, message: "@type applies to mixed values, but \(previousName) holds \(type.map(Self.typeName) ?? "none")")
                    }
                    typeOf = true
                case .count where !isMany && type == COLUMNAR_TYPE_MIXED && !typeOf && reducer == nil:
                    // The size of the collection nested in a mixed value (0 for other values).
                    steps.append(.nested(.all))
                    isMany = true
                    reducer = (op, index)
                case .count, .min, .max, .sum, .avg:
                    guard isMany else {
                        throw QueryTypeError(range: range,
                                             message: "\(op.spelling) applies to a list, set, map or linking objects, but \(previousName) is a single value")
                    }
                    guard reducer == nil else {
                        throw QueryTypeError(range: range, message: "only one collection operator may appear in a key path")
                    }
                    reducer = (op, index)
                }
            }
        }
        let checked = CheckedPath(root: root, table: startTable, steps: steps, type: type ?? COLUMNAR_TYPE_LINK,
                                  target: target, isMany: isMany, source: path)
        if typeOf {
            return TypedOperand(operand: .valueType(checked), type: COLUMNAR_TYPE_INT, target: nil,
                                nullable: isMany, keyPath: path)
        }
        guard let (op, _) = reducer else {
            if steps.isEmpty {
                throw QueryTypeError(range: range, message: "a key path must name a property")
            }
            return TypedOperand(operand: .path(checked), type: type, target: target, nullable: nullable || isMany,
                                keyPath: path)
        }
        switch op {
        case .count:
            return TypedOperand(operand: .count(checked), type: COLUMNAR_TYPE_INT, target: nil, nullable: false,
                                keyPath: path)
        default:
            let valueType = checked.type
            let numeric = [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_DECIMAL128]
            let ordered = numeric + [COLUMNAR_TYPE_TIMESTAMP]
            guard (op == .min || op == .max ? ordered : numeric).contains(valueType) || valueType == COLUMNAR_TYPE_MIXED
            else {
                throw QueryTypeError(range: range,
                                     message: "\(op.spelling) needs \(op == .min || op == .max ? "numbers or dates" : "numbers"), but '\(path)' holds \(Self.typeName(valueType)) values")
            }
            if valueType == COLUMNAR_TYPE_DECIMAL128 && model.decimals == nil {
                throw QueryTypeError(range: range, message: "Decimal128 aggregates are not available in this model")
            }
            let resultType: columnar_type
            switch op {
            case _ where valueType == COLUMNAR_TYPE_MIXED: resultType = COLUMNAR_TYPE_MIXED   // MixedAggregation.swift
            case .avg: resultType = valueType == COLUMNAR_TYPE_DECIMAL128 ? valueType : COLUMNAR_TYPE_DOUBLE
            case .sum: resultType = valueType == COLUMNAR_TYPE_FLOAT ? COLUMNAR_TYPE_DOUBLE : valueType
            default: resultType = valueType
            }
            return TypedOperand(operand: .aggregate(op, checked), type: resultType, target: nil, nullable: true,
                                description: "'\(path)'")
        }
    }

    private var root0: QueryTable { root }

    /// Stops a subscript into a nested collection where none can follow: after @type or a collection operator.
    private func requireNestable(_ step: QueryKeyPath.Step, typeOf: Bool, reducer: (CollectionOperator, stepIndex: Int)?,
                                 previousName: String, range: SourceRange) throws {
        if typeOf { throw QueryTypeError(range: range, message: "@type must end the key path, found '\(step)' after it") }
        if let (op, _) = reducer {
            throw QueryTypeError(range: range, message: "\(op.spelling) must end the key path, found '\(step)' after it")
        }
    }

    mutating func subquery(_ node: QuerySubquery, range: SourceRange) throws -> TypedOperand {
        let collection = try keyPath(node.collection, range: range)
        guard case .path(let path) = collection.operand, path.isMany, path.type == COLUMNAR_TYPE_LINK,
              let elementTable = path.target.flatMap({ model.table($0) }) else {
            throw QueryTypeError(range: range,
                                 message: "SUBQUERY needs a to-many relationship of objects, but \(collection.description) is not one")
        }
        guard node.steps.count == 1, case .collectionOperator(.count) = node.steps[0] else {
            throw QueryTypeError(range: range, message: "a SUBQUERY must be followed by .@count")
        }
        variables.append((node.variable, elementTable))
        defer { variables.removeLast() }
        let inner = try predicate(node.predicate)
        return TypedOperand(operand: .subqueryCount(path, variable: variables.count - 1, predicate: inner),
                            type: COLUMNAR_TYPE_INT, target: nil, nullable: false, description: "SUBQUERY(…).@count")
    }
}

extension CheckedPath.Step {
    var isToMany: Bool {
        switch self {
        case .column, .mapValue, .element: return false
        case .nested(let step): return step == .all
        default: return true
        }
    }

    var isMapValues: Bool { if case .mapValues = self { return true } else { return false } }

    /// Whether the step reaches a list's or set's elements or a map's values, which a subscript does not index.
    var isCollectionOfValues: Bool {
        switch self {
        case .elements, .mapValues, .backlinks: return true
        default: return false
        }
    }
}

extension CheckedOperand {
    var isConstant: Bool {
        switch self {
        case .constant, .constants: return true
        default: return false
        }
    }
}

extension ComparisonOperator {
    /// The operator with its sides swapped (`a < b` is `b > a`), for the operators that have one.
    var flipped: ComparisonOperator? {
        switch self {
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .lessThan: return .greaterThan
        case .lessThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .lessThan
        case .greaterThanOrEqual: return .lessThanOrEqual
        default: return nil
        }
    }
}
