// Instruction and Opcode: the bytecode a compiled query runs, one instruction per step over a whole cluster.
//
// The VM keeps a stack of row masks, one byte per row of the current cluster. Each comparison instruction pushes
// the mask of the rows that satisfy it, computed by a C kernel over the cluster's column array; And, Or and Not
// combine masks; RefineRows narrows the top mask by deciding, object by object, a condition the kernels cannot.
// When the program ends, the top mask selects the cluster's matching rows. Every opcode documents itself with a
// one-line synopsis, which `explain` prints beside each instruction.

import CColumnar

/// What an instruction does. The raw value is the name `explain` prints.
public enum Opcode: String, CaseIterable, Sendable {
    case scan = "Scan"
    case indexSeek = "IndexSeek"
    case indexRange = "IndexRange"
    case keys = "Keys"
    case constant = "Const"
    case compareInt = "CmpInt"
    case compareDouble = "CmpDouble"
    case compareTimestamp = "CmpTime"
    case compareFixed = "CmpFixed"
    case matchString = "MatchStr"
    case compareMixed = "CmpMixed"
    case matchMixedString = "MatchMixed"
    case mixedType = "MixedType"
    case inInt = "InInt"
    case rows = "Rows"
    case refineRows = "RefineRows"
    case and = "And"
    case or = "Or"
    case not = "Not"
    case result = "Result"

    /// One line on what the opcode does, printed by `explain`.
    public var synopsis: String {
        switch self {
        case .scan: return "visit the table cluster by cluster; the instructions after it run once per cluster"
        case .indexSeek: return "look the constant up in the search index; only the objects found are tested (none when flagged exact)"
        case .indexRange: return "read an int range or a string prefix from the ordered index; only the objects in it are tested (none when flagged exact; a Scan instead when it holds over 1/8 of the table)"
        case .keys: return "test the given objects (a collection's elements) one by one"
        case .constant: return "push a mask with every row set (true) or none (false)"
        case .compareInt: return "push mask: int/bool/link column compared with a constant (C kernel, packed ints)"
        case .compareDouble: return "push mask: float/double column compared with a constant (C kernel, IEEE rules)"
        case .compareTimestamp: return "push mask: date column compared with a constant (C kernel, seconds then ns)"
        case .compareFixed: return "push mask: ObjectId/UUID column compared with a constant (C kernel, bytewise)"
        case .matchString: return "push mask: string/data column matched against a constant (C kernel; rows it cannot fold are decided in Swift)"
        case .compareMixed: return "push mask: mixed column compared with a constant of any type (C kernel; rows with decimals are decided in Swift)"
        case .mixedType: return "push mask: a mixed column's values are of one of the given types (C kernel, @type)"
        case .matchMixedString: return "push mask: the strings and data of a mixed column matched against a constant (C kernel)"
        case .inInt: return "push mask: int/bool column is one of a sorted set of constants (C kernel)"
        case .rows: return "push mask: decide a condition object by object (links, collections, aggregates, SUBQUERY)"
        case .refineRows: return "top mask &= a condition decided object by object, only for rows still selected"
        case .and: return "pop two masks, push their intersection"
        case .or: return "pop two masks, push their union"
        case .not: return "replace the top mask by its complement"
        case .result: return "the top mask selects the cluster's matching objects"
        }
    }
}

/// One instruction with its operands.
public struct Instruction: Sendable {
    public var opcode: Opcode
    /// The column the kernel reads (comparison opcodes), or the indexed column (IndexSeek).
    public var column: columnar_col_id = COLUMNAR_NO_COLUMN
    public var compare: columnar_compare_op = COLUMNAR_COMPARE_EQ
    public var stringOp: columnar_string_op = COLUMNAR_STRING_EQ
    /// Whether MatchStr folds ASCII case (the needle is folded already).
    public var foldCase = false
    /// The comparison's options as written, for rows the kernel leaves undecided.
    public var options: ComparisonOptions = []
    public var constant: ScalarValue = .null
    /// Sorted constants (InInt), and whether null is among them.
    public var constants: [Int64] = []
    public var matchNull = false
    /// IndexRange: the range of the ordered index to read.
    public var range: IndexRange?
    /// Rows, RefineRows: the condition's index in `Program.conditions`.
    public var condition = 0
    public var flag = false
    /// What the operands mean, for `explain`. Made into text only when `explain` asks: formatting the constants
    /// of every compiled query cost more than running a lookup's program.
    public var comment: String { describeOperands() }
    private let describeOperands: @Sendable () -> String

    public init(_ opcode: Opcode, comment: @autoclosure @escaping @Sendable () -> String = "") {
        self.opcode = opcode
        self.describeOperands = comment
    }
}

/// A compiled query: what it runs over, its instructions and the conditions the row evaluator decides.
public struct Program: Sendable {
    public enum Source: Sendable {
        /// Every object of the table.
        case table
        /// The objects with these keys, in this order (a collection's elements).
        case keys
        /// The elements of a collection of values, whose keys are their positions; the program's table is
        /// `QueryModel.elementTable` (see QueryModel+Elements.swift).
        case elements(ElementCollection)
    }

    public var table: columnar_table_id
    public var className: String
    public var source: Source
    public var instructions: [Instruction]
    /// The whole predicate, for IndexSeek and Keys programs (decided object by object).
    public var predicate: CheckedPredicate
    /// Conditions of Rows / RefineRows instructions.
    public var conditions: [CheckedPredicate]
    /// How many masks the stack holds at most.
    public var maskDepth: Int
    /// IndexRange programs: the same query as a Scan, run instead when the range holds much of the table.
    public var scanAlternative: ScanAlternative?

    /// The program, one instruction per line with its operands and its opcode's synopsis.
    public func explain() -> String {
        var lines: [String] = []
        let operandsWidth = max(20, instructions.map(\.comment.count).max() ?? 0)
        for (address, instruction) in instructions.enumerated() {
            let name = instruction.opcode.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
            let operands = instruction.comment.padding(toLength: operandsWidth, withPad: " ", startingAt: 0)
            lines.append("\(String(address).leftPadded(3))  \(name)\(operands)  -- \(instruction.opcode.synopsis)")
        }
        return lines.joined(separator: "\n")
    }
}

/// A Program held by another (a struct cannot hold its own type directly).
public final class ScanAlternative: Sendable {
    public let program: Program
    init(_ program: Program) { self.program = program }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
