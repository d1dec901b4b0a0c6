// SQLiteEngine: the workloads on the system SQLite, set up as a careful application would for durable commits:
// WAL journal mode, synchronous=FULL, prepared statements reused across rows, the bulk insert in one
// transaction. Everything else is SQLite's default (page size, cache size), so the figures describe SQLite as
// shipped. Every call's result code is checked.

import CSQLite

final class SQLiteEngine: BenchmarkEngine {
    let name = "SQLite"
    let fileExtension = "sqlite"

    var setupDescription: String {
        "SQLite \(String(cString: sqlite3_libversion())): journal_mode=WAL, synchronous=FULL, prepared statements"
    }

    func dataFiles(at path: String) -> [String] { [path, path + "-wal"] }
    func allFiles(at path: String) -> [String] { [path, path + "-wal", path + "-shm", path + "-journal"] }

    private static let createTable = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, small INTEGER NOT NULL, large INTEGER NOT NULL,
                          ratio REAL NOT NULL, label TEXT NOT NULL, flag INTEGER NOT NULL)
        """
    private static let insertRow = "INSERT INTO item(id, small, large, ratio, label, flag) VALUES (?, ?, ?, ?, ?, ?)"

    // MARK: Workload a

    func bulkInsert(path: String, data: DataSet, rowCount: Int, recorder: inout LatencyRecorder) throws {
        let db = try Connection(path: path, create: true)
        defer { db.close() }
        recorder.startRun()
        try db.execute("BEGIN")
        try db.execute(Self.createTable)
        let insert = try db.prepare(Self.insertRow)
        defer { insert.finalize() }
        for rowIndex in 0 ..< rowCount {
            let row = data.row(at: rowIndex)
            try recorder.measure { try insertRow(row, rowIndex: rowIndex, with: insert, db) }
        }
        try recorder.endRun { try db.execute("COMMIT") }
    }

    func readBack(path: String, data: DataSet, rowCount: Int, recorder: inout LatencyRecorder) throws -> Int {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        recorder.startRun()
        try db.execute("BEGIN")
        let select = try db.prepare("SELECT id, small, large, ratio, label, flag FROM item ORDER BY id")
        defer { select.finalize() }
        var checked = 0
        var previousID: Int64 = -1
        while true {
            let hasRow = try recorder.measure { () throws -> Bool in
                guard try select.step() else { return false }
                let id = sqlite3_column_int64(select.handle, 0)
                guard id > previousID, id >= 0, id < Int64(rowCount) else {
                    throw wrongAnswer("unexpected id \(id) after \(previousID)")
                }
                previousID = id
                try checkRow(data.row(at: Int(id)), id: id, select)
                return true
            }
            if !hasRow { break }
            checked += 1
        }
        try db.execute("COMMIT")
        recorder.endRun()
        return checked
    }

    // MARK: Workload c

    func pointReads(path: String, rowOrder: [Int], recorder: inout LatencyRecorder) throws -> Int64 {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        let select = try db.prepare("SELECT small FROM item WHERE id = ?")
        defer { select.finalize() }
        try db.execute("BEGIN")
        var sum: Int64 = 0
        recorder.startRun()
        for rowIndex in rowOrder {
            let value = try recorder.measure { () throws -> Int64 in
                try select.reset()
                try select.bind(1, Int64(rowIndex))
                guard try select.step() else { throw wrongAnswer("no row with id \(rowIndex)") }
                return sqlite3_column_int64(select.handle, 0)
            }
            sum &+= value
        }
        recorder.endRun()
        try select.reset()
        try db.execute("COMMIT")
        return sum
    }

    // MARK: Workload b

    func createUpdateTable(path: String, data: DataSet, rowCount: Int) throws {
        let db = try Connection(path: path, create: true)
        defer { db.close() }
        try db.execute("BEGIN")
        try db.execute(Self.createTable)
        let insert = try db.prepare(Self.insertRow)
        defer { insert.finalize() }
        for rowIndex in 0 ..< rowCount { try insertRow(data.row(at: rowIndex), rowIndex: rowIndex, with: insert, db) }
        try db.execute("COMMIT")
    }

    func singleObjectCommits(path: String, updates: [RowUpdate], recorder: inout LatencyRecorder) throws {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        let begin = try db.prepare("BEGIN IMMEDIATE")
        defer { begin.finalize() }
        let update = try db.prepare("UPDATE item SET small = ? WHERE id = ?")
        defer { update.finalize() }
        let commit = try db.prepare("COMMIT")
        defer { commit.finalize() }
        recorder.startRun()
        for change in updates {
            try recorder.measure {
                try begin.run()
                try update.reset()
                try update.bind(1, change.newSmall)
                try update.bind(2, Int64(change.rowIndex))
                try update.run()
                guard sqlite3_changes(db.handle) == 1 else {
                    throw wrongAnswer("UPDATE of id \(change.rowIndex) changed \(sqlite3_changes(db.handle)) rows")
                }
                try commit.run()
            }
        }
        recorder.endRun()
    }

    func smallColumn(path: String, rowCount: Int) throws -> [Int64] {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        let select = try db.prepare("SELECT id, small FROM item ORDER BY id")
        defer { select.finalize() }
        var values: [Int64] = []
        while try select.step() {
            let id = sqlite3_column_int64(select.handle, 0)
            guard id == Int64(values.count) else { throw wrongAnswer("id \(id) where \(values.count) was expected") }
            values.append(sqlite3_column_int64(select.handle, 1))
        }
        guard values.count == rowCount else { throw wrongAnswer("\(values.count) rows, expected \(rowCount)") }
        return values
    }

    // MARK: Rows

    private func insertRow(_ row: BenchRow, rowIndex: Int, with insert: Statement, _ db: Connection) throws {
        try insert.reset()
        try insert.bind(1, Int64(rowIndex))
        try insert.bind(2, row.small)
        try insert.bind(3, row.large)
        try insert.bind(4, row.ratio)
        try row.label.withBytes { bytes in
            // SQLITE_STATIC (nil): the bytes stay valid until the statement has run, just below.
            try insert.check(
                sqlite3_bind_text(insert.handle, 5, bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                                  Int32(bytes.count), nil),
                "sqlite3_bind_text")
            try insert.bind(6, Int64(row.flag ? 1 : 0))
            try insert.run()
        }
    }

    private func checkRow(_ expected: BenchRow, id: Int64, _ select: Statement) throws {
        let handle = select.handle
        let small = sqlite3_column_int64(handle, 1)
        let large = sqlite3_column_int64(handle, 2)
        let ratio = sqlite3_column_double(handle, 3)
        let label = UnsafeRawPointer(sqlite3_column_text(handle, 4))
        let labelByteCount = Int(sqlite3_column_bytes(handle, 4))
        let flag = sqlite3_column_int64(handle, 5)
        guard small == expected.small, large == expected.large, ratio == expected.ratio,
              expected.label.matches(label, count: labelByteCount), (flag != 0) == expected.flag
        else {
            throw wrongAnswer("row \(id) differs from what was inserted")
        }
    }

    func wrongAnswer(_ what: String) -> BenchError { BenchError.wrongAnswer(engine: name, what: what) }
}

/// An open SQLite connection (sqlite3 *). Internal, not private: the object suite (SQLiteEngine+Objects.swift)
/// uses it too.
struct Connection {
    let handle: OpaquePointer

    init(path: String, create: Bool) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw BenchError.sqlite(call: "sqlite3_open_v2(\(path))", code: rc, message: message)
        }
        self.handle = handle
        do {
            // journal_mode answers with the mode in force: insist on WAL rather than assume it.
            let journalMode = try prepare("PRAGMA journal_mode=WAL")
            defer { journalMode.finalize() }
            guard try journalMode.step(),
                  let mode = sqlite3_column_text(journalMode.handle, 0).map({ String(cString: $0) }),
                  mode.lowercased() == "wal"
            else {
                throw BenchError.setup("SQLite refused journal_mode=WAL for \(path)")
            }
            try execute("PRAGMA synchronous=FULL")
        } catch {
            sqlite3_close(handle)
            throw error
        }
    }

    func close() {
        // Every statement is finalized by then (each is finalized by a defer in the method that made it).
        sqlite3_close(handle)
    }

    func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else {
            throw BenchError.sqlite(call: "sqlite3_exec(\(sql))", code: rc,
                                    message: String(cString: sqlite3_errmsg(handle)))
        }
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw BenchError.sqlite(call: "sqlite3_prepare_v2(\(sql))", code: rc,
                                    message: String(cString: sqlite3_errmsg(handle)))
        }
        return Statement(handle: statement, db: handle)
    }
}

/// A prepared statement (sqlite3_stmt *), reused across executions with reset + bind.
struct Statement {
    let handle: OpaquePointer
    let db: OpaquePointer

    func finalize() { sqlite3_finalize(handle) }

    func check(_ rc: Int32, _ call: @autoclosure () -> String) throws {
        guard rc == SQLITE_OK else {
            throw BenchError.sqlite(call: call(), code: rc, message: String(cString: sqlite3_errmsg(db)))
        }
    }

    func reset() throws { try check(sqlite3_reset(handle), "sqlite3_reset") }
    func bind(_ index: Int32, _ value: Int64) throws {
        try check(sqlite3_bind_int64(handle, index, value), "sqlite3_bind_int64")
    }
    func bind(_ index: Int32, _ value: Double) throws {
        try check(sqlite3_bind_double(handle, index, value), "sqlite3_bind_double")
    }

    /// Steps once: true with a row, false when done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc:
            throw BenchError.sqlite(call: "sqlite3_step(\(String(cString: sqlite3_sql(handle))))", code: rc,
                                    message: String(cString: sqlite3_errmsg(db)))
        }
    }

    /// Runs a statement that returns no rows, then resets it for the next use.
    func run() throws {
        if try step() {
            throw BenchError.setup("\(String(cString: sqlite3_sql(handle))) returned a row")
        }
        try reset()
    }
}
