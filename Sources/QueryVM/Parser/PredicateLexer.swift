// PredicateLexer: splits a predicate-format string into tokens.
//
// The lexer works on the query's `Character`s so that every offset it reports is the position a reader counts
// (and a caret lines up with). Besides names, numbers, strings and punctuation it recognises RealmSwift's typed
// literals: timestamps `T<seconds>:<nanoseconds>` and `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (UTC, optionally with a
// leading `T`), `oid(<24 hex digits>)`, `uuid(<8-4-4-4-12 hex digits>)`, `B64"<base64>"`, and ours for an object
// compared with a link, `objkey(<class>, <key>)`. Each `%@`, `%K` and printf conversion (`%d`, `%f`, `%s`, …;
// FormatSpecifier.swift) takes the next argument index, in order of appearance, as NSPredicate does.

import Foundation

struct PredicateLexer {
    private let characters: [Character]
    private var offset = 0
    private var nextArgumentIndex = 0

    init(_ query: String) {
        characters = Array(query)
    }

    /// All tokens of the query, ending with `.end`.
    static func tokenize(_ query: String) throws -> [Token] {
        var lexer = PredicateLexer(query)
        var tokens: [Token] = []
        while true {
            let token = try lexer.nextToken()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    // MARK: - Characters

    private func peek(_ ahead: Int = 0) -> Character? {
        offset + ahead < characters.count ? characters[offset + ahead] : nil
    }

    private static func isDigit(_ character: Character?) -> Bool {
        guard let character, character.isASCII else { return false }
        return character.isNumber
    }

    // ASCII is answered without the Unicode property tables, which were a twentieth of a short query's time.
    private static func isWordStart(_ character: Character?) -> Bool {
        guard let character else { return false }
        if let ascii = character.asciiValue { return isASCIILetter(ascii) || ascii == UInt8(ascii: "_") }
        return character.isLetter
    }

    private static func isWordPart(_ character: Character?) -> Bool {
        guard let character else { return false }
        if let ascii = character.asciiValue {
            return isASCIILetter(ascii) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(ascii)
                || ascii == UInt8(ascii: "_")
        }
        return character.isLetter || character.isNumber
    }

    private static func isASCIILetter(_ ascii: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(ascii | 0x20)
    }

    private static func isWhitespace(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii == 0x20 || (0x09...0x0D).contains(ascii) }
        return character.isWhitespace
    }

    private func describe(_ character: Character?) -> String {
        character.map { "'\($0)'" } ?? "end of query"
    }

    private func token(_ kind: Token.Kind, from start: Int) -> Token {
        Token(kind: kind, range: SourceRange(start: start, end: offset))
    }

    // MARK: - Tokens

    mutating func nextToken() throws -> Token {
        while let character = peek(), Self.isWhitespace(character) { offset += 1 }
        let start = offset
        guard let character = peek() else { return token(.end, from: start) }

        if let timestamp = try lexTimestamp() { return token(.literal(.timestamp(timestamp)), from: start) }
        // Lexing first and building the token after: `token(_:from:)` reads `offset`, which must be the new one.
        if Self.isDigit(character) || (character == "-" && Self.isDigit(peek(1))) ||
            (character == "." && Self.isDigit(peek(1))) {
            let number = try lexNumber()
            return token(.literal(number), from: start)
        }
        if Self.isWordStart(character) { return try lexWord() }
        switch character {
        case "\"", "'":
            let text = try lexString()
            return token(.literal(.string(text)), from: start)
        case "$":
            offset += 1
            let name = lexWordText()
            guard !name.isEmpty else {
                throw QuerySyntaxError(offset: offset, message: "expected a variable name after '$', found \(describe(peek()))")
            }
            return token(.variable(name), from: start)
        case "@":
            offset += 1
            let name = lexWordText()
            guard let op = CollectionOperator(spelling: name) else {
                throw QuerySyntaxError(
                    offset: start,
                    message: "expected a collection operator (@count, @min, @max, @sum, @avg, @allKeys, @allValues), found '@\(name)'")
            }
            return token(.collectionOperator(op), from: start)
        case "%":
            offset += 1
            switch peek() {
            case "@":
                offset += 1
                defer { nextArgumentIndex += 1 }
                return token(.valueArgument(nextArgumentIndex, .object), from: start)
            case "K":
                offset += 1
                defer { nextArgumentIndex += 1 }
                return token(.keyPathArgument(nextArgumentIndex), from: start)
            default:
                let specifier = try lexFormatSpecifier(start: start)
                defer { nextArgumentIndex += 1 }
                return token(.valueArgument(nextArgumentIndex, specifier), from: start)
            }
        default:
            // A quote followed by a combining mark, a variation selector or an emoji modifier is one Character
            // ("'" + U+0301): it still opens a string, whose text begins with those scalars.
            if let first = character.unicodeScalars.first, first == "\"" || first == "'" {
                let text = try lexString()
                return token(.literal(.string(text)), from: start)
            }
            return try lexSymbol()
        }
    }

    /// A printf conversion after a `%` (FormatSpecifier.swift): C's length modifiers, then one conversion letter.
    private mutating func lexFormatSpecifier(start: Int) throws -> FormatSpecifier {
        var text = ""
        while let character = peek(), "hlqjztL".contains(character), text.count < 2 {
            text.append(character)
            offset += 1
        }
        if let character = peek(), FormatSpecifier.isSpecifierCharacter(character), !"hlqjztL".contains(character) {
            text.append(character)
            offset += 1
        }
        guard let specifier = FormatSpecifier.parse(text) else {
            let found = text.isEmpty ? "'%' followed by \(describe(peek()))" : "'%\(text)'"
            throw QuerySyntaxError(
                offset: start,
                message: "expected a placeholder (%@, %K, or a printf conversion such as %d, %lld, %u, %f, %s or %c), found \(found)")
        }
        return specifier
    }

    private mutating func lexWordText() -> String {
        var text = ""
        while Self.isWordPart(peek()) {
            text.append(peek()!)
            offset += 1
        }
        return text
    }

    /// A name or keyword, or one of the typed literals that start with a word: `oid(…)`, `uuid(…)`, `B64"…"`.
    private mutating func lexWord() throws -> Token {
        let start = offset
        let word = lexWordText()
        switch word.lowercased() {
        case "oid" where peek() == "(":
            let bytes = try lexHexLiteral(groups: [24], kind: "an ObjectId of 24 hexadecimal digits", literalStart: start)
            return token(.literal(.objectId(bytes)), from: start)
        case "uuid" where peek() == "(":
            let bytes = try lexHexLiteral(
                groups: [8, 4, 4, 4, 12], kind: "a UUID of the form 8-4-4-4-12 hexadecimal digits", literalStart: start)
            return token(.literal(.uuid(bytes)), from: start)
        case "objkey" where peek() == "(":
            return token(.literal(.object(try lexObjectKey())), from: start)
        case "decimal128" where peek() == "(":
            let (contentStart, content) = try lexParenthesizedText()
            let text = content.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else {
                throw QuerySyntaxError(offset: contentStart, message: "expected a decimal number in decimal128(…), found '\(content)'")
            }
            return token(.literal(.decimal128(text)), from: start)
        case "b64" where peek() == "\"" || peek() == "'":
            let textStart = offset
            let text = try lexString()
            guard let data = Data(base64Encoded: text) else {
                throw QuerySyntaxError(offset: textStart, message: "expected base64 text in B64\"…\", found \(QueryValue.quoted(text))")
            }
            return token(.literal(.data(Array(data))), from: start)
        default:
            return token(.word(word), from: start)
        }
    }

    /// The text between the `(` at the current offset and the next `)` of a typed literal, consumed with both
    /// parentheses, and the offset where the text starts.
    private mutating func lexParenthesizedText() throws -> (start: Int, text: String) {
        offset += 1  // "("
        let start = offset
        var text = ""
        while let character = peek(), character != ")" {
            text.append(character)
            offset += 1
        }
        guard peek() == ")" else {
            throw QuerySyntaxError(offset: offset, message: "expected ')' to close the literal, found end of query")
        }
        offset += 1
        return (start, text)
    }

    /// The `(<class>, <key>)` of `objkey(…)`: a class name and an object key (0 or more, decimal digits).
    private mutating func lexObjectKey() throws -> QueryObjectReference {
        let (contentStart, content) = try lexParenthesizedText()
        let parts = content.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let isName = { (text: String) in
            !text.isEmpty && !text.first!.isNumber && text.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
        }
        guard parts.count == 2, isName(parts[0]), parts[1].allSatisfy(\.isASCII), let key = Int64(parts[1]), key >= 0
        else {
            throw QuerySyntaxError(offset: contentStart,
                                   message: "expected a class name and an object key, as in objkey(Dog, 5), found '\(content)'")
        }
        return QueryObjectReference(className: parts[0], storage: .stored(key: key, database: nil))
    }

    /// The `(…)` of `oid(…)` or `uuid(…)`: hexadecimal digit groups separated by `-`.
    private mutating func lexHexLiteral(groups: [Int], kind: String, literalStart: Int) throws -> [UInt8] {
        let (contentStart, content) = try lexParenthesizedText()
        let parts = content.split(separator: "-", omittingEmptySubsequences: false)
        // Group lengths first; then the digits must be ASCII hexadecimal (Character.isHexDigit also accepts the
        // fullwidth forms, which are not digits of a literal).
        let shaped = parts.count == groups.count && zip(parts, groups).allSatisfy { part, length in part.count == length }
        guard shaped, let bytes = QueryValue.bytes(fromHex: parts.joined()) else {
            throw QuerySyntaxError(offset: contentStart, message: "expected \(kind), found '\(content)'")
        }
        return bytes
    }

    /// A quoted string; the quote character is the one at the current offset. Escapes: `\\`, `\'`, `\"`, `\n`,
    /// `\r`, `\t`, `\0` and `\u{hex}` / `\uXXXX`.
    private mutating func lexString() throws -> String {
        let start = offset
        // The opening quote's Character may carry scalars that joined it (see nextToken): they are text.
        let opening = peek()!.unicodeScalars
        let quote = Character(opening.first!)
        offset += 1
        var text = String(String.UnicodeScalarView(opening.dropFirst()))
        while true {
            guard let character = peek() else {
                throw QuerySyntaxError(
                    offset: offset, message: "expected \(quote) to close the string that starts at offset \(start), found end of query")
            }
            offset += 1
            if character == quote { return text }
            guard character == "\\" else {
                text.append(character)
                continue
            }
            let escapeStart = offset - 1
            guard let escapedCharacter = peek() else {
                throw QuerySyntaxError(offset: offset, message: "expected an escaped character after '\\', found end of query")
            }
            offset += 1
            // The escape is the Character's first scalar; scalars joined to it (`\'` + U+0301) are text after it.
            let escaped = Character(escapedCharacter.unicodeScalars.first!)
            defer { text.unicodeScalars.append(contentsOf: escapedCharacter.unicodeScalars.dropFirst()) }
            switch escaped {
            case "\\", "'", "\"": text.append(escaped)
            case "n": text.append("\n")
            case "r": text.append("\r")
            case "t": text.append("\t")
            case "0": text.append("\0")
            case "u":
                var hex = ""
                if peek() == "{" {
                    offset += 1
                    while let digit = peek(), digit.isHexDigit, hex.count < 8 { hex.append(digit); offset += 1 }
                    guard peek() == "}" else {
                        throw QuerySyntaxError(offset: offset, message: "expected '}' to close a \\u{…} escape, found \(describe(peek()))")
                    }
                    offset += 1
                } else {
                    while let digit = peek(), digit.isHexDigit, hex.count < 4 { hex.append(digit); offset += 1 }
                }
                guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                    throw QuerySyntaxError(offset: escapeStart, message: "expected a Unicode scalar in hexadecimal after '\\u'")
                }
                text.unicodeScalars.append(scalar)
            default:
                throw QuerySyntaxError(
                    offset: escapeStart, message: "expected one of \\\\ \\' \\\" \\n \\r \\t \\0 \\u, found '\\\(escaped)'")
            }
        }
    }

    /// A decimal integer, a hexadecimal integer (`0x…`) or a floating-point number with optional exponent.
    private mutating func lexNumber() throws -> QueryValue {
        let start = offset
        var text = ""
        if peek() == "-" { text.append("-"); offset += 1 }
        if peek() == "0", peek(1) == "x" || peek(1) == "X" {
            offset += 2
            var digits = ""
            while let digit = peek(), digit.isHexDigit { digits.append(digit); offset += 1 }
            guard let magnitude = UInt64(digits, radix: 16) else {
                throw QuerySyntaxError(offset: start, message: "expected hexadecimal digits after 0x, found \(describe(peek()))")
            }
            if text == "-" {
                guard magnitude <= UInt64(Int64.max) + 1 else { throw outOfRange(start) }
                return .int(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
            guard magnitude <= UInt64(Int64.max) else { throw outOfRange(start) }
            return .int(Int64(magnitude))
        }
        var isFloatingPoint = false
        while Self.isDigit(peek()) { text.append(peek()!); offset += 1 }
        // A '.' is a decimal point only before a digit, so that `1.@count` is not read as `1.0` and `@count`.
        if peek() == ".", Self.isDigit(peek(1)) {
            isFloatingPoint = true
            text.append("."); offset += 1
            while Self.isDigit(peek()) { text.append(peek()!); offset += 1 }
        }
        if peek() == "e" || peek() == "E",
            Self.isDigit(peek(1)) || ((peek(1) == "+" || peek(1) == "-") && Self.isDigit(peek(2))) {
            isFloatingPoint = true
            text.append("e"); offset += 1
            if peek() == "+" || peek() == "-" { text.append(peek()!); offset += 1 }
            while Self.isDigit(peek()) { text.append(peek()!); offset += 1 }
        }
        if isFloatingPoint {
            guard let value = Double(text) else {
                throw QuerySyntaxError(offset: start, message: "expected a number, found '\(text)'")
            }
            return .double(value)
        }
        guard let value = Int64(text) else { throw outOfRange(start) }
        return .int(value)
    }

    private func outOfRange(_ start: Int) -> QuerySyntaxError {
        QuerySyntaxError(offset: start, message: "expected an integer between \(Int64.min) and \(Int64.max), found a larger one")
    }

    /// A timestamp literal at the current offset, or nil (consuming nothing) when there is none.
    private mutating func lexTimestamp() throws -> QueryTimestamp? {
        let start = offset
        var cursor = offset
        func readInteger(maxDigits: Int = 19, allowSign: Bool = false) -> (value: Int64, digits: Int)? {
            var text = ""
            if allowSign, cursor < characters.count, characters[cursor] == "-" { text.append("-"); cursor += 1 }
            var digitCount = 0
            while cursor < characters.count, Self.isDigit(characters[cursor]), digitCount < maxDigits {
                text.append(characters[cursor]); cursor += 1; digitCount += 1
            }
            guard digitCount > 0, let value = Int64(text) else { return nil }
            return (value, digitCount)
        }
        func expect(_ separators: Set<Character>) -> Bool {
            guard cursor < characters.count, separators.contains(characters[cursor]) else { return false }
            cursor += 1
            return true
        }
        var hasPrefix = false
        if peek() == "T" || peek() == "t" { cursor += 1; hasPrefix = true }

        // T<seconds>:<nanoseconds>
        if hasPrefix {
            let save = cursor
            if let seconds = readInteger(allowSign: true), expect([":"]), let nanos = readInteger(allowSign: true),
                !(cursor < characters.count && Self.isWordPart(characters[cursor])) {
                guard abs(nanos.value) < 1_000_000_000 else {
                    throw QuerySyntaxError(offset: start, message: "expected nanoseconds below 1000000000 in a timestamp")
                }
                guard seconds.value == 0 || nanos.value == 0 || (seconds.value < 0) == (nanos.value < 0) else {
                    throw QuerySyntaxError(offset: start, message: "expected seconds and nanoseconds of the same sign in a timestamp")
                }
                offset = cursor
                return QueryTimestamp(seconds: seconds.value, nanoseconds: Int32(nanos.value))
            }
            cursor = save
        }

        // YYYY-MM-DD@HH:MM:SS[:nanoseconds]
        guard let year = readInteger(maxDigits: 4), year.digits == 4, expect(["-"]),
            let month = readInteger(maxDigits: 2), expect(["-"]),
            let day = readInteger(maxDigits: 2), expect(["@", "T"]) else {
            return nil
        }
        guard let hour = readInteger(maxDigits: 2), expect([":"]), let minute = readInteger(maxDigits: 2), expect([":"]),
            let second = readInteger(maxDigits: 2) else {
            throw QuerySyntaxError(offset: start, message: "expected a timestamp of the form YYYY-MM-DD@HH:MM:SS")
        }
        var nanoseconds: Int64 = 0
        if cursor < characters.count, characters[cursor] == ":" {
            cursor += 1
            guard let nanos = readInteger(maxDigits: 9) else {
                throw QuerySyntaxError(offset: cursor, message: "expected nanoseconds after ':' in a timestamp")
            }
            nanoseconds = nanos.value
        }
        guard (1 ... 12).contains(month.value), (1 ... Self.daysIn(month: month.value, year: year.value)).contains(day.value),
            (0 ... 23).contains(hour.value), (0 ... 59).contains(minute.value), (0 ... 60).contains(second.value) else {
            throw QuerySyntaxError(offset: start, message: "expected a valid calendar date and time in the timestamp")
        }
        offset = cursor
        let days = Self.daysFromCivil(year: year.value, month: month.value, day: day.value)
        let seconds = days * 86_400 + hour.value * 3_600 + minute.value * 60 + second.value
        // Before 1970 the nanoseconds must share the seconds' (negative) sign.
        if seconds < 0 && nanoseconds > 0 {
            return QueryTimestamp(seconds: seconds + 1, nanoseconds: Int32(nanoseconds - 1_000_000_000))
        }
        return QueryTimestamp(seconds: seconds, nanoseconds: Int32(nanoseconds))
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static let twoCharacterSymbols: [String: String] = [
        "==": "==", "!=": "!=", "<>": "!=", "<=": "<=", "=<": "<=", ">=": ">=", "=>": ">=", "&&": "&&", "||": "||",
    ]
    private static let oneCharacterSymbols: [Character: String] = [
        "=": "==", "<": "<", ">": ">", "!": "!", "(": "(", ")": ")", "{": "{", "}": "}", "[": "[", "]": "]",
        ",": ",", ".": ".", "*": "*",
    ]

    /// Punctuation and operators, longest match first.
    private mutating func lexSymbol() throws -> Token {
        let start = offset
        let two = String([peek(), peek(1)].compactMap { $0 })
        if let symbol = Self.twoCharacterSymbols[two] {
            offset += 2
            return token(.symbol(symbol), from: start)
        }
        let character = peek()!
        guard let symbol = Self.oneCharacterSymbols[character] else {
            throw QuerySyntaxError(offset: start, message: "expected a key path, value or operator, found '\(character)'")
        }
        offset += 1
        return token(.symbol(symbol), from: start)
    }
}
