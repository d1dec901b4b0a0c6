// FailedSyncTests.swift — a failed fdatasync is handled as Linux behaves: never retried bare, its commits fail and
// stay failed (they never turn up after a crash), and nothing is built on them.
//
// Linux marks the pages of a failed writeback clean: the page cache keeps the new data while the disk has the old,
// a later fdatasync succeeds without writing them, and under memory pressure the cache may read the old data back.
// columnar_faultio models exactly that. Each test fails a sync, goes on committing, then cuts the power (every
// unsynced page lost, or each kept, lost or torn at random) and checks the file: the failed commit absent, every
// acknowledged commit present, the file sound.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class FailedSyncTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "failedsync") }
    override func tearDown() { directory.cleanup() }

    /// The counter after a reopen on the real file system, with the file verified.
    private func reopenedCounter(_ path: String, _ context: String, encryptionKey: [UInt8]? = nil) throws -> Int64 {
        let db = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
        defer { db.close() }
        return try db.read { txn in
            let state = try CounterWorkload.read(txn)
            XCTAssertTrue(CounterWorkload.isConsistent(state), "items do not match the counter; \(context)")
            XCTAssertVerifies(txn, context)
            return state.counter
        }
    }

    func testAFailedSyncFailsItsCommitAndTheNextCommitsBuildOnTheLastDurableVersion() throws {
        try failASync(rounds: 30, encryptionKey: nil)
    }

    /// The same on an encrypted file, with a second handle that reads beside the writer: after the failed sync
    /// the next commits make the dropped version numbers again, with other content, and both handles' decrypted
    /// images must take that in (pages that come back old from the disk included).
    func testAFailedSyncOnAnEncryptedFileAndTheVersionsMadeAgainAreSeenByEveryHandle() throws {
        try failASync(rounds: 12, encryptionKey: testEncryptionKey)
    }

    private func failASync(rounds: Int, encryptionKey: [UInt8]?) throws {
        var generator = makeSeededGenerator()
        for round in 0..<rounds {
            let path = directory.file("round-\(round).columnar")
            let faultIO = FaultIO(seed: generator.next())
            let evict = round % 3 != 0
            let mode = round % 2 == 0 ? COLUMNAR_POWER_CUT_DROP : COLUMNAR_POWER_CUT_RANDOM
            let context = "round \(round) (evict \(evict), \(mode == COLUMNAR_POWER_CUT_DROP ? "DROP" : "RANDOM"), "
                + generator.replayNote + ")"
            var acknowledged: Int64 = 0
            do {
                let db = try TestDatabase(path: path, io: faultIO.io, encryptionKey: encryptionKey)
                defer { db.close() }
                try db.write { try CounterWorkload.createSchema(in: $0) }
                for _ in 0..<Int.random(in: 1...5, using: &generator) { acknowledged = try CounterWorkload.commitStep(db) }
                // An encrypted file gets a second handle, which reads each state through its own image.
                let reader = try encryptionKey.map { try TestDatabase(path: path, flags: [], encryptionKey: $0) }
                defer { reader?.close() }
                faultIO.failSync(error: -EIO)
                XCTAssertEngineError(-EIO, try CounterWorkload.commitStep(db), "the commit whose sync failed; \(context)")
                // Memory pressure: pages whose writeback failed come back from the disk, old.
                if evict { try faultIO.evictFailedPages(path) }
                try db.read { txn in
                    XCTAssertEqual(try CounterWorkload.read(txn).counter, acknowledged,
                                   "readers see the last durable commit; \(context)")
                }
                // Writers go on from the last durable version, not from the one whose sync failed.
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    let committed = try CounterWorkload.commitStep(db)
                    XCTAssertEqual(committed, acknowledged + 1, "the next commit follows the last durable one; \(context)")
                    acknowledged = committed
                    for handle in [db] + (reader.map { [$0] } ?? []) {
                        try handle.read { txn in
                            let state = try CounterWorkload.read(txn)
                            XCTAssertEqual(state.counter, committed, "every handle sees the commit; \(context)")
                            XCTAssertTrue(CounterWorkload.isConsistent(state), "items match the counter; \(context)")
                        }
                    }
                }
                // One more commit in flight when the power goes.
                faultIO.cutPower(after: UInt64.random(in: 0...6, using: &generator))
                _ = try? CounterWorkload.commitStep(db)
            }
            try faultIO.applyPowerCut(to: path, mode: mode)
            let counter = try reopenedCounter(path, context, encryptionKey: encryptionKey)
            XCTAssertTrue(counter == acknowledged || counter == acknowledged + 1,
                          "counter \(counter), last acknowledged \(acknowledged); \(context)")
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
    }

    func testACommitThatReportsAFailedSyncNeverTurnsUpAfterAPowerCut() throws {
        var generator = makeSeededGenerator()
        var cutsThatKeptPages = 0
        for round in 0..<40 {
            let path = directory.file("never-\(round).columnar")
            let faultIO = FaultIO(seed: generator.next())
            let context = "round \(round) (\(generator.replayNote))"
            var acknowledged: Int64 = 0
            do {
                let db = try TestDatabase(path: path, io: faultIO.io)
                defer { db.close() }
                try db.write { try CounterWorkload.createSchema(in: $0) }
                acknowledged = try CounterWorkload.commitStep(db)
                // The failing sync may have written back every page of the commit before it reported the error:
                // the commit must be removed all the same.
                faultIO.failSync(error: -EIO)
                XCTAssertEngineError(-EIO, try CounterWorkload.commitStep(db), context)
                // The power goes right after the failure was reported, with the disk's writeback at random.
                try faultIO.writeBack(path, share: Double.random(in: 0...1, using: &generator))
            }
            try faultIO.applyPowerCut(to: path, mode: COLUMNAR_POWER_CUT_RANDOM)
            let counter = try reopenedCounter(path, context)
            XCTAssertEqual(counter, acknowledged, "the commit reported failed must not survive; \(context)")
            if counter == acknowledged { cutsThatKeptPages += 1 }
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
        XCTAssertEqual(cutsThatKeptPages, 40)
    }

    func testASyncThatFailsTwiceMakesTheFileRefuseWritesUntilReopened() throws {
        let path = directory.file("twice.columnar")
        let faultIO = FaultIO(seed: 3)
        var acknowledged: Int64 = 0
        do {
            let db = try TestDatabase(path: path, io: faultIO.io)
            defer { db.close() }
            try db.write { try CounterWorkload.createSchema(in: $0) }
            acknowledged = try CounterWorkload.commitStep(db)
            // The commit's sync fails, and so does the sync that would remove it.
            faultIO.failSync(error: -EIO)
            let first = engineErrorCode(try CounterWorkload.commitStep(db))
            XCTAssertTrue(first == COLUMNAR_ESTORAGE || first == -EIO, "first failure: \(errorName(first))")
            faultIO.failSync(error: -EIO)
            let second = engineErrorCode(try CounterWorkload.commitStep(db))
            if first == -EIO {
                XCTAssertTrue(second == COLUMNAR_ESTORAGE || second == -EIO, "second failure: \(errorName(second))")
            }
            try db.read { txn in XCTAssertEqual(try CounterWorkload.read(txn).counter, acknowledged) }
        }
        // Every handle closed: the file opens again, at the last durable version, and takes commits.
        try faultIO.applyPowerCut(to: path, mode: COLUMNAR_POWER_CUT_DROP)
        XCTAssertEqual(try reopenedCounter(path, "after reopening"), acknowledged)
        let db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        XCTAssertEqual(try CounterWorkload.commitStep(db), acknowledged + 1)
    }

    func testConcurrentCommittersWhoseSharedSyncFailsAllFailAndNoneSurvives() throws {
        var generator = makeSeededGenerator()
        for round in 0..<10 {
            let path = directory.file("shared-\(round).columnar")
            let faultIO = FaultIO(seed: generator.next())
            let context = "round \(round) (\(generator.replayNote))"
            let acknowledged = Locked([Int: Int]())
            let unexpected = Locked([String]())
            do {
                let db = try TestDatabase(path: path, io: faultIO.io)
                defer { db.close() }
                try db.write { txn in
                    for thread in 0..<4 {
                        let table = try txn.addTable("t\(thread)")
                        let column = try txn.addColumn(table, "n", COLUMNAR_TYPE_INT)
                        try txn.set(table, try txn.createObject(table), column, .int(0))
                    }
                }
                // Four threads commit increments; one sync in the middle fails.
                faultIO.failSync(after: UInt64.random(in: 5...40, using: &generator), error: -EIO)
                runOnThreads(4) { thread in
                    for _ in 0..<30 {
                        do {
                            try db.write { txn in
                                let table = try txn.findTable("t\(thread)")
                                let column = try txn.findColumn(table, "n")
                                let key = try txn.keys(table)[0]
                                try txn.set(table, key, column, .int((try txn.getInt(table, key, column) ?? 0) + 1))
                            }
                            acknowledged.withLock { $0[thread, default: 0] += 1 }
                        } catch let error as EngineError where error.code == -EIO {
                            // This commit failed; the next ones go on from what is durable.
                        } catch {
                            unexpected.withLock { $0.append("thread \(thread): \(error)") }
                        }
                    }
                }
                XCTAssertEqual(unexpected.value, [], context)
                XCTAssertGreaterThan(faultIO.syncCount, 0)
            }
            try faultIO.applyPowerCut(to: path, mode: COLUMNAR_POWER_CUT_RANDOM)
            let db = try TestDatabase(path: path, flags: [])
            defer { db.close() }
            try db.read { txn in
                for thread in 0..<4 {
                    let table = try txn.findTable("t\(thread)")
                    let value = try txn.getInt(table, try txn.keys(table)[0], try txn.findColumn(table, "n"))
                    XCTAssertEqual(value, Int64(acknowledged.value[thread, default: 0]),
                                   "thread \(thread): exactly its acknowledged commits survive; \(context)")
                }
                XCTAssertVerifies(txn, context)
            }
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
    }
}

/// The engine error code `body` throws (0 when it succeeds; a failed test when it throws something else).
private func engineErrorCode<T>(_ body: @autoclosure () throws -> T, file: StaticString = #filePath,
                                line: UInt = #line) -> Int32 {
    do {
        _ = try body()
        return 0
    } catch let error as EngineError {
        return error.code
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
        return 0
    }
}
