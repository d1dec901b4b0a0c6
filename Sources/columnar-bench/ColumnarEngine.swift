// ColumnarEngine: the workloads on Columnar, through the C API of CColumnar (columnar.h).
//
// Databases are opened with COLUMNAR_OPEN_CREATE and the default durability (COLUMNAR_DURABILITY_FULL: a commit
// returns once the new version is on stable storage), through io_uring unless the engine is made for the pwrite
// path (COLUMNAR_OPEN_NO_IO_URING). Every engine call's result is checked; a failure becomes a BenchError carrying
// ColumnarError (columnar_strerror + columnar_last_error()). The commit suite's counters (threads and processes
// incrementing objects of their own) are at the end.

import CColumnar
import Columnar

/// Throws when an engine call returned anything but COLUMNAR_OK. Must run right after the call, before any other
/// engine call on this thread, because the details come from the thread's last-error record.
@inline(__always)
private func check(_ rc: Int32, _ call: @autoclosure () -> String) throws {
    if rc != COLUMNAR_OK {
        throw BenchError.columnar(call: call(), error: ColumnarError.fromLastError(rc))
    }
}

final class ColumnarEngine: CounterCommitEngine {
    let name: String
    var fileExtension: String { encrypted ? "encrypted.columnar" : "columnar" }
    /// Whether databases are opened without COLUMNAR_OPEN_NO_IO_URING (the engine then uses io_uring where the
    /// kernel allows it).
    let usesIOUring: Bool
    /// The commit path of the last database opened (columnar_db_commit_path_description).
    private(set) var commitPathDescription = "not opened yet"
    /// Object keys by row index, per database path: the keys columnar_obj_create handed out.
    private var keysByPath: [String: [columnar_key]] = [:]
    /// Objects per cluster the databases are written with; nil for the engine's default.
    private let clusterSize: UInt32?

    /// Whether the files are encrypted (BenchEncryption's key).
    let encrypted: Bool

    /// `name` is the engine's name in the report: "Columnar" pairs its rows with SQLite's for the ratio column.
    init(name: String = "Columnar", clusterSize: UInt32? = nil, usesIOUring: Bool = true, encrypted: Bool = false) {
        self.encrypted = encrypted
        self.name = name
        self.clusterSize = clusterSize
        self.usesIOUring = usesIOUring
    }

    var setupDescription: String {
        "\(name): durability FULL, commit path \(commitPathDescription), cluster size "
            + (clusterSize.map { "\($0)" } ?? "\(COLUMNAR_DEFAULT_CLUSTER_SIZE) (default)")
            + (encrypted ? ", encrypted (AES-256-CTR + HMAC-SHA256 sectors)" : "")
    }

    /// The worker-process name of this engine (see CommitWorker.swift).
    var workerEngineName: String { usesIOUring ? "columnar" : "columnar-pwrite" }

    func dataFiles(at path: String) -> [String] { [path] }
    func allFiles(at path: String) -> [String] { [path, path + ".lock"] }

    /// The column ids of the benchmark table, in BenchRow's order.
    private struct Columns {
        var small: columnar_col_id = 0
        var large: columnar_col_id = 0
        var ratio: columnar_col_id = 0
        var label: columnar_col_id = 0
        var flag: columnar_col_id = 0
    }

    private static let tableName = "Item"

    // MARK: Workload a

    func bulkInsert(path: String, data: DataSet, rowCount: Int, recorder: inout LatencyRecorder) throws {
        let db = try open(path, create: true)
        defer { columnar_close(db) }
        recorder.startRun()
        let keys = try withWriteTransaction(db) { txn in
            let (table, columns) = try createTable(txn)
            var keys: [columnar_key] = []
            keys.reserveCapacity(rowCount)
            for rowIndex in 0 ..< rowCount {
                let row = data.row(at: rowIndex)
                keys.append(try recorder.measure { try insert(row, txn, table, columns) })
            }
            return keys
        } commitNanoseconds: { nanoseconds in
            recorder.noteDurableCommit(nanoseconds: nanoseconds)
        }
        recorder.endRun()
        try rememberKeys(keys, for: path)
    }

    func readBack(path: String, data: DataSet, rowCount: Int, recorder: inout LatencyRecorder) throws -> Int {
        let keys = try knownKeys(path)
        let db = try open(path, create: false)
        defer { columnar_close(db) }
        recorder.startRun()
        let checked = try withReadTransaction(db) { txn -> Int in
            let (table, columns) = try findTable(txn)
            var objectCount: UInt64 = 0
            try check(columnar_obj_count(txn, table, &objectCount), "columnar_obj_count")
            guard objectCount == UInt64(rowCount) else {
                throw wrongAnswer("the table holds \(objectCount) objects, expected \(rowCount)")
            }
            // Visit every object through the scan interface, cluster by cluster, in key order.
            var iterator = columnar_cluster_iter()
            try check(columnar_cluster_iter_init(txn, table, &iterator), "columnar_cluster_iter_init")
            var cluster = columnar_cluster()
            var checked = 0
            var previousKey: columnar_key = -1
            while true {
                let rc = columnar_cluster_iter_next(&iterator, &cluster)
                if rc == COLUMNAR_ENOTFOUND { break }
                try check(rc, "columnar_cluster_iter_next")
                guard cluster.keys.encoding == COLUMNAR_ENCODING_PACKED_INT, cluster.keys.count == cluster.row_count
                else {
                    throw wrongAnswer("a cluster's keys array has encoding \(cluster.keys.encoding.rawValue) and "
                        + "\(cluster.keys.count) elements for \(cluster.row_count) rows")
                }
                for position in 0 ..< cluster.row_count {
                    let key = columnar_array_get_int(&cluster.keys, position)
                    guard key > previousKey else { throw wrongAnswer("keys out of order: \(key) after \(previousKey)") }
                    previousKey = key
                    guard let rowIndex = binarySearch(keys, key) else {
                        throw wrongAnswer("the scan returned key \(key), which was never created")
                    }
                    let expected = data.row(at: rowIndex)
                    try recorder.measure { try checkRow(expected, key: key, txn, table, columns) }
                    checked += 1
                }
            }
            return checked
        }
        recorder.endRun()
        return checked
    }

    // MARK: Workload c

    func pointReads(path: String, rowOrder: [Int], recorder: inout LatencyRecorder) throws -> Int64 {
        let keys = try knownKeys(path)
        let db = try open(path, create: false)
        defer { columnar_close(db) }
        return try withReadTransaction(db) { txn in
            let (table, columns) = try findTable(txn)
            var sum: Int64 = 0
            recorder.startRun()
            for rowIndex in rowOrder {
                let key = keys[rowIndex]
                var value: Int64 = 0
                var isNull = false
                try recorder.measure {
                    try check(columnar_obj_get_int(txn, table, key, columns.small, &value, &isNull),
                              "columnar_obj_get_int(key \(key))")
                }
                sum &+= value
            }
            recorder.endRun()
            return sum
        }
    }

    // MARK: Workload b

    func createUpdateTable(path: String, data: DataSet, rowCount: Int) throws {
        let db = try open(path, create: true)
        defer { columnar_close(db) }
        let keys = try withWriteTransaction(db) { txn in
            let (table, columns) = try createTable(txn)
            return try (0 ..< rowCount).map { try insert(data.row(at: $0), txn, table, columns) }
        }
        try rememberKeys(keys, for: path)
    }

    func singleObjectCommits(path: String, updates: [RowUpdate], recorder: inout LatencyRecorder) throws {
        let keys = try knownKeys(path)
        let db = try open(path, create: false)
        defer { columnar_close(db) }
        // Resolve the table once, as an application would keep its table handles.
        let (table, columns) = try withReadTransaction(db) { try findTable($0) }
        recorder.startRun()
        for update in updates {
            try recorder.measure {
                try withWriteTransaction(db) { txn in
                    var value = columnar_value()
                    value.type = COLUMNAR_TYPE_INT
                    value.as.i = update.newSmall
                    try check(columnar_obj_set(txn, table, keys[update.rowIndex], columns.small, &value),
                              "columnar_obj_set")
                }
            }
        }
        recorder.endRun()
    }

    func smallColumn(path: String, rowCount: Int) throws -> [Int64] {
        let keys = try knownKeys(path)
        let db = try open(path, create: false)
        defer { columnar_close(db) }
        return try withReadTransaction(db) { txn in
            let (table, columns) = try findTable(txn)
            return try keys.prefix(rowCount).map { key in
                var value: Int64 = 0
                var isNull = false
                try check(columnar_obj_get_int(txn, table, key, columns.small, &value, &isNull),
                          "columnar_obj_get_int(key \(key))")
                return value
            }
        }
    }

    // MARK: Engine calls

    private func open(_ path: String, create: Bool) throws -> OpaquePointer {
        var options = columnar_open_options()
        options.flags = (create ? COLUMNAR_OPEN_CREATE.rawValue : 0)
            | (usesIOUring ? 0 : COLUMNAR_OPEN_NO_IO_URING.rawValue)
        options.durability = COLUMNAR_DURABILITY_FULL
        options.cluster_size = clusterSize ?? 0
        options.encryption_key = encrypted ? BenchEncryption.keyPointer : nil
        var db: OpaquePointer?
        try check(columnar_open(path, &options, &db), "columnar_open(\(path))")
        guard let db else { throw BenchError.setup("columnar_open returned no handle") }
        commitPathDescription = String(cString: columnar_db_commit_path_description(db))
        return db
    }

    /// Runs `body` in a write transaction and commits it; rolls back if `body` throws.
    private func withWriteTransaction<Result>(
        _ db: OpaquePointer, _ body: (OpaquePointer) throws -> Result,
        commitNanoseconds: (UInt64) -> Void = { _ in }
    ) throws -> Result {
        var txn: OpaquePointer?
        try check(columnar_txn_begin_write(db, &txn), "columnar_txn_begin_write")
        guard let txn else { throw BenchError.setup("columnar_txn_begin_write returned no transaction") }
        let result: Result
        do {
            result = try body(txn)
        } catch {
            columnar_txn_rollback(txn)
            throw error
        }
        let commitStart = MonotonicClock.nowNanoseconds()
        // On failure columnar_txn_commit rolls back and frees the transaction itself.
        try check(columnar_txn_commit(txn), "columnar_txn_commit")
        commitNanoseconds(MonotonicClock.nowNanoseconds() - commitStart)
        return result
    }

    /// Runs `body` in a read transaction and ends it.
    private func withReadTransaction<Result>(_ db: OpaquePointer, _ body: (OpaquePointer) throws -> Result) throws
        -> Result
    {
        var txn: OpaquePointer?
        try check(columnar_txn_begin_read(db, &txn), "columnar_txn_begin_read")
        guard let txn else { throw BenchError.setup("columnar_txn_begin_read returned no transaction") }
        defer { columnar_txn_rollback(txn) }
        return try body(txn)
    }

    private func createTable(_ txn: OpaquePointer) throws -> (columnar_table_id, Columns) {
        var table: columnar_table_id = 0
        try check(columnar_table_add(txn, Self.tableName, &table), "columnar_table_add(\(Self.tableName))")
        func addColumn(_ name: String, _ type: columnar_type) throws -> columnar_col_id {
            var column: columnar_col_id = 0
            try name.withCString { namePointer in
                var spec = columnar_column_spec()
                spec.name = namePointer
                spec.type = type
                spec.collection = COLUMNAR_COLLECTION_NONE
                spec.nullable = false
                spec.indexed = false
                try check(columnar_column_add(txn, table, &spec, &column), "columnar_column_add(\(name))")
            }
            return column
        }
        var columns = Columns()
        columns.small = try addColumn("small", COLUMNAR_TYPE_INT)
        columns.large = try addColumn("large", COLUMNAR_TYPE_INT)
        columns.ratio = try addColumn("ratio", COLUMNAR_TYPE_DOUBLE)
        columns.label = try addColumn("label", COLUMNAR_TYPE_STRING)
        columns.flag = try addColumn("flag", COLUMNAR_TYPE_BOOL)
        return (table, columns)
    }

    private func findTable(_ txn: OpaquePointer) throws -> (columnar_table_id, Columns) {
        var table: columnar_table_id = 0
        try check(columnar_table_find(txn, Self.tableName, &table), "columnar_table_find(\(Self.tableName))")
        func findColumn(_ name: String) throws -> columnar_col_id {
            var column: columnar_col_id = 0
            try check(columnar_column_find(txn, table, name, &column), "columnar_column_find(\(name))")
            return column
        }
        var columns = Columns()
        columns.small = try findColumn("small")
        columns.large = try findColumn("large")
        columns.ratio = try findColumn("ratio")
        columns.label = try findColumn("label")
        columns.flag = try findColumn("flag")
        return (table, columns)
    }

    /// Creates one object holding `row` and returns its key.
    private func insert(_ row: BenchRow, _ txn: OpaquePointer, _ table: columnar_table_id, _ columns: Columns)
        throws -> columnar_key
    {
        var key: columnar_key = 0
        try check(columnar_obj_create(txn, table, &key), "columnar_obj_create")
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_INT
        value.as.i = row.small
        try check(columnar_obj_set(txn, table, key, columns.small, &value), "columnar_obj_set(small)")
        value.as.i = row.large
        try check(columnar_obj_set(txn, table, key, columns.large, &value), "columnar_obj_set(large)")
        value.type = COLUMNAR_TYPE_DOUBLE
        value.as.d = row.ratio
        try check(columnar_obj_set(txn, table, key, columns.ratio, &value), "columnar_obj_set(ratio)")
        value.type = COLUMNAR_TYPE_BOOL
        value.as.b = row.flag
        try check(columnar_obj_set(txn, table, key, columns.flag, &value), "columnar_obj_set(flag)")
        try row.label.withBytes { bytes in
            value.type = COLUMNAR_TYPE_STRING
            value.as.bytes.data = bytes.baseAddress
            value.as.bytes.size = bytes.count
            try check(columnar_obj_set(txn, table, key, columns.label, &value), "columnar_obj_set(label)")
        }
        return key
    }

    /// Reads every column of the object `key` and compares it with `expected`.
    private func checkRow(
        _ expected: BenchRow, key: columnar_key, _ txn: OpaquePointer, _ table: columnar_table_id, _ columns: Columns
    ) throws {
        var integer: Int64 = 0
        var isNull = false
        try check(columnar_obj_get_int(txn, table, key, columns.small, &integer, &isNull), "columnar_obj_get_int")
        guard !isNull, integer == expected.small else { throw mismatch(key, "small", integer, expected.small) }
        try check(columnar_obj_get_int(txn, table, key, columns.large, &integer, &isNull), "columnar_obj_get_int")
        guard !isNull, integer == expected.large else { throw mismatch(key, "large", integer, expected.large) }
        try check(columnar_obj_get_int(txn, table, key, columns.flag, &integer, &isNull), "columnar_obj_get_int")
        guard !isNull, (integer != 0) == expected.flag else { throw mismatch(key, "flag", integer, expected.flag) }

        var value = columnar_value()
        try check(columnar_obj_get(txn, table, key, columns.ratio, &value), "columnar_obj_get(ratio)")
        guard value.type == COLUMNAR_TYPE_DOUBLE, !value.is_null, value.as.d == expected.ratio else {
            throw mismatch(key, "ratio", value.as.d, expected.ratio)
        }
        try check(columnar_obj_get(txn, table, key, columns.label, &value), "columnar_obj_get(label)")
        guard value.type == COLUMNAR_TYPE_STRING, !value.is_null,
              expected.label.matches(value.as.bytes.data, count: value.as.bytes.size)
        else {
            let actual = value.as.bytes.data.map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: value.as.bytes.size), as: UTF8.self)
            } ?? "(no data)"
            throw mismatch(key, "label", actual, expected.label.string)
        }
    }

    /// Keeps the keys columnar_obj_create handed out, by row index. They must ascend ("the next unused key"):
    /// the read-back check finds a scanned key's row by binary search.
    private func rememberKeys(_ keys: [columnar_key], for path: String) throws {
        if let position = keys.indices.dropFirst().first(where: { keys[$0] <= keys[$0 - 1] }) {
            throw wrongAnswer("columnar_obj_create returned key \(keys[position]) after \(keys[position - 1])")
        }
        keysByPath[path] = keys
    }

    private func knownKeys(_ path: String) throws -> [columnar_key] {
        guard let keys = keysByPath[path] else { throw BenchError.setup("no objects were created in \(path)") }
        return keys
    }

    /// The keys of `table`'s objects in key order, read from the file: row indexes of a table another process made
    /// (its keys ascend with the row index; see rememberKeys).
    private func keysInKeyOrder(_ txn: OpaquePointer, _ table: columnar_table_id) throws -> [columnar_key] {
        var iterator = columnar_cluster_iter()
        try check(columnar_cluster_iter_init(txn, table, &iterator), "columnar_cluster_iter_init")
        var cluster = columnar_cluster()
        var keys: [columnar_key] = []
        while true {
            let rc = columnar_cluster_iter_next(&iterator, &cluster)
            if rc == COLUMNAR_ENOTFOUND { return keys }
            try check(rc, "columnar_cluster_iter_next")
            for position in 0 ..< cluster.row_count { keys.append(columnar_array_get_int(&cluster.keys, position)) }
        }
    }

    // MARK: Commit suite: counters

    func openCounterCommitters(path: String, rowIndexes: [Int], sharedHandle: Bool) throws
        -> [any CounterCommitter]
    {
        let handleCount = sharedHandle ? 1 : rowIndexes.count
        let handles = try (0 ..< handleCount).map { _ in DatabaseHandle(try open(path, create: false)) }
        let (table, columns) = try withReadTransaction(handles[0].db) { try findTable($0) }
        let keys = try keysByPath[path] ?? withReadTransaction(handles[0].db) { try keysInKeyOrder($0, table) }
        return try rowIndexes.enumerated().map { committerIndex, rowIndex in
            guard keys.indices.contains(rowIndex) else {
                throw wrongAnswer("the table holds \(keys.count) objects; there is no row \(rowIndex)")
            }
            return Counter(handle: handles[sharedHandle ? 0 : committerIndex], table: table, column: columns.small,
                           key: keys[rowIndex], engine: self)
        }
    }

    /// An open columnar_db, closed when the last committer using it goes away. Shared by threads: columnar.h allows
    /// one handle to be used by many threads (caveat 1), each with transactions of its own.
    private final class DatabaseHandle: @unchecked Sendable {
        let db: OpaquePointer
        init(_ db: OpaquePointer) { self.db = db }
        deinit { columnar_close(db) }
    }

    /// Increments `small` of one object, one durable write transaction per increment (columnar_txn_begin_write,
    /// columnar_obj_get_int, columnar_obj_set, columnar_txn_commit). Used by one thread at a time, which is what
    /// @unchecked Sendable promises: the runner hands each committer to exactly one thread.
    private final class Counter: CounterCommitter, @unchecked Sendable {
        let handle: DatabaseHandle
        let table: columnar_table_id
        let column: columnar_col_id
        let key: columnar_key
        /// For its write transactions (which begin and commit on the calling thread) and error reports.
        let engine: ColumnarEngine

        init(handle: DatabaseHandle, table: columnar_table_id, column: columnar_col_id, key: columnar_key,
             engine: ColumnarEngine) {
            self.handle = handle
            self.table = table
            self.column = column
            self.key = key
            self.engine = engine
        }

        func increment() throws {
            try engine.withWriteTransaction(handle.db) { txn in
                var count: Int64 = 0
                var isNull = false
                try check(columnar_obj_get_int(txn, table, key, column, &count, &isNull),
                          "columnar_obj_get_int(key \(key))")
                var value = columnar_value()
                value.type = COLUMNAR_TYPE_INT
                value.as.i = count + 1
                try check(columnar_obj_set(txn, table, key, column, &value), "columnar_obj_set(key \(key))")
            }
        }
    }

    private func wrongAnswer(_ what: String) -> BenchError { BenchError.wrongAnswer(engine: name, what: what) }

    private func mismatch(_ key: columnar_key, _ column: String, _ actual: Any, _ expected: Any) -> BenchError {
        wrongAnswer("object \(key) column \(column) holds \(actual), expected \(expected)")
    }
}

/// The index of `key` in the ascending array `keys`, or nil.
private func binarySearch(_ keys: [columnar_key], _ key: columnar_key) -> Int? {
    var low = 0
    var high = keys.count
    while low < high {
        let middle = (low + high) / 2
        if keys[middle] < key { low = middle + 1 } else { high = middle }
    }
    return low < keys.count && keys[low] == key ? low : nil
}
