// Formatting.swift — numbers, byte counts, offsets and ratios as the text output shows them.

import Foundation

enum Format {
    /// 1048576 -> "1,048,576".
    static func grouped<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// 1048576 -> "1,048,576 bytes (1.0 MiB)"; small counts without the unit in parentheses.
    static func bytes(_ value: UInt64) -> String {
        let plain = "\(grouped(value)) bytes"
        guard value >= 1024 else { return plain }
        return "\(plain) (\(humanBytes(value)))"
    }

    /// 1048576 -> "1.0 MiB".
    static func humanBytes(_ value: UInt64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1024 && unit < units.count - 1 {
            amount /= 1024
            unit += 1
        }
        return unit == 0 ? "\(value) bytes" : String(format: "%.1f %@", amount, units[unit])
    }

    /// A share of a whole as a percentage with one decimal ("12.3%").
    static func percent(_ part: UInt64, of whole: UInt64) -> String {
        guard whole > 0 else { return "-" }
        return String(format: "%.1f%%", Double(part) * 100 / Double(whole))
    }

    /// plain / stored with two decimals ("3.25x"), or "-" when nothing is stored.
    static func ratio(_ plain: UInt64, _ stored: UInt64) -> String {
        guard stored > 0 else { return "-" }
        return String(format: "%.2fx", Double(plain) / Double(stored))
    }

    static func ratioValue(_ plain: UInt64, _ stored: UInt64) -> Double? {
        guard stored > 0 else { return nil }
        return (Double(plain) / Double(stored) * 1000).rounded() / 1000
    }

    /// Lower-case hexadecimal of bytes, no separators.
    static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A file offset as "12345 (0x3039)".
    static func offset(_ value: UInt64) -> String { "\(value) (0x\(String(value, radix: 16)))" }
}
