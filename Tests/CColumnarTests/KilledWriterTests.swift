// KilledWriterTests.swift — a process killed between any two steps of a commit, then the power cut during the
// next writer's commit: no acknowledged commit is lost and the file is sound.
//
// A ColumnarTestWorker commits through columnar_faultio (the page-cache model, shared through files with this
// process) and kills itself at a chosen step of a chosen commit, or inside a chosen write. This process then
// goes on committing to the same file, sometimes having held it open all along (so it finds the writer lock or
// the sync leadership abandoned) and sometimes opening it afresh (so it recovers the file), and the power goes
// in the middle of one of its commits. After the cut the file must hold exactly the commits 1 ... k, with k at
// least the last one either process was told was durable.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class KilledWriterTests: XCTestCase {
    /// Steps a worker can die at, and what they are.
    private static let steps: [(columnar_step, String)] = [
        (COLUMNAR_STEP_WRITER_LOCKED, "holding the writer lock"),
        (COLUMNAR_STEP_NODES_WRITTEN, "after writing the nodes"),
        (COLUMNAR_STEP_SLOT_WRITTEN, "after writing the slot"),
        (COLUMNAR_STEP_CHAIN_ADVANCED, "after naming the version"),
        (COLUMNAR_STEP_WRITER_RELEASED, "after releasing the writer lock"),
        (COLUMNAR_STEP_SYNC_STARTING, "leading a sync, before fdatasync"),
        (COLUMNAR_STEP_SYNC_DONE, "leading a sync, after fdatasync"),
        (COLUMNAR_STEP_PUBLISHED, "after publishing"),
    ]

    func testAWriterKilledBetweenAnyTwoStepsThenAPowerCutLosesNoAcknowledgedCommit() throws {
        let rounds = ProcessInfo.processInfo.environment["COLUMNAR_KILL_CUT_ROUNDS"].flatMap { Int($0) } ?? 48
        try killThenCut(rounds: rounds, encryptionKey: nil)
    }

    /// The same with an encrypted file, shared by the worker and this process (each with its own image).
    func testAWriterOfAnEncryptedFileKilledThenAPowerCutLosesNoAcknowledgedCommit() throws {
        let rounds = ProcessInfo.processInfo.environment["COLUMNAR_KILL_CUT_ROUNDS"].flatMap { Int($0) } ?? 48
        try killThenCut(rounds: max(rounds / 2, 1), encryptionKey: testEncryptionKey)
    }

    private func killThenCut(rounds: Int, encryptionKey: [UInt8]?) throws {
        var generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "killed-writer")
        var outcomes: [String: Int] = [:]
        for round in 0..<rounds {
            let path = directory.file("round-\(round).columnar")
            let faultIO = FaultIO(seed: generator.next())
            let heldOpen = round % 2 == 1
            var arguments = ["commit-loop", path, "--fault", String(generator.next())]
                + (encryptionKey == nil ? [] : ["--encrypted"])
            let where_: String
            if round % 4 == 3 {
                let writes = UInt64.random(in: 3...40, using: &generator)
                arguments += ["--kill-writes", String(writes)]
                where_ = "inside a write after \(writes) more"
            } else {
                let (step, name) = Self.steps[Int.random(in: 0..<Self.steps.count, using: &generator)]
                let occurrence = UInt64.random(in: 2...12, using: &generator)
                arguments += ["--kill-step", String(step.rawValue), String(occurrence)]
                where_ = "\(name) (time \(occurrence))"
            }
            let context = "round \(round): killed \(where_), \(heldOpen ? "file held open" : "file reopened"), "
                + generator.replayNote

            // This process may hold the file open while the worker dies, so it finds the dead writer's locks.
            let holder = heldOpen ? try TestDatabase(path: path, io: faultIO.io, encryptionKey: encryptionKey) : nil
            if let holder { try LogWorkload.ensureSchema(holder) }
            let worker = try WorkerProcess(arguments)
            let (status, reason) = worker.waitForExit()
            guard reason == .uncaughtSignal, status == SIGKILL else {
                XCTFail("the worker was to kill itself; it ended with \(status) (\(reason)); \(context)")
                holder?.close()
                break
            }
            var acknowledged = worker.outputLines.compactMap { Int64($0) }.last ?? 0
            // The dead worker's commit in flight may survive, and so may this process's when the power goes.
            var ceiling = acknowledged + 1

            // Go on committing after the death, then cut the power in the middle of a commit.
            let db = try holder ?? TestDatabase(path: path, io: faultIO.io, encryptionKey: encryptionKey)
            do {
                defer { db.close() }
                let found = try db.read { try LogWorkload.read($0) }
                XCTAssertTrue(LogWorkload.isConsistent(found), "after the kill: \(found.log.suffix(4)); \(context)")
                XCTAssertTrue(found.last == acknowledged || found.last == acknowledged + 1,
                              "after the kill: last \(found.last), acknowledged \(acknowledged); \(context)")
                for _ in 0..<Int.random(in: 0...3, using: &generator) {
                    acknowledged = try LogWorkload.commitStep(db)
                    ceiling = acknowledged
                }
                if Bool.random(using: &generator) {
                    try faultIO.writeBack(path, share: Double.random(in: 0...1, using: &generator))
                }
                faultIO.cutPower(after: UInt64.random(in: 0...8, using: &generator))
                for _ in 0..<50 {
                    guard let committed = try? LogWorkload.commitStep(db) else { break }
                    acknowledged = committed
                    ceiling = committed
                }
            }
            let mode = Bool.random(using: &generator) ? COLUMNAR_POWER_CUT_RANDOM : COLUMNAR_POWER_CUT_DROP
            try faultIO.applyPowerCut(to: path, mode: mode)

            let reopened = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
            defer { reopened.close() }
            try reopened.read { txn in
                let state = try LogWorkload.read(txn)
                XCTAssertTrue(LogWorkload.isConsistent(state), "log \(state.log.suffix(4)), last \(state.last); \(context)")
                XCTAssertGreaterThanOrEqual(state.last, acknowledged, "an acknowledged commit was lost; \(context)")
                XCTAssertLessThanOrEqual(state.last, ceiling + 1, "more than the commits in flight; \(context)")
                XCTAssertVerifies(txn, context)
                outcomes[state.last == acknowledged ? "last acknowledged" : "the one in flight", default: 0] += 1
            }
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
        print("KilledWriter\(encryptionKey == nil ? "" : " (encrypted)"): \(rounds) rounds; the file held " + outcomes.map { "\($0.key) \($0.value)×" }
            .sorted().joined(separator: ", "))
    }
}
