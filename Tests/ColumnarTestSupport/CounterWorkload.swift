// CounterWorkload.swift — small transactions whose effects can be checked after any failure.
//
// Table "state" holds one object with INT "counter"; table "items" holds INT "n". Commit number c (counting from
// 1) sets counter = c and adds an item with n = c, so a database that is consistent holds items 1 ... counter in
// key order and nothing else. Fault-injection tests commit steps until one fails and then check that the file
// holds exactly the last successful step (or, where the header may have reached the disk, the failed one).

import CColumnar

public enum CounterWorkload {
    /// Creates the two tables and the state object (counter 0). Run it in the first write transaction.
    public static func createSchema(in txn: Transaction) throws {
        let state = try txn.addTable("state")
        let counter = try txn.addColumn(state, "counter", COLUMNAR_TYPE_INT)
        let key = try txn.createObject(state)
        try txn.set(state, key, counter, .int(0))
        let items = try txn.addTable("items")
        _ = try txn.addColumn(items, "n", COLUMNAR_TYPE_INT)
    }

    /// Makes one step inside `txn` (increments the counter, adds the item); returns the new counter value.
    public static func step(in txn: Transaction) throws -> Int64 {
        let state = try txn.findTable("state")
        let counterColumn = try txn.findColumn(state, "counter")
        let stateKey = try txn.keys(state)[0]
        let next = (try txn.getInt(state, stateKey, counterColumn) ?? 0) + 1
        try txn.set(state, stateKey, counterColumn, .int(next))
        let items = try txn.findTable("items")
        let item = try txn.createObject(items)
        try txn.set(items, item, try txn.findColumn(items, "n"), .int(next))
        return next
    }

    /// One step in its own write transaction; returns the committed counter value.
    @discardableResult
    public static func commitStep(_ db: TestDatabase) throws -> Int64 {
        try db.write { try step(in: $0) }
    }

    /// The counter and every item's n, in key order.
    public static func read(_ txn: Transaction) throws -> (counter: Int64, items: [Int64]) {
        let state = try txn.findTable("state")
        let stateKeys = try txn.keys(state)
        guard stateKeys.count == 1 else { throw TestFailure("state holds \(stateKeys.count) objects, not 1") }
        guard let counter = try txn.getInt(state, stateKeys[0], try txn.findColumn(state, "counter")) else {
            throw TestFailure("state.counter is null")
        }
        let items = try txn.findTable("items")
        let nColumn = try txn.findColumn(items, "n")
        let values = try txn.keys(items).map { try txn.getInt(items, $0, nColumn) ?? -1 }
        return (counter, values)
    }

    /// Whether `state` is the consistent state after `counter` steps.
    public static func isConsistent(_ state: (counter: Int64, items: [Int64])) -> Bool {
        state.items == (0..<max(state.counter, 0)).map { $0 + 1 }
    }
}
