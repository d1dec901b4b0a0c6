// SQLiteEngine+Commits: the commit suite's counters on SQLite, as concurrent writers would use it: one connection per
// thread or process (WAL, synchronous=FULL, as every connection of the harness), a busy timeout so that a writer
// waits for the write lock instead of failing, and each increment its own transaction:
// BEGIN IMMEDIATE; UPDATE item SET small = small + 1 WHERE id = ?; COMMIT.

import CSQLite

extension SQLiteEngine: CounterCommitEngine {
    /// How long a connection waits for the write lock before SQLITE_BUSY (sqlite3_busy_timeout). Long enough that
    /// no commit of the harness gives up: the figure then shows how SQLite's writers take turns, not failures.
    static let busyTimeoutMilliseconds: Int32 = 60_000

    var workerEngineName: String { "sqlite" }

    func openCounterCommitters(path: String, rowIndexes: [Int], sharedHandle: Bool) throws
        -> [any CounterCommitter]
    {
        guard !sharedHandle else {
            throw BenchError.setup("SQLite's committers each need a connection of their own")
        }
        guard rowIndexes.count == 1 || sqlite3_threadsafe() != 0 else {
            throw BenchError.setup("this SQLite was built without thread support (SQLITE_THREADSAFE=0)")
        }
        return try rowIndexes.map { try Counter(path: path, rowID: Int64($0), engine: self) }
    }

    /// One connection incrementing `small` of row `rowID`. Used by one thread at a time (the runner hands each
    /// committer to exactly one thread), which is what @unchecked Sendable promises; SQLite serializes whatever
    /// its connections share.
    private final class Counter: CounterCommitter, @unchecked Sendable {
        private let db: Connection
        private let begin: Statement
        private let update: Statement
        private let commit: Statement
        private let rowID: Int64
        private let engine: SQLiteEngine

        init(path: String, rowID: Int64, engine: SQLiteEngine) throws {
            db = try Connection(path: path, create: false)
            var prepared: [Statement] = []
            do {
                let rc = sqlite3_busy_timeout(db.handle, SQLiteEngine.busyTimeoutMilliseconds)
                guard rc == SQLITE_OK else {
                    throw BenchError.sqlite(call: "sqlite3_busy_timeout", code: rc,
                                            message: String(cString: sqlite3_errmsg(db.handle)))
                }
                for sql in ["BEGIN IMMEDIATE", "UPDATE item SET small = small + 1 WHERE id = ?", "COMMIT"] {
                    prepared.append(try db.prepare(sql))
                }
            } catch {
                for statement in prepared { statement.finalize() }
                db.close()
                throw error
            }
            begin = prepared[0]
            update = prepared[1]
            commit = prepared[2]
            self.rowID = rowID
            self.engine = engine
        }

        deinit {
            begin.finalize()
            update.finalize()
            commit.finalize()
            db.close()
        }

        func increment() throws {
            try begin.run()
            do {
                try update.bind(1, rowID)
                try update.run()
                guard sqlite3_changes(db.handle) == 1 else {
                    throw engine.wrongAnswer("UPDATE of id \(rowID) changed \(sqlite3_changes(db.handle)) rows")
                }
                try commit.run()
            } catch {
                // Leave the connection usable: no statement half-run, no transaction left open.
                _ = sqlite3_reset(update.handle)
                _ = sqlite3_reset(commit.handle)
                if sqlite3_get_autocommit(db.handle) == 0 { try? db.execute("ROLLBACK") }
                throw error
            }
        }
    }
}
