// The canonical text of the query AST: one spelling per construct, every AND and OR in parentheses.
//
// Tests compare parsed queries through this text, `explain` will print it, and error messages of the later
// steps quote nodes with it. The text is itself a valid predicate-format string (keywords upper-case, `==` for
// `=`, strings in double quotes, timestamps as `T<seconds>:<nanoseconds>`), so printing and parsing again gives
// the same text.

import Foundation

extension QueryValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .bool(let value): return value ? "TRUE" : "FALSE"
        case .int(let value): return String(value)
        case .float(let value): return String(describing: value)
        case .double(let value): return String(describing: value)
        case .string(let value): return Self.quoted(value)
        case .data(let bytes): return "B64\"" + Data(bytes).base64EncodedString() + "\""
        case .timestamp(let time): return "T\(time.seconds):\(time.nanoseconds)"
        case .objectId(let bytes): return "oid(" + Self.hex(bytes) + ")"
        case .decimal128(let text): return "decimal128(" + text + ")"
        case .uuid(let bytes):
            let digits = Self.hex(bytes)
            var text = ""
            for (offset, digit) in digits.enumerated() {
                if [8, 12, 16, 20].contains(offset) { text.append("-") }
                text.append(digit)
            }
            return "uuid(" + text + ")"
        case .object(let object):
            // `objkey(Dog, 5)`, the object of class Dog with key 5. An object that is not stored has no key: its
            // text says why, and the lexer refuses it as it refuses any other word in place of a key.
            switch object.storage {
            case .stored(let key, _): return "objkey(\(object.className), \(key))"
            case .unmanaged: return "objkey(\(object.className), unmanaged)"
            case .invalidated: return "objkey(\(object.className), invalidated)"
            }
        case .list(let values): return "{" + values.map(\.description).joined(separator: ", ") + "}"
        // A nested collection constant comes only from an argument; its text is for `explain` and messages, not a
        // literal the parser reads.
        case .nestedList(let values): return "mixedList[" + values.map(\.description).joined(separator: ", ") + "]"
        case .nestedDictionary(let entries):
            return "mixedDictionary[" + entries.keys.sorted().map { Self.quoted($0) + ": " + entries[$0]!.description }
                .joined(separator: ", ") + "]"
        }
    }

    /// A string literal in double quotes, escaping what the lexer unescapes.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result.append(character)
            }
        }
        return result + "\""
    }

    /// The bytes that a run of hexadecimal digit pairs spells (either case), or nil when it is not one.
    static func bytes(fromHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[pair]), let low = hexValue(digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}

extension QueryKeyPath.Step: CustomStringConvertible {
    /// Whether the step is written as `[…]` after what it applies to.
    var isSubscript: Bool {
        switch self {
        case .mapSubscript, .indexSubscript, .lastSubscript, .allSubscript: return true
        case .property, .collectionOperator: return false
        }
    }

    public var description: String {
        switch self {
        case .property(let name): return name
        case .collectionOperator(let op): return op.spelling
        case .mapSubscript(let key): return "[" + QueryValue.quoted(key) + "]"
        case .indexSubscript(let index): return "[\(index)]"
        case .lastSubscript: return "[LAST]"
        case .allSubscript: return "[*]"
        }
    }

    /// Appends this step to the text of the path before it: subscripts attach directly, the rest after a dot.
    static func append(_ steps: [Self], to head: String) -> String {
        var text = head
        for step in steps {
            if step.isSubscript {
                text += step.description
            } else {
                text += text.isEmpty ? step.description : "." + step.description
            }
        }
        return text
    }
}

extension QueryKeyPath: CustomStringConvertible {
    public var description: String {
        switch root {
        case .object: return Step.append(steps, to: "")
        case .variable(let name): return Step.append(steps, to: "$" + name)
        }
    }
}

extension QueryExpression: CustomStringConvertible {
    public var description: String {
        switch kind {
        case .keyPath(let path): return path.description
        case .constant(let value, _): return value.description
        case .list(let items): return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .subquery(let subquery): return subquery.description
        }
    }
}

extension QuerySubquery: CustomStringConvertible {
    public var description: String {
        let head = "SUBQUERY(\(collection), $\(variable), \(predicate))"
        return QueryKeyPath.Step.append(steps, to: head)
    }
}

extension QueryPredicate: CustomStringConvertible {
    public var description: String {
        switch kind {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison):
            let quantifier = comparison.quantifier.map { $0.rawValue + " " } ?? ""
            return "\(quantifier)\(comparison.lhs) \(comparison.op.rawValue)\(comparison.options.spelling) \(comparison.rhs)"
        case .between(let between):
            let quantifier = between.quantifier.map { $0.rawValue + " " } ?? ""
            return "\(quantifier)\(between.value) BETWEEN {\(between.lower), \(between.upper)}"
        case .and(let left, let right): return "(\(left) AND \(right))"
        case .or(let left, let right): return "(\(left) OR \(right))"
        case .not(let operand): return "NOT \(operand)"
        }
    }
}
