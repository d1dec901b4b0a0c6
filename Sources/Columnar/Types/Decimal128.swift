// Decimal128: RealmSwift's 128-bit decimal floating-point number as a Swift value type holding the IEEE 754-2008
// decimal128 bit pattern in its binary-integer-decimal (BID) encoding, the bits MongoDB and Realm store.
//
// RealmSwift declares `Decimal128` as a final class deriving from the Objective-C `RLMDecimal128`, which wraps
// realm-core's Decimal128 (Intel's decimal library). Linux has no Objective-C runtime, so here it is a struct
// with the same public names, and the arithmetic is written out below. The storage engine keeps the 16 bytes
// (COLUMNAR_TYPE_DECIMAL128) without interpreting them; everything that reads them as a number is in this file.
//
// Encoding. The high word holds, from the top bit down: the sign; then either a 14-bit exponent (biased by 6176)
// followed by the top 49 bits of a 113-bit coefficient, or, when the two bits after the sign are 11, the other
// combination form, which can only hold coefficients of 2^113 and above (greater than 10^34 - 1, so these
// encodings read as zero), or Infinity (11110) or NaN (11111, the next bit set for a signalling NaN). A value is
// (-1)^sign × coefficient × 10^exponent with a coefficient of at most 34 decimal digits and an exponent from -6176
// to 6111. Storage order is the low 64 bits first, each word little-endian, as MongoDB's BSON writes it.
//
// Arithmetic. Foundation.Decimal cannot carry these values: its exponent stops at ±128 (1E+6000 does not fit),
// and its own rounding would round a second time. So + - * / are computed exactly on UInt128 coefficients (with a
// 256-bit product for *, and digit-by-digit long division for /) and rounded once to 34 significant digits,
// ties to even, as IEEE 754 specifies for round-to-nearest; results beyond the exponent range become ±Infinity,
// results below it lose digits (subnormals) and may become zero. Exact results keep IEEE's preferred exponent
// (1.50 + 1 = 2.50). What is not implemented: other rounding modes, status flags, NaN payload arithmetic beyond
// passing a NaN operand through, and the IEEE operations RealmSwift does not expose (fma, sqrt, remainder, ...).
//
// Text. `stringValue` is IEEE 754's (and MongoDB's) to-scientific-string: plain notation when the exponent is at
// most 0 and the number is not smaller than 1E-6 in its leading digit ("1.5", "-0.001", "1.00"), otherwise one
// digit, a fraction and an exponent ("1E+6000", "1.23E-10"); "NaN", "Infinity", "-Infinity". Parsing the printed
// text gives back the same bits for every finite value. Realm's own printer writes "1E-3" for 0.001; both forms
// parse here. `init(string:)` accepts an optional sign, digits with at most one point, an optional exponent
// (e or E, optional sign), and "NaN", "Inf", "Infinity" in any case; more than 34 significant digits are rounded,
// and a value too large for decimal128 is an error rather than Infinity.
//
// Comparison is numeric (1.0 == 1.00, 0 == -0); NaN equals nothing, itself included, and sorts before every
// number, as realm-core sorts it; NaNs sort among themselves by their bits. Hashing agrees with ==.

import Foundation

/// A 128-bit IEEE 754-2008 decimal floating point number.
///
/// This type is similar to Swift's built-in Decimal type, but allocates bits differently, resulting in a different
/// representable range. (NS)Decimal stores a significand of up to 38 digits long and an exponent from -128 to 127,
/// while this type stores up to 34 digits of significand and an exponent from -6143 to 6144.
public struct Decimal128: Sendable {
    /// The low 64 bits of the BID encoding: the low 64 bits of the coefficient for finite values.
    package var lowBits: UInt64
    /// The high 64 bits of the BID encoding: sign, combination field, exponent and top of the coefficient.
    package var highBits: UInt64

    /// The sixteen bytes as a C `uint8_t[16]` imports into Swift (the `decimal128` member of `columnar_value`).
    package typealias Bytes = (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
    )

    /// The number of bytes in a Decimal128, in storage and in the engine's value struct.
    package static let byteCount = 16

    /// A Decimal128 with exactly these bits; any bit pattern is accepted (non-canonical ones read as zero).
    package init(lowBits: UInt64, highBits: UInt64) {
        self.lowBits = lowBits
        self.highBits = highBits
    }

    // MARK: Initializers

    /// Creates a new zero-initialized Decimal128.
    public init() {
        self = Decimal128.packed(isNegative: false, coefficient: 0, exponent: 0)
    }

    /// Converts the given value to a Decimal128.
    ///
    /// The following types can be converted to Decimal128:
    /// - Int (of any size)
    /// - Float
    /// - Double
    /// - String
    /// - NSNumber
    /// - Decimal
    ///
    /// Passing a value with a type not in this list is a fatal error. Passing a string which cannot be parsed as a
    /// valid Decimal128 is a fatal error.
    ///
    /// - parameter value: The value to convert to a Decimal128.
    public init(value: Any) {
        switch value {
        case let decimal as Decimal128: self = decimal
        case let integer as any BinaryInteger: self = Decimal128.converting(integer).value
        case let double as Double: self = Decimal128(binary: double, significantDigits: 15)
        case let float as Float: self = Decimal128(binary: Double(float), significantDigits: 7)
        case let bool as Bool: self = bool ? 1 : 0
        case let string as String:
            do {
                try self.init(string: string)
            } catch {
                fatalError("\(error)")
            }
        case let decimal as Decimal: self = Decimal128(foundationDecimal: decimal)
        case let number as NSNumber: self.init(number: number)
        default:
            fatalError("a value of type \(type(of: value)) cannot be converted to Decimal128")
        }
    }

    /// Converts the given number to a Decimal128.
    ///
    /// Integers convert exactly. Floating-point numbers convert as realm-core and MongoDB convert them: rounded to
    /// 15 significant digits (7 for a Float), so 0.1 becomes 0.1 and not 0.1000000000000000055511151231257827.
    /// Unlike Realm, which keeps all 15 digits ("1.00000000000000E-1"), trailing zeros are then dropped, so 0.1
    /// prints as "0.1" and 100.0 as "100"; the value is the same.
    ///
    /// - parameter number: The number to convert to a Decimal128.
    public init(number: NSNumber) {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"): self = Decimal128(binary: number.doubleValue, significantDigits: 15)
        case UInt8(ascii: "f"): self = Decimal128(binary: Double(number.floatValue), significantDigits: 7)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"):
            self = Decimal128.converting(number.uint64Value).value
        default:
            self = Decimal128.converting(number.int64Value).value
        }
    }

    /// Parse the given string as a Decimal128.
    ///
    /// This initializer throws if the string is not a valid Decimal128 or its value is too large for
    /// Decimal128 (beyond ±9.999999999999999999999999999999999E+6144). Digits beyond the 34th significant one
    /// are rounded, ties to even, and values smaller than 1E-6176 lose digits, as IEEE 754 rounds them.
    ///
    /// - parameter string: The string to parse.
    public init(string: String) throws {
        self = try Decimal128.parse(string)
    }

    /// Creates a new instance from the given integer, if it can be represented exactly.
    ///
    /// If the value passed as `source` has more than 34 significant digits, the result is `nil`.
    ///
    /// - Parameter source: A value to convert to this type of integer.
    public init?<T>(exactly source: T) where T: BinaryInteger {
        let conversion = Decimal128.converting(source)
        guard conversion.isExact else { return nil }
        self = conversion.value
    }

    /// The mininum value for Decimal128: -9.999999999999999999999999999999999E+6144.
    public static var min: Decimal128 {
        packed(isNegative: true, coefficient: Format.maxCoefficient, exponent: Format.maxExponent)
    }

    /// The maximum value for Decimal128: 9.999999999999999999999999999999999E+6144.
    public static var max: Decimal128 {
        packed(isNegative: false, coefficient: Format.maxCoefficient, exponent: Format.maxExponent)
    }

    // MARK: Properties

    /// Gets if this Decimal128 represents a NaN value.
    public var isNaN: Bool {
        highBits & Format.nanMask == Format.nanMask
    }

    /// `true` if `self` is a signaling NaN, `false` otherwise.
    ///
    /// As in RealmSwift, this is `true` for every NaN: realm-core's NaN (0x7C00…) is quiet, and Realm reports it
    /// as signaling, so code written against Realm sees the same answer here.
    public var isSignaling: Bool {
        isNaN
    }

    /// `true` if `self` is a signaling NaN, `false` otherwise (every NaN, as ``isSignaling``).
    public var isSignalingNaN: Bool {
        isSignaling
    }

    /// Whether this value is positive or negative infinity.
    var isInfinite: Bool {
        highBits & Format.nanMask == Format.infinityBits
    }

    /// Convert this value to a double. This is a lossy conversion: the nearest Double to the decimal value,
    /// ±infinity beyond Double's range.
    public var doubleValue: Double {
        Double(stringValue) ?? .nan
    }

    /// Convert this value to a Foundation Decimal. This may be a lossy conversion: Decimal keeps 38 digits and an
    /// exponent from -128 to 127; values outside that range, NaN and the infinities become `Decimal.nan`.
    public var decimalValue: Decimal {
        guard case .finite = unpacked else { return .nan }
        return Decimal(string: stringValue, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }

    /// Convert this value to a string: the IEEE 754 to-scientific-string described in this file's header
    /// ("1.5", "-0.001", "1E+6000", "NaN", "-Infinity").
    public var stringValue: String {
        switch unpacked {
        case .nan:
            return "NaN"
        case .infinity(let isNegative):
            return isNegative ? "-Infinity" : "Infinity"
        case .finite(let isNegative, let coefficient, let exponent):
            let digits = Array(String(coefficient).utf8)
            let adjustedExponent = exponent + digits.count - 1
            var text: [UInt8] = isNegative ? [UInt8(ascii: "-")] : []
            if exponent <= 0 && adjustedExponent >= -6 {
                let integerDigitCount = digits.count + exponent
                if exponent == 0 {
                    text += digits
                } else if integerDigitCount > 0 {
                    text += digits[..<integerDigitCount]
                    text.append(UInt8(ascii: "."))
                    text += digits[integerDigitCount...]
                } else {
                    text += Array("0.".utf8)
                    text += [UInt8](repeating: UInt8(ascii: "0"), count: -integerDigitCount)
                    text += digits
                }
            } else {
                text.append(digits[0])
                if digits.count > 1 {
                    text.append(UInt8(ascii: "."))
                    text += digits[1...]
                }
                text += Array((adjustedExponent >= 0 ? "E+" : "E-").utf8)
                text += Array(String(adjustedExponent.magnitude).utf8)
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// A type that can represent the absolute value of Decimal128
    public typealias Magnitude = Decimal128

    /// The magnitude of this Decimal128: the same value without its sign (exact, NaN stays NaN).
    public var magnitude: Magnitude {
        Decimal128(lowBits: lowBits, highBits: highBits & ~Format.signBit)
    }

    /// Replaces this value with its additive inverse (the sign flips; exact, for zero and NaN too).
    public mutating func negate() {
        highBits ^= Format.signBit
    }

    // MARK: Raw bytes, for storage

    /// Reads a Decimal128 from exactly 16 bytes as the engine stores them (low 64 bits first, little-endian).
    package init(rawBytes: UnsafeRawBufferPointer) {
        precondition(rawBytes.count == Self.byteCount, "a Decimal128 is 16 bytes, not \(rawBytes.count)")
        lowBits = UInt64(littleEndian: rawBytes.loadUnaligned(as: UInt64.self))
        highBits = UInt64(littleEndian: rawBytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// Reads a Decimal128 from the engine's `uint8_t[16]`.
    package init(bytes: Bytes) {
        var copy = bytes
        self = Swift.withUnsafeBytes(of: &copy) { Decimal128(rawBytes: $0) }
    }

    /// The sixteen bytes in storage order, as the engine's `uint8_t[16]`.
    package var bytes: Bytes {
        var result: Bytes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeBytes { source in
            Swift.withUnsafeMutableBytes(of: &result) { $0.copyMemory(from: source) }
        }
        return result
    }

    /// Calls `body` with the sixteen bytes in storage order; the buffer is valid only during the call.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var littleEndian = (lowBits.littleEndian, highBits.littleEndian)
        return try Swift.withUnsafeBytes(of: &littleEndian) { try body($0) }
    }
}

// MARK: - Encoding and decoding the bits

extension Decimal128 {
    /// The constants of the decimal128 interchange format.
    enum Format {
        static let coefficientDigitCount = 34
        static let exponentBias = 6176
        static let minExponent = -6176
        static let maxExponent = 6111
        static let maxCoefficient: UInt128 = 9_999_999_999_999_999_999_999_999_999_999_999
        static let signBit: UInt64 = 1 << 63
        /// The two combination bits that select the second form (exponent shifted right by two bits).
        static let secondFormBits: UInt64 = 0x6000_0000_0000_0000
        static let infinityBits: UInt64 = 0x7800_0000_0000_0000
        static let nanMask: UInt64 = 0x7C00_0000_0000_0000
        /// The bits of the coefficient that live in the high word, in the first form.
        static let highCoefficientMask: UInt64 = (1 << 49) - 1
    }

    /// The value of an encoding, with the first and second combination forms already told apart.
    enum Unpacked {
        case finite(isNegative: Bool, coefficient: UInt128, exponent: Int)
        case infinity(isNegative: Bool)
        case nan
    }

    var unpacked: Unpacked {
        let isNegative = highBits & Format.signBit != 0
        if highBits & Format.infinityBits == Format.infinityBits {
            return isNaN ? .nan : .infinity(isNegative: isNegative)
        }
        if highBits & Format.secondFormBits == Format.secondFormBits {
            // The second form implies a coefficient of at least 2^113 > 10^34 - 1: non-canonical, so zero.
            let biasedExponent = Int(highBits >> 47 & 0x3FFF)
            return .finite(isNegative: isNegative, coefficient: 0, exponent: biasedExponent - Format.exponentBias)
        }
        let biasedExponent = Int(highBits >> 49 & 0x3FFF)
        var coefficient = UInt128(highBits & Format.highCoefficientMask) << 64 | UInt128(lowBits)
        if coefficient > Format.maxCoefficient { coefficient = 0 }  // non-canonical: reads as zero
        return .finite(isNegative: isNegative, coefficient: coefficient, exponent: biasedExponent - Format.exponentBias)
    }

    /// The first-form encoding of a finite value already within the format's limits.
    static func packed(isNegative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128 {
        assert(coefficient <= Format.maxCoefficient, "coefficient \(coefficient) has more than 34 digits")
        assert((Format.minExponent ... Format.maxExponent).contains(exponent), "exponent \(exponent) out of range")
        let biasedExponent = UInt64(exponent + Format.exponentBias)
        let high =
            (isNegative ? Format.signBit : 0) | biasedExponent << 49 | UInt64(truncatingIfNeeded: coefficient >> 64)
        return Decimal128(lowBits: UInt64(truncatingIfNeeded: coefficient), highBits: high)
    }

    static func infinity(isNegative: Bool) -> Decimal128 {
        Decimal128(lowBits: 0, highBits: (isNegative ? Format.signBit : 0) | Format.infinityBits)
    }

    /// The quiet NaN realm-core produces.
    static let nan = Decimal128(lowBits: 0, highBits: Format.nanMask)

    /// 10^0 ... 10^38, every power of ten that fits in a UInt128.
    static let powersOfTen: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1 ... 38 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// The number of decimal digits of `value` (1 for zero).
    static func digitCount(_ value: UInt128) -> Int {
        var count = 1
        while count < powersOfTen.count && value >= powersOfTen[count] { count += 1 }
        return count
    }

    /// The representable value nearest to (-1)^isNegative × (coefficient + δ) × 10^exponent, ties to even, where
    /// δ = 0 when `hasDiscardedDigits` is false and 0 < δ < 1 when it is true. This is the one place results are
    /// rounded, so that no operation rounds twice. Overflow gives ±Infinity; `isExact` tells whether any
    /// nonzero digit was lost.
    ///
    /// A caller that passes `hasDiscardedDigits` must pass at least 35 digits, so that the discarded digits lie
    /// below the rounding digit.
    static func rounded(
        isNegative: Bool, coefficient: UInt128, exponent: Int, hasDiscardedDigits: Bool = false
    ) -> (value: Decimal128, isExact: Bool) {
        var coefficient = coefficient
        var exponent = exponent
        var isExact = !hasDiscardedDigits
        let droppedDigitCount = Swift.max(
            digitCount(coefficient) - Format.coefficientDigitCount, Format.minExponent - exponent, 0)
        assert(droppedDigitCount > 0 || !hasDiscardedDigits, "rounding with discarded digits but no digit to drop")
        if droppedDigitCount > 38 {
            // The coefficient is below 2^128 < 0.5 × 10^39: it rounds to zero.
            isExact = isExact && coefficient == 0
            coefficient = 0
            exponent += droppedDigitCount
        } else if droppedDigitCount > 0 {
            let divisor = powersOfTen[droppedDigitCount]
            let (quotient, remainder) = coefficient.quotientAndRemainder(dividingBy: divisor)
            let half = divisor / 2
            let roundsUp =
                remainder > half || (remainder == half && (hasDiscardedDigits || quotient & 1 == 1))
            isExact = isExact && remainder == 0
            coefficient = quotient + (roundsUp ? 1 : 0)
            exponent += droppedDigitCount
            if coefficient > Format.maxCoefficient {  // 9…9 rounded up to 10^34
                coefficient /= 10
                exponent += 1
            }
        }
        if exponent > Format.maxExponent {
            if coefficient == 0 {
                exponent = Format.maxExponent
            } else {
                // Trailing zeros can absorb a few units of exponent (1E+6144 is 1000…0E+6111).
                let excess = exponent - Format.maxExponent
                guard digitCount(coefficient) + excess <= Format.coefficientDigitCount else {
                    return (infinity(isNegative: isNegative), false)
                }
                coefficient *= powersOfTen[excess]
                exponent = Format.maxExponent
            }
        }
        return (packed(isNegative: isNegative, coefficient: coefficient, exponent: exponent), isExact)
    }
}

// MARK: - Conversions from other number types

extension Decimal128 {
    /// An integer, exact when it has at most 34 significant digits, else rounded to 34.
    static func converting<T: BinaryInteger>(_ source: T) -> (value: Decimal128, isExact: Bool) {
        if let magnitude = UInt128(exactly: source.magnitude) {
            return rounded(isNegative: source < 0, coefficient: magnitude, exponent: 0)
        }
        // Wider than 128 bits: go through the decimal text, which keeps the first 38 digits and a sticky bit.
        return parseDetailed(String(source)).map { ($0.value, $0.isExact) } ?? (nan, false)
    }

    /// A binary floating-point number rounded to `significantDigits` significant digits (the conversion realm-core
    /// and MongoDB use, which avoids printing 0.1 as 0.1000000000000000055511151231257827), then without trailing
    /// zeros.
    init(binary: Double, significantDigits: Int) {
        if binary.isNaN {
            self = Decimal128.nan
            return
        }
        if binary.isInfinite {
            self = Decimal128.infinity(isNegative: binary < 0)
            return
        }
        // printf's %e rounds the exact binary value correctly; its output always parses.
        let text = String(format: "%.\(significantDigits - 1)e", binary)
        guard let parsed = Decimal128.parseDetailed(text),
            case .finite(let isNegative, var coefficient, var exponent) = parsed.value.unpacked
        else {
            preconditionFailure("printf produced \(text), which does not parse as a Decimal128")
        }
        // Of the equal values, take the one with fewest digits, except that an integer of at most 34 digits
        // keeps exponent 0 so that it prints as an integer (100.0 gives "100", 1e40 gives "1E+40").
        if coefficient == 0 {
            exponent = 0
        }
        while coefficient != 0 && coefficient % 10 == 0 {
            coefficient /= 10
            exponent += 1
        }
        if exponent > 0 && Decimal128.digitCount(coefficient) + exponent <= Format.coefficientDigitCount {
            coefficient *= Decimal128.powersOfTen[exponent]
            exponent = 0
        }
        self = Decimal128.packed(isNegative: isNegative, coefficient: coefficient, exponent: exponent)
    }

    /// A Foundation Decimal, through its text (exact: Decimal's 38 digits are rounded to 34 when there are more).
    init(foundationDecimal: Decimal) {
        if foundationDecimal.isNaN {
            self = Decimal128.nan
            return
        }
        let text = foundationDecimal.description
        self = Decimal128.parseDetailed(text)?.value ?? Decimal128.nan
    }
}

// MARK: - Parsing

extension Decimal128 {
    /// Parses `text` (grammar in the file header), throwing for bad syntax and for values too large to represent.
    static func parse(_ text: String) throws -> Decimal128 {
        guard let parsed = parseDetailed(text) else {
            throw ColumnarError(
                code: .misuse,
                message: "\"\(text)\" is not a valid Decimal128: expected digits with an optional point and exponent")
        }
        if parsed.isOverflow {
            throw ColumnarError(
                code: .misuse,
                message: "\"\(text)\" is not a valid Decimal128: its magnitude exceeds 9.999…E+6144")
        }
        return parsed.value
    }

    /// The value of `text`, or nil when it is not a number. `isOverflow` is set when a finite number in the text
    /// became ±Infinity.
    static func parseDetailed(_ text: String) -> (value: Decimal128, isExact: Bool, isOverflow: Bool)? {
        let characters = Array(text.utf8)
        var position = 0
        var isNegative = false
        if position < characters.count,
            characters[position] == UInt8(ascii: "-") || characters[position] == UInt8(ascii: "+")
        {
            isNegative = characters[position] == UInt8(ascii: "-")
            position += 1
        }

        let word = String(decoding: characters[position...], as: UTF8.self).lowercased()
        if word == "nan" {
            var value = nan
            if isNegative { value.negate() }
            return (value, true, false)
        }
        if word == "inf" || word == "infinity" {
            return (infinity(isNegative: isNegative), true, false)
        }

        // Digits: the first 38 significant ones are kept (38 digits fit a UInt128); any later nonzero digit only
        // sets hasDiscardedDigits, which is enough to round correctly to 34.
        var coefficient: UInt128 = 0
        var keptDigitCount = 0
        var discardedDigitCount = 0
        var hasDiscardedDigits = false
        var fractionDigitCount = 0
        var sawDigit = false
        var sawPoint = false
        while position < characters.count {
            let character = characters[position]
            if character == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
            } else if let digit = decimalDigit(character) {
                sawDigit = true
                if sawPoint { fractionDigitCount += 1 }
                if keptDigitCount == 0 && digit == 0 {
                    // A leading zero: no significant digit yet.
                } else if keptDigitCount < 38 {
                    coefficient = coefficient * 10 + UInt128(digit)
                    keptDigitCount += 1
                } else {
                    discardedDigitCount += 1
                    if digit != 0 { hasDiscardedDigits = true }
                }
            } else {
                break
            }
            position += 1
        }
        guard sawDigit else { return nil }

        // The exponent saturates far beyond the format's range, where every value has overflowed or underflowed.
        var writtenExponent = 0
        if position < characters.count {
            guard characters[position] == UInt8(ascii: "e") || characters[position] == UInt8(ascii: "E") else {
                return nil
            }
            position += 1
            var exponentIsNegative = false
            if position < characters.count,
                characters[position] == UInt8(ascii: "-") || characters[position] == UInt8(ascii: "+")
            {
                exponentIsNegative = characters[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < characters.count else { return nil }
            while position < characters.count {
                guard let digit = decimalDigit(characters[position]) else { return nil }
                writtenExponent = Swift.min(writtenExponent * 10 + Int(digit), 100_000_000)
                position += 1
            }
            if exponentIsNegative { writtenExponent = -writtenExponent }
        }

        let exponent = writtenExponent - fractionDigitCount + discardedDigitCount
        let (value, isExact) = rounded(
            isNegative: isNegative, coefficient: coefficient, exponent: exponent,
            hasDiscardedDigits: hasDiscardedDigits)
        return (value, isExact, value.isInfinite)
    }

    private static func decimalDigit(_ character: UInt8) -> UInt8? {
        character >= UInt8(ascii: "0") && character <= UInt8(ascii: "9") ? character - UInt8(ascii: "0") : nil
    }
}

// MARK: - Literals

extension Decimal128: ExpressibleByIntegerLiteral {
    /// Creates a new Decimal128 from the given integer literal.
    public init(integerLiteral value: Int64) {
        self = Decimal128.converting(value).value
    }
}

extension Decimal128: ExpressibleByFloatLiteral {
    /// Creates a new Decimal128 from the given float literal, rounded to 15 significant digits as
    /// ``init(number:)`` rounds a Double (so `0.1` is 0.1).
    public init(floatLiteral value: Double) {
        self.init(binary: value, significantDigits: 15)
    }
}

extension Decimal128: ExpressibleByStringLiteral {
    /// Creates a new Decimal128 from the given string literal.
    ///
    /// Aborts if the string cannot be parsed as a Decimal128.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            fatalError("\(error)")
        }
    }
}

// MARK: - Comparison and hashing

extension Decimal128: Comparable, Hashable {
    /// Returns a Boolean value indicating whether two decimal128 values are numerically equal (1.0 == 1.00,
    /// 0 == -0). NaN is equal to nothing, itself included.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        if lhs.isNaN || rhs.isNaN { return false }
        return order(lhs, rhs) == 0
    }

    /// Returns a Boolean value indicating whether the decimal128 value of the first argument is less than that of
    /// the second argument. NaN is less than every number (realm-core's sort order); two NaNs compare by bits.
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        order(lhs, rhs) < 0
    }

    /// -1, 0 or 1 as `lhs` sorts before, with, or after `rhs`.
    static func order(_ lhs: Decimal128, _ rhs: Decimal128) -> Int {
        switch (lhs.isNaN, rhs.isNaN) {
        case (true, true):
            let (left, right) = ((lhs.highBits, lhs.lowBits), (rhs.highBits, rhs.lowBits))
            return left < right ? -1 : (left == right ? 0 : 1)
        case (true, false): return -1
        case (false, true): return 1
        case (false, false): break
        }
        switch (lhs.unpacked, rhs.unpacked) {
        case (.infinity(let leftIsNegative), .infinity(let rightIsNegative)):
            return leftIsNegative == rightIsNegative ? 0 : (leftIsNegative ? -1 : 1)
        case (.infinity(let isNegative), _):
            return isNegative ? -1 : 1
        case (_, .infinity(let isNegative)):
            return isNegative ? 1 : -1
        case (.finite(let leftIsNegative, let leftCoefficient, let leftExponent),
              .finite(let rightIsNegative, let rightCoefficient, let rightExponent)):
            switch (leftCoefficient == 0, rightCoefficient == 0) {
            case (true, true): return 0
            case (true, false): return rightIsNegative ? 1 : -1
            case (false, true): return leftIsNegative ? -1 : 1
            case (false, false): break
            }
            if leftIsNegative != rightIsNegative { return leftIsNegative ? -1 : 1 }
            let magnitudeOrder = compareMagnitudes(
                leftCoefficient, leftExponent, rightCoefficient, rightExponent)
            return leftIsNegative ? -magnitudeOrder : magnitudeOrder
        default:
            preconditionFailure("NaN was handled above")
        }
    }

    /// -1, 0 or 1 as c1 × 10^e1 is less than, equal to or greater than c2 × 10^e2 (both coefficients nonzero).
    static func compareMagnitudes(_ c1: UInt128, _ e1: Int, _ c2: UInt128, _ e2: Int) -> Int {
        let (digits1, digits2) = (digitCount(c1), digitCount(c2))
        let (leading1, leading2) = (e1 + digits1 - 1, e2 + digits2 - 1)
        if leading1 != leading2 { return leading1 < leading2 ? -1 : 1 }
        // The same leading digit position: give both the same number of digits (at most 34, so no overflow).
        var (scaled1, scaled2) = (c1, c2)
        if digits1 < digits2 { scaled1 *= powersOfTen[digits2 - digits1] }
        if digits2 < digits1 { scaled2 *= powersOfTen[digits1 - digits2] }
        return scaled1 < scaled2 ? -1 : (scaled1 == scaled2 ? 0 : 1)
    }

    /// Hashes the value, not the encoding: every member of a cohort (1, 1.0, 1.00) and both zeros hash alike.
    public func hash(into hasher: inout Hasher) {
        switch unpacked {
        case .nan:
            // NaN equals nothing, so any hash is consistent with ==.
            hasher.combine(highBits)
            hasher.combine(lowBits)
        case .infinity(let isNegative):
            hasher.combine(UInt8(2))
            hasher.combine(isNegative)
        case .finite(let isNegative, var coefficient, var exponent):
            guard coefficient != 0 else {
                hasher.combine(UInt8(0))
                return
            }
            while coefficient % 10 == 0 {
                coefficient /= 10
                exponent += 1
            }
            hasher.combine(UInt8(1))
            hasher.combine(isNegative)
            hasher.combine(coefficient)
            hasher.combine(exponent)
        }
    }
}

// MARK: - Arithmetic

// Numeric (and through it AdditiveArithmetic), as RealmSwift declares: generic code over numbers (`reduce(.zero, +)`,
// `func total<T: Numeric>`) accepts Decimal128. Everything the protocols ask for is below and above: `init?(exactly:)`,
// `magnitude`, integer literals (which give `zero`), + - * and their compound forms.
extension Decimal128: Numeric {
    /// Adds two decimal128 values and produces their sum, rounded to 34 significant digits.
    ///
    /// - Parameters:
    ///   - lhs: The first Decimal128 value to add.
    ///   - rhs: The second Decimal128 value to add.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.unpacked, rhs.unpacked) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity(let leftIsNegative), .infinity(let rightIsNegative)):
            return leftIsNegative == rightIsNegative ? lhs : nan
        case (.infinity, _): return lhs
        case (_, .infinity): return rhs
        case (.finite(let leftIsNegative, let leftCoefficient, let leftExponent),
              .finite(let rightIsNegative, let rightCoefficient, let rightExponent)):
            // Call the operand with the larger exponent "high" and the other "low".
            let leftIsHigh = leftExponent >= rightExponent
            let (highIsNegative, highCoefficient, highExponent) =
                leftIsHigh
                ? (leftIsNegative, leftCoefficient, leftExponent) : (rightIsNegative, rightCoefficient, rightExponent)
            let (lowIsNegative, lowCoefficient, lowExponent) =
                leftIsHigh
                ? (rightIsNegative, rightCoefficient, rightExponent) : (leftIsNegative, leftCoefficient, leftExponent)
            let shift = highExponent - lowExponent
            let highDigitCount = digitCount(highCoefficient)

            if highCoefficient == 0 || highDigitCount + shift <= 38 {
                // Exact: both aligned to the lower exponent fit in 38 digits, and their sum in a UInt128.
                let high = highCoefficient == 0 ? 0 : highCoefficient * powersOfTen[shift]
                let low = lowCoefficient
                let (coefficient, isNegative): (UInt128, Bool)
                if highIsNegative == lowIsNegative {
                    (coefficient, isNegative) = (high + low, highIsNegative)
                } else if high >= low {
                    // An exact zero from opposite signs is +0 when rounding to nearest.
                    (coefficient, isNegative) = (high - low, high == low ? false : highIsNegative)
                } else {
                    (coefficient, isNegative) = (low - high, lowIsNegative)
                }
                return rounded(isNegative: isNegative, coefficient: coefficient, exponent: lowExponent).value
            }

            // The high operand's leading digit is at least 5 places above the low one's. Scale the high operand to
            // 37 digits; cut the low one to the same exponent, remembering whether it lost nonzero digits. The sum
            // keeps at least 36 digits, so the lost digits lie below the rounding digit.
            let scale = 37 - highDigitCount
            let high = highCoefficient * powersOfTen[scale]
            let commonExponent = highExponent - scale
            let cut = commonExponent - lowExponent  // > 0
            let low: UInt128
            let lostDigits: Bool
            if cut > 38 {
                (low, lostDigits) = (0, lowCoefficient != 0)
            } else {
                let (quotient, remainder) = lowCoefficient.quotientAndRemainder(dividingBy: powersOfTen[cut])
                (low, lostDigits) = (quotient, remainder != 0)
            }
            // high - (low + δ) with 0 < δ < 1 is (high - low - 1) + (1 - δ), again a fraction inside (0, 1).
            let coefficient =
                highIsNegative == lowIsNegative ? high + low : high - low - (lostDigits ? 1 : 0)
            return rounded(
                isNegative: highIsNegative, coefficient: coefficient, exponent: commonExponent,
                hasDiscardedDigits: lostDigits
            ).value
        }
    }

    /// Subtracts one Decimal128 value from another and produces their difference, rounded to 34 significant
    /// digits.
    ///
    /// - Parameters:
    ///   - lhs: A Decimal128 value.
    ///   - rhs: The Decimal128 value to subtract from `lhs`.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        lhs + (-rhs)
    }

    /// Multiplies two Decimal128 values and produces their product, rounded to 34 significant digits.
    ///
    /// - Parameters:
    ///   - lhs: The first value to multiply.
    ///   - rhs: The second value to multiply.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let isNegative = (lhs.highBits ^ rhs.highBits) & Format.signBit != 0
        switch (lhs.unpacked, rhs.unpacked) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity, .finite(_, let coefficient, _)), (.finite(_, let coefficient, _), .infinity):
            return coefficient == 0 ? nan : infinity(isNegative: isNegative)
        case (.infinity, .infinity):
            return infinity(isNegative: isNegative)
        case (.finite(_, let leftCoefficient, let leftExponent), .finite(_, let rightCoefficient, let rightExponent)):
            let exponent = leftExponent + rightExponent
            let product = leftCoefficient.multipliedFullWidth(by: rightCoefficient)
            if product.high == 0 {
                return rounded(isNegative: isNegative, coefficient: product.low, exponent: exponent).value
            }
            // The product has 39 to 68 digits. Dividing by 10^(d1 + d2 - 38) leaves 37 or 38 digits, which fit a
            // UInt128, and at most 30 digits of remainder that only matter as "nonzero or not".
            let droppedDigitCount = digitCount(leftCoefficient) + digitCount(rightCoefficient) - 38
            let (quotient, remainder) = powersOfTen[droppedDigitCount].dividingFullWidth(product)
            return rounded(
                isNegative: isNegative, coefficient: quotient, exponent: exponent + droppedDigitCount,
                hasDiscardedDigits: remainder != 0
            ).value
        }
    }

    /// Returns the quotient of dividing the first Decimal128 value by the second, rounded to 34 significant
    /// digits. Dividing a nonzero number by zero gives ±Infinity, and zero by zero NaN.
    ///
    /// - Parameters:
    ///   - lhs: The Decimal128 value to divide.
    ///   - rhs: The Decimal128 value to divide `lhs` by. `rhs` must not be zero.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let isNegative = (lhs.highBits ^ rhs.highBits) & Format.signBit != 0
        switch (lhs.unpacked, rhs.unpacked) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity, .infinity): return nan
        case (.infinity, .finite): return infinity(isNegative: isNegative)
        case (.finite, .infinity):
            return packed(isNegative: isNegative, coefficient: 0, exponent: Format.minExponent)
        case (.finite(_, let dividend, let dividendExponent), .finite(_, let divisor, let divisorExponent)):
            if divisor == 0 {
                return dividend == 0 ? nan : infinity(isNegative: isNegative)
            }
            // Long division, one decimal digit at a time, until the quotient is exact or has 35 digits (one more
            // than kept, plus the remainder as a sticky digit, is what rounding needs). Exact quotients thus get
            // the exponent nearest IEEE's preferred dividendExponent - divisorExponent.
            var (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: divisor)
            var exponent = dividendExponent - divisorExponent
            while remainder != 0 && quotient <= Format.maxCoefficient {
                remainder *= 10
                quotient = quotient * 10 + remainder / divisor
                remainder %= divisor
                exponent -= 1
            }
            return rounded(
                isNegative: isNegative, coefficient: quotient, exponent: exponent, hasDiscardedDigits: remainder != 0
            ).value
        }
    }

    /// Adds two values and stores the result in the left-hand-side variable.
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }

    /// Subtracts the second value from the first and stores the difference in the left-hand-side variable.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }

    /// Multiplies two values and stores the result in the left-hand-side variable.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }

    /// Divides the first value by the second and stores the quotient in the left-hand-side variable.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// Returns the additive inverse of the value (its sign flipped).
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        var result = operand
        result.negate()
        return result
    }

    /// A NaN with its signalling bit cleared, as an operation returns a NaN operand.
    private var quieted: Decimal128 {
        Decimal128(lowBits: lowBits, highBits: highBits & ~(UInt64(1) << 57))
    }
}

// MARK: - Strides

extension Decimal128 {
    /// A type that represents the distance between two values.
    public typealias Stride = Decimal128

    /// Returns the distance from this Decimal128 to the given value, expressed as a stride.
    ///
    /// - Parameter other: The Decimal128 value to calculate the distance to.
    /// - Returns: The distance from this value to `other`.
    public func distance(to other: Decimal128) -> Stride {
        other - self
    }

    /// Returns a Decimal128 that is offset the specified distance from this value.
    ///
    /// - Parameter n: The distance to advance this Decimal128.
    /// - Returns: A Decimal128 that is offset from this value by `n`.
    public func advanced(by n: Decimal128) -> Decimal128 {
        self + n
    }
}

// MARK: - Text and Codable

extension Decimal128: CustomStringConvertible {
    /// The value as text, as ``stringValue``.
    public var description: String { stringValue }
}

extension Decimal128: Codable {
    /// Creates a new Decimal128 by decoding from the given decoder: a string, or else an integer or a double.
    ///
    /// This initializer throws an error if the decoder is invalid or does not decode to a value which can be
    /// converted to Decimal128.
    ///
    /// - Parameter decoder: The decoder to read data from.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            do {
                try self.init(string: string)
            } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
            }
        } else if let integer = try? container.decode(Int64.self) {
            self = Decimal128.converting(integer).value
        } else if let double = try? container.decode(Double.self) {
            self.init(binary: double, significantDigits: 15)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Cannot convert value to Decimal128")
        }
    }

    /// Encodes this Decimal128 to the given encoder as its ``stringValue``.
    ///
    /// - Parameter encoder: The encoder to write data to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

// MARK: - RLMDecimal128's method names

extension Decimal128 {
    /// `self + decimalNumber` (RLMDecimal128's `decimalNumberByAdding:`).
    public func decimalNumber(byAdding decimalNumber: Decimal128) -> Decimal128 { self + decimalNumber }

    /// `self - decimalNumber` (RLMDecimal128's `decimalNumberBySubtracting:`).
    public func decimalNumber(bySubtracting decimalNumber: Decimal128) -> Decimal128 { self - decimalNumber }

    /// `self * decimalNumber` (RLMDecimal128's `decimalNumberByMultiplyingBy:`).
    public func decimalNumber(byMultiplyingBy decimalNumber: Decimal128) -> Decimal128 { self * decimalNumber }

    /// `self / decimalNumber` (RLMDecimal128's `decimalNumberByDividingBy:`).
    public func decimalNumber(byDividingBy decimalNumber: Decimal128) -> Decimal128 { self / decimalNumber }

    /// `self > decimalNumber`; false for nil.
    public func isGreaterThan(_ decimalNumber: Decimal128?) -> Bool { decimalNumber.map { self > $0 } ?? false }

    /// `self >= decimalNumber`; false for nil.
    public func isGreaterThanOrEqualTo(_ decimalNumber: Decimal128?) -> Bool {
        decimalNumber.map { self >= $0 } ?? false
    }

    /// `self < decimalNumber`; false for nil.
    public func isLessThan(_ decimalNumber: Decimal128?) -> Bool { decimalNumber.map { self < $0 } ?? false }

    /// `self <= decimalNumber`; false for nil.
    public func isLessThanOrEqualTo(_ decimalNumber: Decimal128?) -> Bool {
        decimalNumber.map { self <= $0 } ?? false
    }
}
