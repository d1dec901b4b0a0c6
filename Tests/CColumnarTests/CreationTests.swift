// CreationTests.swift — creating a file is atomic: a crash or a power cut at any moment of columnar_open(CREATE)
// leaves no file at the path, or a whole database; never a file that no later open can use.
//
// The first version is built under no name, made durable, and only then linked into place (and the directory
// synced). These tests stop the creation at each of its steps, by killing the process or cutting the power, and
// then open the path again.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CreationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "creation") }
    override func tearDown() { directory.cleanup() }

    private static let steps: [(columnar_step, String)] = [
        (COLUMNAR_STEP_CREATE_WRITTEN, "first version written"),
        (COLUMNAR_STEP_CREATE_SYNCED, "first version synced"),
        (COLUMNAR_STEP_CREATE_LINKED, "linked, directory not synced"),
    ]

    /// The path after the interruption holds no file, or a database that opens, verifies and takes a commit.
    private func assertNothingOrWhole(_ path: String, _ context: String, encryptionKey: [UInt8]? = nil) throws {
        if FileManager.default.fileExists(atPath: path) {
            let db = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
            defer { db.close() }
            try db.read { txn in XCTAssertVerifies(txn, context) }
            try db.write { try CounterWorkload.createSchema(in: $0) }
        }
        let db = try TestDatabase(path: path, encryptionKey: encryptionKey)
        defer { db.close() }
        try db.read { txn in XCTAssertVerifies(txn, context) }
    }

    func testAPowerCutAtAnyStepOfCreationLeavesNoFileOrAWholeOne() throws {
        try cutThePowerWhileCreating(encryptionKey: nil)
    }

    func testAPowerCutAtAnyStepOfCreatingAnEncryptedFileLeavesNoFileOrAWholeOne() throws {
        try cutThePowerWhileCreating(encryptionKey: testEncryptionKey)
    }

    private func cutThePowerWhileCreating(encryptionKey: [UInt8]?) throws {
        for (index, (step, name)) in Self.steps.enumerated() {
            for mode in [COLUMNAR_POWER_CUT_DROP, COLUMNAR_POWER_CUT_RANDOM] {
                let path = directory.file("cut-\(index)-\(mode.rawValue).columnar")
                let context = "power cut at \(name), \(mode == COLUMNAR_POWER_CUT_DROP ? "DROP" : "RANDOM")"
                let faultIO = FaultIO(seed: UInt64(index * 7 + Int(mode.rawValue)))
                faultIO.cutPower(at: step)
                if let db = try? TestDatabase(path: path, io: faultIO.io, encryptionKey: encryptionKey) {
                    // A cut after the file is whole and named does not fail the open.
                    db.close()
                }
                if FileManager.default.fileExists(atPath: path) {
                    try faultIO.applyPowerCut(to: path, mode: mode)
                }
                try assertNothingOrWhole(path, context, encryptionKey: encryptionKey)
            }
        }
    }

    func testAProcessKilledAtAnyStepOfCreationLeavesNoFileOrAWholeOne() throws {
        for (index, (step, name)) in Self.steps.enumerated() {
            let path = directory.file("kill-\(index).columnar")
            let worker = try WorkerProcess(["commit-loop", path, "--fault", "1", "--kill-step", String(step.rawValue), "1"])
            let (status, reason) = worker.waitForExit()
            XCTAssertEqual(reason, .uncaughtSignal, "\(name): the worker was to die creating the file")
            XCTAssertEqual(status, SIGKILL)
            try assertNothingOrWhole(path, "killed at \(name)")
        }
        // Nothing is left beside them but the databases and their lock files (and the fault layer's model).
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasSuffix(".columnar") && !$0.hasSuffix(".lock") && !$0.hasPrefix(".columnar-model-") }
        XCTAssertEqual(leftovers, [], "temporary files left behind")
    }

    func testProcessesCreatingOneFileAtOnceAllOpenTheSameDatabase() throws {
        let path = directory.file("race.columnar")
        let workers = try (0..<4).map { _ in try WorkerProcess(["increment", path, "25"]) }
        for worker in workers { try worker.waitForSuccess() }
        let db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        try db.read { txn in
            let table = try txn.findTable("counter")
            XCTAssertEqual(try txn.getInt(table, try txn.keys(table)[0], try txn.findColumn(table, "value")), 100)
            XCTAssertVerifies(txn)
        }
    }

    func testAnEmptyFileAtThePathBecomesADatabase() throws {
        let path = directory.file("empty.columnar")
        FileManager.default.createFile(atPath: path, contents: Data())
        XCTAssertEngineError(COLUMNAR_ENOTDB, try TestDatabase(path: path, flags: []), "without CREATE")
        let db = try TestDatabase(path: path)
        defer { db.close() }
        try db.write { try CounterWorkload.createSchema(in: $0) }
        XCTAssertEqual(try CounterWorkload.commitStep(db), 1)
    }

    func testAFileOfTheFirstFormatIsRefusedNamingBothVersions() throws {
        let path = directory.file("old.columnar")
        var bytes = [UInt8](repeating: 0, count: 8192)
        bytes.replaceSubrange(0..<8, with: Array("CLMNRDB1".utf8))
        bytes[8] = 1
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        do {
            _ = try TestDatabase(path: path)
            XCTFail("a version 1 file opened")
        } catch let error as EngineError {
            XCTAssertEqual(error.code, COLUMNAR_EFORMAT)
            XCTAssertTrue(error.message.contains("format version 1") && error.message.contains("versions 2 and 4"),
                          error.message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".lock"), "no lock file for a refused file")
    }
}
