// QueryMirrorQuery: the differential test's own small query language — a structure that renders to a
// predicate-format string (with `%@` or printf-conversion arguments for some constants) and evaluates on the plain-Swift mirror.
//
// The evaluator here shares nothing with QueryVM: it follows paths through the mirror's records, applies the
// quantifiers (ANY by default on a to-many path, ALL true for an empty collection, NONE = NOT ANY), the collection
// operators (@count; @min/@max skipping nulls and NaN, nil when empty; @sum 0 when empty; @avg nil when empty),
// SUBQUERY, map subscripts (null when the key is absent), @allKeys/@allValues and linking objects, and compares
// values with MirrorSemantics. A to-one link path through a null link gives null; a to-many path after a null
// link gives nothing.

import Columnar
import ColumnarTestSupport
import Foundation

// MARK: - Schema

enum QDClass: String {
    case item = "QDItem", owner = "QDOwner"
}

enum QDValueType {
    case bool, int, float, double, string, data, date, objectId, uuid, decimal
}

/// A property of the mirror's classes with its accessors (by record index).
struct QDProperty {
    enum Kind {
        case scalar(QDValueType, nullable: Bool)
        case link(QDClass)
        /// A list of links or linking objects.
        case links(QDClass)
        case values(QDValueType, nullableElements: Bool)
        /// Map<String, T?>.
        case map(QDValueType)
    }

    var name: String
    var kind: Kind
    /// For integer properties: the width of the Swift type, which `%@` arguments use.
    var integerBits = 64
    var scalar: (Int) -> MirrorValue = { _ in .null }
    var link: (Int) -> Int? = { _ in nil }
    var links: (Int) -> [Int] = { _ in [] }
    var values: (Int) -> [MirrorValue] = { _ in [] }
    var entries: (Int) -> [(key: String, value: MirrorValue)] = { _ in [] }

    var valueType: QDValueType? {
        switch kind {
        case .scalar(let type, _), .values(let type, _), .map(let type): return type
        default: return nil
        }
    }

    var isNullable: Bool {
        switch kind {
        case .scalar(_, let nullable): return nullable
        case .link: return true
        case .values(_, let nullable): return nullable
        case .map: return true
        case .links: return false
        }
    }
}

extension QDMirror {
    /// The properties of a class, in declaration order.
    func properties(of type: QDClass) -> [QDProperty] {
        switch type {
        case .owner: return ownerProperties
        case .item: return itemProperties
        }
    }

    /// A property by name, the custom-persistable ones included.
    func property(_ name: String, of type: QDClass) -> QDProperty {
        let candidates = type == .item ? properties(of: type) + customItemProperties : properties(of: type)
        guard let property = candidates.first(where: { $0.name == name }) else {
            fatalError("no property \(name) in \(type)")
        }
        return property
    }

    func makeOwnerProperties() -> [QDProperty] {
        func scalar(_ name: String, _ type: QDValueType, nullable: Bool, _ read: (QDOwnerRecord) -> MirrorValue)
            -> QDProperty {
            let column = owners.map(read)
            return QDProperty(name: name, kind: .scalar(type, nullable: nullable), scalar: { column[$0] })
        }
        let items = ownerItems, fans = ownerFans
        return [
            scalar("id", .int, nullable: false) { .int(Int64($0.id)) },
            scalar("name", .string, nullable: false) { .string($0.name) },
            scalar("age", .int, nullable: true) { $0.age.map { .int(Int64($0)) } ?? .null },
            scalar("score", .double, nullable: false) { .double($0.score) },
            scalar("city", .string, nullable: true) { $0.city.map(MirrorValue.string) ?? .null },
            QDProperty(name: "items", kind: .links(.item), links: { items[$0] }),
            QDProperty(name: "fans", kind: .links(.item), links: { fans[$0] }),
        ]
    }

    /// The item properties. Each property's values are read out of the records once, into a column: reading
    /// `items[index]` in a debug build copies the whole record, which would dominate the test's run time.
    func makeItemProperties() -> [QDProperty] {
        func scalar(_ name: String, _ type: QDValueType, bits: Int = 64, _ read: (QDItemRecord) -> MirrorValue)
            -> QDProperty {
            let column = items.map(read)
            return QDProperty(name: name, kind: .scalar(type, nullable: false), integerBits: bits,
                              scalar: { column[$0] })
        }
        func optional(_ name: String, _ type: QDValueType, bits: Int = 64,
                      _ read: (QDItemRecord) -> MirrorValue?) -> QDProperty {
            let column = items.map { read($0) ?? .null }
            return QDProperty(name: name, kind: .scalar(type, nullable: true), integerBits: bits,
                              scalar: { column[$0] })
        }
        func values(_ name: String, _ type: QDValueType, nullable: Bool = false,
                    _ read: (QDItemRecord) -> [MirrorValue]) -> QDProperty {
            let column = items.map(read)
            return QDProperty(name: name, kind: .values(type, nullableElements: nullable), values: { column[$0] })
        }
        let owners = items.map(\.owner), friends = items.map(\.friends)
        let scores = items.map { $0.scores.map { ($0.key, $0.value.map { MirrorValue.int(Int64($0)) } ?? .null) } }
        return [
            scalar("id", .int) { .int(Int64($0.id)) },
            scalar("bool", .bool) { .bool($0.bool) },
            scalar("int", .int) { .int(Int64($0.int)) },
            scalar("int8", .int, bits: 8) { .int(Int64($0.int8)) },
            scalar("int16", .int, bits: 16) { .int(Int64($0.int16)) },
            scalar("int32", .int, bits: 32) { .int(Int64($0.int32)) },
            scalar("int64", .int) { .int($0.int64) },
            scalar("float", .float) { .float($0.float) },
            scalar("double", .double) { .double($0.double) },
            scalar("string", .string) { .string($0.string) },
            scalar("data", .data) { .data($0.data) },
            scalar("date", .date) { .date($0.date) },
            scalar("objectId", .objectId) { .objectId($0.objectId) },
            scalar("uuid", .uuid) { .uuid($0.uuid) },
            scalar("decimal", .decimal) { .decimal($0.decimal) },
            optional("optBool", .bool) { $0.optBool.map(MirrorValue.bool) },
            optional("optInt", .int) { $0.optInt.map { .int(Int64($0)) } },
            optional("optInt8", .int, bits: 8) { $0.optInt8.map { .int(Int64($0)) } },
            optional("optInt16", .int, bits: 16) { $0.optInt16.map { .int(Int64($0)) } },
            optional("optInt32", .int, bits: 32) { $0.optInt32.map { .int(Int64($0)) } },
            optional("optInt64", .int) { $0.optInt64.map { .int($0) } },
            optional("optFloat", .float) { $0.optFloat.map(MirrorValue.float) },
            optional("optDouble", .double) { $0.optDouble.map(MirrorValue.double) },
            optional("optString", .string) { $0.optString.map(MirrorValue.string) },
            optional("optData", .data) { $0.optData.map(MirrorValue.data) },
            optional("optDate", .date) { $0.optDate.map(MirrorValue.date) },
            optional("optObjectId", .objectId) { $0.optObjectId.map(MirrorValue.objectId) },
            optional("optUUID", .uuid) { $0.optUUID.map(MirrorValue.uuid) },
            optional("optDecimal", .decimal) { $0.optDecimal.map(MirrorValue.decimal) },
            QDProperty(name: "owner", kind: .link(.owner), link: { owners[$0] }),
            QDProperty(name: "friends", kind: .links(.owner), links: { friends[$0] }),
            values("ints", .int) { $0.ints.map { .int(Int64($0)) } },
            values("doubles", .double) { $0.doubles.map(MirrorValue.double) },
            values("strings", .string) { $0.strings.map(MirrorValue.string) },
            values("optStrings", .string, nullable: true) { $0.optStrings.map { $0.map(MirrorValue.string) ?? .null } },
            values("dates", .date) { $0.dates.map(MirrorValue.date) },
            values("intSet", .int) { $0.intSet.map { .int(Int64($0)) } },
            values("stringSet", .string) { $0.stringSet.map(MirrorValue.string) },
            QDProperty(name: "scores", kind: .map(.int), entries: { scores[$0] }),
        ]
    }

    /// QDItem's custom-persistable properties as their persisted values. They are not among `properties(of:)`, which
    /// the general generator draws from: their own test (QueryDifferentialTests) spells their constants as the
    /// custom types too, and leaving them out keeps the general queries of every seed as they were.
    func makeCustomItemProperties() -> [QDProperty] {
        let prices = items.map { MirrorValue.int(Int64($0.price)) }
        let labels = items.map { $0.label.map(MirrorValue.string) ?? .null }
        return [
            QDProperty(name: "price", kind: .scalar(.int, nullable: false), scalar: { prices[$0] }),
            QDProperty(name: "label", kind: .scalar(.string, nullable: true), scalar: { labels[$0] }),
        ]
    }

    func target(of property: QDProperty) -> QDClass? {
        switch property.kind {
        case .link(let target), .links(let target): return target
        default: return nil
        }
    }

    /// A short description of the properties `names` of one object, for failure messages.
    func describe(_ type: QDClass, _ index: Int, properties names: Set<String>) -> String {
        var parts: [String] = []
        let described = type == .item ? properties(of: type) + customItemProperties : properties(of: type)
        for property in described where property.name == "id" || names.contains(property.name) {
            let text: String
            switch property.kind {
            case .scalar: text = property.scalar(index).description
            case .link: text = property.link(index).map { "\(type == .item ? "owner" : "item")#\($0)" } ?? "nil"
            case .links: text = "\(property.links(index))"
            case .values: text = "\(property.values(index))"
            case .map: text = "[" + property.entries(index).map { "\($0.key.debugDescription): \($0.value)" }
                .joined(separator: ", ") + "]"
            }
            parts.append("\(property.name)=\(text)")
        }
        return "\(type.rawValue)(" + parts.joined(separator: ", ") + ")"
    }
}

// MARK: - Query structure

enum QDStep {
    case property(String)
    /// `['key']`, or `[%@]` with the key as an argument.
    case subscriptKey(String, asArgument: Bool)
    case allKeys
    case allValues
}

struct QDPath {
    /// A SUBQUERY variable such as `$f`, or nil for the object under test.
    var variable: String?
    var steps: [QDStep]

    init(_ names: [String], variable: String? = nil) {
        self.variable = variable
        self.steps = names.map(QDStep.property)
    }

    init(steps: [QDStep], variable: String?) {
        self.variable = variable
        self.steps = steps
    }

    func appending(_ step: QDStep) -> QDPath { QDPath(steps: steps + [step], variable: variable) }
}

enum QDAggregate: String {
    case min = "@min", max = "@max", sum = "@sum", avg = "@avg"
}

/// A constant: its value and how the query spells it (a literal, or `%@` with an argument).
struct QDConstant {
    var value: MirrorValue
    var literal: String?
    var argument: Any?

    static func literal(_ value: MirrorValue, _ text: String) -> QDConstant { QDConstant(value: value, literal: text) }
    static func argument(_ value: MirrorValue, _ argument: Any) -> QDConstant {
        QDConstant(value: value, literal: nil, argument: argument)
    }
}

indirect enum QDExpression {
    case path(QDPath)
    /// `path.@count` (or `@size`).
    case count(QDPath, spelling: String)
    /// `collection.@op` for values, `collection.@op.property` for objects.
    case aggregate(QDAggregate, QDPath, property: String?)
    case subqueryCount(QDPath, variable: String, QDPredicate)
    case constant(QDConstant)
}

enum QDQuantifier: String {
    case any = "ANY", some = "SOME", all = "ALL", noElement = "NONE"
}

struct QDComparison {
    var quantifier: QDQuantifier?
    var lhs: QDExpression
    var op: MirrorOperator
    /// How the operator is written ("=", "<>", "=<", "IN" for `value IN collection`, …).
    var spelling: String
    var options: MirrorStringOptions
    var rhs: QDExpression
}

indirect enum QDPredicate {
    case constant(Bool)
    case not(QDPredicate)
    case and(QDPredicate, QDPredicate)
    case or(QDPredicate, QDPredicate)
    case comparison(QDComparison)
    case between(QDQuantifier?, QDExpression, lower: QDConstant, upper: QDConstant, asArgument: Bool)
    case inList(QDQuantifier?, QDExpression, [QDConstant], asArgument: Bool)
}

// MARK: - Rendering

/// Renders a query to a predicate-format string and its arguments. Spellings that mean the same (keyword case,
/// `&&`/`AND`, optional parentheses) are chosen at random, so the parser sees all of them.
struct QDRenderer {
    var generator: SeededGenerator
    var text = ""
    var arguments: [Any] = []

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    private mutating func pick(_ choices: [String]) -> String { choices.randomElement(using: &generator)! }

    /// The placeholders the rendered text used for constants, so a test can show every one was exercised.
    var placeholders: Set<String> = []

    static func render(_ predicate: QDPredicate, seed: UInt64) -> (format: String, arguments: [Any]) {
        var placeholders: Set<String> = []
        return render(predicate, seed: seed, placeholders: &placeholders)
    }

    static func render(_ predicate: QDPredicate, seed: UInt64, placeholders: inout Set<String>)
        -> (format: String, arguments: [Any])
    {
        var renderer = QDRenderer(seed: seed)
        renderer.predicate(predicate)
        placeholders.formUnion(renderer.placeholders)
        return (renderer.text, renderer.arguments)
    }

    mutating func predicate(_ predicate: QDPredicate) {
        switch predicate {
        case .constant(let value):
            text += value ? pick(["TRUEPREDICATE", "truepredicate"]) : pick(["FALSEPREDICATE", "FalsePredicate"])
        case .not(let operand):
            text += pick(["NOT ", "not ", "!", "! "])
            parenthesized(operand, required: !Self.isAtom(operand))
        case .and(let left, let right):
            parenthesized(left, required: Self.isOr(left))
            text += pick([" AND ", " and ", " && ", "&&"])
            parenthesized(right, required: Self.isOr(right) || Self.isAnd(right))
        case .or(let left, let right):
            parenthesized(left, required: false)
            text += pick([" OR ", " or ", " || ", "||"])
            parenthesized(right, required: Self.isOr(right))
        case .comparison(let comparison):
            if let quantifier = comparison.quantifier { text += quantifier.rawValue + " " }
            expression(comparison.lhs)
            text += " " + comparison.spelling + comparison.options.spelling + " "
            expression(comparison.rhs)
        case .between(let quantifier, let value, let lower, let upper, let asArgument):
            if let quantifier { text += quantifier.rawValue + " " }
            expression(value)
            text += pick([" BETWEEN ", " between "])
            if asArgument {
                text += "%@"
                arguments.append([lower.argument!, upper.argument!])
            } else {
                text += "{"
                constant(lower)
                text += ", "
                constant(upper)
                text += "}"
            }
        case .inList(let quantifier, let value, let constants, let asArgument):
            if let quantifier { text += quantifier.rawValue + " " }
            expression(value)
            text += pick([" IN ", " in "])
            if asArgument {
                text += "%@"
                arguments.append(constants.map { $0.argument! })
            } else {
                text += "{"
                for (index, item) in constants.enumerated() {
                    if index > 0 { text += pick([", ", ","]) }
                    constant(item)
                }
                text += "}"
            }
        }
    }

    private static func isAtom(_ predicate: QDPredicate) -> Bool {
        switch predicate {
        case .and, .or: return false
        default: return true
        }
    }

    private static func isOr(_ predicate: QDPredicate) -> Bool { if case .or = predicate { return true } else { return false } }
    private static func isAnd(_ predicate: QDPredicate) -> Bool { if case .and = predicate { return true } else { return false } }

    /// Wraps `predicate` in parentheses when precedence requires it, and sometimes when it does not.
    private mutating func parenthesized(_ predicate: QDPredicate, required: Bool) {
        let wrap = required || (!Self.isAtom(predicate) && Bool.random(using: &generator))
            || Int.random(in: 0 ..< 10, using: &generator) == 0
        if wrap { text += "(" }
        self.predicate(predicate)
        if wrap { text += ")" }
    }

    mutating func expression(_ expression: QDExpression) {
        switch expression {
        case .path(let path): self.path(path)
        case .count(let path, let spelling):
            self.path(path)
            text += "." + spelling
        case .aggregate(let op, let path, let property):
            self.path(path)
            text += "." + op.rawValue
            if let property { text += "." + property }
        case .subqueryCount(let collection, let variable, let predicate):
            text += pick(["SUBQUERY(", "subquery("])
            path(collection)
            text += ", \(variable), "
            self.predicate(predicate)
            text += ").@count"
        case .constant(let constant): self.constant(constant)
        }
    }

    mutating func path(_ path: QDPath) {
        var first = true
        if let variable = path.variable {
            text += variable
            first = false
        }
        for step in path.steps {
            switch step {
            case .property(let name):
                text += (first ? "" : ".") + name
            case .subscriptKey(let key, let asArgument):
                if asArgument {
                    text += "[%@]"
                    arguments.append(key)
                } else {
                    text += "[" + QDRenderer.quoted(key, &generator) + "]"
                }
            case .allKeys: text += ".@allKeys"
            case .allValues: text += ".@allValues"
            }
            first = false
        }
    }

    mutating func constant(_ constant: QDConstant) {
        if let literal = constant.literal {
            text += literal
        } else {
            let placeholder = placeholder(for: constant.argument!)
            placeholders.insert(placeholder)
            text += placeholder
            arguments.append(constant.argument!)
        }
    }

    /// The query as RealmSwift code would build it with NSPredicates: AND, OR and NOT as NSCompoundPredicates
    /// (chains of one kind flattened into one compound of several subpredicates), constants as
    /// `NSPredicate(value:)`, and every other part as `NSPredicate(format:argumentArray:)` of its rendered text.
    static func nsPredicate(_ predicate: QDPredicate, seed: UInt64, placeholders: inout Set<String>) -> NSPredicate {
        var part = 0
        func next() -> UInt64 { part += 1; return SeededGenerator.hash(seed, UInt64(part)) }
        func chain(_ predicate: QDPredicate, and: Bool) -> [QDPredicate] {
            switch predicate {
            case .and(let left, let right) where and: return chain(left, and: true) + chain(right, and: true)
            case .or(let left, let right) where !and: return chain(left, and: false) + chain(right, and: false)
            default: return [predicate]
            }
        }
        switch predicate {
        case .constant(let value):
            return NSPredicate(value: value)
        case .and:
            return NSCompoundPredicate(andPredicateWithSubpredicates: chain(predicate, and: true).map {
                nsPredicate($0, seed: next(), placeholders: &placeholders)
            })
        case .or:
            return NSCompoundPredicate(orPredicateWithSubpredicates: chain(predicate, and: false).map {
                nsPredicate($0, seed: next(), placeholders: &placeholders)
            })
        case .not(let operand):
            return NSCompoundPredicate(notPredicateWithSubpredicate: nsPredicate(operand, seed: next(), placeholders: &placeholders))
        case .comparison, .between, .inList:
            let (format, arguments) = render(predicate, seed: seed, placeholders: &placeholders)
            return NSPredicate(format: format, argumentArray: arguments)
        }
    }

    /// `%@`, or at random a printf conversion that takes the argument with the same meaning (NSPredicate's
    /// grammar, which RealmSwift's queries inherit): every conversion of FormatSpecifier.swift is drawn.
    private mutating func placeholder(for argument: Any) -> String {
        guard Int.random(in: 0 ..< 3, using: &generator) > 0 else { return "%@" }
        var choices: [String]
        switch argument {
        case let integer as any BinaryInteger:
            guard let value = Int64(exactly: integer) else { return "%@" }
            choices = ["%d", "%i", "%ld", "%lld", "%li", "%lli", "%qd", "%jd", "%zd", "%td"]
            if Int16(exactly: value) != nil { choices += ["%hd", "%hi"] }
            if Int8(exactly: value) != nil { choices += ["%hhd", "%hhi"] }
            if value >= 0 {
                choices += ["%u", "%lu", "%llu", "%qu", "%ju", "%zu", "%o", "%x", "%X", "%lx", "%llX"]
                if Int16(exactly: value) != nil { choices += ["%hu", "%hx"] }
                if Int8(exactly: value) != nil { choices += ["%hhu", "%hho"] }
            }
        case is Double:
            choices = ["%f", "%F", "%e", "%E", "%g", "%G", "%a", "%A", "%lf", "%Lf", "%le", "%lg", "%La"]
        case let string as String:
            choices = ["%s", "%S", "%ls"]
            if string.count == 1 { choices += ["%c", "%C", "%lc"] }
        default:
            return "%@"
        }
        return pick(choices)
    }

    /// A string literal in single or double quotes, with escapes for what needs them and, at random, `\u{…}`
    /// escapes for non-ASCII scalars.
    static func quoted(_ string: String, _ generator: inout SeededGenerator) -> String {
        let quote: Character = Bool.random(using: &generator) ? "'" : "\""
        let escapeUnicode = Int.random(in: 0 ..< 4, using: &generator) == 0
        var result = String(quote)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "'" where quote == "'": result += "\\'"
            case "\"" where quote == "\"": result += "\\\""
            default:
                if escapeUnicode && scalar.value >= 0x80 {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        result.append(quote)
        return result
    }
}

// MARK: - Evaluation

/// The object under test and the object bound to the SUBQUERY variable (if any).
struct QDContext {
    var root: Int
    var variable: Int = -1
}

/// Compiles queries to closures over the mirror once, so that testing 10,000 records does not re-walk the query.
struct QDEvaluator {
    let mirror: QDMirror
    let rootClass: QDClass
    /// The SUBQUERY variable in scope and its class.
    var variable: (name: String, type: QDClass)?

    private enum Node {
        case object(Int)
        case nullLink
        case value(MirrorValue)

        var value: MirrorValue {
            switch self {
            case .object(let index): return .object(index)
            case .nullLink: return .null
            case .value(let value): return value
            }
        }
    }

    /// An operand: one value per object, or any number.
    enum Operand {
        case single((QDContext) -> MirrorValue)
        case many((QDContext) -> [MirrorValue])

        func values(_ context: QDContext) -> [MirrorValue] {
            switch self {
            case .single(let read): return [read(context)]
            case .many(let read): return read(context)
            }
        }
    }

    func predicate(_ predicate: QDPredicate) -> (QDContext) -> Bool {
        switch predicate {
        case .constant(let value): return { _ in value }
        case .not(let operand):
            let inner = self.predicate(operand)
            return { !inner($0) }
        case .and(let left, let right):
            let l = self.predicate(left), r = self.predicate(right)
            return { l($0) && r($0) }
        case .or(let left, let right):
            let l = self.predicate(left), r = self.predicate(right)
            return { l($0) || r($0) }
        case .comparison(let comparison):
            return self.comparison(comparison)
        case .between(let quantifier, let value, let lower, let upper, _):
            let operand = expression(value)
            let low = MirrorSemantics.test(.greaterOrEqual, lower.value)
            let high = MirrorSemantics.test(.lessOrEqual, upper.value)
            return quantified(quantifier, operand) { low($0) && high($0) }
        case .inList(let quantifier, let value, let constants, _):
            let operand = expression(value)
            let tests = constants.map { MirrorSemantics.test(.equal, $0.value) }
            return quantified(quantifier, operand) { value in tests.contains { $0(value) } }
        }
    }

    private func quantified(_ quantifier: QDQuantifier?, _ operand: Operand,
                            _ test: @escaping (MirrorValue) -> Bool) -> (QDContext) -> Bool {
        switch (operand, quantifier) {
        case (.single(let read), _): return { test(read($0)) }
        case (.many(let read), .all?): return { read($0).allSatisfy(test) }
        case (.many(let read), .noElement?): return { !read($0).contains(where: test) }
        case (.many(let read), _): return { read($0).contains(where: test) }
        }
    }

    private func comparison(_ comparison: QDComparison) -> (QDContext) -> Bool {
        let lhs = expression(comparison.lhs), rhs = expression(comparison.rhs)
        let op = comparison.op, options = comparison.options
        if case .constant(let constant) = comparison.rhs {
            let test = MirrorSemantics.test(op, constant.value, options)
            return quantified(comparison.quantifier, lhs, test)
        }
        switch rhs {
        case .single(let right):
            if case .single(let left) = lhs {
                return { context in MirrorSemantics.holds(left(context), op, right(context), options) }
            }
            guard case .many(let left) = lhs else { fatalError() }
            let quantifier = comparison.quantifier
            return { context in
                let value = right(context)
                let test = { (element: MirrorValue) in MirrorSemantics.holds(element, op, value, options) }
                switch quantifier {
                case .all?: return left(context).allSatisfy(test)
                case .noElement?: return !left(context).contains(where: test)
                default: return left(context).contains(where: test)
                }
            }
        case .many(let right):
            // `value IN collection` (or a comparison with a to-many right side): true when it holds for any element.
            let quantifier = comparison.quantifier
            return { context in
                let elements = right(context)
                let test = { (value: MirrorValue) in elements.contains { MirrorSemantics.holds(value, op, $0, options) } }
                switch (lhs, quantifier) {
                case (.single(let read), _): return test(read(context))
                case (.many(let read), .all?): return read(context).allSatisfy(test)
                case (.many(let read), .noElement?): return !read(context).contains(where: test)
                case (.many(let read), _): return read(context).contains(where: test)
                }
            }
        }
    }

    func expression(_ expression: QDExpression) -> Operand {
        switch expression {
        case .constant(let constant):
            let value = constant.value
            return .single { _ in value }
        case .path(let path):
            return self.path(path)
        case .count(let path, _):
            let read = nodes(path)
            return .single { .int(Int64(read($0).count)) }
        case .aggregate(let op, let path, let property):
            let full = property.map { path.appending(.property($0)) } ?? path
            let read = nodes(full)
            let isInteger = valueType(of: full) == .int
            return .single { context in
                Self.aggregate(op, read(context).map(\.value), isInteger: isInteger)
            }
        case .subqueryCount(let collection, let name, let predicate):
            let read = nodes(collection)
            let elementType = endClass(of: collection)
            var inner = QDEvaluator(mirror: mirror, rootClass: rootClass)
            inner.variable = (name, elementType)
            let test = inner.predicate(predicate)
            return .single { context in
                var count = 0
                for node in read(context) {
                    guard case .object(let index) = node else { continue }
                    if test(QDContext(root: context.root, variable: index)) { count += 1 }
                }
                return .int(Int64(count))
            }
        }
    }

    /// @min/@max skip nulls and NaN and are nil without values; @sum is 0 without values (integers wrap on
    /// overflow, as the engine's Int64 sums do); @avg is nil without values.
    static func aggregate(_ op: QDAggregate, _ values: [MirrorValue], isInteger: Bool) -> MirrorValue {
        let present = values.filter { !$0.isNull }
        switch op {
        case .min, .max:
            var best: MirrorValue?
            for value in present where !value.isNaN {
                guard let current = best, let sign = MirrorSemantics.order(value, current) else {
                    if best == nil { best = value }
                    continue
                }
                if op == .min ? sign < 0 : sign > 0 { best = value }
            }
            return best ?? .null
        case .sum:
            if isInteger {
                var sum: Int64 = 0
                for case .int(let value) in present { sum &+= value }
                return .int(sum)
            }
            return .double(present.reduce(0.0) { $0 + (Self.double($1) ?? 0) })
        case .avg:
            guard !present.isEmpty else { return .null }
            if isInteger {
                var sum = Int128(0)
                for case .int(let value) in present { sum += Int128(value) }
                return .double(Double(sum) / Double(present.count))
            }
            return .double(present.reduce(0.0) { $0 + (Self.double($1) ?? 0) } / Double(present.count))
        }
    }

    static func double(_ value: MirrorValue) -> Double? {
        switch value {
        case .int(let value): return Double(value)
        case .float(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    // MARK: Paths

    private func startClass(_ path: QDPath) -> QDClass {
        if let name = path.variable {
            guard let variable, variable.name == name else { fatalError("variable \(name) is not in scope") }
            return variable.type
        }
        return rootClass
    }

    /// The class a path of links ends in.
    func endClass(of path: QDPath) -> QDClass {
        var type = startClass(path)
        for case .property(let name) in path.steps {
            let property = mirror.property(name, of: type)
            guard let target = mirror.target(of: property) else { break }
            type = target
        }
        return type
    }

    func valueType(of path: QDPath) -> QDValueType? {
        var type = startClass(path)
        var result: QDValueType?
        for case .property(let name) in path.steps {
            let property = mirror.property(name, of: type)
            if let target = mirror.target(of: property) { type = target } else { result = property.valueType }
        }
        return result
    }

    /// Whether the path reaches any number of values (it passes a list, set, map or linking objects).
    func isMany(_ path: QDPath) -> Bool {
        var type = startClass(path)
        var many = false
        for (index, step) in path.steps.enumerated() {
            switch step {
            case .property(let name):
                let property = mirror.property(name, of: type)
                switch property.kind {
                case .links, .values: many = true
                case .map:
                    let next = index + 1 < path.steps.count ? path.steps[index + 1] : nil
                    if case .subscriptKey? = next {} else { many = true }
                default: break
                }
                if let target = mirror.target(of: property) { type = target }
            default: break
            }
        }
        return many
    }

    private func path(_ path: QDPath) -> Operand {
        // The common case, a property of the object itself, reads it directly.
        if path.variable == nil, path.steps.count == 1, case .property(let name) = path.steps[0] {
            let property = mirror.property(name, of: rootClass)
            if case .scalar = property.kind {
                let read = property.scalar
                return .single { read($0.root) }
            }
        }
        let read = nodes(path)
        if isMany(path) { return .many { read($0).map(\.value) } }
        return .single { read($0).first?.value ?? .null }
    }

    /// The nodes a path reaches from the context's object: objects, null links and values.
    private func nodes(_ path: QDPath) -> (QDContext) -> [Node] {
        let usesVariable = path.variable != nil
        var read: (QDContext) -> [Node] = { [.object(usesVariable ? $0.variable : $0.root)] }
        var type = startClass(path)
        var index = 0
        while index < path.steps.count {
            guard case .property(let name) = path.steps[index] else { fatalError("a path must start with a property") }
            let property = mirror.property(name, of: type)
            let previous = read
            let next = index + 1 < path.steps.count ? path.steps[index + 1] : nil
            switch property.kind {
            case .scalar:
                let get = property.scalar
                read = { context in
                    previous(context).map { node in
                        switch node {
                        case .object(let object): return .value(get(object))
                        case .nullLink, .value: return .value(.null)
                        }
                    }
                }
            case .link(let target):
                let get = property.link
                read = { context in
                    previous(context).map { node in
                        if case .object(let object) = node, let linked = get(object) { return .object(linked) }
                        return .nullLink
                    }
                }
                type = target
            case .links(let target):
                let get = property.links
                read = { context in
                    previous(context).flatMap { node -> [Node] in
                        guard case .object(let object) = node else { return [] }
                        return get(object).map(Node.object)
                    }
                }
                type = target
            case .values:
                let get = property.values
                read = { context in
                    previous(context).flatMap { node -> [Node] in
                        guard case .object(let object) = node else { return [] }
                        return get(object).map(Node.value)
                    }
                }
            case .map:
                let get = property.entries
                switch next {
                case .subscriptKey(let key, _)?:
                    read = { context in
                        previous(context).map { node in
                            guard case .object(let object) = node else { return .value(.null) }
                            return .value(get(object).first { $0.key.utf8.elementsEqual(key.utf8) }?.value ?? .null)
                        }
                    }
                    index += 1
                case .allKeys?:
                    read = { context in
                        previous(context).flatMap { node -> [Node] in
                            guard case .object(let object) = node else { return [] }
                            return get(object).map { .value(.string(MirrorText($0.key))) }
                        }
                    }
                    index += 1
                default:
                    if case .allValues? = next { index += 1 }
                    read = { context in
                        previous(context).flatMap { node -> [Node] in
                            guard case .object(let object) = node else { return [] }
                            return get(object).map { .value($0.value) }
                        }
                    }
                }
            }
            index += 1
        }
        return read
    }
}

extension QDPredicate {
    /// The names of the root object's properties the query reads (for failure messages).
    var propertyNames: Set<String> {
        switch self {
        case .constant: return []
        case .not(let operand): return operand.propertyNames
        case .and(let left, let right), .or(let left, let right): return left.propertyNames.union(right.propertyNames)
        case .comparison(let comparison): return comparison.lhs.propertyNames.union(comparison.rhs.propertyNames)
        case .between(_, let value, _, _, _), .inList(_, let value, _, _): return value.propertyNames
        }
    }
}

extension QDExpression {
    var propertyNames: Set<String> {
        func first(_ path: QDPath) -> Set<String> {
            guard path.variable == nil, case .property(let name)? = path.steps.first else { return [] }
            return [name]
        }
        switch self {
        case .path(let path), .count(let path, _), .aggregate(_, let path, _): return first(path)
        case .subqueryCount(let path, _, _): return first(path)
        case .constant: return []
        }
    }
}
