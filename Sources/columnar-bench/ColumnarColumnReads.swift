// ColumnarColumnReads: the raw column read that the object suite's managed read of held objects is measured
// against: `columnar_obj_get_int` of the same column, for every object key of the same file, in key order, in one
// read transaction of the C API. The difference between the two rows is what the Swift object API adds to a column
// read (finding the wrapper, the thread and validity checks, converting the value).

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

        // The table and column as the object API names them (the model class Item and its property someInt).
        var table: columnar_table_id = 0
        try check(columnar_table_find(txn, "Item", &table), "columnar_table_find(Item)")
        var column: columnar_col_id = 0
        try check(columnar_column_find(txn, table, "someInt", &column), "columnar_column_find(someInt)")
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
