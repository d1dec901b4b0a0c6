// SQLiteEngine+Objects: the object suite on SQLite, as an application with a hand-written data layer would do it
// on the C API: one table whose INTEGER PRIMARY KEY is the object's id (the rowid, so lookups by id need no
// separate index), prepared statements reused across rows, the insert in one transaction. Set up as for the
// storage suite: WAL, synchronous=FULL.

import CSQLite

extension SQLiteEngine: ObjectBenchmarkEngine {
    private static let createObjectTable = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, someInt INTEGER NOT NULL, ratio REAL NOT NULL,
                          label TEXT NOT NULL, flag INTEGER NOT NULL)
        """

    func insertObjects(path: String, data: DataSet, objectCount: Int, recorder: inout LatencyRecorder) throws {
        let db = try Connection(path: path, create: true)
        defer { db.close() }
        // The table is created (and committed) before the measured interval, as the Realm's is when it opens.
        try db.execute(Self.createObjectTable)
        let insert = try db.prepare("INSERT INTO item(id, someInt, ratio, label, flag) VALUES (?, ?, ?, ?, ?)")
        defer { insert.finalize() }
        recorder.startRun()
        try db.execute("BEGIN")
        for rowIndex in 0 ..< objectCount {
            let row = ObjectRow(data.row(at: rowIndex), id: rowIndex)
            try recorder.measure {
                try insert.reset()
                try insert.bind(1, Int64(row.id))
                try insert.bind(2, Int64(row.someInt))
                try insert.bind(3, row.ratio)
                try row.label.withBytes { bytes in
                    // SQLITE_STATIC (nil): the bytes stay valid until the statement has run, just below.
                    try insert.check(
                        sqlite3_bind_text(insert.handle, 4, bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                                          Int32(bytes.count), nil),
                        "sqlite3_bind_text")
                    try insert.bind(5, Int64(row.flag ? 1 : 0))
                    try insert.run()
                }
            }
        }
        try recorder.endRun { try db.execute("COMMIT") }
    }

    func readIntProperty(path: String, recorder: inout LatencyRecorder) throws -> (objectCount: Int, sum: Int) {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        recorder.startRun()
        try db.execute("BEGIN")
        let select = try db.prepare("SELECT someInt FROM item")
        defer { select.finalize() }
        var objectCount = 0
        var sum = 0
        while let value = try recorder.measure({ () throws -> Int? in
            guard try select.step() else { return nil }
            return Int(sqlite3_column_int64(select.handle, 0))
        }) {
            sum &+= value
            objectCount += 1
        }
        try db.execute("COMMIT")
        recorder.endRun()
        return (objectCount, sum)
    }

    func sortedIDs(path: String, limit: Int?, repetitions: Int, recorder: inout LatencyRecorder) throws -> [Int] {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        let select = try db.prepare("SELECT id FROM item ORDER BY someInt" + (limit.map { " LIMIT \($0)" } ?? ""))
        defer { select.finalize() }
        try db.execute("BEGIN")
        var ids: [Int] = []
        recorder.startRun()
        for _ in 0 ..< repetitions {
            ids = try recorder.measure { () throws -> [Int] in
                try select.reset()
                var ids: [Int] = []
                while try select.step() { ids.append(Int(sqlite3_column_int64(select.handle, 0))) }
                return ids
            }
        }
        recorder.endRun()
        try select.reset()
        try db.execute("COMMIT")
        return ids
    }

    func singleObjectCommits(path: String, updates: [(id: Int, value: Int)], recorder: inout LatencyRecorder) throws {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        // Autocommit: each UPDATE is its own durable transaction.
        let update = try db.prepare("UPDATE item SET someInt = ? WHERE id = ?")
        defer { update.finalize() }
        recorder.startRun()
        for change in updates {
            try recorder.measure {
                try update.reset()
                try update.bind(1, Int64(change.value))
                try update.bind(2, Int64(change.id))
                try update.run()
            }
        }
        recorder.endRun()
    }

    func lookUpByPrimaryKey(path: String, ids: [Int], recorder: inout LatencyRecorder) throws -> Int {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        let select = try db.prepare("SELECT someInt FROM item WHERE id = ?")
        defer { select.finalize() }
        try db.execute("BEGIN")
        var sum = 0
        recorder.startRun()
        for id in ids {
            let value = try recorder.measure { () throws -> Int in
                try select.reset()
                try select.bind(1, Int64(id))
                guard try select.step() else { throw wrongAnswer("no row with id \(id)") }
                return Int(sqlite3_column_int64(select.handle, 0))
            }
            sum &+= value
        }
        recorder.endRun()
        try select.reset()
        try db.execute("COMMIT")
        return sum
    }
}
