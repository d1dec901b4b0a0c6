// QueryExecutor: runs a Program over a table's clusters (or over given objects) and reports the matching rows.
//
// For a Scan program, each cluster is processed by running every instruction once: comparison instructions ask
// CColumnar for the cluster's column array (a view into the mapping, no copy) and call a kernel that writes one
// byte per row onto the mask stack; And/Or/Not combine masks with C loops; Rows and RefineRows call the row
// evaluator for the rows that need it. The masks live in one buffer allocated per executor, so the per-cluster
// cost is a few C calls. IndexSeek and Keys programs test candidate objects one by one with the row evaluator.

import CColumnar

public final class QueryExecutor {
    public let program: Program
    let transaction: OpaquePointer
    let evaluator: RowEvaluator
    private let maxRows: Int
    private let masks: UnsafeMutablePointer<UInt8>
    /// The program's instructions after its first, decoded once into plain values (no reference counting in the
    /// per-cluster loop), and the byte constants they point at.
    private let steps: UnsafeMutableBufferPointer<DecodedStep>
    private var constantBytes: [UnsafeMutableRawBufferPointer] = []
    private var constantIntegers: [UnsafeMutableBufferPointer<Int64>] = []
    /// Column views of the current cluster, one slot per column the scan reads; `viewReady[slot]` says whether the
    /// slot holds this cluster's view yet. The program's columns get slots up front, others (aggregates, sort
    /// keys) when first asked for.
    private static let viewSlotCapacity = 64
    private let views: UnsafeMutablePointer<columnar_column_view>
    private let viewReady: UnsafeMutablePointer<Bool>
    private var viewColumns: [columnar_col_id] = []

    /// IndexRange programs: how many objects the range holds, counted when the program was chosen (the key
    /// buffer is sized by it, and it is the number of matches when the range is the whole predicate).
    private let rangeCount: Int?
    private let rangeIsExact: Bool

    /// An IndexRange program runs as compiled when its range holds at most this share of the table's objects;
    /// beyond it reading the index object by object costs more than a scan.
    static let indexRangeShareLimit = 8

    public init(program: Program, transaction: OpaquePointer, decimals: QueryDecimalSupport?) {
        var chosen = program
        var rangeCount: Int?
        var rangeIsExact = false
        if let first = program.instructions.first, first.opcode == .indexRange,
           let alternative = program.scanAlternative?.program {
            // Any failure (such as an index that is no longer ordered) leaves the query to the scan.
            let count = try? Self.countIndexRange(first, table: program.table, transaction: transaction)
            rangeCount = count
            rangeIsExact = first.flag
            var table = columnar_table_info()
            let objects = columnar_table_info_get(transaction, program.table, &table) == 0 ? Int(table.object_count) : 0
            if count == nil || count! > objects / Self.indexRangeShareLimit { chosen = alternative }
        }
        self.program = chosen
        self.rangeCount = rangeCount
        self.rangeIsExact = rangeIsExact
        let program = chosen
        self.transaction = transaction
        self.evaluator = RowEvaluator(transaction: transaction, decimals: decimals)
        if case .elements(let collection) = program.source { evaluator.elementCollection = collection }
        self.maxRows = Int(columnar_scan_max_rows())
        // Only a scan reads clusters: a program that tests given objects (an index seek, a collection's keys)
        // needs no masks or views, and a repeated lookup should not pay for allocating them.
        let scans = program.instructions.first?.opcode == .scan
        let viewCapacity = scans ? Self.viewSlotCapacity : 1
        self.masks = .allocate(capacity: scans ? maxRows * (program.maskDepth + 1) : 1)
        self.views = .allocate(capacity: viewCapacity)
        self.viewReady = .allocate(capacity: viewCapacity)
        self.viewReady.initialize(repeating: false, count: viewCapacity)
        self.steps = .allocate(capacity: max(0, program.instructions.count - 1))
        for (index, instruction) in program.instructions.dropFirst().enumerated() {
            (steps.baseAddress! + index).initialize(to: decode(instruction, at: index))
        }
    }

    deinit {
        masks.deallocate()
        views.deallocate()
        viewReady.deallocate()
        steps.deinitialize()
        steps.deallocate()
        for bytes in constantBytes { bytes.deallocate() }
        for integers in constantIntegers { integers.deallocate() }
    }

    /// One instruction as the per-cluster loop reads it.
    struct DecodedStep {
        var opcode: Opcode
        var viewSlot = -1
        var compare: columnar_compare_op = COLUMNAR_COMPARE_EQ
        var stringOp: columnar_string_op = COLUMNAR_STRING_EQ
        var integer: Int64 = 0
        var double: Double = 0
        var nanoseconds: Int32 = 0
        var isNull = false
        var flag = false
        var bytes: UnsafeRawBufferPointer?
        var integers: UnsafeBufferPointer<Int64>?
        /// Rows/RefineRows: the condition; MatchStr, CmpMixed: the instruction (for rows the kernel leaves
        /// undecided).
        var index = 0
        /// CmpMixed: the constant as an engine value (its bytes in `bytes`).
        var mixed = columnar_value()
    }

    private func decode(_ instruction: Instruction, at stepIndex: Int) -> DecodedStep {
        var step = DecodedStep(opcode: instruction.opcode)
        if instruction.column != COLUMNAR_NO_COLUMN { step.viewSlot = viewSlot(instruction.column) }
        step.compare = instruction.compare
        step.stringOp = instruction.stringOp
        step.flag = instruction.opcode == .matchString ? instruction.foldCase : instruction.flag
        step.index = instruction.opcode == .matchString || instruction.opcode == .compareMixed ? stepIndex
            : instruction.condition
        switch instruction.constant {
        case .null: step.isNull = true
        case .int(let value): step.integer = value
        case .bool(let value): step.integer = value ? 1 : 0
        case .double(let value): step.double = value
        case .timestamp(let seconds, let nanoseconds):
            step.integer = seconds
            step.nanoseconds = nanoseconds
        case .objectId(let bytes), .uuid(let bytes), .data(let bytes), .string(let bytes):
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 8)
            copy.copyBytes(from: bytes)
            constantBytes.append(copy)
            step.bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(copy)[0..<bytes.count])
        default: break
        }
        if instruction.opcode == .compareMixed { step.mixed = Self.engineValue(instruction.constant, bytes: step.bytes) }
        if instruction.opcode == .inInt {
            let copy = UnsafeMutableBufferPointer<Int64>.allocate(capacity: max(1, instruction.constants.count))
            _ = copy.initialize(from: instruction.constants)
            constantIntegers.append(copy)
            step.integers = UnsafeBufferPointer(rebasing: UnsafeBufferPointer(copy)[0..<instruction.constants.count])
            step.isNull = instruction.matchNull
        }
        return step
    }

    /// The view slot of a column, assigning one when the column has none yet.
    func viewSlot(_ column: columnar_col_id) -> Int {
        if let slot = viewColumns.firstIndex(of: column) { return slot }
        precondition(viewColumns.count < Self.viewSlotCapacity, "a query reads more than 64 columns")
        viewColumns.append(column)
        return viewColumns.count - 1
    }

    /// The keys of the matching objects, ascending (Scan, IndexSeek) or in the given order (Keys).
    public func matchingKeys(candidates: [Int64] = []) throws -> [Int64] {
        var keys: [Int64] = []
        try forEachMatch(candidates: candidates) { keys.append($0) }
        return keys
    }

    /// The first `limit` keys `matchingKeys(candidates:)` gives, found without testing the objects after them (a
    /// scan stops after the cluster that holds the last one): `first` of filtered results need not read the table.
    public func matchingKeys(candidates: [Int64] = [], limit: Int) throws -> [Int64] {
        var keys: [Int64] = []
        guard limit > 0 else { return keys }
        do {
            try forEachMatch(candidates: candidates) { key in
                keys.append(key)
                if keys.count == limit { throw EnoughMatches() }
            }
        } catch is EnoughMatches {}
        return keys
    }

    /// Thrown out of `forEachMatch` to stop it once enough keys are found.
    private struct EnoughMatches: Error {}

    /// The number of matching objects; a Scan program only counts mask bytes.
    public func count(candidates: [Int64] = []) throws -> Int {
        if rangeIsExact, let rangeCount { return rangeCount }
        guard isScan else {
            return try matchingKeys(candidates: candidates).count
        }
        var total = 0
        try forEachCluster { _, rowCount, mask in
            total += Int(columnar_mask_count(mask, UInt64(rowCount)))
        }
        return total
    }

    /// Calls `body` with the key of every matching object.
    public func forEachMatch(candidates: [Int64] = [], _ body: (Int64) throws -> Void) throws {
        switch program.instructions.first?.opcode {
        case .keys?:
            for key in candidates where try evaluator.holds(program.predicate, table: program.table, key: key) {
                try body(key)
            }
        case .indexRange?:
            let range = program.instructions[0]
            for key in try indexRangeKeys(range)
            where try range.flag || evaluator.holds(program.predicate, table: program.table, key: key) {
                try body(key)
            }
        case .indexSeek?:
            let seek = program.instructions[0]
            for key in try indexCandidates(seek)
            where try seek.flag || evaluator.holds(program.predicate, table: program.table, key: key) {
                try body(key)
            }
        default:
            try forEachCluster { keys, rowCount, mask in
                for row in 0..<rowCount where mask[row] != 0 {
                    try body(columnar_array_get_int(keys, UInt64(row)))
                }
            }
        }
    }

    /// Runs a Scan program: `body` gets each cluster's keys, row count and the mask of its matching rows.
    public func forEachCluster(_ body: (_ keys: UnsafePointer<columnar_array>, _ rowCount: Int,
                                        _ mask: UnsafePointer<UInt8>) throws -> Void) throws {
        try forEachCluster { cluster in try body(cluster.keys, cluster.rowCount, cluster.mask) }
    }

    /// One cluster of a scan, as `forEachCluster` hands it out: valid only during the call.
    struct ClusterMatches {
        let executor: QueryExecutor
        let scan: OpaquePointer
        let keys: UnsafePointer<columnar_array>
        let rowCount: Int
        let mask: UnsafePointer<UInt8>

        /// The cluster's array of a column (cached with the views the program read).
        func view(_ column: columnar_col_id) throws -> columnar_column_view {
            try executor.view(scan, column)
        }
    }

    func forEachCluster(_ body: (ClusterMatches) throws -> Void) throws {
        precondition(program.instructions.first?.opcode == .scan, "forEachCluster runs Scan programs only")
        var scan: OpaquePointer?
        try check(columnar_scan_open(transaction, program.table, &scan))
        defer { columnar_scan_close(scan) }
        var cluster = columnar_cluster()
        while true {
            let rc = columnar_scan_next(scan, &cluster)
            if rc == COLUMNAR_ENOTFOUND { break }
            try check(rc)
            viewReady.update(repeating: false, count: viewColumns.count)
            let rowCount = Int(cluster.row_count)
            try withUnsafePointer(to: cluster.keys) { keys in
                let mask = try runCluster(scan: scan!, keys: keys, rowCount: rowCount)
                try body(ClusterMatches(executor: self, scan: scan!, keys: keys, rowCount: rowCount, mask: mask))
            }
        }
    }

    /// Whether the program scans the table (rather than testing candidates one by one).
    public var isScan: Bool { program.instructions.first?.opcode == .scan }

    /// Whether the program selects every object of its table (no filter): then answers can come from a column's
    /// ordered index alone (extremes, sorted order).
    var selectsWholeTable: Bool {
        guard case .table = program.source, case .constant(true) = program.predicate else { return false }
        return true
    }

    /// The column's description when it has an ordered search index (see columnar_column_info.ordered_index).
    func orderedIndexColumn(_ column: columnar_col_id) -> columnar_column_info? {
        var info = columnar_column_info()
        guard columnar_column_info_get(transaction, program.table, column, &info) == 0, info.ordered_index else {
            return nil
        }
        return info
    }

    // MARK: One cluster

    private func mask(_ level: Int) -> UnsafeMutablePointer<UInt8> { masks + level * maxRows }

    fileprivate func view(_ scan: OpaquePointer, _ column: columnar_col_id) throws -> columnar_column_view {
        try view(scan, slot: viewSlot(column)).pointee
    }

    /// The current cluster's view in `slot`, read from the scan the first time it is asked for.
    private func view(_ scan: OpaquePointer, slot: Int) throws -> UnsafeMutablePointer<columnar_column_view> {
        let view = views + slot
        if !viewReady[slot] {
            try check(columnar_scan_column(scan, viewColumns[slot], view))
            viewReady[slot] = true
        }
        return view
    }

    /// Runs the instructions after Scan over one cluster; returns the result mask.
    private func runCluster(scan: OpaquePointer, keys: UnsafePointer<columnar_array>,
                            rowCount: Int) throws -> UnsafePointer<UInt8> {
        var top = -1
        let count = UInt64(rowCount)
        for index in 0..<steps.count {
            let step = steps[index]
            switch step.opcode {
            case .constant:
                top += 1
                mask(top).update(repeating: step.flag ? 1 : 0, count: rowCount)
            case .compareInt:
                top += 1
                columnar_kernel_compare_int(try view(scan, slot: step.viewSlot), step.compare, step.integer,
                                            step.isNull, mask(top))
            case .compareDouble:
                top += 1
                columnar_kernel_compare_double(try view(scan, slot: step.viewSlot), step.compare, step.double,
                                               step.isNull, mask(top))
            case .compareTimestamp:
                top += 1
                columnar_kernel_compare_timestamp(try view(scan, slot: step.viewSlot), step.compare, step.integer,
                                                  step.nanoseconds, step.isNull, mask(top))
            case .compareFixed:
                top += 1
                columnar_kernel_compare_fixed(try view(scan, slot: step.viewSlot), step.compare,
                                              step.bytes?.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                              step.isNull, mask(top))
            case .inInt:
                top += 1
                columnar_kernel_in_int(try view(scan, slot: step.viewSlot), step.integers?.baseAddress,
                                       step.integers?.count ?? 0, step.isNull, mask(top))
            case .matchString:
                top += 1
                try matchString(step, view: try view(scan, slot: step.viewSlot), rowCount: rowCount,
                                into: mask(top))
            case .compareMixed:
                top += 1
                try compareMixed(step, view: try view(scan, slot: step.viewSlot), rowCount: rowCount, into: mask(top))
            case .mixedType:
                top += 1
                try mixedType(step, view: try view(scan, slot: step.viewSlot), rowCount: rowCount, into: mask(top))
            case .matchMixedString:
                top += 1
                let view = try view(scan, slot: step.viewSlot)
                try check(columnar_kernel_match_mixed_string(view, step.stringOp, step.bytes?.baseAddress,
                                                             step.bytes?.count ?? 0, step.isNull, 0, mask(top)))
            case .rows:
                top += 1
                let condition = program.conditions[step.index]
                let out = mask(top)
                for row in 0..<rowCount {
                    let key = columnar_array_get_int(keys, UInt64(row))
                    out[row] = try evaluator.holds(condition, table: program.table, key: key) ? 1 : 0
                }
            case .refineRows:
                let condition = program.conditions[step.index]
                let out = mask(top)
                for row in 0..<rowCount where out[row] != 0 {
                    let key = columnar_array_get_int(keys, UInt64(row))
                    if try !evaluator.holds(condition, table: program.table, key: key) { out[row] = 0 }
                }
            case .and:
                columnar_mask_and(mask(top - 1), mask(top), count)
                top -= 1
            case .or:
                columnar_mask_or(mask(top - 1), mask(top), count)
                top -= 1
            case .not:
                columnar_mask_not(mask(top), count)
            case .result:
                break
            case .scan, .indexSeek, .indexRange, .keys:
                preconditionFailure("\(step.opcode.rawValue) can only start a program")
            }
        }
        precondition(top == 0, "a query program must leave exactly one mask")
        return UnsafePointer(mask(0))
    }

    /// Runs the string kernel, then decides with full Unicode folding the rows it marked undecided (2).
    private func matchString(_ step: DecodedStep, view: UnsafeMutablePointer<columnar_column_view>, rowCount: Int,
                             into out: UnsafeMutablePointer<UInt8>) throws {
        let flags: UInt32 = step.flag ? UInt32(COLUMNAR_STRING_FOLD_ASCII_CASE) : 0
        guard let needle = step.bytes, !step.isNull else {
            try check(columnar_kernel_match_string(view, step.stringOp, nil, 0, true, flags, out))
            return
        }
        try check(columnar_kernel_match_string(view, step.stringOp, needle.baseAddress, needle.count, false, flags,
                                               out))
        guard step.flag else { return }
        let instruction = program.instructions[step.index + 1]
        let compare = ScalarComparison(op: Self.comparisonOperator(step.stringOp), options: instruction.options,
                                       decimals: nil)
        let needleValue = ScalarValue.string(Array(needle))
        for row in 0..<rowCount where out[row] == 2 {
            var data: UnsafeRawPointer?
            var size = 0
            var isNull = false
            try check(columnar_view_get_bytes(view, UInt64(row), &data, &size, &isNull))
            let text = isNull ? ScalarValue.null
                : .string(size == 0 ? [] : Array(UnsafeRawBufferPointer(start: data, count: size)))
            out[row] = compare.holds(text, needleValue) ? 1 : 0
        }
    }

    /// Runs the mixed kernel, then decides the rows it leaves to Swift (decimals against numbers, links against
    /// null or a link).
    private func compareMixed(_ step: DecodedStep, view: UnsafeMutablePointer<columnar_column_view>, rowCount: Int,
                              into out: UnsafeMutablePointer<UInt8>) throws {
        var constant = step.mixed
        try check(columnar_kernel_compare_mixed(view, step.compare, &constant, out))
        let compare = ScalarComparison(op: Self.comparisonOperator(step.compare), options: [],
                                       decimals: evaluator.decimals)
        let instruction = program.instructions[step.index + 1]
        for row in 0..<rowCount where out[row] == 2 {
            out[row] = compare.holds(try mixedRow(view, row), instruction.constant) ? 1 : 0
        }
    }

    /// Runs the `@type` kernel, then decides the link rows it leaves to Swift (a link to a deleted object is null).
    private func mixedType(_ step: DecodedStep, view: UnsafeMutablePointer<columnar_column_view>, rowCount: Int,
                           into out: UnsafeMutablePointer<UInt8>) throws {
        try check(columnar_kernel_mixed_type(view, UInt32(step.integer), out))
        for row in 0..<rowCount where out[row] == 2 {
            let type = try mixedRow(view, row).storedType?.rawValue ?? 0
            out[row] = UInt8((step.integer >> Int64(type)) & 1)
        }
    }

    /// A row of a mixed view as the row evaluator reads it (a link to a deleted object as null).
    private func mixedRow(_ view: UnsafeMutablePointer<columnar_column_view>, _ row: Int) throws -> ScalarValue {
        var data: UnsafeRawPointer?
        var size = 0
        var isNull = false
        try check(columnar_view_get_bytes(view, UInt64(row), &data, &size, &isNull))
        var stored = columnar_value()
        stored.type = COLUMNAR_TYPE_MIXED
        stored.is_null = isNull
        stored.as.bytes.data = data
        stored.as.bytes.size = size
        return evaluator.mixedValue(stored)
    }

    /// A constant as the engine value the mixed kernel takes; strings and data point at `bytes` (the step's copy).
    static func engineValue(_ scalar: ScalarValue, bytes: UnsafeRawBufferPointer?) -> columnar_value {
        var value = columnar_value()
        switch scalar {
        case .string, .data:
            value.type = scalar.storedType!
            value.as.bytes.data = bytes?.baseAddress
            value.as.bytes.size = bytes?.count ?? 0
        case .link(let table, let key):
            value.type = COLUMNAR_TYPE_LINK
            value.as.typed_link.key = key
            value.as.typed_link.table = table
        default:
            // Fixed-size values carry their payload in the value itself.
            _ = try? EngineValue.withValue(scalar) { value = $0 }
        }
        return value
    }

    // MARK: Index lookups

    private func indexCandidates(_ seek: Instruction) throws -> [Int64] {
        try Self.indexSeekKeys(transaction: transaction, table: program.table, column: seek.column,
                               constant: seek.constant)
    }

    /// The keys of the objects whose `column` (which has a search index) equals `constant`, ascending, as the
    /// engine's index finds and verifies them.
    public static func indexSeekKeys(transaction: OpaquePointer, table: columnar_table_id, column: columnar_col_id,
                                     constant: ScalarValue) throws -> [Int64] {
        try EngineValue.withValue(constant) { value in
            // Most values are held by one object or a few: ask with room for 16 on the stack, so the answer is
            // the only array made.
            var total = 0
            let few = try withUnsafeTemporaryAllocation(of: columnar_key.self, capacity: 16) { buffer -> [Int64]? in
                try check(columnar_index_find_all(transaction, table, column, &value, buffer.baseAddress,
                                                  buffer.count, &total))
                return total <= buffer.count ? Array(buffer.prefix(total)) : nil
            }
            if let few { return few }
            var keys = [columnar_key](repeating: 0, count: total)
            while true {
                var found = 0
                try check(columnar_index_find_all(transaction, table, column, &value, &keys, keys.count, &found))
                if found <= keys.count { return Array(keys.prefix(found)) }
                keys = [columnar_key](repeating: 0, count: found)
            }
        }
    }

    /// How many objects an IndexRange instruction's range holds.
    static func countIndexRange(_ instruction: Instruction, table: columnar_table_id,
                                transaction: OpaquePointer) throws -> Int {
        var count: UInt64 = 0
        switch instruction.range {
        case .integers?:
            var bounds = instruction.range!.bounds!
            try check(columnar_index_count_range(transaction, table, instruction.column, &bounds, &count))
        case .prefix(let bytes)?:
            let rc = bytes.withUnsafeBytes { prefix -> Int32 in
                columnar_index_count_prefix(transaction, table, instruction.column, prefix.baseAddress, prefix.count,
                                            &count)
            }
            try check(rc)
        case nil:
            preconditionFailure("an IndexRange instruction without a range")
        }
        return Int(count)
    }

    /// The keys of the objects in an IndexRange instruction's range, ascending.
    private func indexRangeKeys(_ instruction: Instruction) throws -> [Int64] {
        // Sized by the count taken when the program was chosen, so the range is normally walked once more, not twice.
        var keys = [columnar_key](repeating: 0, count: max(1, rangeCount ?? 64))
        while true {
            var found = 0
            switch instruction.range {
            case .integers?:
                var bounds = instruction.range!.bounds!
                try check(columnar_index_keys_in_range(transaction, program.table, instruction.column, &bounds, &keys,
                                                       keys.count, &found))
            case .prefix(let bytes)?:
                let capacity = keys.count
                let rc = bytes.withUnsafeBytes { prefix -> Int32 in
                    columnar_index_keys_with_prefix(transaction, program.table, instruction.column, prefix.baseAddress,
                                                    prefix.count, &keys, capacity, &found)
                }
                try check(rc)
            case nil:
                preconditionFailure("an IndexRange instruction without a range")
            }
            if found <= keys.count { return Array(keys.prefix(found)) }
            keys = [columnar_key](repeating: 0, count: found)
        }
    }

    // MARK: Helpers

    static func integer(_ value: ScalarValue) -> (Int64, Bool) {
        switch value {
        case .int(let value): return (value, false)
        case .bool(let value): return (value ? 1 : 0, false)
        default: return (0, true)
        }
    }

    static func comparisonOperator(_ op: columnar_string_op) -> ComparisonOperator {
        switch op {
        case COLUMNAR_STRING_NE: return .notEqual
        case COLUMNAR_STRING_BEGINS_WITH: return .beginsWith
        case COLUMNAR_STRING_ENDS_WITH: return .endsWith
        case COLUMNAR_STRING_CONTAINS: return .contains
        case COLUMNAR_STRING_LIKE: return .like
        case COLUMNAR_STRING_LT: return .lessThan
        case COLUMNAR_STRING_LE: return .lessThanOrEqual
        case COLUMNAR_STRING_GT: return .greaterThan
        case COLUMNAR_STRING_GE: return .greaterThanOrEqual
        default: return .equal
        }
    }

    static func comparisonOperator(_ op: columnar_compare_op) -> ComparisonOperator {
        switch op {
        case COLUMNAR_COMPARE_NE: return .notEqual
        case COLUMNAR_COMPARE_LT: return .lessThan
        case COLUMNAR_COMPARE_LE: return .lessThanOrEqual
        case COLUMNAR_COMPARE_GT: return .greaterThan
        case COLUMNAR_COMPARE_GE: return .greaterThanOrEqual
        default: return .equal
        }
    }

    func check(_ rc: Int32) throws {
        try Self.check(rc)
    }

    static func check(_ rc: Int32) throws {
        if rc != 0 { throw ColumnarError.fromLastError(rc) }
    }
}

/// Engine values for constants (index lookups).
enum EngineValue {
    static func withValue<R>(_ scalar: ScalarValue, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = columnar_value()
        switch scalar {
        case .null: value.is_null = true
        case .bool(let bool): value.type = COLUMNAR_TYPE_BOOL; value.as.b = bool
        case .int(let int): value.type = COLUMNAR_TYPE_INT; value.as.i = int
        case .float(let float): value.type = COLUMNAR_TYPE_FLOAT; value.as.f = float
        case .double(let double): value.type = COLUMNAR_TYPE_DOUBLE; value.as.d = double
        case .timestamp(let seconds, let nanoseconds):
            value.type = COLUMNAR_TYPE_TIMESTAMP
            value.as.timestamp.seconds = seconds
            value.as.timestamp.nanoseconds = nanoseconds
        case .objectId(let bytes):
            value.type = COLUMNAR_TYPE_OBJECTID
            withUnsafeMutableBytes(of: &value.as.objectid) { $0.copyBytes(from: bytes.prefix(12)) }
        case .uuid(let bytes):
            value.type = COLUMNAR_TYPE_UUID
            withUnsafeMutableBytes(of: &value.as.uuid) { $0.copyBytes(from: bytes.prefix(16)) }
        case .decimal128(let bytes):
            value.type = COLUMNAR_TYPE_DECIMAL128
            withUnsafeMutableBytes(of: &value.as.decimal128) { $0.copyBytes(from: bytes.prefix(16)) }
        case .link(_, let key): value.type = COLUMNAR_TYPE_LINK; value.as.link = key
        case .nestedCollection:
            throw ColumnarError(code: ColumnarError.Code(rawValue: COLUMNAR_EMISUSE),
                                message: "a nested collection is not a constant an index can look up")
        case .string(let bytes), .data(let bytes):
            value.type = { if case .string = scalar { return COLUMNAR_TYPE_STRING } else { return COLUMNAR_TYPE_BINARY } }()
            return try bytes.withUnsafeBytes { buffer in
                value.as.bytes.data = buffer.baseAddress
                value.as.bytes.size = buffer.count
                return try body(&value)
            }
        }
        return try body(&value)
    }
}
