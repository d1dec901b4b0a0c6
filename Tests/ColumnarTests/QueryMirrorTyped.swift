// QueryMirrorTyped: the differential test's queries in the typed builder's form (`where { $0.int8 > 3 }`).
//
// A generated query (QueryMirrorQuery.swift) is translated into a `(Query<QDItem>) -> Query<Bool>` closure when
// every part of it has a typed spelling: comparisons of the item's own properties, of its owner's and of its
// friends' (ANY) with constants of the property's own type, string operators with their options, BETWEEN as
// `contains(lower...upper)`, IN as `in(_:)`, `value IN list` as `contains(_:)`, counts, aggregates, map subscripts,
// keys and values, SUBQUERY as `(condition).count`, and AND/OR/NOT; the custom-persistable properties compare
// with constants of their custom types (QDCents, QDLabel), and through `persistableValue` where the builder has
// no operator for the custom type. Anything else (ALL and NONE, TRUEPREDICATE, constants of another numeric type,
// two properties) makes the translation nil, and the test draws another query.
// The mirror evaluates the same query structure, so the typed form is checked against the same answer.

import Columnar
import Foundation

enum QDTyped {
    typealias Build = (Query<QDItem>) -> Query<Bool>
    /// A comparison of one property (reached from the item) with a constant, or nil when it has no typed form.
    typealias Leaf = (Query<QDItem>, MirrorOperator, MirrorValue, MirrorStringOptions) -> Query<Bool>?
    /// `property.contains(lower...upper)`, or nil.
    typealias RangeLeaf = (Query<QDItem>, MirrorValue, MirrorValue) -> Query<Bool>?
    /// `property.in(values)`, or nil.
    typealias InLeaf = (Query<QDItem>, [MirrorValue]) -> Query<Bool>?

    static func translate(_ predicate: QDPredicate) -> Build? {
        switch predicate {
        case .constant: return nil
        case .not(let operand):
            guard let inner = translate(operand) else { return nil }
            return { !inner($0) }
        case .and(let left, let right):
            guard let l = translate(left), let r = translate(right) else { return nil }
            return { l($0) && r($0) }
        case .or(let left, let right):
            guard let l = translate(left), let r = translate(right) else { return nil }
            return { l($0) || r($0) }
        case .comparison(let comparison):
            return translate(comparison, variable: nil)
        case .between(nil, .path(let path), let lower, let upper, _):
            guard path.variable == nil, path.steps.count == 1, case .property(let name) = path.steps[0],
                  let leaf = ranges[name], let sign = MirrorSemantics.order(lower.value, upper.value), sign <= 0,
                  !lower.value.isNaN, !upper.value.isNaN else { return nil }
            let low = lower.value, high = upper.value
            return check { leaf($0, low, high) }
        case .inList(nil, .path(let path), let constants, _):
            guard path.variable == nil, path.steps.count == 1, case .property(let name) = path.steps[0],
                  let leaf = memberships[name] else { return nil }
            let values = constants.map(\.value)
            return check { leaf($0, values) }
        default:
            return nil
        }
    }

    /// A comparison; inside SUBQUERY(friends, variable, …), paths from the variable are the friends' properties.
    private static func translate(_ comparison: QDComparison, variable: String?) -> Build? {
        guard comparison.quantifier == nil || comparison.quantifier == .any || comparison.quantifier == .some else {
            return nil
        }
        var lhs = comparison.lhs, rhs = comparison.rhs, op = comparison.op
        let options = comparison.options
        // `value IN list` is `list.contains(value)`.
        if comparison.spelling.uppercased() == "IN" {
            guard case .constant(let constant) = lhs, case .path(let path) = rhs, path.variable == nil,
                  path.steps.count == 1, case .property(let name) = path.steps[0],
                  let leaf = listContains[name] else { return nil }
            return check { leaf($0, constant.value) }
        }
        if case .constant = lhs {
            guard MirrorOperator.ordering.contains(op) else { return nil }
            swap(&lhs, &rhs)
            op = op.flipped
        }
        guard case .constant(let constant) = rhs else { return nil }
        let value = constant.value
        switch lhs {
        case .path(let path):
            guard let leaf = self.leaf(for: path, variable: variable) else { return nil }
            return check { leaf($0, op, value, options) }
        case .count(let path, _):
            guard path.variable == nil, path.steps.count == 1, case .property(let name) = path.steps[0],
                  let count = counts[name] else { return nil }
            return check { numeric(count, integer)($0, op, value, options) }
        case .aggregate(let aggregate, let path, let property):
            guard path.variable == nil, path.steps.count == 1, case .property(let name) = path.steps[0] else { return nil }
            let key = name + "." + aggregate.rawValue + (property.map { "." + $0 } ?? "")
            guard let leaf = aggregates[key] else { return nil }
            return check { leaf($0, op, value, options) }
        case .subqueryCount(let collection, let name, let inner):
            guard variable == nil, collection.variable == nil, collection.steps.count == 1,
                  case .property("friends") = collection.steps[0], let condition = translateInner(inner, variable: name)
            else { return nil }
            return check { numeric({ condition($0).count }, integer)($0, op, value, options) }
        case .constant:
            return nil
        }
    }

    /// A predicate inside SUBQUERY(friends, variable, …): every leaf must read the variable's properties.
    private static func translateInner(_ predicate: QDPredicate, variable: String) -> Build? {
        switch predicate {
        case .not(let operand):
            guard let inner = translateInner(operand, variable: variable) else { return nil }
            return { !inner($0) }
        case .and(let left, let right):
            guard let l = translateInner(left, variable: variable), let r = translateInner(right, variable: variable)
            else { return nil }
            return { l($0) && r($0) }
        case .or(let left, let right):
            guard let l = translateInner(left, variable: variable), let r = translateInner(right, variable: variable)
            else { return nil }
            return { l($0) || r($0) }
        case .comparison(let comparison) where comparison.quantifier == nil:
            if case .path(let path) = comparison.lhs, path.variable != variable { return nil }
            if case .path(let path) = comparison.rhs, path.variable != variable { return nil }
            return translate(comparison, variable: variable)
        default:
            return nil
        }
    }

    /// Builds the closure once on a probe query: nil when a part has no typed form.
    private static func check(_ build: @escaping (Query<QDItem>) -> Query<Bool>?) -> Build? {
        guard build(Query<QDItem>._constructForTesting()) != nil else { return nil }
        return { build($0)! }
    }

    private static func leaf(for path: QDPath, variable: String?) -> Leaf? {
        let names = path.steps.map { step -> String in
            switch step {
            case .property(let name): return name
            case .subscriptKey(let key, _): return "[\(key)]"
            case .allKeys: return "@allKeys"
            case .allValues: return "@allValues"
            }
        }
        if let variable {
            guard path.variable == variable, names.count == 1 else { return nil }
            return friendLeaves[names[0]]
        }
        guard path.variable == nil else { return nil }
        switch names.count {
        case 1: return itemLeaves[names[0]] ?? listLeaves[names[0]] ?? (names[0] == "scores" ? scoreValues : nil)
        case 2 where names[0] == "owner": return ownerLeaves[names[1]]
        case 2 where names[0] == "friends": return friendLeaves[names[1]]
        case 2 where names[0] == "scores":
            switch path.steps[1] {
            case .subscriptKey(let key, _):
                return numeric({ $0.scores[key] }, optional(integer))
            case .allKeys: return text { $0.scores.keys }
            case .allValues: return scoreValues
            default: return nil
            }
        default: return nil
        }
    }

    // MARK: Constants

    /// The constant as a value of the property's type, or nil when it is not one.
    static func integer<I: FixedWidthInteger>(_ value: MirrorValue) -> I? {
        if case .int(let integer) = value { return I(exactly: integer) }
        return nil
    }

    static func float(_ value: MirrorValue) -> Float? {
        switch value {
        case .float(let float): return float
        case .double(let double): return Double(Float(double)) == double ? Float(double) : nil
        default: return nil
        }
    }

    static func double(_ value: MirrorValue) -> Double? {
        switch value {
        case .double(let double): return double
        case .float(let float): return Double(float)
        default: return nil
        }
    }

    static func string(_ value: MirrorValue) -> String? { if case .string(let text) = value { return text.string } else { return nil } }
    static func data(_ value: MirrorValue) -> Data? { if case .data(let bytes) = value { return Data(bytes) } else { return nil } }
    static func date(_ value: MirrorValue) -> Date? {
        if case .date(let seconds) = value { return Date(timeIntervalSince1970: seconds) } else { return nil }
    }
    static func bool(_ value: MirrorValue) -> Bool? { if case .bool(let bool) = value { return bool } else { return nil } }
    static func decimal(_ value: MirrorValue) -> Decimal128? { if case .decimal(let d) = value { return d } else { return nil } }
    static func objectId(_ value: MirrorValue) -> ObjectId? {
        if case .objectId(let bytes) = value { return QDMirror.objectId(bytes) } else { return nil }
    }
    static func uuid(_ value: MirrorValue) -> UUID? { if case .uuid(let bytes) = value { return QDMirror.uuid(bytes) } else { return nil } }
    static func cents(_ value: MirrorValue) -> QDCents? { (integer(value) as Int?).map(QDCents.init(_:)) }
    static func label(_ value: MirrorValue) -> QDLabel? { string(value).map(QDLabel.init(unchecked:)) }

    /// The conversion for an optional property: null is `nil`.
    static func optional<V>(_ convert: @escaping (MirrorValue) -> V?) -> (MirrorValue) -> V?? {
        { value in value.isNull ? .some(nil) : convert(value).map { .some($0) } }
    }

    // MARK: Comparisons by kind

    static func numeric<V: _QueryNumeric>(_ project: @escaping (Query<QDItem>) -> Query<V>,
                                          _ convert: @escaping (MirrorValue) -> V?) -> Leaf {
        { q, op, value, options in
            guard options == .exact, let constant = convert(value) else { return nil }
            let x = project(q)
            switch op {
            case .equal: return x == constant
            case .notEqual: return x != constant
            case .less: return x < constant
            case .lessOrEqual: return x <= constant
            case .greater: return x > constant
            case .greaterOrEqual: return x >= constant
            default: return nil
            }
        }
    }

    static func equality<V>(_ project: @escaping (Query<QDItem>) -> Query<V>, _ convert: @escaping (MirrorValue) -> V?)
        -> Leaf {
        { q, op, value, options in
            guard options == .exact, let constant = convert(value) else { return nil }
            switch op {
            case .equal: return project(q) == constant
            case .notEqual: return project(q) != constant
            default: return nil
            }
        }
    }

    static func text<V: _QueryString>(_ project: @escaping (Query<QDItem>) -> Query<V>,
                                      _ convert: @escaping (MirrorValue) -> V?) -> Leaf {
        { q, op, value, options in
            guard let constant = convert(value) else { return nil }
            var flags: StringOptions = []
            if options.caseInsensitive { flags.insert(.caseInsensitive) }
            if options.diacriticInsensitive { flags.insert(.diacriticInsensitive) }
            let x = project(q)
            switch op {
            case .equal: return x.equals(constant, options: flags)
            case .notEqual: return x.notEquals(constant, options: flags)
            case .beginsWith: return x.starts(with: constant, options: flags)
            case .endsWith: return x.ends(with: constant, options: flags)
            case .contains: return x.contains(constant, options: flags)
            case .like: return options.diacriticInsensitive ? nil : x.like(constant, caseInsensitive: options.caseInsensitive)
            case .less where flags.isEmpty: return x < constant
            case .lessOrEqual where flags.isEmpty: return x <= constant
            case .greater where flags.isEmpty: return x > constant
            case .greaterOrEqual where flags.isEmpty: return x >= constant
            default: return nil
            }
        }
    }

    static func text(_ project: @escaping (Query<QDItem>) -> Query<String>) -> Leaf { text(project, string) }

    static func binary<V: _QueryBinary>(_ project: @escaping (Query<QDItem>) -> Query<V>,
                                        _ convert: @escaping (MirrorValue) -> V?) -> Leaf {
        { q, op, value, options in
            guard options == .exact, let constant = convert(value) else { return nil }
            let x = project(q)
            switch op {
            case .equal: return x == constant
            case .notEqual: return x != constant
            case .beginsWith: return x.starts(with: constant)
            case .endsWith: return x.ends(with: constant)
            case .contains: return x.contains(constant)
            case .less: return x < constant
            case .lessOrEqual: return x <= constant
            case .greater: return x > constant
            case .greaterOrEqual: return x >= constant
            default: return nil
            }
        }
    }

    /// A custom-persistable property compared with constants of its custom type (`$0.price > QDCents(5)`).
    static func custom<V: _CustomPersistable>(_ project: @escaping (Query<QDItem>) -> Query<V>,
                                              _ convert: @escaping (MirrorValue) -> V?) -> Leaf
        where V.PersistedType: _QueryOrdered {
        { q, op, value, options in
            guard options == .exact, let constant = convert(value) else { return nil }
            let x = project(q)
            switch op {
            case .equal: return x == constant
            case .notEqual: return x != constant
            case .less: return x < constant
            case .lessOrEqual: return x <= constant
            case .greater: return x > constant
            case .greaterOrEqual: return x >= constant
            default: return nil
            }
        }
    }

    /// The optional label: equality with a QDLabel (or nil); the builder orders an optional custom type only
    /// through its persisted value, so ordering, string operators and options go through `persistableValue`.
    nonisolated(unsafe) static let labelLeaf: Leaf = { q, op, value, options in
        if options == .exact, op == .equal || op == .notEqual {
            return equality({ $0.label }, optional(label))(q, op, value, options)
        }
        return text({ $0.label.persistableValue }, optional(string))(q, op, value, options)
    }

    // MARK: The properties

    nonisolated(unsafe) static let itemLeaves: [String: Leaf] = [
        "id": numeric({ $0.id }, integer),
        "bool": equality({ $0.bool }, bool),
        "int": numeric({ $0.int }, integer),
        "int8": numeric({ $0.int8 }, integer),
        "int16": numeric({ $0.int16 }, integer),
        "int32": numeric({ $0.int32 }, integer),
        "int64": numeric({ $0.int64 }, integer),
        "float": numeric({ $0.float }, float),
        "double": numeric({ $0.double }, double),
        "string": text({ $0.string }, string),
        "data": binary({ $0.data }, data),
        "date": numeric({ $0.date }, date),
        "objectId": equality({ $0.objectId }, objectId),
        "uuid": equality({ $0.uuid }, uuid),
        "decimal": numeric({ $0.decimal }, decimal),
        "optBool": equality({ $0.optBool }, optional(bool)),
        "optInt": numeric({ $0.optInt }, optional(integer)),
        "optInt8": numeric({ $0.optInt8 }, optional(integer)),
        "optInt16": numeric({ $0.optInt16 }, optional(integer)),
        "optInt32": numeric({ $0.optInt32 }, optional(integer)),
        "optInt64": numeric({ $0.optInt64 }, optional(integer)),
        "optFloat": numeric({ $0.optFloat }, optional(float)),
        "optDouble": numeric({ $0.optDouble }, optional(double)),
        "optString": text({ $0.optString }, optional(string)),
        "optData": binary({ $0.optData }, optional(data)),
        "optDate": numeric({ $0.optDate }, optional(date)),
        "optObjectId": equality({ $0.optObjectId }, optional(objectId)),
        "optUUID": equality({ $0.optUUID }, optional(uuid)),
        "optDecimal": numeric({ $0.optDecimal }, optional(decimal)),
        "price": custom({ $0.price }, cents),
        "label": labelLeaf,
    ]

    nonisolated(unsafe) static let ownerLeaves: [String: Leaf] = [
        "id": numeric({ $0.owner.id }, integer),
        "name": text({ $0.owner.name }, string),
        "age": numeric({ $0.owner.age }, optional(integer)),
        "score": numeric({ $0.owner.score }, double),
        "city": text({ $0.owner.city }, optional(string)),
    ]

    /// The friends' properties: ANY in a comparison, the variable's property inside SUBQUERY(friends, …).
    nonisolated(unsafe) static let friendLeaves: [String: Leaf] = [
        "id": numeric({ $0.friends.id }, integer),
        "name": text({ $0.friends.name }, string),
        "age": numeric({ $0.friends.age }, optional(integer)),
        "score": numeric({ $0.friends.score }, double),
        "city": text({ $0.friends.city }, optional(string)),
    ]

    /// Lists and sets of values: ANY element.
    nonisolated(unsafe) static let listLeaves: [String: Leaf] = [
        "ints": numericList({ $0.ints }, integer),
        "intSet": numericList({ $0.intSet }, integer),
        "doubles": numericList({ $0.doubles }, double),
        "dates": numericList({ $0.dates }, date),
        "strings": equality({ $0.strings }, string),
        "stringSet": equality({ $0.stringSet }, string),
    ]

    nonisolated(unsafe) static let scoreValues: Leaf = numeric({ $0.scores.values }, optional(integer))

    static func numericList<C: _QueryCollection>(_ project: @escaping (Query<QDItem>) -> Query<C>,
                                                 _ convert: @escaping (MirrorValue) -> C.Element?) -> Leaf
        where C.Element: _QueryNumeric {
        { q, op, value, options in
            guard options == .exact, let constant = convert(value) else { return nil }
            let x = project(q)
            switch op {
            case .equal: return x == constant
            case .notEqual: return x != constant
            case .less: return x < constant
            case .lessOrEqual: return x <= constant
            case .greater: return x > constant
            case .greaterOrEqual: return x >= constant
            default: return nil
            }
        }
    }

    static func equality<C: _QueryCollection>(_ project: @escaping (Query<QDItem>) -> Query<C>,
                                              _ convert: @escaping (MirrorValue) -> C.Element?) -> Leaf {
        { q, op, value, options in
            guard options == .exact, let constant = convert(value) else { return nil }
            switch op {
            case .equal: return project(q) == constant
            case .notEqual: return project(q) != constant
            default: return nil
            }
        }
    }

    nonisolated(unsafe) static let listContains: [String: (Query<QDItem>, MirrorValue) -> Query<Bool>?] = [
        "ints": { q, value in integer(value).map { q.ints.contains($0) } },
        "intSet": { q, value in integer(value).map { q.intSet.contains($0) } },
        "doubles": { q, value in double(value).map { q.doubles.contains($0) } },
        "dates": { q, value in date(value).map { q.dates.contains($0) } },
        "strings": { q, value in string(value).map { q.strings.contains($0) } },
        "stringSet": { q, value in string(value).map { q.stringSet.contains($0) } },
        "optStrings": { q, value in optional(string)(value).map { q.optStrings.contains($0) } },
    ]

    nonisolated(unsafe) static let counts: [String: (Query<QDItem>) -> Query<Int>] = [
        "friends": { $0.friends.count }, "ints": { $0.ints.count }, "doubles": { $0.doubles.count },
        "strings": { $0.strings.count }, "optStrings": { $0.optStrings.count }, "dates": { $0.dates.count },
        "intSet": { $0.intSet.count }, "stringSet": { $0.stringSet.count }, "scores": { $0.scores.count },
    ]

    /// `collection.@op` and `friends.@op.property`, keyed as the query writes them.
    nonisolated(unsafe) static let aggregates: [String: Leaf] = [
        "ints.@min": numeric({ $0.ints.min }, integer), "ints.@max": numeric({ $0.ints.max }, integer),
        "ints.@sum": numeric({ $0.ints.sum }, integer), "ints.@avg": numeric({ $0.ints.avg }, integer),
        "intSet.@min": numeric({ $0.intSet.min }, integer), "intSet.@max": numeric({ $0.intSet.max }, integer),
        "intSet.@sum": numeric({ $0.intSet.sum }, integer),
        "doubles.@min": numeric({ $0.doubles.min }, double), "doubles.@max": numeric({ $0.doubles.max }, double),
        "doubles.@sum": numeric({ $0.doubles.sum }, double), "doubles.@avg": numeric({ $0.doubles.avg }, double),
        "dates.@min": numeric({ $0.dates.min }, date), "dates.@max": numeric({ $0.dates.max }, date),
        "scores.@min": numeric({ $0.scores.min }, optional(integer)),
        "scores.@max": numeric({ $0.scores.max }, optional(integer)),
        "scores.@sum": numeric({ $0.scores.sum }, optional(integer)),
        "friends.@min.age": numeric({ $0.friends.age.min }, optional(integer)),
        "friends.@max.age": numeric({ $0.friends.age.max }, optional(integer)),
        "friends.@sum.age": numeric({ $0.friends.age.sum }, optional(integer)),
        "friends.@min.id": numeric({ $0.friends.id.min }, integer),
        "friends.@max.id": numeric({ $0.friends.id.max }, integer),
        "friends.@min.score": numeric({ $0.friends.score.min }, double),
        "friends.@max.score": numeric({ $0.friends.score.max }, double),
        "friends.@sum.score": numeric({ $0.friends.score.sum }, double),
        "friends.@avg.score": numeric({ $0.friends.score.avg }, double),
    ]

    static func range<V: Comparable>(_ project: @escaping (Query<QDItem>) -> Query<V>,
                                     _ convert: @escaping (MirrorValue) -> V?) -> RangeLeaf {
        { q, lower, upper in
            guard let low = convert(lower), let high = convert(upper), low <= high else { return nil }
            return project(q).contains(low ... high)
        }
    }

    static func range<V: _QueryOptional>(_ project: @escaping (Query<QDItem>) -> Query<V>,
                                         _ convert: @escaping (MirrorValue) -> V.Wrapped?) -> RangeLeaf
        where V.Wrapped: Comparable {
        { q, lower, upper in
            guard let low = convert(lower), let high = convert(upper), low <= high else { return nil }
            return project(q).contains(low ... high)
        }
    }

    nonisolated(unsafe) static let ranges: [String: RangeLeaf] = [
        "id": range({ $0.id }, integer), "int": range({ $0.int }, integer), "int8": range({ $0.int8 }, integer),
        "int16": range({ $0.int16 }, integer), "int32": range({ $0.int32 }, integer),
        "int64": range({ $0.int64 }, integer), "float": range({ $0.float }, float),
        "double": range({ $0.double }, double), "date": range({ $0.date }, date),
        "string": range({ $0.string }, string), "optInt": range({ $0.optInt }, integer),
        "optInt8": range({ $0.optInt8 }, integer), "optDouble": range({ $0.optDouble }, double),
        "optFloat": range({ $0.optFloat }, float), "optDate": range({ $0.optDate }, date),
        "optString": range({ $0.optString }, string),
        "price": range({ $0.price }, cents), "label": range({ $0.label }, label),
    ]

    static func membership<V>(_ project: @escaping (Query<QDItem>) -> Query<V>,
                              _ convert: @escaping (MirrorValue) -> V?) -> InLeaf {
        { q, values in
            let converted = values.compactMap(convert)
            guard converted.count == values.count else { return nil }
            return project(q).in(converted)
        }
    }

    nonisolated(unsafe) static let memberships: [String: InLeaf] = [
        "id": membership({ $0.id }, integer), "bool": membership({ $0.bool }, bool),
        "int": membership({ $0.int }, integer), "int8": membership({ $0.int8 }, integer),
        "int16": membership({ $0.int16 }, integer), "int64": membership({ $0.int64 }, integer),
        "double": membership({ $0.double }, double), "string": membership({ $0.string }, string),
        "date": membership({ $0.date }, date), "uuid": membership({ $0.uuid }, uuid),
        "objectId": membership({ $0.objectId }, objectId), "optInt": membership({ $0.optInt }, optional(integer)),
        "optString": membership({ $0.optString }, optional(string)),
        "optDate": membership({ $0.optDate }, optional(date)),
        "price": membership({ $0.price }, cents), "label": membership({ $0.label }, optional(label)),
    ]
}
