// CrashRecoveryTests.swift — a process killed at any moment loses no committed transaction and mixes no versions.
//
// A ColumnarTestWorker runs `commit-loop` (each commit appends n = last + 1 to table "log" and sets meta.last,
// then prints the number) and is killed with SIGKILL after a random delay: inside a commit, between commits,
// while holding the writer lock, or while opening. The test then opens the file itself and requires exactly the
// commits 1 ... k, with k at least the last number the worker printed, and a file that columnar_verify finds
// sound. Every iteration continues on the same file, so recovery after recovery is exercised too.
// COLUMNAR_CRASH_ITERATIONS sets the number of kills (100 by default) for longer runs.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CrashRecoveryTests: XCTestCase {
    private var iterationCount: Int {
        ProcessInfo.processInfo.environment["COLUMNAR_CRASH_ITERATIONS"].flatMap { Int($0) } ?? 100
    }

    /// Reads the committed state: every n of "log" in key order, and meta.last.
    private func readCommittedState(_ db: TestDatabase) throws -> (log: [Int64], last: Int64) {
        try db.read { txn in
            let log = try txn.findTable("log")
            let nColumn = try txn.findColumn(log, "n")
            let meta = try txn.findTable("meta")
            let lastColumn = try txn.findColumn(meta, "last")
            let metaKeys = try txn.keys(meta)
            guard metaKeys.count == 1 else { throw TestFailure("meta holds \(metaKeys.count) objects, not 1") }
            guard let last = try txn.getInt(meta, metaKeys[0], lastColumn) else { throw TestFailure("meta.last is null") }
            let values = try txn.keys(log).map { key -> Int64 in
                guard let n = try txn.getInt(log, key, nColumn) else { throw TestFailure("log.n of \(key) is null") }
                return n
            }
            XCTAssertEqual(try txn.count(log), UInt64(values.count), "columnar_obj_count of log")
            XCTAssertVerifies(txn, "after kill")
            return (values, last)
        }
    }

    func testKilledCommitLoopLeavesExactlyAPrefixOfItsCommitsAndASoundFile() throws {
        try killCommitLoops(iterations: iterationCount, encryptionKey: nil)
    }

    /// The same with an encrypted file: the worker and this process each decrypt it with the key.
    func testKilledCommitLoopOnAnEncryptedFileLeavesExactlyAPrefixOfItsCommits() throws {
        try killCommitLoops(iterations: max(iterationCount / 3, 1), encryptionKey: testEncryptionKey)
    }

    private func killCommitLoops(iterations iterationCount: Int, encryptionKey: [UInt8]?) throws {
        var generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "crash")
        let path = directory.file("crash.columnar")
        var committed: Int64 = 0   // k after the previous iteration
        var extraCommits = 0       // iterations where a commit landed but its number was not printed
        var idleIterations = 0     // iterations killed before committing anything

        for iteration in 0..<iterationCount {
            let worker = try WorkerProcess(["commit-loop", path] + (encryptionKey == nil ? [] : ["--encrypted"]))
            // Even iterations start the clock at launch, so some kills land while the worker opens the file and
            // recovers the writer lock; odd ones (and the first, which must create the file) start it at the
            // first commit, so the kill lands among commits.
            if iteration == 0 || iteration % 2 == 1 {
                XCTAssertTrue(worker.waitForFirstLine(timeout: 60), "the worker committed nothing (it exited, or 60 s passed)")
            }
            let delayMilliseconds = Int.random(in: 10...200, using: &generator)
            usleep(useconds_t(delayMilliseconds * 1000))
            worker.kill()
            let (status, reason) = worker.waitForExit()
            guard reason == .uncaughtSignal else {
                XCTFail("iteration \(iteration): the worker exited by itself with status \(status) before the kill")
                return
            }

            let printed = worker.outputLines.map { line -> Int64 in
                guard let number = Int64(line) else {
                    XCTFail("iteration \(iteration): unexpected worker output \(line.debugDescription)")
                    return -1
                }
                return number
            }
            if let first = printed.first {
                XCTAssertEqual(first, committed + 1, "iteration \(iteration): the worker must resume after k")
            }
            XCTAssertEqual(printed, printed.indices.map { printed[0] + Int64($0) },
                           "iteration \(iteration): printed numbers must be consecutive")
            let lastPrinted = printed.last ?? committed

            let db = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
            let state = try readCommittedState(db)
            db.close()
            let k = Int64(state.log.count)
            let message = "iteration \(iteration), killed after \(delayMilliseconds) ms, last printed \(lastPrinted)"
            XCTAssertEqual(state.log, (0..<k).map { $0 + 1 },
                           "log must hold exactly 1 ... k (no gaps, no duplicates, in key order); \(message)")
            XCTAssertEqual(state.last, k, "meta.last must equal the number of log entries; \(message)")
            XCTAssertGreaterThanOrEqual(k, lastPrinted, "a printed (committed) number was lost; \(message)")
            XCTAssertLessThanOrEqual(k, lastPrinted + 1, "at most the one unprinted commit may exist; \(message)")
            if k == lastPrinted + 1 { extraCommits += 1 }
            if k == committed { idleIterations += 1 }
            committed = k
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }

        // The test process itself can take the writer lock after all those deaths and commit.
        let db = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
        defer { db.close() }
        try db.write { txn in
            let meta = try txn.findTable("meta")
            let key = try txn.keys(meta)[0]
            try txn.set(meta, key, try txn.findColumn(meta, "last"), .int(committed))
        }
        print("CrashRecovery\(encryptionKey == nil ? "" : " (encrypted)"): \(iterationCount) kills, \(committed) commits in total, \(extraCommits) kills between "
              + "a commit and its print, \(idleIterations) kills before any commit")
        XCTAssertGreaterThan(committed, Int64(iterationCount / 4), "the worker made too little progress to test much")
    }
}
