// ConcurrencyTests.swift — threads share a database handle: readers never see a half-made commit, and writers on
// different threads (and handles) take turns.
//
// The invariant readers check: money moves between the "a" and "b" columns of table "accounts" but the sum of
// both columns over all objects never changes, and the "generation" a writer stamps on every commit never goes
// backwards from one read transaction of a thread to the next.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class ConcurrencyTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "concurrency")
    }

    override func tearDown() {
        directory.cleanup()
    }

    private struct Accounts: Sendable {
        var table: TableID
        var a: ColumnID
        var b: ColumnID
        var generation: ColumnID
        var keys: [ObjectKey]
    }

    private static let accountCount = 200
    private static let initialBalance: Int64 = 1_000

    private func createAccounts(_ db: TestDatabase) throws -> Accounts {
        try db.write { txn in
            let table = try txn.addTable("accounts")
            let a = try txn.addColumn(table, "a", COLUMNAR_TYPE_INT)
            let b = try txn.addColumn(table, "b", COLUMNAR_TYPE_INT)
            let generation = try txn.addColumn(table, "generation", COLUMNAR_TYPE_INT)
            var keys: [ObjectKey] = []
            for _ in 0..<ConcurrencyTests.accountCount {
                let key = try txn.createObject(table)
                try txn.set(table, key, a, .int(ConcurrencyTests.initialBalance))
                try txn.set(table, key, b, .int(0))
                keys.append(key)
            }
            return Accounts(table: table, a: a, b: b, generation: generation, keys: keys)
        }
    }

    /// The sum of a + b over every object and the first object's generation, as `txn` sees them.
    private static func snapshot(_ txn: Transaction, _ accounts: Accounts) throws -> (sum: Int64, generation: Int64,
                                                                                      count: UInt64) {
        var sum: Int64 = 0
        for key in try txn.keys(accounts.table) {
            sum += try txn.getInt(accounts.table, key, accounts.a) ?? 0
            sum += try txn.getInt(accounts.table, key, accounts.b) ?? 0
        }
        let generation = try txn.getInt(accounts.table, accounts.keys[0], accounts.generation) ?? -1
        return (sum, generation, try txn.count(accounts.table))
    }

    func testReadersAlwaysSeeAConsistentSnapshotWhileAWriterCommits() throws {
        let generator = makeSeededGenerator()
        let db = try TestDatabase(path: directory.file("snapshots.columnar"), durability: COLUMNAR_DURABILITY_UNSAFE)
        defer { db.close() }
        let accounts = try createAccounts(db)
        let expectedSum = Int64(ConcurrencyTests.accountCount) * ConcurrencyTests.initialBalance
        let commitCount = 200
        let minimumSnapshots = 5
        let maximumCommitCount = 50_000
        let readerCount = 3
        let finalGeneration = Locked(Int64(-1))
        let writerDone = Locked(false)
        let problems = Locked([String]())
        let snapshotsRead = Locked([Int](repeating: 0, count: readerCount))
        let seed = generator.seed

        runOnThreads(readerCount + 1) { thread in
            if thread == 0 {
                // The writer: each commit moves money between accounts in several steps and stamps a generation.
                var generator = SeededGenerator(seed: seed)
                do {
                    // At least `commitCount` commits, and more until every reader has read a few snapshots while
                    // commits were going on: on a loaded machine a reader thread may start late.
                    var commit = 0
                    while commit < commitCount
                        || (snapshotsRead.value.min()! < minimumSnapshots && commit < maximumCommitCount) {
                        commit += 1
                        try db.write { txn in
                            for _ in 0..<10 {
                                let from = accounts.keys.randomElement(using: &generator)!
                                let to = accounts.keys.randomElement(using: &generator)!
                                let amount = Int64.random(in: 1...50, using: &generator)
                                let a = try txn.getInt(accounts.table, from, accounts.a) ?? 0
                                try txn.set(accounts.table, from, accounts.a, .int(a - amount))
                                let b = try txn.getInt(accounts.table, to, accounts.b) ?? 0
                                try txn.set(accounts.table, to, accounts.b, .int(b + amount))
                            }
                            for key in accounts.keys.prefix(1) {
                                try txn.set(accounts.table, key, accounts.generation, .int(commit))
                            }
                        }
                    }
                    finalGeneration.withLock { $0 = Int64(commit) }
                } catch {
                    problems.withLock { $0.append("writer: \(error)") }
                }
                writerDone.withLock { $0 = true }
                return
            }
            // A reader: new read transactions (and, every third time, an advanced one) until the writer is done,
            // then one more so that the final version is read too.
            let reader = thread - 1
            var lastGeneration: Int64 = -1
            var lastVersion: UInt64 = 0
            var finished = false
            var iteration = 0
            while !finished {
                finished = writerDone.value
                do {
                    let txn = try db.beginRead()
                    defer { txn.rollback() }
                    var views = [try ConcurrencyTests.snapshot(txn, accounts)]
                    var versions = [txn.version]
                    if iteration % 3 == 0 {
                        try txn.advance()
                        views.append(try ConcurrencyTests.snapshot(txn, accounts))
                        versions.append(txn.version)
                    }
                    for (view, version) in zip(views, versions) {
                        if view.sum != expectedSum || view.count != UInt64(ConcurrencyTests.accountCount) {
                            problems.withLock {
                                $0.append("reader \(reader) at version \(version): sum \(view.sum), count \(view.count)")
                            }
                        }
                        if view.generation < lastGeneration || version < lastVersion {
                            problems.withLock {
                                $0.append("reader \(reader) went back from generation \(lastGeneration) (version "
                                          + "\(lastVersion)) to \(view.generation) (version \(version))")
                            }
                        }
                        lastGeneration = view.generation
                        lastVersion = version
                    }
                } catch {
                    problems.withLock { $0.append("reader \(reader): \(error)") }
                    return
                }
                iteration += 1
                snapshotsRead.withLock { $0[reader] += 1 }
                if finished && lastGeneration != finalGeneration.value {
                    problems.withLock {
                        $0.append("reader \(reader) read generation \(lastGeneration) after the last commit")
                    }
                }
            }
        }

        XCTAssertEqual(problems.value.prefix(20).map { $0 }, [], generator.replayNote)
        print("Concurrency: snapshots read per reader \(snapshotsRead.value) during \(finalGeneration.value) commits")
        for (reader, count) in snapshotsRead.value.enumerated() {
            XCTAssertGreaterThanOrEqual(count, minimumSnapshots, "reader \(reader) barely ran")
        }
        try db.read { txn in
            let view = try ConcurrencyTests.snapshot(txn, accounts)
            XCTAssertEqual(view.sum, expectedSum)
            XCTAssertEqual(view.generation, finalGeneration.value)
            XCTAssertVerifies(txn)
        }
    }

    func testWritersOnSeveralThreadsAndHandlesTakeTurns() throws {
        let path = directory.file("writers.columnar")
        let handles = [
            try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE),
            try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE),
        ]
        defer { for handle in handles { handle.close() } }
        try handles[0].write { try CounterWorkload.createSchema(in: $0) }
        let threadCount = 4
        let stepsPerThread = 50
        let problems = Locked([String]())

        runOnThreads(threadCount) { thread in
            do {
                for _ in 0..<stepsPerThread { try CounterWorkload.commitStep(handles[thread % handles.count]) }
            } catch {
                problems.withLock { $0.append("thread \(thread): \(error)") }
            }
        }

        XCTAssertEqual(problems.value, [])
        try handles[1].read { txn in
            let state = try CounterWorkload.read(txn)
            XCTAssertEqual(state.counter, Int64(threadCount * stepsPerThread), "an increment was lost")
            XCTAssertTrue(CounterWorkload.isConsistent(state))
            XCTAssertVerifies(txn)
        }
    }
}
