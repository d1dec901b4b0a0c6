// PowerCutTests.swift — a power cut at any write leaves the last durable commit (or the one in flight), never a mix.
//
// The database runs on columnar_faultio. After a few setup commits the power is cut at a random one of the next
// few commits' writes; commits go on until one fails. The fault layer then rolls back what was not synced —
// every such write (DROP) or a random keep/lose/tear of each (RANDOM) — and the file is reopened on the real
// file system. With DROP nothing unsynced survives, so exactly the last acknowledged commit must be there; with
// RANDOM the failed commit may also have landed, if its header write did. Either way the items must match the
// counter and columnar_verify must find nothing.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class PowerCutTests: XCTestCase {
    func testPowerCutAtAnyWriteLeavesTheLastCommitOrTheOneInFlightAndASoundFile() throws {
        try cutThePower(cutCount: 200, encryptionKey: nil)
    }

    /// The same on an encrypted file: its sectors are written whole or not at all, as the header's are.
    func testPowerCutAtAnyWriteOfAnEncryptedFileLeavesTheLastCommitOrTheOneInFlight() throws {
        try cutThePower(cutCount: 80, encryptionKey: testEncryptionKey)
    }

    private func cutThePower(cutCount: Int, encryptionKey: [UInt8]?) throws {
        var generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "powercut")
        var survivedInFlight = 0
        var cutPositions: [UInt64: Int] = [:]

        for cut in 0..<cutCount {
            let path = directory.file("cut-\(cut).columnar")
            let mode = cut % 2 == 0 ? COLUMNAR_POWER_CUT_DROP : COLUMNAR_POWER_CUT_RANDOM
            let modeName = mode == COLUMNAR_POWER_CUT_DROP ? "DROP" : "RANDOM"
            let faultIO = FaultIO(seed: generator.next())
            var lastAcknowledged: Int64 = 0
            var failure: EngineError?
            var cutAfter: UInt64 = 0
            do {
                let db = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_FULL, io: faultIO.io,
                                          encryptionKey: encryptionKey)
                defer { db.close() }
                try db.write { try CounterWorkload.createSchema(in: $0) }
                for _ in 0..<3 { lastAcknowledged = try CounterWorkload.commitStep(db) }
                // One more step measures how many writes a step takes, so the cut lands in the next few steps.
                let before = faultIO.writeCount
                lastAcknowledged = try CounterWorkload.commitStep(db)
                let writesPerStep = max(faultIO.writeCount - before, 1)
                cutAfter = UInt64.random(in: 1...(writesPerStep * 4), using: &generator)
                faultIO.cutPower(after: cutAfter)
                for _ in 0..<1_000 {
                    do {
                        lastAcknowledged = try CounterWorkload.commitStep(db)
                    } catch let error as EngineError {
                        failure = error
                        break
                    }
                }
            }
            let context = "cut \(cut) (\(modeName), after \(cutAfter) writes, \(generator.replayNote))"
            guard let failure else {
                XCTFail("no commit failed after the power cut; \(context)")
                continue
            }
            XCTAssertEqual(failure.code, -EIO, "a write or sync after the cut must fail with EIO: \(failure); \(context)")

            try faultIO.applyPowerCut(to: path, mode: mode)
            let db = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
            defer { db.close() }
            try db.read { txn in
                let state = try CounterWorkload.read(txn)
                if mode == COLUMNAR_POWER_CUT_DROP {
                    XCTAssertEqual(state.counter, lastAcknowledged,
                                   "with every unsynced write lost, the last acknowledged commit must be current; \(context)")
                } else {
                    XCTAssertTrue(state.counter == lastAcknowledged || state.counter == lastAcknowledged + 1,
                                  "counter \(state.counter), last acknowledged commit \(lastAcknowledged); \(context)")
                }
                if state.counter == lastAcknowledged + 1 { survivedInFlight += 1 }
                XCTAssertTrue(CounterWorkload.isConsistent(state),
                              "items \(state.items.suffix(5)) do not match counter \(state.counter); \(context)")
                XCTAssertVerifies(txn, context)
            }
            cutPositions[cutAfter, default: 0] += 1
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".lock")
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
        let positions = cutPositions.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
        print("PowerCut\(encryptionKey == nil ? "" : " (encrypted)"): \(cutCount) cuts (write position:count \(positions)); "
              + "the in-flight commit survived \(survivedInFlight) times")
    }
}
