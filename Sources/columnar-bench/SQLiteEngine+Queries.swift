// SQLiteEngine+Queries: the query suite on SQLite, written as a careful application would: one prepared statement
// per query, reused across runs; an index on every column a query filters or sorts by (intCol of both tables,
// stringCol and indexedString of the item table), so SQLite can use one wherever its planner would. The plan
// SQLite chose (EXPLAIN QUERY PLAN) goes into the report's notes. Where the index changes the algorithm (range
// counts, min/max, the prefix count, sorts), the same query is also timed with the index out of play by SQLite's
// unary-plus idiom (`+intCol`), which the planner never matches to an index.
//
// The prefix count is `stringCol GLOB 'ab*'`: case-sensitive like Columnar's BEGINSWITH, and with the column's
// default BINARY collation SQLite turns it into an index range (stringCol >= 'ab' AND stringCol < 'ac').

import CSQLite

extension SQLiteEngine: QueryBenchmarkEngine {
    private static let createTables = [
        "CREATE TABLE scan_record(id INTEGER PRIMARY KEY, intCol INTEGER NOT NULL)",
        """
        CREATE TABLE query_record(id INTEGER PRIMARY KEY, intCol INTEGER NOT NULL, stringCol TEXT NOT NULL,
                                  indexedString TEXT NOT NULL)
        """,
    ]
    /// Created after the rows, as a bulk load does (faster than maintaining them row by row).
    private static let createIndexes = [
        "CREATE INDEX scan_record_intCol ON scan_record(intCol)",
        "CREATE INDEX query_record_intCol ON query_record(intCol)",
        "CREATE INDEX query_record_stringCol ON query_record(stringCol)",
        "CREATE INDEX query_record_indexedString ON query_record(indexedString)",
    ]

    func createQueryTables(path: String, data: QueryDataSet) throws -> [String] {
        let db = try Connection(path: path, create: true)
        defer { db.close() }
        let start = MonotonicClock.nowNanoseconds()
        for sql in Self.createTables { try db.execute(sql) }
        try db.execute("BEGIN")
        let insertScan = try db.prepare("INSERT INTO scan_record(id, intCol) VALUES (?, ?)")
        defer { insertScan.finalize() }
        for (rowIndex, value) in data.scanValues.enumerated() {
            try insertScan.reset()
            try insertScan.bind(1, Int64(rowIndex))
            try insertScan.bind(2, value)
            try insertScan.run()
        }
        let insertItem = try db.prepare(
            "INSERT INTO query_record(id, intCol, stringCol, indexedString) VALUES (?, ?, ?, ?)")
        defer { insertItem.finalize() }
        for id in 0 ..< data.itemCount {
            try insertItem.reset()
            try insertItem.bind(1, Int64(id))
            try insertItem.bind(2, data.itemInts[id])
            try data.itemStrings[id].withBytes { bytes in
                // SQLITE_STATIC (nil): the bytes stay valid until the statement has run, just below.
                try insertItem.check(
                    sqlite3_bind_text(insertItem.handle, 3, bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                                      Int32(bytes.count), nil),
                    "sqlite3_bind_text")
                var indexed = data.indexedString(id: id)
                try indexed.withUTF8 { indexedBytes in
                    try insertItem.check(
                        sqlite3_bind_text(insertItem.handle, 4,
                                          UnsafeRawPointer(indexedBytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                          Int32(indexedBytes.count), nil),
                        "sqlite3_bind_text")
                    try insertItem.run()
                }
            }
        }
        try db.execute("COMMIT")
        let rowsDone = MonotonicClock.nowNanoseconds()
        for sql in Self.createIndexes { try db.execute(sql) }
        // Leave every page in the database file, none in the WAL, as a long-lived database would have them.
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let end = MonotonicClock.nowNanoseconds()
        return [
            "setup (not measured): \(Report.grouped(data.scanValues.count)) + \(Report.grouped(data.itemCount)) rows "
                + "inserted in one transaction in \(Report.format(Double(rowsDone - start) / 1e9, decimals: 2)) s, "
                + "then 4 indexes built in \(Report.format(Double(end - rowsDone) / 1e9, decimals: 2)) s",
        ]
    }

    func run(_ query: BenchQuery, path: String, repetitions: QueryRepetitions, recorder: inout LatencyRecorder) throws
        -> QueryAnswer
    {
        try runQuery(query, useIndexes: true, path: path, repetitions: repetitions, recorder: &recorder)
    }

    func runWithoutIndexes(_ query: BenchQuery, path: String, repetitions: QueryRepetitions, recorder: inout LatencyRecorder)
        throws -> QueryAnswer?
    {
        switch query {
        case .countGreater, .minimum, .maximum, .countBeginsWith, .sortByInt, .sortByString:
            return try runQuery(query, useIndexes: false, path: path, repetitions: repetitions, recorder: &recorder)
        case .sum, .average, .lookups:
            // Sum and average read every value either way; a lookup without its index is a full scan per lookup.
            return nil
        }
    }

    /// The SQL of a query; with `useIndexes` false every filtered or sorted column is written `+column`.
    private static func sql(_ query: BenchQuery, useIndexes: Bool) -> String {
        let plus = useIndexes ? "" : "+"
        switch query {
        case .countGreater: return "SELECT count(*) FROM scan_record WHERE \(plus)intCol > ?1"
        case .sum: return "SELECT sum(intCol) FROM scan_record"
        case .minimum: return "SELECT min(\(plus)intCol) FROM scan_record"
        case .maximum: return "SELECT max(\(plus)intCol) FROM scan_record"
        case .average: return "SELECT avg(intCol) FROM scan_record"
        case .countBeginsWith(let prefix):
            // A literal (ASCII letters only, so no quoting is needed): SQLite's GLOB-to-range rewrite needs one.
            precondition(prefix.allSatisfy { $0.isASCII && $0.isLetter }, "the prefix must be ASCII letters")
            return "SELECT count(*) FROM query_record WHERE \(plus)stringCol GLOB '\(prefix)*'"
        case .sortByInt: return "SELECT id FROM query_record ORDER BY \(plus)intCol"
        case .sortByString: return "SELECT id FROM query_record ORDER BY \(plus)stringCol"
        case .lookups: return "SELECT id FROM query_record WHERE indexedString = ?1"
        }
    }

    private func runQuery(_ query: BenchQuery, useIndexes: Bool, path: String, repetitions: QueryRepetitions,
                          recorder: inout LatencyRecorder) throws -> QueryAnswer {
        let db = try Connection(path: path, create: false)
        defer { db.close() }
        let sql = Self.sql(query, useIndexes: useIndexes)
        let plan = try queryPlan(sql, db)
        let select = try db.prepare(sql)
        defer { select.finalize() }
        try db.execute("BEGIN")
        defer { try? select.reset(); try? db.execute("COMMIT") }

        if case .lookups(let values) = query {
            func lookUp(_ value: String) throws -> Int64 {
                try select.reset()
                var text = value
                return try text.withUTF8 { bytes in
                    try select.check(
                        sqlite3_bind_text(select.handle, 1,
                                          UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                          Int32(bytes.count), nil),
                        "sqlite3_bind_text")
                    guard try select.step() else { throw wrongAnswer("no row with indexedString \(value)") }
                    let id = sqlite3_column_int64(select.handle, 0)
                    // The bound bytes are valid only inside this closure: unbind before leaving it.
                    try select.reset()
                    try select.check(sqlite3_clear_bindings(select.handle), "sqlite3_clear_bindings")
                    return id
                }
            }
            for value in values.prefix(ColumnarQueryEngine.warmUpLookups) { _ = try lookUp(value) }
            var ids: [Int64] = []
            ids.reserveCapacity(values.count)
            recorder.startRun()
            for value in values { ids.append(try recorder.measure { try lookUp(value) }) }
            recorder.endRun()
            recorder.notes.append("plan: \(plan)")
            return .ids(ids)
        }

        func runOnce() throws -> QueryAnswer {
            try select.reset()
            switch query {
            case .countGreater(let threshold):
                try select.bind(1, threshold)
                return .integer(try singleInteger(select))
            case .sum, .minimum, .maximum, .countBeginsWith:
                return .integer(try singleInteger(select))
            case .average:
                guard try select.step(), sqlite3_column_type(select.handle, 0) != SQLITE_NULL else {
                    throw wrongAnswer("\(sql) returned no value")
                }
                return .double(sqlite3_column_double(select.handle, 0))
            case .sortByInt, .sortByString:
                var ids: [Int64] = []
                while try select.step() { ids.append(sqlite3_column_int64(select.handle, 0)) }
                return .ids(ids)
            case .lookups:
                preconditionFailure("handled above")
            }
        }

        _ = try runOnce()
        var answer = QueryAnswer.ids([])
        recorder.startRun()
        try repetitions.repeatTimed { answer = try recorder.measure { try runOnce() } }
        recorder.endRun()
        if useIndexes { recorder.notes.append("plan: \(plan)") }
        return answer
    }

    /// The one integer a statement returns.
    private func singleInteger(_ select: Statement) throws -> Int64 {
        guard try select.step(), sqlite3_column_type(select.handle, 0) != SQLITE_NULL else {
            throw wrongAnswer("\(String(cString: sqlite3_sql(select.handle))) returned no value")
        }
        return sqlite3_column_int64(select.handle, 0)
    }

    /// EXPLAIN QUERY PLAN's steps, joined into one line.
    private func queryPlan(_ sql: String, _ db: Connection) throws -> String {
        let explain = try db.prepare("EXPLAIN QUERY PLAN " + sql)
        defer { explain.finalize() }
        var steps: [String] = []
        while try explain.step() {
            if let detail = sqlite3_column_text(explain.handle, 3) { steps.append(String(cString: detail)) }
        }
        return steps.joined(separator: "; ")
    }
}
