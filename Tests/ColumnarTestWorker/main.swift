// ColumnarTestWorker — a child process for crash and multi-process tests.
//
//   ColumnarTestWorker commit-loop PATH [OPTIONS]
//       Commits forever. Each write transaction inserts an object n = last + 1 into table "log" (INT column "n")
//       and sets meta.last = last + 1 (table "meta", INT column "last", one object); after the commit returns,
//       the committed number is written to standard output. Every printed number is therefore durable (the
//       database is opened with COLUMNAR_DURABILITY_FULL). Meant to be killed with SIGKILL, by the test or by
//       itself. OPTIONS: --fault SEED (write through columnar_faultio, the page-cache model, with that seed),
//       --kill-step STEP N (with --fault: die at the N-th time the engine reaches columnar_step STEP),
//       --kill-writes N (with --fault: die inside the write after N more), --count N (stop after N commits and
//       exit 0), --unsafe (COLUMNAR_DURABILITY_UNSAFE: a printed number survives the process, not a power cut).
//
//   ColumnarTestWorker hold-reader PATH
//       Opens PATH, begins a read transaction, sums column "n" of table "log" and prints "pinned VERSION SUM";
//       then waits for a line on standard input, sums again inside the same transaction, runs columnar_verify on
//       it and prints "intact SUM" (or the error). Shows whether a snapshot survives other writers.
//
//   ColumnarTestWorker realm-write PATH
//       Opens a Realm at PATH through the object API and adds a Person with three Dogs (RealmWrite.swift).
//
//   ColumnarTestWorker realm-self-assign PATH
//       Sets every Dog's age to the value it holds, in one write transaction (RealmWrite.swift).
//
//   ColumnarTestWorker powercut-campaign ... | campaign-writer ...
//       The power-cut campaign and its writers (PowerCutCampaign.swift).
//
//   ColumnarTestWorker compact PATH [--encrypted]
//       Prints "compacting", compacts PATH (columnar_compact) and prints "compacted MICROSECONDS" (the time it
//       took), or "busy" when the file is open. The compaction kill campaign kills it at random moments.
//       --encrypted (here, after increment's COUNT, and among commit-loop's options): the file is encrypted with
//       the tests' key.
//
//   ColumnarTestWorker increment PATH COUNT [--encrypted]
//       Runs COUNT write transactions, each reading counter.value and writing value + 1 (table "counter", INT
//       column "value", one object).
//
// Schemas are created inside a write transaction only if still absent, so several processes may start at once.
// Exit status 0 on success; on any failure the error is printed to standard error and the status is 1.
// Deliberately independent of the test support target: it uses the C API directly (and the object API for
// realm-write).

import CColumnar
#if canImport(Glibc)
import Glibc
#endif

struct WorkerError: Error, CustomStringConvertible {
    let description: String
}

/// Throws with the engine's explanation unless `rc` is COLUMNAR_OK.
func check(_ rc: Int32, _ what: String) throws {
    guard rc != COLUMNAR_OK else { return }
    var text = "\(what): \(String(cString: columnar_strerror(rc))) (\(rc))"
    let info = columnar_last_error().pointee
    if info.code == rc, let message = info.message, message.pointee != 0 {
        text += ": " + String(cString: message)
    }
    throw WorkerError(description: text)
}

/// Writes a whole line to standard output with write(2), so nothing waits in a buffer when the process is killed.
func emit(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { buffer in
            write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
        }
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += written
    }
    bytes.removeAll()
}

func fail(_ message: String) -> Never {
    var text = Array("ColumnarTestWorker: \(message)\n".utf8)
    _ = text.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress!, $0.count) }
    exit(1)
}

/// Opens (creating if needed) with full durability (unless `unsafe`): a commit that returned is on stable storage.
/// The tests' encryption key: the same bytes as ColumnarTestSupport's testEncryptionKey (this executable does not
/// link the test support library, which needs XCTest).
let testEncryptionKey: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

/// `encrypted`: the file is encrypted with the tests' key.
func openDatabase(_ path: String, io: UnsafePointer<columnar_io>? = nil, unsafe: Bool = false,
                  encrypted: Bool = false) throws -> OpaquePointer {
    var options = columnar_open_options()
    options.flags = COLUMNAR_OPEN_CREATE.rawValue
    options.durability = unsafe ? COLUMNAR_DURABILITY_UNSAFE : COLUMNAR_DURABILITY_FULL
    options.io = io
    var db: OpaquePointer?
    try testEncryptionKey.withUnsafeBufferPointer { key in
        if encrypted { options.encryption_key = key.baseAddress }
        try check(columnar_open(path, &options, &db), "columnar_open")
    }
    return db!
}

/// Runs `body` in a write transaction; commits when it returns, rolls back when it throws.
func write<R>(_ db: OpaquePointer, _ body: (OpaquePointer) throws -> R) throws -> R {
    var txn: OpaquePointer?
    try check(columnar_txn_begin_write(db, &txn), "columnar_txn_begin_write")
    let result: R
    do {
        result = try body(txn!)
    } catch {
        columnar_txn_rollback(txn!)
        throw error
    }
    try check(columnar_txn_commit(txn!), "columnar_txn_commit")
    return result
}

/// The table named `name`, or nil.
func findTable(_ txn: OpaquePointer, _ name: String) throws -> columnar_table_id? {
    var table: columnar_table_id = 0
    let rc = columnar_table_find(txn, name, &table)
    if rc == COLUMNAR_ENOTFOUND { return nil }
    try check(rc, "columnar_table_find \(name)")
    return table
}

/// Adds table `name` with one non-nullable INT column `column`.
func addIntTable(_ txn: OpaquePointer, _ name: String, column: String) throws -> columnar_table_id {
    var table: columnar_table_id = 0
    try check(columnar_table_add(txn, name, &table), "columnar_table_add \(name)")
    var columnID: columnar_col_id = 0
    let rc = column.withCString { columnName -> Int32 in
        var spec = columnar_column_spec()
        spec.name = columnName
        spec.type = COLUMNAR_TYPE_INT
        spec.collection = COLUMNAR_COLLECTION_NONE
        return columnar_column_add(txn, table, &spec, &columnID)
    }
    try check(rc, "columnar_column_add \(name).\(column)")
    return table
}

func findColumn(_ txn: OpaquePointer, _ table: columnar_table_id, _ name: String) throws -> columnar_col_id {
    var column: columnar_col_id = 0
    try check(columnar_column_find(txn, table, name, &column), "columnar_column_find \(name)")
    return column
}

/// The key of the first object of `table` (in key order), or nil when it is empty.
func firstKey(_ txn: OpaquePointer, _ table: columnar_table_id) throws -> columnar_key? {
    var iterator = columnar_cluster_iter()
    try check(columnar_cluster_iter_init(txn, table, &iterator), "columnar_cluster_iter_init")
    var cluster = columnar_cluster()
    while true {
        let rc = columnar_cluster_iter_next(&iterator, &cluster)
        if rc == COLUMNAR_ENOTFOUND { return nil }
        try check(rc, "columnar_cluster_iter_next")
        if cluster.row_count > 0 { return columnar_array_get_int(&cluster.keys, 0) }
    }
}

func getInt(_ txn: OpaquePointer, _ table: columnar_table_id, _ key: columnar_key,
            _ column: columnar_col_id) throws -> Int64 {
    var value: Int64 = 0
    var isNull = false
    try check(columnar_obj_get_int(txn, table, key, column, &value, &isNull), "columnar_obj_get_int")
    guard !isNull else { throw WorkerError(description: "unexpected null at object \(key)") }
    return value
}

func setInt(_ txn: OpaquePointer, _ table: columnar_table_id, _ key: columnar_key, _ column: columnar_col_id,
            _ newValue: Int64) throws {
    var value = columnar_value()
    value.type = COLUMNAR_TYPE_INT
    value.is_null = false
    value.`as`.i = newValue
    try check(columnar_obj_set(txn, table, key, column, &value), "columnar_obj_set")
}

/// Ensures table `name` exists with column `column` and exactly one object (created with value 0); returns the
/// table, column and object key. Runs inside a write transaction, so a racing process either created all of it
/// before we took the writer lock, or none of it.
func ensureSingleton(_ txn: OpaquePointer, _ name: String, column: String)
    throws -> (columnar_table_id, columnar_col_id, columnar_key)
{
    let table = try findTable(txn, name) ?? addIntTable(txn, name, column: column)
    let columnID = try findColumn(txn, table, column)
    if let key = try firstKey(txn, table) { return (table, columnID, key) }
    var key: columnar_key = 0
    try check(columnar_obj_create(txn, table, &key), "columnar_obj_create \(name)")
    try setInt(txn, table, key, columnID, 0)
    return (table, columnID, key)
}

/// What commit-loop's options ask for.
struct CommitLoopOptions {
    var faultSeed: UInt64?
    var killStep: (step: UInt32, occurrence: UInt64)?
    var killWrites: UInt64?
    var count: Int?
    var unsafe = false
    var encrypted = false

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        func next() throws -> String {
            guard let value = rest.popFirst() else { throw WorkerError(description: "an option lacks its value") }
            return value
        }
        while let option = rest.popFirst() {
            switch option {
            case "--fault": faultSeed = UInt64(try next())
            case "--kill-step": killStep = (UInt32(try next()) ?? 0, UInt64(try next()) ?? 1)
            case "--kill-writes": killWrites = UInt64(try next())
            case "--count": count = Int(try next())
            case "--unsafe": unsafe = true
            case "--encrypted": encrypted = true
            default: throw WorkerError(description: "unknown option \(option)")
            }
        }
    }
}

func commitLoop(path: String, options: CommitLoopOptions) throws -> Never {
    var faultIO: OpaquePointer?
    if let seed = options.faultSeed {
        faultIO = columnar_faultio_create(seed)
        if let (step, occurrence) = options.killStep {
            columnar_faultio_at_step(faultIO, columnar_step(rawValue: step), occurrence, true)
        }
    }
    let db = try openDatabase(path, io: faultIO.map { columnar_faultio_io($0) }, unsafe: options.unsafe,
                              encrypted: options.encrypted)
    try write(db) { txn in
        if try findTable(txn, "log") == nil { _ = try addIntTable(txn, "log", column: "n") }
        _ = try ensureSingleton(txn, "meta", column: "last")
    }
    // Armed after the setup, so the count of writes falls among the loop's commits.
    if let faultIO, let writes = options.killWrites { columnar_faultio_kill_after_writes(faultIO, writes) }
    var commits = 0
    while options.count.map({ commits < $0 }) ?? true {
        let committed = try write(db) { txn -> Int64 in
            let (meta, lastColumn, metaKey) = try ensureSingleton(txn, "meta", column: "last")
            guard let log = try findTable(txn, "log") else { throw WorkerError(description: "table log vanished") }
            let nColumn = try findColumn(txn, log, "n")
            let next = try getInt(txn, meta, metaKey, lastColumn) + 1
            var key: columnar_key = 0
            try check(columnar_obj_create(txn, log, &key), "columnar_obj_create log")
            try setInt(txn, log, key, nColumn, next)
            try setInt(txn, meta, metaKey, lastColumn, next)
            return next
        }
        emit(String(committed))
        commits += 1
    }
    columnar_close(db)
    exit(0)
}

/// Sums column "n" of table "log" in `txn`.
func sumOfLog(_ txn: OpaquePointer) throws -> Int64 {
    guard let log = try findTable(txn, "log") else { return 0 }
    let nColumn = try findColumn(txn, log, "n")
    var iterator = columnar_cluster_iter()
    try check(columnar_cluster_iter_init(txn, log, &iterator), "columnar_cluster_iter_init")
    var cluster = columnar_cluster()
    var sum: Int64 = 0
    while true {
        let rc = columnar_cluster_iter_next(&iterator, &cluster)
        if rc == COLUMNAR_ENOTFOUND { return sum }
        try check(rc, "columnar_cluster_iter_next")
        for row in 0..<Int(cluster.row_count) {
            sum &+= try getInt(txn, log, columnar_array_get_int(&cluster.keys, UInt64(row)), nColumn)
        }
    }
}

func holdReader(path: String) throws {
    let db = try openDatabase(path)
    defer { columnar_close(db) }
    var txn: OpaquePointer?
    try check(columnar_txn_begin_read(db, &txn), "columnar_txn_begin_read")
    defer { columnar_txn_rollback(txn) }
    let before = try sumOfLog(txn!)
    emit("pinned \(columnar_txn_version(txn)) \(before)")
    _ = readLine()
    let after = try sumOfLog(txn!)
    var findings: UInt64 = 0
    let rc = columnar_verify(txn, nil, nil, &findings)
    emit(rc == COLUMNAR_OK && after == before ? "intact \(after)"
         : "damaged: sum \(after) (was \(before)), verify \(String(cString: columnar_strerror(rc))), \(findings) findings")
}

func increment(path: String, count: Int, encrypted: Bool) throws {
    let db = try openDatabase(path, encrypted: encrypted)
    defer { columnar_close(db) }
    try write(db) { txn in _ = try ensureSingleton(txn, "counter", column: "value") }
    for _ in 0..<count {
        try write(db) { txn in
            let (table, column, key) = try ensureSingleton(txn, "counter", column: "value")
            let value = try getInt(txn, table, key, column)
            try setInt(txn, table, key, column, value + 1)
        }
    }
}

/// Prints "compacting", compacts PATH (columnar_compact) and prints "compacted MICROSECONDS" or "busy".
func compact(path: String, encrypted: Bool) throws {
    emit("compacting")
    var start = timespec(), end = timespec()
    var options = columnar_open_options()
    clock_gettime(CLOCK_MONOTONIC, &start)
    let rc = testEncryptionKey.withUnsafeBufferPointer { key in
        options.encryption_key = encrypted ? key.baseAddress : nil
        return columnar_compact(path, &options, nil, nil, nil)
    }
    clock_gettime(CLOCK_MONOTONIC, &end)
    if rc == -EBUSY {
        emit("busy")
        return
    }
    try check(rc, "columnar_compact \(path)")
    emit("compacted \((end.tv_sec - start.tv_sec) * 1_000_000 + (end.tv_nsec - start.tv_nsec) / 1_000)")
}

let usage = "usage: ColumnarTestWorker commit-loop PATH [OPTIONS] | hold-reader PATH | "
    + "increment PATH COUNT [--encrypted] | compact PATH [--encrypted] | "
    + "realm-write PATH | realm-self-assign PATH | powercut-campaign [--cuts N] [--seed S] [--dir D] | campaign-writer PATH SEED WRITER [OPTIONS]"
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "realm-write" where arguments.count == 2:
        try realmWrite(path: arguments[1])
    case "realm-self-assign" where arguments.count == 2:
        try realmSelfAssign(path: arguments[1])
    case "commit-loop" where arguments.count >= 2:
        try commitLoop(path: arguments[1], options: try CommitLoopOptions(arguments.dropFirst(2)))
    case "hold-reader" where arguments.count == 2:
        try holdReader(path: arguments[1])
    case "powercut-campaign":
        try powerCutCampaign(options: try CampaignOptions(arguments.dropFirst()))
    case "campaign-writer" where arguments.count >= 4:
        guard let seed = UInt64(arguments[2]), let writer = Int(arguments[3]) else { fail(usage) }
        try campaignWriter(path: arguments[1], seed: seed, writer: writer,
                           options: try CampaignWriterOptions(arguments.dropFirst(4)))
    case "compact" where arguments.count == 2 || (arguments.count == 3 && arguments[2] == "--encrypted"):
        try compact(path: arguments[1], encrypted: arguments.count == 3)
    case "increment" where arguments.count == 3 || (arguments.count == 4 && arguments[3] == "--encrypted"):
        guard let count = Int(arguments[2]), count >= 0 else { fail("COUNT must be a non-negative integer") }
        try increment(path: arguments[1], count: count, encrypted: arguments.count == 4)
    default:
        fail(usage)
    }
} catch {
    fail("\(arguments.first ?? ""): \(error)")
}
exit(0)
