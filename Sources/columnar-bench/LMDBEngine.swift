// LMDBEngine: the key-value-shaped workloads of the object suite on LMDB (liblmdb), the memory-mapped B+tree store,
// used the fastest way its documentation describes for them: one file (MDB_NOSUBDIR), integer keys compared as
// integers (MDB_INTEGERKEY), the bulk insert in one write transaction appending keys in ascending order
// (MDB_APPEND), lookups with mdb_get in one read transaction, the read as a cursor walk. Commits are durable
// (LMDB's default: the commit syncs the data and then the meta page). An object is its id as the key and its four
// other properties packed into the value: someInt (8 bytes), ratio (8), flag (1), then the label's bytes.
//
// LMDB has no query language, sorting or secondary index, so it runs the insert, read, lookup and single-commit
// workloads only.

import CLMDB
import Foundation

final class LMDBEngine: KeyValueBenchmarkEngine {
    let name = "LMDB"
    let fileExtension = "lmdb"

    var setupDescription: String {
        "\(String(cString: mdb_version(nil, nil, nil))): one file, MDB_INTEGERKEY, MDB_APPEND for the ascending "
            + "bulk insert, durable commits (no MDB_NOSYNC), mdb_get and cursor reads in one read transaction"
    }

    func dataFiles(at path: String) -> [String] { [path] }
    func allFiles(at path: String) -> [String] { [path, path + "-lock"] }

    /// The map's size: address space reserved up front (the file grows only as pages are used).
    private static let mapSize = 8 << 30

    private static let someIntOffset = 0
    private static let ratioOffset = 8
    private static let flagOffset = 16
    private static let labelOffset = 17

    /// Inserts objects 0 ..< objectCount in one durable write transaction (the database is opened before the
    /// measured interval).
    func insertObjects(path: String, data: DataSet, objectCount: Int, recorder: inout LatencyRecorder) throws {
        let environment = try Environment(path: path, engine: self)
        defer { environment.close() }
        var value = [UInt8](repeating: 0, count: Self.labelOffset + 64)
        recorder.startRun()
        let transaction = try environment.begin(readOnly: false)
        var committed = false
        defer { if !committed { mdb_txn_abort(transaction) } }
        for rowIndex in 0 ..< objectCount {
            let row = ObjectRow(data.row(at: rowIndex), id: rowIndex)
            try recorder.measure {
                var key = UInt64(row.id)
                let size = row.label.withBytes { label -> Int in
                    value.withUnsafeMutableBytes { buffer in
                        buffer.storeBytes(of: Int64(row.someInt), toByteOffset: Self.someIntOffset, as: Int64.self)
                        buffer.storeBytes(of: row.ratio, toByteOffset: Self.ratioOffset, as: Double.self)
                        buffer.storeBytes(of: row.flag ? 1 : 0, toByteOffset: Self.flagOffset, as: UInt8.self)
                        let labelEnd = Self.labelOffset + label.count
                        UnsafeMutableRawBufferPointer(rebasing: buffer[Self.labelOffset ..< labelEnd])
                            .copyMemory(from: label)
                    }
                    return Self.labelOffset + label.count
                }
                try withUnsafeMutableBytes(of: &key) { keyBytes in
                    try value.withUnsafeMutableBytes { valueBytes in
                        var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                        var dataValue = MDB_val(mv_size: size, mv_data: valueBytes.baseAddress)
                        try check(mdb_put(transaction, environment.database, &keyValue, &dataValue, UInt32(MDB_APPEND)),
                                  "mdb_put")
                    }
                }
            }
        }
        committed = true
        try recorder.endRun { try check(mdb_txn_commit(transaction), "mdb_txn_commit") }
    }

    /// Reads `someInt` of every object with a cursor, in key order.
    func readIntProperty(path: String, recorder: inout LatencyRecorder) throws -> (objectCount: Int, sum: Int) {
        let environment = try Environment(path: path, engine: self)
        defer { environment.close() }
        recorder.startRun()
        let transaction = try environment.begin(readOnly: true)
        defer { mdb_txn_abort(transaction) }
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(transaction, environment.database, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        var operation = MDB_FIRST
        var objectCount = 0
        var sum = 0
        while let someInt = try recorder.measure({ () throws -> Int? in
            let rc = mdb_cursor_get(cursor, &key, &value, operation)
            if rc == MDB_NOTFOUND { return nil }
            try check(rc, "mdb_cursor_get")
            return try Self.someInt(of: value)
        }) {
            operation = MDB_NEXT
            sum &+= someInt
            objectCount += 1
        }
        recorder.endRun()
        return (objectCount, sum)
    }

    /// Finds each object of `ids` with mdb_get and returns the sum of their `someInt`.
    func lookUpByPrimaryKey(path: String, ids: [Int], recorder: inout LatencyRecorder) throws -> Int {
        let environment = try Environment(path: path, engine: self)
        defer { environment.close() }
        let transaction = try environment.begin(readOnly: true)
        defer { mdb_txn_abort(transaction) }
        var sum = 0
        recorder.startRun()
        for id in ids {
            sum &+= try recorder.measure { () throws -> Int in
                var key = UInt64(id)
                return try withUnsafeMutableBytes(of: &key) { keyBytes in
                    var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                    var value = MDB_val()
                    let rc = mdb_get(transaction, environment.database, &keyValue, &value)
                    if rc == MDB_NOTFOUND {
                        throw BenchError.wrongAnswer(engine: name, what: "no object with id \(id)")
                    }
                    try check(rc, "mdb_get")
                    return try Self.someInt(of: value)
                }
            }
        }
        recorder.endRun()
        return sum
    }

    /// Sets `someInt` of each object in its own durable write transaction: the value read, changed in a copy and
    /// put back.
    func singleObjectCommits(path: String, updates: [(id: Int, value: Int)], recorder: inout LatencyRecorder) throws {
        let environment = try Environment(path: path, engine: self)
        defer { environment.close() }
        var buffer = [UInt8](repeating: 0, count: 256)
        recorder.startRun()
        for update in updates {
            try recorder.measure {
                let transaction = try environment.begin(readOnly: false)
                var committed = false
                defer { if !committed { mdb_txn_abort(transaction) } }
                var key = UInt64(update.id)
                try withUnsafeMutableBytes(of: &key) { keyBytes in
                    var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                    var value = MDB_val()
                    try check(mdb_get(transaction, environment.database, &keyValue, &value), "mdb_get")
                    guard value.mv_size >= Self.labelOffset, value.mv_size <= buffer.count, let data = value.mv_data
                    else { throw BenchError.wrongAnswer(engine: name, what: "a value of \(value.mv_size) bytes") }
                    try buffer.withUnsafeMutableBytes { copy in
                        copy.copyMemory(from: UnsafeRawBufferPointer(start: data, count: value.mv_size))
                        copy.storeBytes(of: Int64(update.value), toByteOffset: Self.someIntOffset, as: Int64.self)
                        var changed = MDB_val(mv_size: value.mv_size, mv_data: copy.baseAddress)
                        try check(mdb_put(transaction, environment.database, &keyValue, &changed, 0), "mdb_put")
                    }
                }
                committed = true
                try check(mdb_txn_commit(transaction), "mdb_txn_commit")
            }
        }
        recorder.endRun()
    }

    private static func someInt(of value: MDB_val) throws -> Int {
        guard value.mv_size >= labelOffset, let data = value.mv_data else {
            throw BenchError.wrongAnswer(engine: "LMDB", what: "a value of \(value.mv_size) bytes")
        }
        return Int(data.loadUnaligned(fromByteOffset: someIntOffset, as: Int64.self))
    }

    fileprivate func check(_ rc: Int32, _ call: String) throws {
        guard rc == 0 else { throw BenchError.lmdb(call: call, code: rc, message: String(cString: mdb_strerror(rc))) }
    }

    /// An open environment and its one unnamed database.
    private struct Environment {
        let handle: OpaquePointer
        let database: MDB_dbi

        init(path: String, engine: LMDBEngine) throws {
            var handle: OpaquePointer?
            try engine.check(mdb_env_create(&handle), "mdb_env_create")
            guard let handle else { throw BenchError.lmdb(call: "mdb_env_create", code: 0, message: "no handle") }
            do {
                try engine.check(mdb_env_set_mapsize(handle, LMDBEngine.mapSize), "mdb_env_set_mapsize")
                try engine.check(mdb_env_open(handle, path, UInt32(MDB_NOSUBDIR), 0o644), "mdb_env_open")
                var transaction: OpaquePointer?
                try engine.check(mdb_txn_begin(handle, nil, 0, &transaction), "mdb_txn_begin")
                var database: MDB_dbi = 0
                let rc = mdb_dbi_open(transaction, nil, UInt32(MDB_INTEGERKEY | MDB_CREATE), &database)
                if rc != 0 { mdb_txn_abort(transaction) }
                try engine.check(rc, "mdb_dbi_open")
                try engine.check(mdb_txn_commit(transaction), "mdb_txn_commit")
                self.handle = handle
                self.database = database
            } catch {
                mdb_env_close(handle)
                throw error
            }
        }

        func begin(readOnly: Bool) throws -> OpaquePointer {
            var transaction: OpaquePointer?
            let rc = mdb_txn_begin(handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &transaction)
            guard rc == 0, let transaction else {
                throw BenchError.lmdb(call: "mdb_txn_begin", code: rc, message: String(cString: mdb_strerror(rc)))
            }
            return transaction
        }

        func close() { mdb_env_close(handle) }
    }
}
