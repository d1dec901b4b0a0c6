// CommitPathTests.swift — which path commits take (io_uring or pwrite) and what a failed write does to a commit.
//
// The suite runs twice in CI: once as is, and once with COLUMNAR_NO_IO_URING=1, which must have the effect of
// COLUMNAR_OPEN_NO_IO_URING. A write that fails with ENOSPC or EIO (injected through columnar_faultio at every
// position within a commit, the header slot's write included) must fail that commit with the same code, leave
// nothing of it behind, and keep the previous version readable, in the same handle and after a reopen.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CommitPathTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "commitpath")
    }

    override func tearDown() {
        directory.cleanup()
    }

    private var ioUringTurnedOffByEnvironment: Bool {
        ProcessInfo.processInfo.environment["COLUMNAR_NO_IO_URING"] == "1"
    }

    /// Commits a few steps and checks them after a reopen, so each path is shown to write a readable file.
    private func assertCommitsSurviveReopen(path: String, flags: OpenFlags, file: StaticString = #filePath,
                                            line: UInt = #line) throws {
        do {
            let db = try TestDatabase(path: path, flags: flags.union(.create))
            defer { db.close() }
            try db.write { try CounterWorkload.createSchema(in: $0) }
            for _ in 0..<5 { try CounterWorkload.commitStep(db) }
        }
        let db = try TestDatabase(path: path, flags: flags)
        defer { db.close() }
        try db.read { txn in
            let state = try CounterWorkload.read(txn)
            XCTAssertEqual(state.counter, 5, file: file, line: line)
            XCTAssertTrue(CounterWorkload.isConsistent(state), file: file, line: line)
            XCTAssertVerifies(txn, file: file, line: line)
        }
    }

    func testDefaultCommitPathIsIOUringUnlessTheEnvironmentTurnsItOff() throws {
        let path = directory.file("default.columnar")
        let db = try TestDatabase(path: path)
        let commitPath = db.commitPath
        let description = db.commitPathDescription
        db.close()
        if ioUringTurnedOffByEnvironment {
            XCTAssertEqual(commitPath, COLUMNAR_COMMIT_PATH_PWRITE, "COLUMNAR_NO_IO_URING=1: \(description)")
            XCTAssertTrue(description.hasPrefix("pwrite"), description)
        } else {
            XCTAssertEqual(commitPath, COLUMNAR_COMMIT_PATH_IO_URING, "commit path: \(description)")
            XCTAssertEqual(description, "io_uring")
        }
        try assertCommitsSurviveReopen(path: path, flags: [])
    }

    func testNoIOUringFlagSelectsPwrite() throws {
        let path = directory.file("pwrite.columnar")
        let db = try TestDatabase(path: path, flags: [.create, .noIOUring])
        XCTAssertEqual(db.commitPath, COLUMNAR_COMMIT_PATH_PWRITE, db.commitPathDescription)
        XCTAssertTrue(db.commitPathDescription.hasPrefix("pwrite"), db.commitPathDescription)
        db.close()
        try assertCommitsSurviveReopen(path: path, flags: [.noIOUring])
    }

    /// Large batches (a bulk insert of about 3 MiB, then scattered updates of many clusters) written through the
    /// ring on every batch (COLUMNAR_IO_URING_WRITES=always; by default the ring takes large batches only once it
    /// has measured faster than pwritev): the values read back after a reopen, and the file verifies.
    func testLargeBatchesWrittenThroughTheRingReadBack() throws {
        setenv("COLUMNAR_IO_URING_WRITES", "always", 1)
        defer { unsetenv("COLUMNAR_IO_URING_WRITES") }
        let path = directory.file("ring-writes.columnar")
        let objectCount = 20_000
        func text(_ index: Int, _ round: Int) -> String {
            "object \(index), round \(round): " + String(repeating: "abcdefghij", count: 12)
        }
        var keys: [ObjectKey] = []
        var table: TableID = 0
        var column: ColumnID = 0
        do {
            let db = try TestDatabase(path: path)
            defer { db.close() }
            if !ioUringTurnedOffByEnvironment { XCTAssertEqual(db.commitPathDescription, "io_uring") }
            try db.write { txn in
                table = try txn.addTable("items")
                column = try txn.addColumn(table, "text", COLUMNAR_TYPE_STRING)
                for index in 0..<objectCount {
                    let key = try txn.createObject(table)
                    try txn.set(table, key, column, .string(text(index, 0)))
                    keys.append(key)
                }
            }
            try db.write { txn in
                for index in stride(from: 0, to: objectCount, by: 37) {
                    try txn.set(table, keys[index], column, .string(text(index, 1)))
                }
            }
        }
        let db = try TestDatabase(path: path)
        defer { db.close() }
        try db.read { txn in
            for (index, key) in keys.enumerated() {
                let expected = text(index, index % 37 == 0 ? 1 : 0)
                XCTAssertEqual(try txn.get(table, key, column), .string(expected), "object \(index)")
            }
            XCTAssertVerifies(txn)
        }
    }

    func testInMemoryDatabaseReportsTheMemoryPath() throws {
        let db = try TestDatabase(path: "commit-path-test-\(UUID().uuidString)", flags: [.create, .inMemory])
        defer { db.close() }
        XCTAssertEqual(db.commitPath, COLUMNAR_COMMIT_PATH_MEMORY)
        XCTAssertEqual(db.commitPathDescription, "memory")
        try db.write { try CounterWorkload.createSchema(in: $0) }
        XCTAssertEqual(try CounterWorkload.commitStep(db), 1)
    }

    func testFaultIOUsesTheSamePathAsTheDatabaseWould() throws {
        let faultIO = FaultIO(seed: 1)
        let db = try TestDatabase(path: directory.file("faultio.columnar"), io: faultIO.io)
        defer { db.close() }
        XCTAssertEqual(db.commitPath, ioUringTurnedOffByEnvironment ? COLUMNAR_COMMIT_PATH_PWRITE
                                                                    : COLUMNAR_COMMIT_PATH_IO_URING,
                       db.commitPathDescription)
        try db.write { try CounterWorkload.createSchema(in: $0) }
        let writesBefore = faultIO.writeCount
        let syncsBefore = faultIO.syncCount
        try CounterWorkload.commitStep(db)
        XCTAssertGreaterThanOrEqual(faultIO.writeCount - writesBefore, 2, "nodes and the header slot are written")
        XCTAssertEqual(faultIO.syncCount - syncsBefore, 1, "a durable commit syncs once, after its nodes and slot")
    }

    // MARK: Failed writes

    /// Injects `error` at each write position of a commit in turn; each such commit must fail with `error` and
    /// change nothing.
    private func assertFailedWritesFailTheCommit(error: Int32, flags: OpenFlags = .create,
                                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let path = directory.file("fail-\(-error)-\(flags.rawValue).columnar")
        let faultIO = FaultIO(seed: 7)
        let db = try TestDatabase(path: path, flags: flags, io: faultIO.io)
        try db.write { try CounterWorkload.createSchema(in: $0) }
        var committed = try CounterWorkload.commitStep(db)

        // Let 0, 1, 2, ... of a commit's writes succeed before the failure, until a commit needs no more writes
        // than that and succeeds: so the failure lands on every write of a commit in turn, the first one and the
        // last one (the slot) included.
        var failedPositions = 0
        for position in 0...64 {
            faultIO.failWrites(after: UInt64(position), error: error)
            let context = "\(errorName(error)) after \(position) writes"
            let txn = try db.beginWrite()
            _ = try CounterWorkload.step(in: txn)
            do {
                try txn.commit()
                // Every write of this commit succeeded: the positions are covered.
                faultIO.failWrites(after: 0, error: 0)
                committed += 1
                break
            } catch let failure as EngineError {
                XCTAssertEqual(failure.code, error, "\(context): \(failure)", file: file, line: line)
                failedPositions += 1
            }
            XCTAssertFalse(txn.isOpen, file: file, line: line)
            faultIO.failWrites(after: 0, error: 0)

            // The same handle still reads the previous version.
            try db.read { txn in
                let state = try CounterWorkload.read(txn)
                XCTAssertEqual(state.counter, committed, "\(context): the failed commit must leave no trace",
                               file: file, line: line)
                XCTAssertTrue(CounterWorkload.isConsistent(state), context, file: file, line: line)
            }
        }
        XCTAssertGreaterThanOrEqual(failedPositions, 2, "a commit writes its nodes and then its slot",
                                    file: file, line: line)
        // Once writes work again, the same handle commits on top of the version the failures left.
        let recovered = try CounterWorkload.commitStep(db)
        XCTAssertEqual(recovered, committed + 1, "the handle must commit again after failed commits",
                       file: file, line: line)
        db.close()

        let reopened = try TestDatabase(path: path, flags: [])
        defer { reopened.close() }
        try reopened.read { txn in
            let state = try CounterWorkload.read(txn)
            XCTAssertEqual(state.counter, recovered, "after reopen", file: file, line: line)
            XCTAssertTrue(CounterWorkload.isConsistent(state), file: file, line: line)
            XCTAssertVerifies(txn, file: file, line: line)
        }
        XCTAssertEqual(try CounterWorkload.commitStep(reopened), recovered + 1,
                       "the reopened file must take new commits", file: file, line: line)
    }

    func testENOSPCDuringCommitFailsTheCommitAndKeepsThePreviousVersion() throws {
        try assertFailedWritesFailTheCommit(error: -ENOSPC)
    }

    func testEIODuringCommitFailsTheCommitAndKeepsThePreviousVersion() throws {
        try assertFailedWritesFailTheCommit(error: -EIO)
    }

    func testFailedWritesOnThePwritePathFailTheCommitToo() throws {
        try assertFailedWritesFailTheCommit(error: -EIO, flags: [.create, .noIOUring])
    }
}
