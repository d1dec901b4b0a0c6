// UnsafeDurabilityTests.swift — COLUMNAR_DURABILITY_UNSAFE never damages a file, alone or next to a FULL handle.
//
// An UNSAFE commit does not wait for a sync, so writeback may put its pages on the disk in any order and a power
// cut may take it away; but every version is self-validating (its commit record's ranges are checked at
// recovery) and space is reused only once a later version is durable, so the file after a cut is always a whole
// version: a prefix of the commits, reaching at least to the last sync. A FULL handle sharing the file loses none
// of its acknowledged commits to its UNSAFE neighbour.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class UnsafeDurabilityTests: XCTestCase {
    func testPowerCutsAmongUnsafeCommitsWithWritebackInAnyOrderLeaveAWholePrefix() throws {
        var generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "unsafe")
        var survived: [Int64] = []
        for round in 0..<60 {
            let path = directory.file("round-\(round).columnar")
            let faultIO = FaultIO(seed: generator.next())
            let context = "round \(round) (\(generator.replayNote))"
            var committed: Int64 = 0
            var synced: Int64 = 0
            do {
                let db = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE, io: faultIO.io)
                defer { db.close() }
                try db.write { try CounterWorkload.createSchema(in: $0) }
                try db.sync()
                for _ in 0..<Int.random(in: 1...60, using: &generator) {
                    committed = try CounterWorkload.commitStep(db)
                    // The kernel writes back whatever it likes, whenever it likes.
                    if Int.random(in: 0..<4, using: &generator) == 0 {
                        try faultIO.writeBack(path, share: Double.random(in: 0...1, using: &generator))
                    }
                    if Int.random(in: 0..<20, using: &generator) == 0 {
                        try db.sync()
                        synced = committed
                    }
                }
                synced = max(synced, Int64(try db.stats().durable_version) - 2)
            }
            try faultIO.applyPowerCut(to: path, mode: COLUMNAR_POWER_CUT_RANDOM)
            let db = try TestDatabase(path: path, flags: [])
            defer { db.close() }
            try db.read { txn in
                let state = try CounterWorkload.read(txn)
                XCTAssertTrue(CounterWorkload.isConsistent(state), "\(state.items.suffix(4)); \(context)")
                XCTAssertLessThanOrEqual(state.counter, committed, context)
                XCTAssertGreaterThanOrEqual(state.counter, synced, "a synced commit was lost; \(context)")
                XCTAssertVerifies(txn, context)
                survived.append(committed - state.counter)
            }
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
        print("UnsafeDurability: commits lost per cut: \(survived.sorted())")
    }

    func testAFullHandleSharingTheFileWithAnUnsafeOneLosesNoAcknowledgedCommit() throws {
        var generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "unsafe-full")
        for round in 0..<40 {
            let path = directory.file("round-\(round).columnar")
            let faultIO = FaultIO(seed: generator.next())
            let context = "round \(round) (\(generator.replayNote))"
            var fullAcknowledged: Int64 = 0
            do {
                let full = try TestDatabase(path: path, io: faultIO.io)
                let unsafe = try TestDatabase(path: path, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE,
                                              io: faultIO.io)
                defer { full.close(); unsafe.close() }
                try full.write { try CounterWorkload.createSchema(in: $0) }
                for _ in 0..<Int.random(in: 5...40, using: &generator) {
                    if Bool.random(using: &generator) {
                        fullAcknowledged = try CounterWorkload.commitStep(full)
                    } else {
                        _ = try CounterWorkload.commitStep(unsafe)
                    }
                    if Int.random(in: 0..<3, using: &generator) == 0 {
                        try faultIO.writeBack(path, share: Double.random(in: 0...1, using: &generator))
                    }
                }
            }
            try faultIO.applyPowerCut(to: path, mode: COLUMNAR_POWER_CUT_RANDOM)
            let db = try TestDatabase(path: path, flags: [])
            defer { db.close() }
            try db.read { txn in
                let state = try CounterWorkload.read(txn)
                XCTAssertTrue(CounterWorkload.isConsistent(state), context)
                XCTAssertGreaterThanOrEqual(state.counter, fullAcknowledged,
                                            "a commit the FULL handle acknowledged was lost; \(context)")
                XCTAssertVerifies(txn, context)
            }
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
    }
}
