// ColumnarColumnReads: the C API rows the object suite's managed reads are measured against, on the same file in
// one read transaction each:
// - held reads: `columnar_obj_get_int` of the same column, for every object key, in key order. The difference
//   between the two rows is what the Swift object API adds to a column read (finding the wrapper, the thread and
//   validity checks, converting the value);
// - lookups: `columnar_obj_find_primary_key`, then `columnar_obj_get_int` of the key found, for the same ids in the
//   same order: what the engine's lookup costs without the object API. A note gives the cost of one descent of
//   the table alone (`columnar_obj_get_int` of the keys the lookups found), the part of a lookup that the index's
//   own descent doubles.

import CColumnar
import Columnar

final class ColumnarColumnReads: HeldObjectReadEngine {
    let name = Report.columnReadEngine
    /// The object suite's file (ColumnarObjectEngine writes it): the same path for both rows.
    let fileExtension = "realm"
    var setupDescription: String {
        "C API: columnar_obj_get_int on the object suite's file, every key in key order, one read transaction"
    }

    func dataFiles(at path: String) -> [String] { [path] }
    func allFiles(at path: String) -> [String] { [path, path + ".lock"] }

    func readIntPropertyOfHeldObjects(path: String, recorder: inout LatencyRecorder) throws
        -> (objectCount: Int, sum: Int)
    {
        try withItemTable(path: path) { txn, table, column in try readHeld(txn, table, column, &recorder) }
    }

    /// Finds each id's object by primary key and reads its `someInt`; returns the sum. Adds a note with the mean
    /// cost of reading the same objects by key (one table descent each), measured right after.
    func lookUpByPrimaryKey(path: String, ids: [Int], recorder: inout LatencyRecorder) throws -> Int {
        try withItemTable(path: path) { txn, table, column in
            var keys: [columnar_key] = []
            keys.reserveCapacity(ids.count)
            var sum = 0
            recorder.startRun()
            for id in ids {
                var value: Int64 = 0
                var isNull = false
                var key: columnar_key = 0
                try recorder.measure {
                    var primaryKey = columnar_value()
                    primaryKey.type = COLUMNAR_TYPE_INT
                    primaryKey.as.i = Int64(id)
                    try check(columnar_obj_find_primary_key(txn, table, &primaryKey, &key),
                              "columnar_obj_find_primary_key(\(id))")
                    try check(columnar_obj_get_int(txn, table, key, column, &value, &isNull),
                              "columnar_obj_get_int(key \(key))")
                }
                keys.append(key)
                sum &+= Int(value)
            }
            recorder.endRun()

            var descentSum = 0
            let start = MonotonicClock.nowNanoseconds()
            for key in keys {
                var value: Int64 = 0
                var isNull = false
                try check(columnar_obj_get_int(txn, table, key, column, &value, &isNull),
                          "columnar_obj_get_int(key \(key))")
                descentSum &+= Int(value)
            }
            let nanoseconds = MonotonicClock.nowNanoseconds() - start
            guard descentSum == sum else {
                throw BenchError.wrongAnswer(engine: name, what: "reads by key summed to \(descentSum), lookups to \(sum)")
            }
            recorder.notes.append("the same objects read again by key alone (one table descent, no index; on nodes "
                + "the lookups have just read): \(nanoseconds / UInt64(max(keys.count, 1))) ns a read")
            return sum
        }
    }

    /// Opens the object suite's file, begins a read transaction and finds the table and column as the object API
    /// names them (the model class Item and its property someInt).
    private func withItemTable<R>(path: String,
                                  _ body: (OpaquePointer, columnar_table_id, columnar_col_id) throws -> R) throws -> R {
        var options = columnar_open_options()
        options.flags = 0
        var db: OpaquePointer?
        try check(columnar_open(path, &options, &db), "columnar_open(\(path))")
        guard let db else { throw BenchError.setup("columnar_open returned no handle") }
        defer { columnar_close(db) }
        var txn: OpaquePointer?
        try check(columnar_txn_begin_read(db, &txn), "columnar_txn_begin_read")
        guard let txn else { throw BenchError.setup("columnar_txn_begin_read returned no transaction") }
        defer { columnar_txn_rollback(txn) }
        var table: columnar_table_id = 0
        try check(columnar_table_find(txn, "Item", &table), "columnar_table_find(Item)")
        var column: columnar_col_id = 0
        try check(columnar_column_find(txn, table, "someInt", &column), "columnar_column_find(someInt)")
        return try body(txn, table, column)
    }

    private func readHeld(_ txn: OpaquePointer, _ table: columnar_table_id, _ column: columnar_col_id,
                          _ recorder: inout LatencyRecorder) throws -> (objectCount: Int, sum: Int) {
        // The keys, found before the measured interval as the objects of the other row are made before it.
        var keys: [columnar_key] = []
        var iterator = columnar_cluster_iter()
        try check(columnar_cluster_iter_init(txn, table, &iterator), "columnar_cluster_iter_init")
        var cluster = columnar_cluster()
        while true {
            let rc = columnar_cluster_iter_next(&iterator, &cluster)
            if rc == COLUMNAR_ENOTFOUND { break }
            try check(rc, "columnar_cluster_iter_next")
            for position in 0 ..< cluster.row_count { keys.append(columnar_array_get_int(&cluster.keys, position)) }
        }

        var sum = 0
        recorder.startRun()
        for key in keys {
            var value: Int64 = 0
            var isNull = false
            try recorder.measure {
                try check(columnar_obj_get_int(txn, table, key, column, &value, &isNull),
                          "columnar_obj_get_int(key \(key))")
            }
            sum &+= Int(value)
        }
        recorder.endRun()
        return (keys.count, sum)
    }

    private func check(_ rc: Int32, _ call: @autoclosure () -> String) throws {
        if rc != COLUMNAR_OK { throw BenchError.columnar(call: call(), error: ColumnarError.fromLastError(rc)) }
    }
}
