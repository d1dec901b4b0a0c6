// NSPredicate+Format: `NSPredicate(format:)` on Linux, and turning NSPredicates into Columnar queries.
//
// RealmSwift's queries are NSPredicates, and a ported program builds them with `NSPredicate(format: "age > %d", 3)`,
// combines them with `NSCompoundPredicate`, and hands them to `filter(_:)`. swift-corelibs-foundation declares
// `NSPredicate(format:)` unavailable (it has no predicate parser), so the initialisers below supply it: the
// compiler prefers an available overload to an unavailable one, so code written for Apple's Foundation compiles
// unchanged. Columnar's parser is the one that reads the format, when the predicate is used in a query.
//
// An NSPredicate cannot carry extra stored properties from an extension, so the format and arguments are kept in a
// table beside it, keyed by the predicate's identity and holding it weakly (an entry whose predicate is gone is
// never found again and is swept out as the table grows). The predicate itself is a block predicate whose block
// explains that such a predicate is evaluated by Columnar's queries only; corelibs cannot evaluate a format.
//
// A predicate given to a query becomes one format string: a compound's subpredicates are parenthesised and joined
// with AND or OR (NOT wraps its one subpredicate), each keeping exactly the arguments its own placeholders take, so
// `%@`, `%K` and `%d` keep finding theirs in order and an error's offset points into the joined text it quotes.
// An empty AND is TRUEPREDICATE and an empty OR FALSEPREDICATE, as NSCompoundPredicate defines them;
// `NSPredicate(value:)` is TRUEPREDICATE or FALSEPREDICATE. A block predicate has no query form and is refused.

import Foundation
import QueryVM

extension NSPredicate {
    /// A predicate from a predicate-format string and its arguments, as in Apple's Foundation. Columnar parses
    /// the format when the predicate is used in a query (`filter(_:)`, `index(matching:)`, …), so a malformed
    /// format is reported there. `evaluate(with:)` is not available for such a predicate.
    public convenience init(format predicateFormat: String, _ args: Any...) {
        self.init(format: predicateFormat, argumentArray: args)
    }

    /// A predicate from a predicate-format string and an array of arguments, as in Apple's Foundation.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        let format = predicateFormat
        self.init(block: { _, _ in
            fatalError("Columnar: NSPredicate(format: \"\(format)\") can only be used in Columnar queries (filter, "
                       + "index(matching:), objects(with:)); swift-corelibs-foundation cannot evaluate predicate formats")
        })
        PredicateFormatTable.record(self, format: predicateFormat, arguments: arguments ?? [])
    }
}

/// The format and arguments of each NSPredicate made with `init(format:)`.
enum PredicateFormatTable {
    private final class Entry {
        weak var predicate: NSPredicate?
        let format: String
        let arguments: [Any]

        init(predicate: NSPredicate, format: String, arguments: [Any]) {
            self.predicate = predicate
            self.format = format
            self.arguments = arguments
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var entries: [ObjectIdentifier: Entry] = [:]
    /// The table's size after the last sweep; the next sweep runs when it has doubled.
    nonisolated(unsafe) private static var sweptCount = 0

    static func record(_ predicate: NSPredicate, format: String, arguments: [Any]) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= max(64, 2 * sweptCount) {
            entries = entries.filter { $0.value.predicate != nil }
            sweptCount = entries.count
        }
        entries[ObjectIdentifier(predicate)] = Entry(predicate: predicate, format: format, arguments: arguments)
    }

    static func formatAndArguments(of predicate: NSPredicate) -> (format: String, arguments: [Any])? {
        lock.lock()
        defer { lock.unlock() }
        // The identity alone could belong to a dead predicate whose address was reused: the weak reference decides.
        guard let entry = entries[ObjectIdentifier(predicate)], entry.predicate === predicate else { return nil }
        return (entry.format, entry.arguments)
    }
}

/// Reads `predicateFormat`, which corelibs marks deprecated because its text cannot be parsed back there; here it
/// only tells `NSPredicate(value:)`'s two predicates from a block predicate.
private protocol PredicateFormatReading {
    var predicateFormat: String { get }
}

extension NSPredicate: PredicateFormatReading {}

/// An NSPredicate as one predicate-format string and its arguments.
enum PredicateFormat {
    static func of(_ predicate: NSPredicate) throws -> (format: String, arguments: [Any]) {
        var format = ""
        var arguments: [Any] = []
        try append(predicate, to: &format, &arguments)
        return (format, arguments)
    }

    private static func append(_ predicate: NSPredicate, to format: inout String, _ arguments: inout [Any]) throws {
        if let compound = predicate as? NSCompoundPredicate {
            // Typed [NSPredicate] in swift-corelibs-foundation, so every element is one.
            let subpredicates = compound.subpredicates
            switch compound.compoundPredicateType {
            case .not:
                guard subpredicates.count == 1 else {
                    throw ColumnarError(code: .misuse, message: "a NOT NSCompoundPredicate must hold exactly one "
                                        + "subpredicate, not \(subpredicates.count)")
                }
                format += "NOT ("
                try append(subpredicates[0], to: &format, &arguments)
                format += ")"
            case .and, .or:
                let isAnd = compound.compoundPredicateType == .and
                guard !subpredicates.isEmpty else {
                    format += isAnd ? "TRUEPREDICATE" : "FALSEPREDICATE"
                    return
                }
                for (position, subpredicate) in subpredicates.enumerated() {
                    if position > 0 { format += isAnd ? " AND " : " OR " }
                    format += "("
                    try append(subpredicate, to: &format, &arguments)
                    format += ")"
                }
            @unknown default:
                throw ColumnarError(code: .misuse, message: "an NSCompoundPredicate of an unknown type "
                                    + "(\(compound.compoundPredicateType.rawValue)) cannot be used in a query")
            }
            return
        }
        if let (text, given) = PredicateFormatTable.formatAndArguments(of: predicate) {
            let taken = try PredicateParser.placeholderCount(in: text)
            if given.count < taken {
                // Parsed alone, the error names the placeholder without an argument at its offset in this format.
                _ = try PredicateParser.parse(text, arguments: given)
            }
            format += text
            arguments += given.prefix(taken)
            return
        }
        switch (predicate as PredicateFormatReading).predicateFormat {
        case "TRUEPREDICATE": format += "TRUEPREDICATE"
        case "FALSEPREDICATE": format += "FALSEPREDICATE"
        default:
            throw ColumnarError(
                code: .misuse,
                message: "an NSPredicate made with init(block:) cannot be used in a query, which runs in the "
                    + "database; make it with NSPredicate(format:) or pass the predicate-format string")
        }
    }
}
