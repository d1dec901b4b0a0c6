// FormatSpecifier: the `%` conversions of NSPredicate's format grammar that substitute a value.
//
// RealmSwift builds its queries with NSPredicate, whose format strings take C's printf conversions besides `%@`:
// `filter("intCol > %d", 5)`, `filter("doubleCol < %lf", 1.5)`, `filter("name == %s", "a")`. Each takes the next
// argument, in order, as `%@` does. The argument reaches the parser as `Any`, so there is no C promotion to rely
// on: each conversion says which Swift values it accepts and what constant it makes of them, and anything else is
// a positioned error. The C meanings kept:
//
// - integer conversions (`d i o u x X`, with the length modifiers `hh h l ll q j z t`) take an integer (or a Bool,
//   which C passes as 0 or 1) and make an integer constant; the base a conversion would print in does not matter
//   to a comparison. The unsigned ones (`o u x X`) refuse a negative value rather than wrap it.
// - floating conversions (`f F e E g G a A`, with `l` or `L`) make a Double constant, as C promotes a float
//   argument to double; an integer is taken when a Double holds it exactly.
// - `%s` and `%S` take a String (or a C string pointer); `%c` and `%C` take one character, or its code as an
//   integer, and make a one-character string.
//
// Flags, widths and precisions (`%5.2f`) change only how printf would lay a value out, which a query never does,
// so they are refused rather than ignored.

/// How a value placeholder converts its argument.
public enum FormatSpecifier: Equatable, Sendable {
    /// `%@`: any value a query can hold, as given.
    case object
    /// `%d`, `%i` and their length modifiers.
    case signedInteger(String)
    /// `%u`, `%o`, `%x`, `%X` and their length modifiers.
    case unsignedInteger(String)
    /// `%f`, `%e`, `%g`, `%a` (either case), with `l` or `L`.
    case floatingPoint(String)
    /// `%s`, `%S`.
    case string(String)
    /// `%c`, `%C`.
    case character(String)

    /// How the query spells it, `%` included.
    public var spelling: String {
        switch self {
        case .object: return "%@"
        case .signedInteger(let text), .unsignedInteger(let text), .floatingPoint(let text), .string(let text),
             .character(let text):
            return text
        }
    }

    private static let integerLengths: Set<String> = ["", "hh", "h", "l", "ll", "q", "j", "z", "t"]
    private static let floatingLengths: Set<String> = ["", "l", "L"]

    /// The specifier spelled `text` (without its `%`: "lld", "f"), or nil when it is not one.
    static func parse(_ text: String) -> FormatSpecifier? {
        guard let conversion = text.last else { return nil }
        let length = String(text.dropLast())
        let spelling = "%" + text
        switch conversion {
        case "d", "i":
            return integerLengths.contains(length) ? .signedInteger(spelling) : nil
        case "o", "u", "x", "X":
            return integerLengths.contains(length) ? .unsignedInteger(spelling) : nil
        case "f", "F", "e", "E", "g", "G", "a", "A":
            return floatingLengths.contains(length) ? .floatingPoint(spelling) : nil
        case "s", "S":
            return length.isEmpty || (length == "l" && conversion == "s") ? .string(spelling) : nil
        case "c", "C":
            return length.isEmpty || (length == "l" && conversion == "c") ? .character(spelling) : nil
        default:
            return nil
        }
    }

    /// The characters a specifier can be made of after its `%`: length modifiers and conversions.
    static func isSpecifierCharacter(_ character: Character) -> Bool {
        "hlqjztLdiouxXfFeEgGaAsScC".contains(character)
    }

    /// What an argument that does not fit is told it should be.
    var expectation: String {
        switch self {
        case .object: return "a query value"
        case .signedInteger: return "an integer (or Bool)"
        case .unsignedInteger: return "a non-negative integer"
        case .floatingPoint: return "a Double, Float or integer"
        case .string: return "a String"
        case .character: return "a Character, a one-character String or a character code"
        }
    }

    /// The constant for `value`, the argument already turned into a query value (nil when its type has none),
    /// or nil when this conversion does not take it. `argument` is the Swift value, for the C string pointer.
    func convert(_ value: QueryValue?, argument: Any) -> QueryValue? {
        switch self {
        case .object:
            return value
        case .signedInteger:
            switch value {
            case .int(let integer)?: return .int(integer)
            case .bool(let flag)?: return .int(flag ? 1 : 0)
            default: return nil
            }
        case .unsignedInteger:
            switch value {
            case .int(let integer)? where integer >= 0: return .int(integer)
            case .bool(let flag)?: return .int(flag ? 1 : 0)
            default: return nil
            }
        case .floatingPoint:
            switch value {
            case .double(let double)?: return .double(double)
            case .float(let float)?: return .double(Double(float))
            case .int(let integer)?:
                guard let double = Double(exactly: integer) else { return nil }
                return .double(double)
            default: return nil
            }
        case .string:
            if case .string(let text)? = value { return .string(text) }
            if let pointer = argument as? UnsafePointer<CChar> { return .string(String(cString: pointer)) }
            if let pointer = argument as? UnsafeMutablePointer<CChar> { return .string(String(cString: pointer)) }
            return nil
        case .character:
            switch value {
            case .string(let text)? where text.count == 1: return .string(text)
            case .int(let code)?:
                guard let code = UInt32(exactly: code), let scalar = Unicode.Scalar(code) else { return nil }
                return .string(String(Character(scalar)))
            default: return nil
            }
        }
    }
}
