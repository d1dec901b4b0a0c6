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
    /// Column views of the current cluster, looked up by column id (a query reads few columns).
    private var views: [(column: columnar_col_id, view: columnar_column_view)] = []

    public init(program: Program, transaction: OpaquePointer, decimals: QueryDecimalSupport?) {
        self.program = program
        self.transaction = transaction
        self.evaluator = RowEvaluator(transaction: transaction, decimals: decimals)
        self.maxRows = Int(columnar_scan_max_rows())
        self.masks = .allocate(capacity: maxRows * (program.maskDepth + 1))
    }

    deinit { masks.deallocate() }

    /// The keys of the matching objects, ascending (Scan, IndexSeek) or in the given order (Keys).
    public func matchingKeys(candidates: [Int64] = []) throws -> [Int64] {
        var keys: [Int64] = []
        try forEachMatch(candidates: candidates) { keys.append($0) }
        return keys
    }

    /// The number of matching objects; a Scan program only counts mask bytes.
    public func count(candidates: [Int64] = []) throws -> Int {
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
        case .indexSeek?:
            for key in try indexCandidates(program.instructions[0])
            where try evaluator.holds(program.predicate, table: program.table, key: key) {
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
            views.removeAll(keepingCapacity: true)
            let rowCount = Int(cluster.row_count)
            try withUnsafePointer(to: cluster.keys) { keys in
                let mask = try runCluster(scan: scan!, keys: keys, rowCount: rowCount)
                try body(ClusterMatches(executor: self, scan: scan!, keys: keys, rowCount: rowCount, mask: mask))
            }
        }
    }

    /// Whether the program scans the table (rather than testing candidates one by one).
    public var isScan: Bool { program.instructions.first?.opcode == .scan }

    // MARK: One cluster

    private func mask(_ level: Int) -> UnsafeMutablePointer<UInt8> { masks + level * maxRows }

    fileprivate func view(_ scan: OpaquePointer, _ column: columnar_col_id) throws -> columnar_column_view {
        for entry in views where entry.column == column { return entry.view }
        var view = columnar_column_view()
        try check(columnar_scan_column(scan, column, &view))
        views.append((column, view))
        return view
    }

    /// Runs the instructions after Scan over one cluster; returns the result mask.
    private func runCluster(scan: OpaquePointer, keys: UnsafePointer<columnar_array>,
                            rowCount: Int) throws -> UnsafePointer<UInt8> {
        var top = -1
        let count = UInt64(rowCount)
        for instruction in program.instructions.dropFirst() {
            switch instruction.opcode {
            case .constant:
                top += 1
                mask(top).update(repeating: instruction.flag ? 1 : 0, count: rowCount)
            case .compareInt:
                top += 1
                var view = try self.view(scan, instruction.column)
                let (value, isNull) = Self.integer(instruction.constant)
                columnar_kernel_compare_int(&view, instruction.compare, value, isNull, mask(top))
            case .compareDouble:
                top += 1
                var view = try self.view(scan, instruction.column)
                if case .double(let value) = instruction.constant {
                    columnar_kernel_compare_double(&view, instruction.compare, value, false, mask(top))
                } else {
                    columnar_kernel_compare_double(&view, instruction.compare, 0, true, mask(top))
                }
            case .compareTimestamp:
                top += 1
                var view = try self.view(scan, instruction.column)
                if case .timestamp(let seconds, let nanoseconds) = instruction.constant {
                    columnar_kernel_compare_timestamp(&view, instruction.compare, seconds, nanoseconds, false, mask(top))
                } else {
                    columnar_kernel_compare_timestamp(&view, instruction.compare, 0, 0, true, mask(top))
                }
            case .compareFixed:
                top += 1
                var view = try self.view(scan, instruction.column)
                switch instruction.constant {
                case .objectId(let bytes), .uuid(let bytes):
                    columnar_kernel_compare_fixed(&view, instruction.compare, bytes, false, mask(top))
                default:
                    columnar_kernel_compare_fixed(&view, instruction.compare, nil, true, mask(top))
                }
            case .inInt:
                top += 1
                var view = try self.view(scan, instruction.column)
                columnar_kernel_in_int(&view, instruction.constants, instruction.constants.count, instruction.matchNull,
                                       mask(top))
            case .matchString:
                top += 1
                var view = try self.view(scan, instruction.column)
                try matchString(instruction, view: &view, keys: keys, rowCount: rowCount, into: mask(top))
            case .rows:
                top += 1
                let condition = program.conditions[instruction.condition]
                let out = mask(top)
                for row in 0..<rowCount {
                    let key = columnar_array_get_int(keys, UInt64(row))
                    out[row] = try evaluator.holds(condition, table: program.table, key: key) ? 1 : 0
                }
            case .refineRows:
                let condition = program.conditions[instruction.condition]
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
            case .scan, .indexSeek, .keys:
                preconditionFailure("\(instruction.opcode.rawValue) can only start a program")
            }
        }
        precondition(top == 0, "a query program must leave exactly one mask")
        return UnsafePointer(mask(0))
    }

    /// Runs the string kernel, then decides with full Unicode folding the rows it marked undecided (2).
    private func matchString(_ instruction: Instruction, view: inout columnar_column_view,
                             keys: UnsafePointer<columnar_array>, rowCount: Int,
                             into out: UnsafeMutablePointer<UInt8>) throws {
        let flags: UInt32 = instruction.foldCase ? UInt32(COLUMNAR_STRING_FOLD_ASCII_CASE) : 0
        switch instruction.constant {
        case .data(let needle):
            try needle.withUnsafeBytes { bytes in
                try check(columnar_kernel_match_string(&view, instruction.stringOp, bytes.baseAddress, bytes.count,
                                                       false, flags, out))
            }
            guard instruction.foldCase else { return }
            let op = Self.comparisonOperator(instruction.stringOp)
            for row in 0..<rowCount where out[row] == 2 {
                var data: UnsafeRawPointer?
                var size = 0
                var isNull = false
                try check(columnar_view_get_bytes(&view, UInt64(row), &data, &size, &isNull))
                let text = isNull ? ScalarValue.null
                    : .string(size == 0 ? [] : Array(UnsafeRawBufferPointer(start: data, count: size)))
                let compare = ScalarComparison(op: op, options: instruction.options, decimals: nil)
                out[row] = compare.holds(text, .string(needle)) ? 1 : 0
            }
        default:
            try check(columnar_kernel_match_string(&view, instruction.stringOp, nil, 0, true, flags, out))
        }
    }

    // MARK: Index lookups

    private func indexCandidates(_ seek: Instruction) throws -> [Int64] {
        try EngineValue.withValue(seek.constant) { value in
            var keys = [columnar_key](repeating: 0, count: 16)
            while true {
                var found = 0
                try check(columnar_index_find_all(transaction, program.table, seek.column, &value, &keys,
                                                  keys.count, &found))
                if found <= keys.count { return Array(keys.prefix(found)) }
                keys = [columnar_key](repeating: 0, count: found)
            }
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

    func check(_ rc: Int32) throws {
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
