// Decimal128Tests: the IEEE 754-2008 decimal128 (BID) bits Decimal128 reads and writes, its text form, numeric
// comparison, arithmetic rounding, conversions and Codable form.
//
// Expected encodings are the ones MongoDB's BSON corpus and the format's definition give (exponent bias 6176,
// coefficient in the low 113 bits); expected arithmetic results and strings were computed with Python's decimal
// module in a decimal128 context (prec=34, Emax=6144, Emin=-6143, clamp=1, ROUND_HALF_EVEN), whose to-string is
// the same to-scientific-string.

import ColumnarTestSupport
import Foundation
import XCTest

@testable import Columnar

final class Decimal128Tests: XCTestCase {
    private func decimal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Decimal128 {
        do {
            return try Decimal128(string: text)
        } catch {
            XCTFail("\"\(text)\" did not parse: \(error)", file: file, line: line)
            return Decimal128.nan
        }
    }

    // MARK: Encoding

    func testKnownEncodings() {
        let expected: [(text: String, highBits: UInt64, lowBits: UInt64)] = [
            ("0", 0x3040_0000_0000_0000, 0),
            ("-0", 0xB040_0000_0000_0000, 0),
            ("1", 0x3040_0000_0000_0000, 1),
            ("-1", 0xB040_0000_0000_0000, 1),
            ("0.1", 0x303E_0000_0000_0000, 1),
            ("-1.5", 0xB03E_0000_0000_0000, 15),
            ("-0.001", 0xB03A_0000_0000_0000, 1),
            ("1E+3", 0x3046_0000_0000_0000, 1),
            ("1234567890123456789012345678901234", 0x3040_3CDE_6FFF_9732, 0xDE82_5CD0_7E96_AFF2),
            ("9.999999999999999999999999999999999E+6144", 0x5FFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF),
            ("9.999999999999999999999999999999999E-6143", 0x0001_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF),
            ("1E-6176", 0, 1),
            ("0E-6176", 0, 0),
            ("Infinity", 0x7800_0000_0000_0000, 0),
            ("-Infinity", 0xF800_0000_0000_0000, 0),
            ("NaN", 0x7C00_0000_0000_0000, 0),
        ]
        for (text, highBits, lowBits) in expected {
            let value = decimal(text)
            XCTAssertEqual(value.highBits, highBits, "high bits of \(text): 0x\(String(value.highBits, radix: 16))")
            XCTAssertEqual(value.lowBits, lowBits, "low bits of \(text): 0x\(String(value.lowBits, radix: 16))")
        }
        XCTAssertEqual(Decimal128().highBits, 0x3040_0000_0000_0000)
        XCTAssertEqual(Decimal128().lowBits, 0)
        XCTAssertEqual(Decimal128.max.stringValue, "9.999999999999999999999999999999999E+6144")
        XCTAssertEqual(Decimal128.min.stringValue, "-9.999999999999999999999999999999999E+6144")
    }

    func testRawBytesAreLowWordFirstLittleEndian() {
        let value = decimal("1234567890123456789012345678901234")
        let bytes = value.withUnsafeBytes { Array($0) }
        XCTAssertEqual(bytes, [
            0xF2, 0xAF, 0x96, 0x7E, 0xD0, 0x5C, 0x82, 0xDE, 0x32, 0x97, 0xFF, 0x6F, 0xDE, 0x3C, 0x40, 0x30,
        ])
        XCTAssertEqual(bytes.withUnsafeBytes { Decimal128(rawBytes: $0) }.highBits, value.highBits)
        let fromTuple = Decimal128(bytes: value.bytes)
        XCTAssertEqual(fromTuple.lowBits, value.lowBits)
        XCTAssertEqual(fromTuple.highBits, value.highBits)
    }

    func testNonCanonicalEncodingsReadAsZero() {
        // A first-form coefficient above 10^34 - 1 (here 2^113 - 1), and the second combination form.
        let tooLarge = Decimal128(lowBits: .max, highBits: 0x3041_FFFF_FFFF_FFFF)
        XCTAssertEqual(tooLarge, 0)
        XCTAssertEqual(tooLarge.stringValue, "0")
        let secondForm = Decimal128(lowBits: 0, highBits: 0x6C10_0000_0000_0000)
        XCTAssertEqual(secondForm, 0)
        XCTAssertFalse(secondForm.isNaN)
    }

    // MARK: Text

    func testScientificStringFormat() {
        let expected: [(String, String)] = [
            ("123", "123"), ("-123", "-123"), ("123E1", "1.23E+3"), ("123E3", "1.23E+5"), ("123E-1", "12.3"),
            ("123E-5", "0.00123"), ("123E-10", "1.23E-8"), ("-123E-12", "-1.23E-10"), ("0", "0"), ("0E-2", "0.00"),
            ("0E2", "0E+2"), ("-0", "-0"), ("5E-6", "0.000005"), ("50E-7", "0.0000050"), ("5E-7", "5E-7"),
            ("1.00", "1.00"), (".5", "0.5"), ("5.", "5"), ("+7", "7"), ("1e6000", "1E+6000"), ("inf", "Infinity"),
            ("-INFINITY", "-Infinity"), ("nan", "NaN"),
        ]
        for (input, output) in expected {
            XCTAssertEqual(decimal(input).stringValue, output, "printing \(input)")
            XCTAssertEqual(decimal(input).description, output)
        }
    }

    func testFiniteValuesRoundTripThroughText() {
        for text in ["1.5", "-0.001", "1E+6000", "123456789012345678901234567890123.4", "0.000000", "-0E-6176"] {
            XCTAssertEqual(decimal(text).stringValue, text)
        }
        var generator = SeededGenerator.fromEnvironment()
        let seed = generator.seed
        for _ in 0 ..< 20_000 {
            let coefficient = UInt128(generator.next() & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(generator.next())
            let format = Decimal128.Format.self
            let exponent = Int.random(in: format.minExponent ... format.maxExponent, using: &generator)
            let value = Decimal128.packed(
                isNegative: Bool.random(using: &generator), coefficient: coefficient % (format.maxCoefficient + 1),
                exponent: Bool.random(using: &generator) ? exponent : exponent % 40)
            let reparsed = decimal(value.stringValue)
            XCTAssertEqual(reparsed.highBits, value.highBits, "\(value) (seed \(seed))")
            XCTAssertEqual(reparsed.lowBits, value.lowBits, "\(value) (seed \(seed))")
        }
    }

    func testParsingRoundsBeyond34DigitsToNearestEven() {
        let expected: [(String, String)] = [
            ("1234567890123456789012345678901234.5", "1234567890123456789012345678901234"),
            ("1234567890123456789012345678901235.5", "1234567890123456789012345678901236"),
            ("1234567890123456789012345678901234.50000000001", "1234567890123456789012345678901235"),
            ("1234567890123456789012345678901234.4999999999999", "1234567890123456789012345678901234"),
            ("12345678901234567890123456789012345000000000001", "1.234567890123456789012345678901235E+46"),
            ("99999999999999999999999999999999995", "1.000000000000000000000000000000000E+35"),
            ("0.00000000000000000000000000000000000000000000000000000000000123", "1.23E-60"),
            ("5E-6177", "0E-6176"), ("6E-6177", "1E-6176"), ("1E-7000", "0E-6176"),
            ("1E+6112", "1.0E+6112"), ("0E+7000", "0E+6111"),
        ]
        for (input, output) in expected {
            XCTAssertEqual(decimal(input).stringValue, output, "parsing \(input)")
        }
    }

    func testInvalidStringsThrow() {
        let invalid = [
            "", "-", "+", ".", "1.2.3", "1e", "1e+", "e5", "1 ", " 1", "0x10", "1,5", "abc", "--1", "1e5.0", "infinit",
            "1E+6145", "-1E+7000", "99999999999999999999999999999999995E+6111",
        ]
        for text in invalid {
            XCTAssertThrowsError(try Decimal128(string: text), "\"\(text)\" was accepted") { error in
                guard let error = error as? ColumnarError else {
                    return XCTFail("\"\(text)\" threw \(type(of: error)), not ColumnarError")
                }
                XCTAssertTrue(error.message.contains("\"\(text)\""), "message does not name the input: \(error)")
            }
        }
    }

    // MARK: Comparison and hashing

    func testComparisonIsNumeric() {
        XCTAssertEqual(decimal("1.0"), decimal("1.00"))
        XCTAssertEqual(decimal("1"), decimal("1.000000000000000000000000000000000"))
        XCTAssertEqual(decimal("100"), decimal("1E+2"))
        XCTAssertEqual(decimal("0"), decimal("-0E-30"))
        XCTAssertNotEqual(decimal("1.01"), decimal("1.0"))
        XCTAssertLessThan(decimal("0.999999999999999999999999999999999"), decimal("1"))
        XCTAssertLessThan(decimal("-2"), decimal("-1.5"))
        XCTAssertGreaterThan(decimal("1E+10"), decimal("9999999999"))
        XCTAssertLessThanOrEqual(decimal("2.0"), decimal("2"))
        XCTAssertGreaterThanOrEqual(decimal("2.0"), decimal("2"))
    }

    func testSortOrderPutsNaNFirstThenNegativeInfinity() {
        let sorted = [
            "NaN", "-Infinity", "-9.999999999999999999999999999999999E+6144", "-1", "-1E-6176", "0", "1E-6176", "1",
            "1.5", "2", "9.999999999999999999999999999999999E+6144", "Infinity",
        ].map { decimal($0) }
        var generator = SeededGenerator.fromEnvironment()
        let shuffled = sorted.shuffled(using: &generator).sorted()
        XCTAssertEqual(shuffled.map(\.stringValue), sorted.map(\.stringValue), "seed \(generator.seed)")
        XCTAssertLessThan(Decimal128.nan, decimal("-Infinity"))
    }

    func testNaNEqualsNothing() {
        let nan = decimal("NaN")
        XCTAssertTrue(nan.isNaN)
        XCTAssertTrue(nan.isSignaling, "RealmSwift reports every NaN as signaling")
        XCTAssertFalse(decimal("Infinity").isNaN)
        XCTAssertFalse(decimal("1").isNaN)
        XCTAssertNotEqual(nan, nan)
        XCTAssertNotEqual(nan, decimal("0"))
        XCTAssertFalse(nan < nan)
    }

    func testEqualValuesHashAlike() {
        let set: Set<Decimal128> = [
            decimal("1"), decimal("1.0"), decimal("1.000"), decimal("1E0"), decimal("0"), decimal("-0"),
            decimal("0E+10"), decimal("100"), decimal("1E+2"), decimal("-1"), decimal("Infinity"),
        ]
        XCTAssertEqual(set.count, 5, "\(set)")
        XCTAssertTrue(set.contains(decimal("10E-1")))
    }

    // MARK: Arithmetic

    func testArithmeticMatchesIEEERoundingToNearestEven() {
        let expected: [(String, String, String, String)] = [
            ("1.50", "+", "1", "2.50"),
            ("0.1", "+", "0.2", "0.3"),
            ("1", "-", "1", "0"),
            ("-0", "-", "0", "-0"),
            ("-0", "+", "-0", "-0"),
            ("9999999999999999999999999999999999", "+", "1", "1.000000000000000000000000000000000E+34"),
            ("1E+34", "+", "6", "1.000000000000000000000000000000001E+34"),
            ("1E+34", "+", "5", "1.000000000000000000000000000000000E+34"),
            ("1E+34", "+", "15", "1.000000000000000000000000000000002E+34"),
            ("1E+40", "-", "1E-100", "1.000000000000000000000000000000000E+40"),
            ("1E+40", "+", "5E+6", "1.000000000000000000000000000000000E+40"),
            ("1E+6111", "+", "0E-6176", "1.000000000000000000000000000000000E+6111"),
            ("123.456", "+", "-123.456000", "0.000000"),
            ("1E-6176", "-", "1E-6176", "0E-6176"),
            ("9.999999999999999999999999999999999E+6144", "+", "1E+6111", "Infinity"),
            ("1.5", "*", "2", "3.0"),
            ("-2", "*", "3", "-6"),
            ("9999999999999999999999999999999999", "*", "9999999999999999999999999999999999",
             "9.999999999999999999999999999999998E+67"),
            ("1E+6111", "*", "10", "1.0E+6112"),
            ("1E-6176", "*", "0.1", "0E-6176"),
            ("1E-6176", "*", "0.6", "1E-6176"),
            ("0", "*", "-5E+10", "-0E+10"),
            ("123456789", "*", "987654321", "121932631112635269"),
            ("1.1", "*", "1.1", "1.21"),
            ("1", "/", "3", "0.3333333333333333333333333333333333"),
            ("2", "/", "3", "0.6666666666666666666666666666666667"),
            ("1", "/", "4", "0.25"),
            ("10", "/", "4", "2.5"),
            ("1E+2", "/", "1", "1E+2"),
            ("1", "/", "0.5", "2"),
            ("-7", "/", "2", "-3.5"),
            ("1", "/", "7", "0.1428571428571428571428571428571429"),
            ("0", "/", "5E-3", "0E+3"),
            ("1E-6176", "/", "10", "0E-6176"),
            ("1E+6144", "/", "0.1", "Infinity"),
            ("100", "/", "100", "1"),
            ("1.00", "/", "3", "0.3333333333333333333333333333333333"),
        ]
        for (left, operation, right, result) in expected {
            let (lhs, rhs) = (decimal(left), decimal(right))
            let actual: Decimal128
            switch operation {
            case "+": actual = lhs + rhs
            case "-": actual = lhs - rhs
            case "*": actual = lhs * rhs
            default: actual = lhs / rhs
            }
            XCTAssertEqual(actual.stringValue, result, "\(left) \(operation) \(right)")
        }
    }

    func testSpecialValuesInArithmetic() {
        let (infinity, one, zero) = (decimal("Infinity"), decimal("1"), decimal("0"))
        XCTAssertTrue((infinity - infinity).isNaN)
        XCTAssertTrue((infinity * zero).isNaN)
        XCTAssertTrue((zero / zero).isNaN)
        XCTAssertTrue((infinity / infinity).isNaN)
        XCTAssertTrue((decimal("NaN") + one).isNaN)
        XCTAssertEqual((one / zero).stringValue, "Infinity")
        XCTAssertEqual((-one / zero).stringValue, "-Infinity")
        XCTAssertEqual((infinity + one).stringValue, "Infinity")
        XCTAssertEqual((infinity * -one).stringValue, "-Infinity")
        XCTAssertEqual((one / -infinity).stringValue, "-0E-6176")
    }

    func testCompoundAssignmentNegationAndMagnitude() {
        var value = decimal("10")
        value += 5
        value -= decimal("0.5")
        value *= 2
        value /= 4
        XCTAssertEqual(value.stringValue, "7.25")
        value.negate()
        XCTAssertEqual(value.stringValue, "-7.25")
        XCTAssertEqual((-value).stringValue, "7.25")
        XCTAssertEqual(value.magnitude.stringValue, "7.25")
        XCTAssertEqual(decimal("-1.10").magnitude.stringValue, "1.10")
        XCTAssertEqual(decimal("1").distance(to: decimal("3.5")), decimal("2.5"))
        XCTAssertEqual(decimal("1").advanced(by: decimal("-3")), -2)
    }

    // MARK: Conversions

    func testLiteralsAndNumberConversions() {
        let integer: Decimal128 = 42
        let floating: Decimal128 = 0.1
        let text: Decimal128 = "1.25"
        XCTAssertEqual(integer.stringValue, "42")
        XCTAssertEqual(floating.stringValue, "0.1")
        XCTAssertEqual(text.stringValue, "1.25")
        XCTAssertEqual(Decimal128(integerLiteral: .min).stringValue, "-9223372036854775808")
        XCTAssertEqual(Decimal128(floatLiteral: 100.0).stringValue, "100")
        XCTAssertEqual(Decimal128(floatLiteral: 1e40).stringValue, "1E+40")
        XCTAssertEqual(Decimal128(floatLiteral: 1.0 / 3.0).stringValue, "0.333333333333333")
        XCTAssertEqual(Decimal128(floatLiteral: -0.0).stringValue, "-0")

        XCTAssertEqual(Decimal128(value: 7).stringValue, "7")
        XCTAssertEqual(Decimal128(value: UInt64.max).stringValue, "18446744073709551615")
        XCTAssertEqual(Decimal128(value: 2.5).stringValue, "2.5")
        XCTAssertEqual(Decimal128(value: Float(0.1)).stringValue, "0.1")
        XCTAssertEqual(Decimal128(value: "-3.75").stringValue, "-3.75")
        XCTAssertEqual(Decimal128(value: Decimal(string: "12.5")!).stringValue, "12.5")
        XCTAssertEqual(Decimal128(value: decimal("8.8")).stringValue, "8.8")
        XCTAssertEqual(Decimal128(number: NSNumber(value: 12)).stringValue, "12")
        XCTAssertEqual(Decimal128(number: NSNumber(value: 0.25)).stringValue, "0.25")
        XCTAssertEqual(Decimal128(number: NSNumber(value: UInt64.max)).stringValue, "18446744073709551615")
        XCTAssertEqual(Decimal128(number: NSNumber(value: Int64.min)).stringValue, "-9223372036854775808")

        XCTAssertEqual(Decimal128(exactly: Int64(-5))?.stringValue, "-5")
        XCTAssertEqual(Decimal128(exactly: UInt128.max)?.stringValue, nil, "39 digits cannot be exact")
        XCTAssertEqual(
            Decimal128(exactly: UInt128(Decimal128.Format.maxCoefficient))?.stringValue,
            "9999999999999999999999999999999999")
    }

    func testDoubleAndDecimalValues() {
        XCTAssertEqual(decimal("1.5").doubleValue, 1.5)
        XCTAssertEqual(decimal("-0.1").doubleValue, -0.1)
        XCTAssertEqual(decimal("1E+6000").doubleValue, .infinity)
        XCTAssertEqual(decimal("-Infinity").doubleValue, -.infinity)
        XCTAssertTrue(decimal("NaN").doubleValue.isNaN)
        XCTAssertEqual(decimal("12.34").decimalValue, Decimal(string: "12.34"))
        XCTAssertTrue(decimal("NaN").decimalValue.isNaN)
    }

    // MARK: Codable

    func testCodableIsAStringAndAcceptsNumbers() throws {
        let values = [decimal("1.50"), decimal("-0.001"), decimal("1E+6000"), decimal("Infinity")]
        let json = try JSONEncoder().encode(values)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"["1.50","-0.001","1E+6000","Infinity"]"#)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: json)
        XCTAssertEqual(decoded.map(\.stringValue), values.map(\.stringValue))

        let numbers = try JSONDecoder().decode([Decimal128].self, from: Data("[12, -3, 2.5]".utf8))
        XCTAssertEqual(numbers.map(\.stringValue), ["12", "-3", "2.5"])
        XCTAssertThrowsError(try JSONDecoder().decode([Decimal128].self, from: Data(#"["x1"]"#.utf8)))
        XCTAssertThrowsError(try JSONDecoder().decode([Decimal128].self, from: Data("[true]".utf8)))
    }
}
