// QueryMirror: the plain-Swift copy of the differential test's data, and the comparison rules written out once
// more, independently of QueryVM, from the documented semantics (Sources/Columnar/Querying, docs/QueryVM.md):
//
// - null equals null only; `!=` is the negation of `==`; ordering and the string operators are false when either
//   side is null;
// - numbers compare by value (integers exactly, also against doubles); floats and doubles follow IEEE, so NaN is
//   unequal to everything (and `!=` everything);
// - strings compare by their UTF-8 bytes; `[c]` lowercases (Unicode), `[d]` removes combining marks after
//   canonical decomposition; LIKE's `?` is one Unicode scalar and `*` any run, over the whole string;
// - data compares by bytes, ObjectId and UUID by their bytes, dates by time, Decimal128 by value (NaN unordered).
//
// The mirror holds one record per object (QDItemRecord, QDOwnerRecord) and builds the Realm objects from them.
// Values that queries compare are `MirrorValue`s; strings carry their folded forms, computed once per string,
// because a debug build would otherwise spend most of the test lowercasing the same strings again.

import Columnar
import ColumnarTestSupport
import Foundation

// MARK: - Values

/// A string with its UTF-8 bytes, its Unicode scalars and its folded forms (each computed once).
final class MirrorText: CustomStringConvertible {
    let string: String
    let bytes: [UInt8]
    private(set) lazy var scalars: [Unicode.Scalar] = Array(string.unicodeScalars)
    private var folds: [MirrorText?] = [nil, nil, nil]

    init(_ string: String) {
        self.string = string
        self.bytes = Array(string.utf8)
    }

    var description: String { string.debugDescription }

    /// The text with `[c]` (lowercased), `[d]` (combining marks removed after NFD) or both applied.
    func folded(_ options: MirrorStringOptions) -> MirrorText {
        guard options.caseInsensitive || options.diacriticInsensitive else { return self }
        let slot = options.caseInsensitive ? (options.diacriticInsensitive ? 2 : 0) : 1
        if let cached = folds[slot] { return cached }
        var text = string
        if options.diacriticInsensitive {
            var kept = String.UnicodeScalarView()
            for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
                switch scalar.properties.generalCategory {
                case .nonspacingMark, .spacingMark, .enclosingMark: continue  // Unicode's "combining marks" (M*)
                default: kept.append(scalar)
                }
            }
            text = String(kept)
        }
        if options.caseInsensitive { text = text.lowercased() }
        let folded = MirrorText(text)
        folds[slot] = folded
        return folded
    }
}

struct MirrorStringOptions: Equatable {
    var caseInsensitive = false
    var diacriticInsensitive = false

    static let exact = MirrorStringOptions()

    var spelling: String {
        switch (caseInsensitive, diacriticInsensitive) {
        case (false, false): return ""
        case (true, false): return "[c]"
        case (false, true): return "[d]"
        case (true, true): return "[cd]"
        }
    }
}

/// One value as the mirror compares it.
enum MirrorValue: CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(MirrorText)
    case data([UInt8])
    /// Seconds since 1970 (the test's dates are multiples of 1/4 s, exact in a Double and in nanoseconds).
    case date(Double)
    case objectId([UInt8])
    case uuid([UInt8])
    case decimal(Decimal128)
    /// An object (the end of a path through a link), by index in its class's records.
    case object(Int)

    var isNull: Bool { if case .null = self { return true } else { return false } }

    var isNaN: Bool {
        switch self {
        case .float(let value): return value.isNaN
        case .double(let value): return value.isNaN
        case .decimal(let value): return value.isNaN
        default: return false
        }
    }

    var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let value): return "\(value)"
        case .int(let value): return "\(value)"
        case .float(let value): return "\(value)f"
        case .double(let value): return "\(value)"
        case .string(let text): return text.description
        case .data(let bytes): return "<\(bytes.map { String($0, radix: 16) }.joined(separator: " "))>"
        case .date(let seconds): return "date(\(seconds))"
        case .objectId(let bytes): return "oid(\(MirrorValue.hex(bytes)))"
        case .uuid(let bytes): return "uuid(\(MirrorValue.hex(bytes)))"
        case .decimal(let value): return "decimal(\(value))"
        case .object(let index): return "object#\(index)"
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

enum MirrorOperator: String, CaseIterable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE"

    static let ordering: [MirrorOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
    static let equality: [MirrorOperator] = [.equal, .notEqual]
    static let text: [MirrorOperator] = [.beginsWith, .endsWith, .contains, .like]

    /// The operator with its sides swapped (`3 < x` is `x > 3`).
    var flipped: MirrorOperator {
        switch self {
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return self
        }
    }
}

/// The documented comparison rules, applied to one pair of values.
enum MirrorSemantics {
    static func holds(_ lhs: MirrorValue, _ op: MirrorOperator, _ rhs: MirrorValue,
                      _ options: MirrorStringOptions = .exact) -> Bool {
        if op == .notEqual { return !holds(lhs, .equal, rhs, options) }
        if lhs.isNull || rhs.isNull { return op == .equal && lhs.isNull && rhs.isNull }
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)):
            let l = left.folded(options), r = right.folded(options)
            switch op {
            case .beginsWith: return l.bytes.starts(with: r.bytes)
            case .endsWith: return l.bytes.count >= r.bytes.count && l.bytes.suffix(r.bytes.count).elementsEqual(r.bytes)
            case .contains: return contains(l.bytes, r.bytes)
            case .like: return like(l.scalars, r.scalars)
            default: return ordered(compareBytes(l.bytes, r.bytes), op)
            }
        case (.data(let left), .data(let right)):
            switch op {
            case .beginsWith: return left.starts(with: right)
            case .endsWith: return left.count >= right.count && left.suffix(right.count).elementsEqual(right)
            case .contains: return contains(left, right)
            case .like: return false
            default: return ordered(compareBytes(left, right), op)
            }
        case (.bool(let left), .bool(let right)):
            return op == .equal && left == right
        case (.object(let left), .object(let right)):
            return op == .equal && left == right
        default:
            guard let sign = order(lhs, rhs) else { return false }  // NaN: unordered, unequal
            return ordered(sign, op)
        }
    }

    /// -1, 0, 1 for two non-null values of one family; nil when they are unordered (NaN) or of different kinds.
    static func order(_ lhs: MirrorValue, _ rhs: MirrorValue) -> Int? {
        switch (lhs, rhs) {
        case (.int(let left), .int(let right)): return sign(left, right)
        case (.int(let left), _):
            guard let right = floating(rhs) else { return nil }
            return compare(left, right)
        case (_, .int(let right)):
            guard let left = floating(lhs) else { return nil }
            return compare(right, left).map { -$0 }
        case (.float, _), (.double, _):
            guard let left = floating(lhs), let right = floating(rhs), !left.isNaN, !right.isNaN else { return nil }
            return sign(left, right)
        case (.date(let left), .date(let right)): return sign(left, right)
        case (.string(let left), .string(let right)): return compareBytes(left.bytes, right.bytes)
        case (.data(let left), .data(let right)), (.objectId(let left), .objectId(let right)),
             (.uuid(let left), .uuid(let right)):
            return compareBytes(left, right)
        case (.decimal(let left), .decimal(let right)):
            if left.isNaN || right.isNaN { return nil }
            return left < right ? -1 : (left == right ? 0 : 1)
        case (.bool(let left), .bool(let right)): return left == right ? 0 : (left ? 1 : -1)
        default: return nil
        }
    }

    private static func floating(_ value: MirrorValue) -> Double? {
        switch value {
        case .float(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// An integer against a double, exactly (no rounding of the integer to a double).
    static func compare(_ integer: Int64, _ double: Double) -> Int? {
        if double.isNaN { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = double.rounded(.down)
        let whole = Int64(floor)
        if integer != whole { return integer < whole ? -1 : 1 }
        return double > floor ? -1 : 0
    }

    // Not generic: an unspecialized generic call per comparison costs more than the comparison in a debug build.
    static func sign(_ left: Int64, _ right: Int64) -> Int { left < right ? -1 : (left == right ? 0 : 1) }
    static func sign(_ left: Int, _ right: Int) -> Int { left < right ? -1 : (left == right ? 0 : 1) }
    static func sign(_ left: Double, _ right: Double) -> Int { left < right ? -1 : (left == right ? 0 : 1) }

    /// `holds(value, op, constant, options)` as a closure, with the common cases (integers, doubles and plain
    /// strings against a constant of their type) decided without the general switch — the same rules, written
    /// for speed because the test applies them to every object for every query.
    static func test(_ op: MirrorOperator, _ constant: MirrorValue,
                     _ options: MirrorStringOptions = .exact) -> (MirrorValue) -> Bool {
        let notEqual = op == .notEqual
        if constant.isNull {
            switch op {
            case .equal: return { $0.isNull }
            case .notEqual: return { !$0.isNull }
            default: return { _ in false }
            }
        }
        let accepted = [-1, 0, 1].map { ordered($0, op) }
        let general = { (value: MirrorValue) in holds(value, op, constant, options) }
        guard MirrorOperator.ordering.contains(op) else { return general }
        switch constant {
        case .int(let right):
            return { value in
                switch value {
                case .int(let left): return accepted[sign(left, right) + 1]
                case .null: return notEqual
                default: return general(value)
                }
            }
        case .double(let right) where !right.isNaN:
            return { value in
                switch value {
                case .double(let left): return left.isNaN ? notEqual : accepted[sign(left, right) + 1]
                case .float(let left): return left.isNaN ? notEqual : accepted[sign(Double(left), right) + 1]
                case .null: return notEqual
                default: return general(value)
                }
            }
        case .double(let right) where right.isNaN:
            return { _ in notEqual }
        case .float(let right) where right.isNaN:
            return { _ in notEqual }
        case .string(let text) where options == .exact:
            let right = text.bytes
            return { value in
                switch value {
                case .string(let left): return accepted[compareBytes(left.bytes, right) + 1]
                case .null: return notEqual
                default: return general(value)
                }
            }
        default:
            return general
        }
    }

    static func ordered(_ sign: Int, _ op: MirrorOperator) -> Bool {
        switch op {
        case .equal: return sign == 0
        case .notEqual: return sign != 0
        case .less: return sign < 0
        case .lessOrEqual: return sign <= 0
        case .greater: return sign > 0
        case .greaterOrEqual: return sign >= 0
        default: return false
        }
    }

    static func compareBytes(_ left: [UInt8], _ right: [UInt8]) -> Int {
        let common = Swift.min(left.count, right.count)
        var index = 0
        while index < common {
            if left[index] != right[index] { return left[index] < right[index] ? -1 : 1 }
            index += 1
        }
        return sign(left.count, right.count)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        if needle.isEmpty { return true }
        if needle.count > haystack.count { return false }
        for start in 0 ... haystack.count - needle.count where haystack[start] == needle[0] {
            var matched = true
            for offset in 1 ..< needle.count where haystack[start + offset] != needle[offset] {
                matched = false
                break
            }
            if matched { return true }
        }
        return false
    }

    /// LIKE by dynamic programming over Unicode scalars: `matched[j]` says whether the text so far matches the
    /// first `j` pattern scalars.
    static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var matched = [Bool](repeating: false, count: pattern.count + 1)
        matched[0] = true
        for j in 0 ..< pattern.count where pattern[j] == "*" { matched[j + 1] = matched[j] }
        for character in text {
            var next = [Bool](repeating: false, count: pattern.count + 1)
            for j in 0 ..< pattern.count {
                switch pattern[j] {
                case "*": next[j + 1] = next[j] || matched[j + 1]
                case "?": next[j + 1] = matched[j]
                default: next[j + 1] = matched[j] && pattern[j] == character
                }
            }
            matched = next
        }
        return matched[pattern.count]
    }

    /// The sort order: null first, then NaN, then values ascending (strings and data by bytes, false before true).
    static func sortOrder(_ lhs: MirrorValue, _ rhs: MirrorValue) -> Int {
        if lhs.isNull || rhs.isNull { return lhs.isNull == rhs.isNull ? 0 : (lhs.isNull ? -1 : 1) }
        if lhs.isNaN || rhs.isNaN { return lhs.isNaN == rhs.isNaN ? 0 : (lhs.isNaN ? -1 : 1) }
        return order(lhs, rhs) ?? 0
    }

    /// The key distinct() groups by: equal values (NaN with NaN, 0 with -0) give equal keys.
    static func distinctKey(_ value: MirrorValue) -> String {
        switch value {
        case .float(let value) where value.isNaN: return "NaN"
        case .double(let value) where value.isNaN: return "NaN"
        case .float(let value): return "f\(value == 0 ? 0 : value)"
        case .double(let value): return "d\(value == 0 ? 0 : value)"
        case .string(let text): return "s" + MirrorValue.hex(text.bytes)
        case .decimal(let value) where value.isNaN: return "NaN"
        case .decimal(let value): return "dec\(value == 0 ? 0 : value.doubleValue)"  // by number: 100 is 100.0
        default: return value.description
        }
    }
}

// MARK: - Records

/// One QDItem, as plain values.
struct QDItemRecord {
    var id: Int
    var bool: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var float: Float
    var double: Double
    var string: MirrorText
    var data: [UInt8]
    var date: Double
    var objectId: [UInt8]
    var uuid: [UInt8]
    var decimal: Decimal128
    var optBool: Bool?
    var optInt: Int?
    var optInt8: Int8?
    var optInt16: Int16?
    var optInt32: Int32?
    var optInt64: Int64?
    var optFloat: Float?
    var optDouble: Double?
    var optString: MirrorText?
    var optData: [UInt8]?
    var optDate: Double?
    var optObjectId: [UInt8]?
    var optUUID: [UInt8]?
    var optDecimal: Decimal128?
    /// Index of the owner in the owners' records.
    var owner: Int?
    var friends: [Int]
    var ints: [Int]
    var doubles: [Double]
    var strings: [MirrorText]
    var optStrings: [MirrorText?]
    var dates: [Double]
    /// Unique values, in insertion order.
    var intSet: [Int]
    var stringSet: [MirrorText]
    /// Unique keys.
    var scores: [(key: String, value: Int?)]
    /// The persisted values of the custom-persistable properties (QDItem.price, QDItem.label), drawn after every
    /// other value (QDMirror.init).
    var price = 0
    var label: MirrorText?

    /// The mixed property: one of the record's own values, its type chosen by the id (null, each scalar type, and
    /// the optionals' nulls), so that comparisons across types meet every pairing.
    var mixed: AnyRealmValue {
        switch id % 13 {
        case 0: return .none
        case 1: return .bool(bool)
        case 2: return .int(int)
        case 3: return .int(Int(int64))
        case 4: return .float(float)
        case 5: return .double(double)
        case 6: return .string(string.string)
        case 7: return .data(Data(data))
        case 8: return .date(Date(timeIntervalSince1970: date))
        case 9: return .objectId(QDMirror.objectId(objectId))
        case 10: return .uuid(QDMirror.uuid(uuid))
        case 11: return .decimal128(decimal)
        default: return optDouble.map(AnyRealmValue.double) ?? .none
        }
    }
}

/// One QDOwner, as plain values.
struct QDOwnerRecord {
    var id: Int
    var name: MirrorText
    var age: Int?
    var score: Double
    var city: MirrorText?
}

// MARK: - Data

/// The generated data: records of both classes and the linking objects they imply.
final class QDMirror {
    var items: [QDItemRecord] = []
    var owners: [QDOwnerRecord] = []
    /// For each owner, the items whose `owner` is it (in item order).
    var ownerItems: [[Int]] = []
    /// For each owner, the items whose `friends` list holds it, once per occurrence (in item order).
    var ownerFans: [[Int]] = []

    // Pools the data and the query constants draw from, so that equality finds matches.
    let wordPool: [String] = [
        "", "a", "A", "ab", "abc", "ABC", "Abc", "abcabc", "hello world", "Hello", "HELLO", "ärger", "ÄRGER", "Ärger",
        "résumé", "resume", "RÉSUMÉ", "Resume", "re\u{301}sume\u{301}", "straße", "STRASSE", "Straße", "ß", "ẞ",
        "İstanbul", "istanbul", "ISTANBUL", "ıi", "emoji 😀", "😀", "👍🏽", "❤️", "naïve", "NAÏVE", "naive", "café",
        "Café", "cafe\u{301}", "CAFE", "x?y*z", "100%", "it's", "say \"hi\"", "back\\slash", "tab\tand\nline",
        "ſ", "\u{212A}elvin", "Ωmega", "ωmega", "中文", "日本語テキスト", "Ünïcödé", "unicode", " lead", "trail ",
        "Zebra", "zebra", "_under", "0123", "ÅNGSTRÖM", "ångström", "ﬁne", "ǅemal", "Σίσυφος", "ΣΊΣΥΦΟΣ",
    ]
    let cityPool = ["Oslo", "Zürich", "São Paulo", "İzmir", "oslo", "ZÜRICH", "Köln", "Koln", ""]
    let mapKeyPool = ["a", "b", "c", "é", "ß", "key 1", "Z"]
    var objectIdPool: [[UInt8]] = []
    var uuidPool: [[UInt8]] = []
    var decimalPool: [String] = [
        "0", "-0", "1", "-1", "1.5", "-2.25", "2.5", "100", "100.0", "1E+10", "0.1", "-1000000.125", "3",
        "12345678901234567890.5", "NaN", "-7",
    ]
    var datePool: [Double] = []

    /// The classes' properties with their accessors (QueryMirrorQuery.swift).
    private(set) lazy var itemProperties: [QDProperty] = makeItemProperties()
    private(set) lazy var ownerProperties: [QDProperty] = makeOwnerProperties()
    private(set) lazy var customItemProperties: [QDProperty] = makeCustomItemProperties()

    init(itemCount: Int, ownerCount: Int, generator: inout SeededGenerator) {
        for _ in 0 ..< 40 { objectIdPool.append((0 ..< 12).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }) }
        objectIdPool.append([UInt8](repeating: 0, count: 12))
        objectIdPool.append([UInt8](repeating: 0xFF, count: 12))
        for _ in 0 ..< 40 { uuidPool.append((0 ..< 16).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }) }
        uuidPool.append([UInt8](repeating: 0, count: 16))
        uuidPool.append([UInt8](repeating: 0xFF, count: 16))
        for _ in 0 ..< 60 {
            datePool.append(Double(Int.random(in: -2_000_000_000 ... 2_000_000_000, using: &generator))
                            + Double(Int.random(in: 0 ... 3, using: &generator)) / 4)
        }
        datePool += [0, -0.25, 0.25, -1, 1_700_000_000, -86_400]

        for index in 0 ..< ownerCount {
            owners.append(QDOwnerRecord(
                id: 1_000 + index,
                name: MirrorText(randomString(&generator)),
                age: Int.random(in: 0 ..< 5, using: &generator) == 0 ? nil : Int.random(in: -5 ... 90, using: &generator),
                score: randomDouble(&generator, allowNaN: true),
                city: Int.random(in: 0 ..< 4, using: &generator) == 0 ? nil
                    : MirrorText(cityPool.randomElement(using: &generator)!)))
        }
        for index in 0 ..< itemCount { items.append(randomItem(id: index, ownerCount: ownerCount, &generator)) }
        // Last, so that every other value is what the same seed gave before these properties existed.
        for index in items.indices {
            items[index].price = chance(50, &generator) ? Int.random(in: -20 ... 20, using: &generator)
                : randomInteger(Int.self, &generator)
            items[index].label = chance(25, &generator) ? nil : MirrorText(randomString(&generator))
        }
        ownerItems = Array(repeating: [], count: ownerCount)
        ownerFans = Array(repeating: [], count: ownerCount)
        for (index, item) in items.enumerated() {
            if let owner = item.owner { ownerItems[owner].append(index) }
            for friend in item.friends { ownerFans[friend].append(index) }
        }
    }

    // MARK: Random values

    private func chance(_ percent: Int, _ generator: inout SeededGenerator) -> Bool {
        Int.random(in: 0 ..< 100, using: &generator) < percent
    }

    func randomString(_ generator: inout SeededGenerator) -> String {
        switch Int.random(in: 0 ..< 10, using: &generator) {
        case 0 ..< 5: return wordPool.randomElement(using: &generator)!
        case 5 ..< 7:
            let alphabet = Array("abcABC xyzé")
            return String((0 ..< Int.random(in: 0 ... 6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        default:
            return (0 ..< Int.random(in: 2 ... 3, using: &generator)).map { _ in wordPool.randomElement(using: &generator)! }
                .joined(separator: Bool.random(using: &generator) ? " " : "")
        }
    }

    func randomInteger<T: FixedWidthInteger>(_ type: T.Type, _ generator: inout SeededGenerator) -> T {
        switch Int.random(in: 0 ..< 20, using: &generator) {
        case 0: return T.min
        case 1: return T.max
        case 2 ..< 5: return T.random(in: T.min ... T.max, using: &generator)
        default: return T(truncatingIfNeeded: Int.random(in: -20 ... 20, using: &generator))
        }
    }

    func randomDouble(_ generator: inout SeededGenerator, allowNaN: Bool) -> Double {
        switch Int.random(in: 0 ..< 30, using: &generator) {
        case 0 where allowNaN: return .nan
        case 1: return .infinity
        case 2: return -.infinity
        case 3: return -0.0
        case 4 ..< 8: return Double.random(in: -1e9 ... 1e9, using: &generator)
        default: return Double(Int.random(in: -40 ... 40, using: &generator)) / 4
        }
    }

    func randomDate(_ generator: inout SeededGenerator) -> Double { datePool.randomElement(using: &generator)! }

    func randomData(_ generator: inout SeededGenerator) -> [UInt8] {
        (0 ..< Int.random(in: 0 ... 4, using: &generator)).map { _ in [0, 1, 2, 0x41, 0xFF].randomElement(using: &generator)! }
    }

    func randomDecimal(_ generator: inout SeededGenerator, allowNaN: Bool) -> Decimal128 {
        var text = decimalPool.randomElement(using: &generator)!
        if text == "NaN" && !allowNaN { text = "0.5" }
        return try! Decimal128(string: text)
    }

    private func optional<T>(_ generator: inout SeededGenerator, _ make: (inout SeededGenerator) -> T) -> T? {
        chance(25, &generator) ? nil : make(&generator)
    }

    private func randomItem(id: Int, ownerCount: Int, _ g: inout SeededGenerator) -> QDItemRecord {
        let smallList = { (g: inout SeededGenerator) -> Int in
            Int.random(in: 0 ..< 4, using: &g) == 0 ? 0 : Int.random(in: 1 ... 4, using: &g)
        }
        var intSet: [Int] = []
        for _ in 0 ..< smallList(&g) {
            let value = Int.random(in: -10 ... 10, using: &g)
            if !intSet.contains(value) { intSet.append(value) }
        }
        var stringSet: [MirrorText] = []
        for _ in 0 ..< smallList(&g) {
            let value = randomString(&g)
            if !stringSet.contains(where: { $0.bytes == Array(value.utf8) }) { stringSet.append(MirrorText(value)) }
        }
        var scores: [(key: String, value: Int?)] = []
        for _ in 0 ..< smallList(&g) {
            let key = mapKeyPool.randomElement(using: &g)!
            if !scores.contains(where: { $0.key == key }) {
                scores.append((key, chance(20, &g) ? nil : Int.random(in: -10 ... 10, using: &g)))
            }
        }
        return QDItemRecord(
            id: id,
            bool: Bool.random(using: &g),
            int: chance(50, &g) ? Int.random(in: -20 ... 20, using: &g) : randomInteger(Int.self, &g),
            int8: randomInteger(Int8.self, &g),
            int16: randomInteger(Int16.self, &g),
            int32: randomInteger(Int32.self, &g),
            int64: randomInteger(Int64.self, &g),
            float: Float(randomDouble(&g, allowNaN: true)),
            double: randomDouble(&g, allowNaN: true),
            string: MirrorText(randomString(&g)),
            data: randomData(&g),
            date: randomDate(&g),
            objectId: objectIdPool.randomElement(using: &g)!,
            uuid: uuidPool.randomElement(using: &g)!,
            decimal: randomDecimal(&g, allowNaN: true),
            optBool: optional(&g) { Bool.random(using: &$0) },
            optInt: optional(&g) { Int.random(in: -20 ... 20, using: &$0) },
            optInt8: optional(&g) { self.randomInteger(Int8.self, &$0) },
            optInt16: optional(&g) { self.randomInteger(Int16.self, &$0) },
            optInt32: optional(&g) { self.randomInteger(Int32.self, &$0) },
            optInt64: optional(&g) { self.randomInteger(Int64.self, &$0) },
            optFloat: optional(&g) { Float(self.randomDouble(&$0, allowNaN: true)) },
            optDouble: optional(&g) { self.randomDouble(&$0, allowNaN: true) },
            optString: optional(&g) { MirrorText(self.randomString(&$0)) },
            optData: optional(&g) { self.randomData(&$0) },
            optDate: optional(&g) { self.randomDate(&$0) },
            optObjectId: optional(&g) { self.objectIdPool.randomElement(using: &$0)! },
            optUUID: optional(&g) { self.uuidPool.randomElement(using: &$0)! },
            optDecimal: optional(&g) { self.randomDecimal(&$0, allowNaN: false) },
            owner: chance(15, &g) ? nil : Int.random(in: 0 ..< ownerCount, using: &g),
            friends: (0 ..< smallList(&g)).map { _ in Int.random(in: 0 ..< ownerCount, using: &g) },
            ints: (0 ..< smallList(&g)).map { _ in Int.random(in: -10 ... 10, using: &g) },
            doubles: (0 ..< smallList(&g)).map { _ in
                self.chance(5, &g) ? .nan : Double(Int.random(in: -40 ... 40, using: &g)) / 4 },
            strings: (0 ..< smallList(&g)).map { _ in MirrorText(self.randomString(&g)) },
            optStrings: (0 ..< smallList(&g)).map { _ in self.chance(30, &g) ? nil : MirrorText(self.randomString(&g)) },
            dates: (0 ..< smallList(&g)).map { _ in self.randomDate(&g) },
            intSet: intSet,
            stringSet: stringSet,
            scores: scores)
    }

    // MARK: Realm objects

    static func objectId(_ bytes: [UInt8]) -> ObjectId { try! ObjectId(string: MirrorValue.hex(bytes)) }

    static func uuid(_ bytes: [UInt8]) -> UUID {
        UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                    bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// Writes every record to the Realm (owners first, items in id order so that object keys follow ids).
    func populate(_ realm: Realm) throws {
        try realm.write {
            var ownerObjects: [QDOwner] = []
            for record in owners {
                let owner = QDOwner()
                owner.id = record.id
                owner.name = record.name.string
                owner.age = record.age
                owner.score = record.score
                owner.city = record.city?.string
                realm.add(owner)
                ownerObjects.append(owner)
            }
            for record in items {
                let item = QDItem()
                item.id = record.id
                item.bool = record.bool
                item.int = record.int
                item.int8 = record.int8
                item.int16 = record.int16
                item.int32 = record.int32
                item.int64 = record.int64
                item.float = record.float
                item.double = record.double
                item.string = record.string.string
                item.data = Data(record.data)
                item.date = Date(timeIntervalSince1970: record.date)
                item.objectId = Self.objectId(record.objectId)
                item.uuid = Self.uuid(record.uuid)
                item.decimal = record.decimal
                item.optBool = record.optBool
                item.optInt = record.optInt
                item.optInt8 = record.optInt8
                item.optInt16 = record.optInt16
                item.optInt32 = record.optInt32
                item.optInt64 = record.optInt64
                item.optFloat = record.optFloat
                item.optDouble = record.optDouble
                item.optString = record.optString?.string
                item.optData = record.optData.map { Data($0) }
                item.optDate = record.optDate.map { Date(timeIntervalSince1970: $0) }
                item.optObjectId = record.optObjectId.map(Self.objectId)
                item.optUUID = record.optUUID.map(Self.uuid)
                item.optDecimal = record.optDecimal
                item.owner = record.owner.map { ownerObjects[$0] }
                item.mixed = record.mixed
                item.price = QDCents(record.price)
                item.label = record.label.map { QDLabel(unchecked: $0.string) }
                item.friends.append(objectsIn: record.friends.map { ownerObjects[$0] })
                item.ints.append(objectsIn: record.ints)
                item.doubles.append(objectsIn: record.doubles)
                item.strings.append(objectsIn: record.strings.map(\.string))
                item.optStrings.append(objectsIn: record.optStrings.map { $0?.string })
                item.dates.append(objectsIn: record.dates.map { Date(timeIntervalSince1970: $0) })
                for (key, value) in record.scores { item.scores.updateValue(value, forKey: key) }
                realm.add(item)
                // The sets are filled once the object is managed: an unmanaged MutableSet<String> compares with
                // Swift's String ==, under which "café" and "cafe\u{301}" are one element, while the stored set
                // compares UTF-8 bytes, as queries do.
                for value in record.intSet { item.intSet.insert(value) }
                for value in record.stringSet { item.stringSet.insert(value.string) }
            }
        }
    }
}
