// MaintenanceBench.swift — `columnar-bench maintenance`: compaction and copies. A file of --objects five-property
// objects loses 90 % of them; Columnar's columnar_compact and SQLite's VACUUM shrink the same data, and each result
// is set against a file written fresh with the objects left. A dense copy of the full file (columnar_write_copy)
// is timed against copying its bytes with read/write and one fsync (the machine's limit for a byte copy).

import ArgumentParser
import CColumnar
import CSQLite
import Foundation

struct MaintenanceBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance",
        _superCommandName: "columnar-bench",
        abstract: "Measures compaction after large deletes and dense copies, against SQLite's VACUUM.",
        discussion: """
            Both engines get --objects objects of five properties (an indexed integer id, a string name, a \
            double score, a bool flag, a timestamp) in one transaction, then 90 % of them (id % 10 != 0) deleted \
            in a second. Columnar (id indexed): columnar_compact, timed, and the file's size before and after; \
            SQLite (WAL, synchronous=FULL; id the INTEGER PRIMARY KEY, so the table is its index): VACUUM after a \
            checkpoint. Each is compared with a file the same engine writes fresh \
            with the objects left. Then a dense copy of Columnar's full file (before the deletes) with \
            columnar_write_copy against a byte copy of the same file (read/write in 1 MiB blocks and one fsync).
            """)

    @Option(help: "Objects written before 90 % are deleted.")
    var objects: Int = 1_000_000

    @Option(help: """
        Directory for the database files, created if needed; the files are kept there afterwards. \
        Default: a fresh temporary directory, removed afterwards.
        """)
    var dir: String?

    mutating func validate() throws {
        if objects < 10 { throw ValidationError("--objects must be at least 10") }
    }

    func run() throws {
        try ColumnarBench.inRunDirectory(dir) { directory, machine in try measure(in: directory, machine: machine) }
    }

    private func measure(in directory: String, machine: MachineInfo) throws {
        let everyKey = Array(0..<objects)
        let keptKeys = everyKey.filter { $0 % 10 == 0 }

        ColumnarBench.log("  Columnar: \(objects) objects, a copy, 90 % deleted, compaction")
        let full = "\(directory)/full.columnar"
        try ColumnarMaintenanceFile.write(full, keys: everyKey)
        let copyPath = "\(directory)/copy.columnar"
        let copySeconds = try Self.timed { try ColumnarMaintenanceFile.writeCopy(of: full, to: copyPath) }
        let byteCopySeconds = try Self.timed { try Self.byteCopy(full, to: "\(directory)/bytes.columnar") }
        let fullSize = try Self.size(full), copySize = try Self.size(copyPath)
        try ColumnarMaintenanceFile.deleteAllBut(full, keep: { $0 % 10 == 0 }, keyCount: objects)
        let beforeCompaction = try Self.size(full)
        var result = columnar_compact_result()
        let compactSeconds = try Self.timed {
            try ColumnarMaintenanceFile.check(columnar_compact(full, nil, nil, nil, &result), "columnar_compact")
        }
        let afterCompaction = try Self.size(full)
        let freshColumnar = "\(directory)/fresh.columnar"
        try ColumnarMaintenanceFile.write(freshColumnar, keys: keptKeys)
        try ColumnarMaintenanceFile.checkCount(full, expected: keptKeys.count)

        ColumnarBench.log("  SQLite: \(objects) rows, 90 % deleted, VACUUM")
        let sqlitePath = "\(directory)/full.sqlite"
        try SQLiteMaintenanceFile.write(sqlitePath, keys: everyKey)
        try SQLiteMaintenanceFile.deleteAllBut(sqlitePath)
        let beforeVacuum = try SQLiteMaintenanceFile.size(sqlitePath)
        let vacuumSeconds = try Self.timed { try SQLiteMaintenanceFile.vacuum(sqlitePath) }
        let afterVacuum = try SQLiteMaintenanceFile.size(sqlitePath)
        let freshSQLite = "\(directory)/fresh.sqlite"
        try SQLiteMaintenanceFile.write(freshSQLite, keys: keptKeys)
        let freshSQLiteSize = try SQLiteMaintenanceFile.size(freshSQLite)
        let freshColumnarSize = try Self.size(freshColumnar)

        var lines = [machine.line, "maintenance; \(Report.grouped(objects)) objects of five properties, 90 % deleted",
                     ""]
        var rows = [["engine", "before", "after", "fresh file", "after / fresh", "time ms"]]
        rows.append(["Columnar compact", Self.mib(beforeCompaction), Self.mib(afterCompaction),
                     Self.mib(freshColumnarSize), Self.ratio(afterCompaction, freshColumnarSize),
                     Self.milliseconds(compactSeconds)])
        rows.append(["SQLite VACUUM", Self.mib(beforeVacuum), Self.mib(afterVacuum), Self.mib(freshSQLiteSize),
                     Self.ratio(afterVacuum, freshSQLiteSize), Self.milliseconds(vacuumSeconds)])
        lines += Report.tableLines(rows, leftAligned: [0])
        lines.append("")
        lines.append("sizes in MiB on disk (SQLite: database + WAL after a checkpoint); compaction time "
            + String(format: "%.2f", compactSeconds / max(vacuumSeconds, 1e-9)) + "× VACUUM's")
        lines.append("")
        rows = [["copy of the full file", "size", "time ms", "vs byte copy"]]
        rows.append(["columnar_write_copy", Self.mib(copySize), Self.milliseconds(copySeconds),
                     String(format: "%.2f×", copySeconds / max(byteCopySeconds, 1e-9))])
        rows.append(["byte copy + fsync", Self.mib(fullSize), Self.milliseconds(byteCopySeconds), "1.00×"])
        lines += Report.tableLines(rows, leftAligned: [0])
        print("\n" + lines.joined(separator: "\n"))
    }

    static func timed(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func size(_ path: String) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// The file's bytes into a new file, 1 MiB at a time, then one fsync.
    static func byteCopy(_ source: String, to destination: String) throws {
        let input = open(source, O_RDONLY), output = open(destination, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        defer { close(input); close(output) }
        guard input >= 0, output >= 0 else { throw BenchError.setup("cannot open \(source) or \(destination)") }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            let count = read(input, buffer, 1 << 20)
            if count < 0 { throw BenchError.setup("cannot read \(source)") }
            if count == 0 { break }
            if write(output, buffer, count) != count { throw BenchError.setup("cannot write \(destination)") }
        }
        if fsync(output) != 0 { throw BenchError.setup("cannot sync \(destination)") }
    }

    static func mib(_ bytes: UInt64) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
    static func ratio(_ part: UInt64, _ whole: UInt64) -> String {
        String(format: "%.2f", Double(part) / Double(max(whole, 1)))
    }
    static func milliseconds(_ seconds: Double) -> String { String(format: "%.0f", seconds * 1000) }
}

/// The Columnar side, through the C API (as the storage suite): table "item" with five columns.
enum ColumnarMaintenanceFile {
    static func check(_ rc: Int32, _ what: String) throws {
        guard rc == COLUMNAR_OK else {
            throw BenchError.setup("\(what): \(String(cString: columnar_last_error().pointee.message))")
        }
    }

    private static func withWrite(_ path: String, _ body: (OpaquePointer) throws -> Void) throws {
        var db: OpaquePointer?
        var options = columnar_open_options()
        options.flags = COLUMNAR_OPEN_CREATE.rawValue
        try check(columnar_open(path, &options, &db), "columnar_open \(path)")
        defer { columnar_close(db) }
        var txn: OpaquePointer?
        try check(columnar_txn_begin_write(db, &txn), "begin_write")
        do {
            try body(txn!)
        } catch {
            columnar_txn_rollback(txn)
            throw error
        }
        try check(columnar_txn_commit(txn), "commit")
    }

    static func write(_ path: String, keys: [Int]) throws {
        try withWrite(path) { txn in
            var table: columnar_table_id = 0
            try check(columnar_table_add(txn, "item", &table), "table_add")
            var columns: [columnar_col_id] = []
            for (name, type, indexed) in [("id", COLUMNAR_TYPE_INT, true), ("name", COLUMNAR_TYPE_STRING, false),
                                          ("score", COLUMNAR_TYPE_DOUBLE, false), ("flag", COLUMNAR_TYPE_BOOL, false),
                                          ("created", COLUMNAR_TYPE_TIMESTAMP, false)] {
                var column: columnar_col_id = 0
                try name.withCString { pointer in
                    var spec = columnar_column_spec()
                    spec.name = pointer
                    spec.type = type
                    spec.indexed = indexed
                    try check(columnar_column_add(txn, table, &spec, &column), "column_add \(name)")
                }
                columns.append(column)
            }
            var value = columnar_value()
            for key in keys {
                let objectKey = columnar_key(key)
                try check(columnar_obj_create_with_key(txn, table, objectKey), "create")
                value = columnar_value()
                value.type = COLUMNAR_TYPE_INT
                value.as.i = Int64(key)
                try check(columnar_obj_set(txn, table, objectKey, columns[0], &value), "set id")
                let name = "item \(key)"
                try name.withCString { pointer in
                    value = columnar_value()
                    value.type = COLUMNAR_TYPE_STRING
                    value.as.bytes.data = UnsafeRawPointer(pointer)
                    value.as.bytes.size = strlen(pointer)
                    try check(columnar_obj_set(txn, table, objectKey, columns[1], &value), "set name")
                }
                value = columnar_value()
                value.type = COLUMNAR_TYPE_DOUBLE
                value.as.d = Double(key) * 0.5
                try check(columnar_obj_set(txn, table, objectKey, columns[2], &value), "set score")
                value = columnar_value()
                value.type = COLUMNAR_TYPE_BOOL
                value.as.b = key % 2 == 0
                try check(columnar_obj_set(txn, table, objectKey, columns[3], &value), "set flag")
                value = columnar_value()
                value.type = COLUMNAR_TYPE_TIMESTAMP
                value.as.timestamp.seconds = 1_700_000_000 + Int64(key)
                try check(columnar_obj_set(txn, table, objectKey, columns[4], &value), "set created")
            }
        }
    }

    static func deleteAllBut(_ path: String, keep: (Int) -> Bool, keyCount: Int) throws {
        try withWrite(path) { txn in
            var table: columnar_table_id = 0
            try check(columnar_table_find(txn, "item", &table), "table_find")
            for key in 0..<keyCount where !keep(key) {
                try check(columnar_obj_delete(txn, table, columnar_key(key)), "delete")
            }
        }
    }

    private static func withRead(_ path: String, _ body: (OpaquePointer) throws -> Void) throws {
        var db: OpaquePointer?
        try check(columnar_open(path, nil, &db), "columnar_open \(path)")
        defer { columnar_close(db) }
        var txn: OpaquePointer?
        try check(columnar_txn_begin_read(db, &txn), "begin_read")
        defer { columnar_txn_rollback(txn) }
        try body(txn!)
    }

    static func writeCopy(of path: String, to destination: String) throws {
        try withRead(path) { txn in try check(columnar_write_copy(txn, destination, nil), "columnar_write_copy") }
    }

    static func checkCount(_ path: String, expected: Int) throws {
        try withRead(path) { txn in
            var table: columnar_table_id = 0
            var count: UInt64 = 0
            try check(columnar_table_find(txn, "item", &table), "table_find")
            try check(columnar_obj_count(txn, table, &count), "obj_count")
            guard count == UInt64(expected) else {
                throw BenchError.setup("the compacted file holds \(count) objects, not \(expected)")
            }
        }
    }
}

/// The SQLite side: WAL, synchronous=FULL, prepared inserts in one transaction.
enum SQLiteMaintenanceFile {
    private static func withDatabase(_ path: String, _ body: (OpaquePointer) throws -> Void) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchError.setup("sqlite3_open \(path)") }
        defer { sqlite3_close(db) }
        try exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL")
        try body(db)
    }

    private static func exec(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError.setup("sqlite3_exec(\(sql)): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    static func write(_ path: String, keys: [Int]) throws {
        try withDatabase(path) { db in
            try exec(db, "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL NOT NULL, "
                + "flag INTEGER NOT NULL, created INTEGER NOT NULL); BEGIN")
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, "INSERT INTO item VALUES (?, ?, ?, ?, ?)", -1, &statement, nil) == SQLITE_OK
            else { throw BenchError.setup("prepare insert") }
            defer { sqlite3_finalize(statement) }
            for key in keys {
                sqlite3_bind_int64(statement, 1, Int64(key))
                let name = "item \(key)"
                let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
                _ = name.withCString { sqlite3_bind_text(statement, 2, $0, -1, transient) }
                sqlite3_bind_double(statement, 3, Double(key) * 0.5)
                sqlite3_bind_int64(statement, 4, key % 2 == 0 ? 1 : 0)
                sqlite3_bind_int64(statement, 5, 1_700_000_000 + Int64(key))
                guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.setup("insert") }
                sqlite3_reset(statement)
            }
            try exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    static func deleteAllBut(_ path: String) throws {
        try withDatabase(path) { db in
            try exec(db, "DELETE FROM item WHERE id % 10 != 0; PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    static func vacuum(_ path: String) throws {
        try withDatabase(path) { db in try exec(db, "VACUUM; PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    static func size(_ path: String) throws -> UInt64 {
        let wal = (try? MaintenanceBench.size(path + "-wal")) ?? 0
        return try MaintenanceBench.size(path) + wal
    }
}
