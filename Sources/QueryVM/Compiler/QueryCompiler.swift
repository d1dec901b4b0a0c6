// QueryCompiler: turns a checked predicate into a Program of column-at-a-time instructions.
//
// Comparisons of the table's own single-valued columns with constants become kernel instructions; everything
// else becomes a Rows condition that the row evaluator decides object by object. Within an AND, kernel
// conjuncts run first and the row-by-row ones only refine what they left selected (RefineRows), so an expensive
// link or collection test runs only on the rows that passed the cheap ones. An equality on an indexed property
// in the top-level AND replaces the scan by an index lookup.

import CColumnar

public enum QueryCompiler {
    /// Compiles `predicate` over the objects of `table` (all of them, or given keys with `.keys`).
    public static func compile(_ predicate: CheckedPredicate, table: columnar_table_id, model: QueryModel,
                               source: Program.Source = .table) -> Program {
        compile(predicate, table: table, model: model, source: source, useIndexes: true)
    }

    static func compile(_ predicate: CheckedPredicate, table: columnar_table_id, model: QueryModel,
                        source: Program.Source, useIndexes: Bool) -> Program {
        var emitter = Emitter(model: model, table: table)
        let className = model.table(table)?.className ?? "table \(table)"
        var program = Program(table: table, className: className, source: source, instructions: [],
                              predicate: predicate, conditions: [], maskDepth: 1)
        switch source {
        case .keys:
            emitter.emit(Instruction(.keys, comment: "objects of a collection of \(className)"))
            emitter.emitRows(predicate, refine: false)
        case .elements:
            emitter.emit(Instruction(.keys, comment: "elements of a \(className) (keys are positions)"))
            emitter.emitRows(predicate, refine: false)
        case .table:
            if useIndexes, let seek = emitter.indexSeek(in: predicate) {
                emitter.emit(seek)
                emitter.emitRows(predicate, refine: false)
            } else if useIndexes, let range = emitter.indexRange(in: predicate) {
                // The range may hold most of the table, where a scan is faster: the executor then runs this
                // scan instead (QueryExecutor.init).
                program.scanAlternative = ScanAlternative(compile(predicate, table: table, model: model,
                                                                  source: source, useIndexes: false))
                emitter.emit(range)
                emitter.emitRows(predicate, refine: false)
            } else {
                emitter.emit(Instruction(.scan, comment: className))
                emitter.emitMask(predicate)
            }
        }
        emitter.emit(Instruction(.result))
        program.instructions = emitter.instructions
        program.conditions = emitter.conditions
        program.maskDepth = max(1, emitter.maxDepth)
        return program
    }
}

extension QueryCompiler {
    /// The column and constant of the exact IndexSeek a table's program for `predicate` would start with: the whole
    /// predicate is an equality of an indexed property of `table` with a constant of its exact type, so the
    /// index's answer is the result and no program needs to run (`QueryExecutor.indexSeekKeys`). Nil otherwise.
    public static func exactIndexSeek(_ predicate: CheckedPredicate, table: columnar_table_id, model: QueryModel)
        -> (column: columnar_col_id, constant: ScalarValue)?
    {
        guard case .comparison = predicate,
              let seek = Emitter(model: model, table: table).indexSeekChoice(in: predicate), seek.exact
        else { return nil }
        return (seek.column, seek.constant)
    }
}

extension QueryCompiler {
    /// Whether an index of a column of `type` answers equality with `constant` exactly: the constant is not null
    /// and of the column's own type (an int column's index is not asked for a double, say).
    static func isExactSeekConstant(_ constant: ScalarValue, type: columnar_type) -> Bool {
        switch (type, constant) {
        case (COLUMNAR_TYPE_INT, .int), (COLUMNAR_TYPE_BOOL, .bool), (COLUMNAR_TYPE_STRING, .string),
             (COLUMNAR_TYPE_TIMESTAMP, .timestamp), (COLUMNAR_TYPE_OBJECTID, .objectId), (COLUMNAR_TYPE_UUID, .uuid):
            return true
        default:
            return false
        }
    }
}

private struct Emitter {
    let model: QueryModel
    let table: columnar_table_id
    var instructions: [Instruction] = []
    var conditions: [CheckedPredicate] = []
    var depth = 0
    var maxDepth = 0

    init(model: QueryModel, table: columnar_table_id) {
        self.model = model
        self.table = table
    }

    mutating func emit(_ instruction: Instruction) {
        instructions.append(instruction)
        switch instruction.opcode {
        case .constant, .compareInt, .compareDouble, .compareTimestamp, .compareFixed, .matchString, .inInt, .rows,
             .compareMixed, .matchMixedString, .mixedType:
            depth += 1
        case .and, .or: depth -= 1
        default: break
        }
        maxDepth = max(maxDepth, depth)
    }

    /// Emits code that pushes the mask of the rows satisfying `predicate`.
    mutating func emitMask(_ predicate: CheckedPredicate) {
        switch predicate {
        case .constant(let value):
            var instruction = Instruction(.constant, comment: value ? "true" : "false")
            instruction.flag = value
            emit(instruction)
        case .and(let operands):
            let conjuncts = Self.flattenAnd(operands)
            let fast = conjuncts.filter(isKernelCompilable)
            let slow = conjuncts.filter { !isKernelCompilable($0) }
            for (index, conjunct) in fast.enumerated() {
                emitMask(conjunct)
                if index > 0 { emit(Instruction(.and)) }
            }
            for (index, conjunct) in slow.enumerated() {
                emitRows(conjunct, refine: !fast.isEmpty || index > 0)
            }
        case .or(let operands):
            for (index, operand) in operands.enumerated() {
                emitMask(operand)
                if index > 0 { emit(Instruction(.or)) }
            }
        case .not(let operand):
            emitMask(operand)
            emit(Instruction(.not))
        case .comparison(let comparison):
            if let code = kernelCode(comparison) {
                for instruction in code { emit(instruction) }
            } else {
                emitRows(predicate, refine: false)
            }
        }
    }

    mutating func emitRows(_ predicate: CheckedPredicate, refine: Bool) {
        let condition = conditions.count
        var instruction = Instruction(refine ? .refineRows : .rows, comment: "#\(condition) \(Self.text(predicate))")
        instruction.condition = conditions.count
        conditions.append(predicate)
        emit(instruction)
    }

    static func flattenAnd(_ operands: [CheckedPredicate]) -> [CheckedPredicate] {
        operands.flatMap { operand -> [CheckedPredicate] in
            if case .and(let inner) = operand { return flattenAnd(inner) }
            return [operand]
        }
    }

    static func text(_ predicate: CheckedPredicate) -> String {
        switch predicate {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let operands): return "(" + operands.map(text).joined(separator: " AND ") + ")"
        case .or(let operands): return "(" + operands.map(text).joined(separator: " OR ") + ")"
        case .not(let operand): return "NOT " + text(operand)
        case .comparison(let comparison): return comparison.text
        }
    }

    func isKernelCompilable(_ predicate: CheckedPredicate) -> Bool {
        switch predicate {
        case .constant: return true
        case .and(let operands), .or(let operands): return operands.allSatisfy(isKernelCompilable)
        case .not(let operand): return isKernelCompilable(operand)
        case .comparison(let comparison): return kernelCode(comparison) != nil
        }
    }

    // MARK: Kernel instructions

    /// The column a comparison's left side reads directly, with its type, when it is one of this table's
    /// single-valued columns.
    private func directColumn(_ operand: CheckedOperand) -> (columnar_col_id, columnar_type)? {
        guard case .path(let path) = operand, let own = path.ownColumn else { return nil }
        return (own.column, own.type)
    }

    /// The instructions that push the comparison's mask using kernels only, or nil when it needs the row evaluator.
    func kernelCode(_ comparison: CheckedComparison) -> [Instruction]? {
        if case .valueType(let path) = comparison.lhs {
            // `@type` of the object's own mixed column: one mask of type bits (bit 0: null).
            guard let own = path.ownColumn, own.type == COLUMNAR_TYPE_MIXED, comparison.op == .in,
                  case .constants(let values) = comparison.rhs else { return nil }
            var mask: Int64 = 0
            for case .int(let type) in values where (0 ..< 32).contains(type) { mask |= 1 << type }
            var instruction = Instruction(.mixedType, comment: "\(comparison.text)")
            instruction.column = own.column
            instruction.constant = .int(mask)
            return [instruction]
        }
        guard let (column, type) = directColumn(comparison.lhs) else { return nil }
        if let upper = comparison.upperBound {
            guard case .constant(let lower) = comparison.rhs,
                  let low = single(.greaterThanOrEqual, lower, column: column, type: type, options: []),
                  let high = single(.lessThanOrEqual, upper, column: column, type: type, options: []) else { return nil }
            return [low, high, Instruction(.and)]
        }
        if comparison.op == .in {
            guard case .constants(let values) = comparison.rhs else { return nil }
            if values.isEmpty {
                var instruction = Instruction(.constant, comment: "false (IN an empty list)")
                instruction.flag = false
                return [instruction]
            }
            if type == COLUMNAR_TYPE_INT || type == COLUMNAR_TYPE_BOOL, comparison.options.isEmpty {
                var integers: [Int64] = []
                var matchNull = false
                for value in values {
                    switch value {
                    case .int(let integer): integers.append(integer)
                    case .bool(let bool): integers.append(bool ? 1 : 0)
                    case .null: matchNull = true
                    default: return nil
                    }
                }
                var instruction = Instruction(.inInt, comment: "\(comparison.text)")
                instruction.column = column
                instruction.constants = Array(Set(integers)).sorted()
                instruction.matchNull = matchNull
                return [instruction]
            }
            guard values.count <= 32 else { return nil }
            var code: [Instruction] = []
            for (index, value) in values.enumerated() {
                guard let instruction = single(.equal, value, column: column, type: type, options: comparison.options)
                else { return nil }
                code.append(instruction)
                if index > 0 { code.append(Instruction(.or)) }
            }
            return code
        }
        guard case .constant(let constant) = comparison.rhs else { return nil }
        return single(comparison.op, constant, column: column, type: type, options: comparison.options).map { [$0] }
    }

    private func single(_ op: ComparisonOperator, _ constant: ScalarValue, column: columnar_col_id,
                        type: columnar_type, options: ComparisonOptions) -> Instruction? {
        let columnName = model.table(table)?.properties.first { $0.column == column }?.name ?? "column \(column)"
        let comment: @Sendable () -> String = { "\(columnName) \(op.rawValue)\(options.spelling) \(Self.describe(constant))" }
        switch type {
        case COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL, COLUMNAR_TYPE_LINK:
            guard options.isEmpty, let compare = Self.compareOp(op) else { return nil }
            var instruction = Instruction(.compareInt, comment: comment())
            switch constant {
            case .int(let value) where type == COLUMNAR_TYPE_INT: instruction.constant = .int(value)
            case .bool(let value) where type == COLUMNAR_TYPE_BOOL: instruction.constant = .int(value ? 1 : 0)
            // A link column holds its target's key; the checker made sure the object is of the target's class.
            case .link(_, let key) where type == COLUMNAR_TYPE_LINK: instruction.constant = .int(key)
            case .null: instruction.constant = .null
            default: return nil
            }
            instruction.column = column
            instruction.compare = compare
            return instruction
        case COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE:
            guard options.isEmpty, let compare = Self.compareOp(op) else { return nil }
            var instruction = Instruction(.compareDouble, comment: comment())
            switch constant {
            case .int(let value) where value.magnitude <= 1 << 53: instruction.constant = .double(Double(value))
            case .float(let value): instruction.constant = .double(Double(value))
            case .double(let value): instruction.constant = .double(value)
            case .null: instruction.constant = .null
            default: return nil
            }
            instruction.column = column
            instruction.compare = compare
            return instruction
        case COLUMNAR_TYPE_TIMESTAMP:
            guard options.isEmpty, let compare = Self.compareOp(op) else { return nil }
            switch constant {
            case .timestamp, .null: break
            default: return nil
            }
            var instruction = Instruction(.compareTimestamp, comment: comment())
            instruction.column = column
            instruction.compare = compare
            instruction.constant = constant
            return instruction
        case COLUMNAR_TYPE_OBJECTID, COLUMNAR_TYPE_UUID:
            guard options.isEmpty, let compare = Self.compareOp(op) else { return nil }
            switch constant {
            case .objectId, .uuid, .null: break
            default: return nil
            }
            var instruction = Instruction(.compareFixed, comment: comment())
            instruction.column = column
            instruction.compare = compare
            instruction.constant = constant
            return instruction
        case COLUMNAR_TYPE_MIXED:
            // Comparisons of any constant; string operators on the strings and data (no folding: options go to
            // the row evaluator).
            guard options.isEmpty else { return nil }
            // A nested collection constant is compared by contents, object by object.
            if case .nestedCollection = constant { return nil }
            if let compare = Self.compareOp(op) {
                var instruction = Instruction(.compareMixed, comment: comment())
                instruction.column = column
                instruction.compare = compare
                instruction.constant = constant
                return instruction
            }
            guard let stringOp = Self.stringOp(op) else { return nil }
            var instruction = Instruction(.matchMixedString, comment: comment())
            instruction.column = column
            instruction.stringOp = stringOp
            switch constant {
            case .null: instruction.constant = .null
            case .string(let bytes), .data(let bytes): instruction.constant = .data(bytes)
            default: return nil
            }
            return instruction
        case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
            guard let stringOp = Self.stringOp(op) else { return nil }
            var instruction = Instruction(.matchString, comment: comment())
            instruction.column = column
            instruction.stringOp = stringOp
            instruction.options = options
            switch constant {
            case .null: instruction.constant = .null
            case .string(let bytes), .data(let bytes):
                if options.isEmpty {
                    instruction.constant = .data(bytes)
                } else {
                    // Only case folding of text whose folded form is ASCII runs in the kernel; the rest (diacritics,
                    // non-ASCII needles, folded ordering) is the row evaluator's.
                    let ordering = [COLUMNAR_STRING_LT, COLUMNAR_STRING_LE, COLUMNAR_STRING_GT, COLUMNAR_STRING_GE]
                    guard options == .caseInsensitive, !ordering.contains(stringOp) else { return nil }
                    let folded = StringFolding.fold(bytes, options)
                    guard folded.allSatisfy({ $0 < 0x80 }) else { return nil }
                    instruction.constant = .data(folded)
                    instruction.foldCase = true
                }
            default: return nil
            }
            return instruction
        default:
            return nil
        }
    }

    static func compareOp(_ op: ComparisonOperator) -> columnar_compare_op? {
        switch op {
        case .equal: return COLUMNAR_COMPARE_EQ
        case .notEqual: return COLUMNAR_COMPARE_NE
        case .lessThan: return COLUMNAR_COMPARE_LT
        case .lessThanOrEqual: return COLUMNAR_COMPARE_LE
        case .greaterThan: return COLUMNAR_COMPARE_GT
        case .greaterThanOrEqual: return COLUMNAR_COMPARE_GE
        default: return nil
        }
    }

    static func stringOp(_ op: ComparisonOperator) -> columnar_string_op? {
        switch op {
        case .equal: return COLUMNAR_STRING_EQ
        case .notEqual: return COLUMNAR_STRING_NE
        case .beginsWith: return COLUMNAR_STRING_BEGINS_WITH
        case .endsWith: return COLUMNAR_STRING_ENDS_WITH
        case .contains: return COLUMNAR_STRING_CONTAINS
        case .like: return COLUMNAR_STRING_LIKE
        case .lessThan: return COLUMNAR_STRING_LT
        case .lessThanOrEqual: return COLUMNAR_STRING_LE
        case .greaterThan: return COLUMNAR_STRING_GT
        case .greaterThanOrEqual: return COLUMNAR_STRING_GE
        case .in: return nil
        }
    }

    static func describe(_ value: ScalarValue) -> String {
        switch value {
        case .null: return "NULL"
        case .bool(let value): return value ? "TRUE" : "FALSE"
        case .int(let value): return String(value)
        case .float(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let bytes): return QueryValue.quoted(String(decoding: bytes, as: UTF8.self))
        case .data(let bytes): return "<\(bytes.count) bytes>"
        case .timestamp(let seconds, let nanoseconds): return "T\(seconds):\(nanoseconds)"
        case .objectId(let bytes): return "oid(\(QueryValue.hex(bytes)))"
        case .uuid(let bytes): return "uuid(\(QueryValue.hex(bytes)))"
        case .decimal128: return "<decimal128>"
        case .link(_, let key): return "object \(key)"
        case .nestedCollection(let encoding):
            return Int32(encoding[0]) == COLUMNAR_MIXED_LIST ? "<nested list>" : "<nested dictionary>"
        }
    }

    // MARK: Index lookups

    /// The conjuncts of the predicate's top-level AND (the predicate itself when it is not an AND).
    static func topLevelConjuncts(_ predicate: CheckedPredicate) -> [CheckedPredicate] {
        if case .and(let operands) = predicate { return flattenAnd(operands) }
        return [predicate]
    }

    /// The single-valued property of this table stored in `column`.
    func valueProperty(_ column: columnar_col_id) -> QueryProperty? {
        model.table(table)?.properties.first { $0.column == column && $0.kind == .value }
    }

    /// An IndexSeek for the first conjunct of the top-level AND that is an equality between an indexed property
    /// of this table and a constant of its exact type. Its flag says that conjunct is the whole predicate: the
    /// engine checks every object it finds against the value itself (columnar_index_find_all), so those objects
    /// are the answer and need no second test.
    func indexSeek(in predicate: CheckedPredicate) -> Instruction? {
        guard let seek = indexSeekChoice(in: predicate) else { return nil }
        let name = valueProperty(seek.column)?.name ?? "column \(seek.column)"
        var instruction = Instruction(.indexSeek, comment: "\(name) == \(Self.describe(seek.constant))"
                                          + (seek.exact ? " (exact)" : ""))
        instruction.column = seek.column
        instruction.constant = seek.constant
        instruction.flag = seek.exact
        return instruction
    }

    /// What `indexSeek(in:)` seeks, without the instruction: the column, the constant, and whether the equality
    /// is the whole predicate. Separate because `QueryCompiler.exactIndexSeek` asks it on every `first` of a
    /// filtered Results, where the instruction's comment (the constant formatted as text), the array of conjuncts
    /// and copies of the property's description were most of the cost; a lone comparison is looked at without
    /// making that array.
    func indexSeekChoice(in predicate: CheckedPredicate)
        -> (column: columnar_col_id, constant: ScalarValue, exact: Bool)?
    {
        if case .comparison(let comparison) = predicate {
            return seekableEquality(comparison).map { ($0.column, $0.constant, true) }
        }
        let conjuncts = Self.topLevelConjuncts(predicate)
        for conjunct in conjuncts {
            guard case .comparison(let comparison) = conjunct,
                  let seek = seekableEquality(comparison) else { continue }
            return (seek.column, seek.constant, conjuncts.count == 1)
        }
        return nil
    }

    /// The column and constant of `comparison` when it is an equality the index answers exactly: the property is
    /// this table's own, single-valued and indexed, and the constant is of its exact type and not null.
    private func seekableEquality(_ comparison: CheckedComparison)
        -> (column: columnar_col_id, constant: ScalarValue)?
    {
        guard comparison.op == .equal, comparison.options.isEmpty, comparison.upperBound == nil,
              let (column, type) = directColumn(comparison.lhs),
              case .constant(let constant) = comparison.rhs, QueryCompiler.isExactSeekConstant(constant, type: type)
        else { return nil }
        // Looked at in place, where `valueProperty` would copy the property's description out. No two properties
        // share a column, so this tests the one property stored there.
        guard model.tables[table]?.properties.contains(where: {
            $0.column == column && $0.kind == .value && $0.isIndexed
        }) == true else { return nil }
        return (column, constant)
    }

    /// An IndexRange for the int bounds (`<`, `<=`, `>`, `>=`, `BETWEEN`) or the case-sensitive `BEGINSWITH` that
    /// the top-level AND puts on a property with an ordered index: the first such property's conjuncts make the
    /// range. Its flag says the range is the whole predicate, so the objects it holds need no test.
    func indexRange(in predicate: CheckedPredicate) -> Instruction? {
        let conjuncts = Self.topLevelConjuncts(predicate)
        var chosen: QueryProperty?
        var range: IndexRange?
        var consumed = 0
        for conjunct in conjuncts {
            guard case .comparison(let comparison) = conjunct, comparison.options.isEmpty,
                  let (column, type) = directColumn(comparison.lhs), chosen == nil || chosen?.column == column,
                  case .constant(let constant) = comparison.rhs,
                  let property = valueProperty(column), property.hasOrderedIndex else { continue }
            var narrowed: IndexRange?
            switch (type, constant, comparison.upperBound) {
            case (COLUMNAR_TYPE_INT, .int(let lower), .int(let upper)?):
                narrowed = (range ?? .everyInteger).narrowed(by: .greaterThanOrEqual, lower)?
                    .narrowed(by: .lessThanOrEqual, upper)
            case (COLUMNAR_TYPE_INT, .int(let value), nil):
                narrowed = (range ?? .everyInteger).narrowed(by: comparison.op, value)
            case (COLUMNAR_TYPE_STRING, .string(let bytes), nil) where comparison.op == .beginsWith && range == nil:
                narrowed = .prefix(bytes)
            default: narrowed = nil
            }
            guard let narrowed else { continue }
            chosen = property
            range = narrowed
            consumed += 1
        }
        guard let property = chosen, let range else { return nil }
        var instruction = Instruction(.indexRange, comment: "\(property.name) in \(range.text)")
        instruction.column = property.column
        instruction.range = range
        instruction.flag = consumed == conjuncts.count
        return instruction
    }
}
