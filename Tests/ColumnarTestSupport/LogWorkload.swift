// LogWorkload.swift — the workload ColumnarTestWorker's commit-loop runs, for tests that share a file with it.
//
// Table "log" holds INT "n"; table "meta" holds one object with INT "last". Commit number n appends an object
// with n and sets meta.last = n, so a consistent file holds log 1 ... last in key order and nothing else, whoever
// (which process) made each commit.

import CColumnar

public enum LogWorkload {
    /// Creates the tables and the meta object if they are absent (as the worker does).
    public static func ensureSchema(_ db: TestDatabase) throws {
        try db.write { txn in
            if (try? txn.findTable("log")) == nil {
                let log = try txn.addTable("log")
                _ = try txn.addColumn(log, "n", COLUMNAR_TYPE_INT)
            }
            if (try? txn.findTable("meta")) == nil {
                let meta = try txn.addTable("meta")
                let last = try txn.addColumn(meta, "last", COLUMNAR_TYPE_INT)
                try txn.set(meta, try txn.createObject(meta), last, .int(0))
            }
        }
    }

    /// One commit: appends last + 1; returns it.
    @discardableResult
    public static func commitStep(_ db: TestDatabase) throws -> Int64 {
        try db.write { txn in
            let meta = try txn.findTable("meta")
            let lastColumn = try txn.findColumn(meta, "last")
            let metaKey = try txn.keys(meta)[0]
            let next = (try txn.getInt(meta, metaKey, lastColumn) ?? 0) + 1
            let log = try txn.findTable("log")
            try txn.set(log, try txn.createObject(log), try txn.findColumn(log, "n"), .int(next))
            try txn.set(meta, metaKey, lastColumn, .int(next))
            return next
        }
    }

    /// Every n of "log" in key order, and meta.last.
    public static func read(_ txn: Transaction) throws -> (log: [Int64], last: Int64) {
        let meta = try txn.findTable("meta")
        let metaKeys = try txn.keys(meta)
        guard metaKeys.count == 1 else { throw TestFailure("meta holds \(metaKeys.count) objects, not 1") }
        guard let last = try txn.getInt(meta, metaKeys[0], try txn.findColumn(meta, "last")) else {
            throw TestFailure("meta.last is null")
        }
        let log = try txn.findTable("log")
        let nColumn = try txn.findColumn(log, "n")
        let values = try txn.keys(log).map { try txn.getInt(log, $0, nColumn) ?? -1 }
        return (values, last)
    }

    /// Whether `state` is the consistent state after `last` commits.
    public static func isConsistent(_ state: (log: [Int64], last: Int64)) -> Bool {
        state.log == (0..<max(state.last, 0)).map { $0 + 1 }
    }
}
