// LargeCommitTests.swift — a commit too large for recovery to read back makes its nodes durable before it writes
// the slot that names them (and says so in the slot), so a power cut at any moment after leaves the file whole.
//
// Such a slot asks recovery to trust its nodes without reading them: if the nodes were not synced first, writeback
// could put the slot on the disk without them, and the file would open at a version whose nodes are missing.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class LargeCommitTests: XCTestCase {
    /// Adds `rows` objects with 700-byte strings to table "big" (over a megabyte for 1,500 rows).
    private static func bulkInsert(_ db: TestDatabase, rows: Int, tag: Int) throws {
        try db.write { txn in
            let table = try (try? txn.findTable("big")) ?? txn.addTable("big")
            let column = try (try? txn.findColumn(table, "s")) ?? txn.addColumn(table, "s", COLUMNAR_TYPE_STRING)
            for row in 0..<rows {
                try txn.set(table, try txn.createObject(table), column,
                            .string(String(repeating: Character(UnicodeScalar(97 + (row + tag) % 26)!), count: 700)))
            }
        }
    }

    func testAPowerCutAfterALargeCommitWritesItsSlotNeverOpensNodesThatAreMissing() throws {
        var generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "large-commit")
        var landed = 0
        for round in 0..<16 {
            let path = directory.file("round-\(round).columnar")
            let faultIO = FaultIO(seed: generator.next())
            let context = "round \(round) (\(generator.replayNote))"
            do {
                // UNSAFE as well as FULL: the slot must wait for the nodes whether or not the commit waits.
                let db = try TestDatabase(path: path, durability: round % 2 == 0 ? COLUMNAR_DURABILITY_FULL
                                                                                  : COLUMNAR_DURABILITY_UNSAFE,
                                          io: faultIO.io)
                defer { db.close() }
                try Self.bulkInsert(db, rows: 10, tag: 0)
                try db.sync()
                // The power goes right after the large commit's slot is written, before anything else is synced.
                faultIO.cutPower(at: COLUMNAR_STEP_SLOT_WRITTEN)
                _ = try? Self.bulkInsert(db, rows: 1_600, tag: 1)
            }
            try faultIO.applyPowerCut(to: path, mode: COLUMNAR_POWER_CUT_RANDOM)
            let db = try TestDatabase(path: path, flags: [])
            defer { db.close() }
            try db.read { txn in
                let count = try txn.count(try txn.findTable("big"))
                XCTAssertTrue(count == 10 || count == 1_610, "\(count) objects; \(context)")
                if count == 1_610 { landed += 1 }
                XCTAssertVerifies(txn, context)
            }
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
        print("LargeCommit: the large commit survived the cut \(landed) of 16 times")
    }

    /// A sync that fails after a large commit's nodes are written may mark their pages clean without writing them,
    /// as Linux does, and no later sync writes them again. So the commit must fail, rather than sync once more and
    /// write a slot that tells recovery to trust those nodes unread.
    ///
    /// The failing sync here belongs to a leader that died after its fdatasync failed, before it could record the
    /// failure (found by the power-cut campaign, in its "a failed sync under two writers" scenario). This test
    /// plays that leader:
    /// - it holds the sync leadership's lock byte on the data file (lock.c, CC_DATA_SYNC_BYTE) and sets the lock
    ///   file's "leader active" flag (offset 96);
    /// - once the commit's nodes are written and the commit waits for the leadership, it fails a sync of the model;
    /// - it then goes away, leaving the flag set.
    func testASyncThatFailsWhileALargeCommitsNodesWaitFailsTheCommit() throws {
        let directory = try TemporaryDirectory(prefix: "large-commit-failed-sync")
        let path = directory.file("failed.columnar")
        let faultIO = FaultIO(seed: 9)
        let db = try TestDatabase(path: path, io: faultIO.io)
        try Self.bulkInsert(db, rows: 10, tag: 0)

        let leader = open(path, O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(leader, 0)
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = (1 << 50) + 1
        request.l_len = 1
        XCTAssertEqual(fcntl(leader, 37 /* F_OFD_SETLK (glibc defines it only with _GNU_SOURCE) */, &request), 0)
        let lockFile = open(path + ".lock", O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(lockFile, 0)
        var active: UInt32 = 1
        XCTAssertEqual(pwrite(lockFile, &active, 4, 96), 4)
        close(lockFile)

        let before = faultIO.writeCount
        let failure = Locked<String?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            do { try Self.bulkInsert(db, rows: 1_600, tag: 1) } catch { failure.withLock { $0 = "\(error)" } }
            finished.signal()
        }.start()
        // Its nodes are written once the write count has grown and then stays put (it waits for the leadership).
        var seen = before, stableSince = Date()
        while Date().timeIntervalSince(stableSince) < 0.3 || seen == before {
            usleep(10_000)
            let now = faultIO.writeCount
            if now != seen { seen = now; stableSince = Date() }
            XCTAssertEqual(finished.wait(timeout: .now()), .timedOut, "the commit did not wait for the leadership")
        }
        faultIO.failSync(after: 0)
        XCTAssertEqual(faultIO.io.pointee.sync(faultIO.io.pointee.context, leader), -EIO)
        close(leader)
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success)
        let error = try XCTUnwrap(failure.value, "a large commit whose nodes a failed sync may have lost succeeded")
        XCTAssertTrue(error.contains("may not have reached the disk"), error)
        db.close()

        try faultIO.applyPowerCut(to: path, mode: COLUMNAR_POWER_CUT_DROP)
        let reopened = try TestDatabase(path: path, flags: [])
        defer { reopened.close() }
        try reopened.read { txn in
            XCTAssertEqual(try txn.count(try txn.findTable("big")), 10)
            XCTAssertVerifies(txn)
        }
    }

    func testALargeCommitSyncsItsNodesBeforeItsSlot() throws {
        let directory = try TemporaryDirectory(prefix: "large-commit-syncs")
        let path = directory.file("syncs.columnar")
        let faultIO = FaultIO(seed: 5)
        let db = try TestDatabase(path: path, io: faultIO.io)
        defer { db.close() }
        try Self.bulkInsert(db, rows: 10, tag: 0)
        let before = faultIO.syncCount
        try Self.bulkInsert(db, rows: 1_600, tag: 1)
        XCTAssertEqual(faultIO.syncCount - before, 2, "one sync for the nodes, one for the slot")
        XCTAssertEqual(try FileHeader.current(path: path).flags & 1, 1, "the slot says its nodes were synced first")
        let small = faultIO.syncCount
        try Self.bulkInsert(db, rows: 1, tag: 2)
        XCTAssertEqual(faultIO.syncCount - small, 1, "a small commit syncs once")
        XCTAssertEqual(try FileHeader.current(path: path).flags & 1, 0)
    }
}
