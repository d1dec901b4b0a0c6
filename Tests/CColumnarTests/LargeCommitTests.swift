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
    private func bulkInsert(_ db: TestDatabase, rows: Int, tag: Int) throws {
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
                try bulkInsert(db, rows: 10, tag: 0)
                try db.sync()
                // The power goes right after the large commit's slot is written, before anything else is synced.
                faultIO.cutPower(at: COLUMNAR_STEP_SLOT_WRITTEN)
                _ = try? bulkInsert(db, rows: 1_600, tag: 1)
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

    func testALargeCommitSyncsItsNodesBeforeItsSlot() throws {
        let directory = try TemporaryDirectory(prefix: "large-commit-syncs")
        let path = directory.file("syncs.columnar")
        let faultIO = FaultIO(seed: 5)
        let db = try TestDatabase(path: path, io: faultIO.io)
        defer { db.close() }
        try bulkInsert(db, rows: 10, tag: 0)
        let before = faultIO.syncCount
        try bulkInsert(db, rows: 1_600, tag: 1)
        XCTAssertEqual(faultIO.syncCount - before, 2, "one sync for the nodes, one for the slot")
        XCTAssertEqual(try FileHeader.current(path: path).flags & 1, 1, "the slot says its nodes were synced first")
        let small = faultIO.syncCount
        try bulkInsert(db, rows: 1, tag: 2)
        XCTAssertEqual(faultIO.syncCount - small, 1, "a small commit syncs once")
        XCTAssertEqual(try FileHeader.current(path: path).flags & 1, 0)
    }
}
