// CompactionKillTests: a process compacting a file is killed (SIGKILL) at random moments; every time, the file
// opens at the old or the new state with every object intact, and the next compaction cleans up after the killed
// one. COLUMNAR_COMPACTION_KILLS sets the number of kills (100 by default; `make compaction-kills` runs more).

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CompactionKillTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "compaction-kill") }
    override func tearDown() { directory.cleanup() }

    private static let rowCount: UInt64 = 3_000
    private static let seed: UInt64 = 11

    /// The all-types fixture with every third row deleted, so that compaction has work to do.
    private func makePristine(_ path: String, encryptionKey: [UInt8]?) throws -> [UInt64: ObjectKey] {
        let db = try TestDatabase(path: path, encryptionKey: encryptionKey)
        defer { db.close() }
        var kept: [UInt64: ObjectKey] = [:]
        try db.write { txn in
            let scratch = ValueScratch()
            let fixture = try AllTypesFixture.create(in: txn, seed: Self.seed)
            for row in 0..<Self.rowCount {
                let key = try fixture.insertRow(row, txn: txn.handle, scratch: scratch)
                if row % 3 == 0 { try txn.deleteObject(fixture.table, key) } else { kept[row] = key }
            }
        }
        return kept
    }

    /// Opens `path` as an application would after the crash and checks every object. Returns the file's inode.
    private func checkIntact(_ path: String, kept: [UInt64: ObjectKey], iteration: Int,
                             encryptionKey: [UInt8]?) throws -> UInt64 {
        let db = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
        defer { db.close() }
        try db.read { txn in
            XCTAssertVerifies(txn, "after kill \(iteration)")
            let fixture = try AllTypesFixture.find(in: txn, seed: Self.seed)
            XCTAssertEqual(try txn.count(fixture.table), UInt64(kept.count), "after kill \(iteration)")
            let scratch = ValueScratch()
            var mismatches: [String] = []
            var wrong = 0
            for (row, key) in kept {
                wrong += try fixture.checkRow(row, key: key, txn: txn.handle, scratch: scratch, mismatches: &mismatches)
            }
            XCTAssertEqual(wrong, 0, "after kill \(iteration): " + mismatches.joined(separator: "\n"))
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw TestFailure("cannot stat \(path)") }
        return UInt64(status.st_ino)
    }

    func testAKilledCompactionLeavesTheOldOrTheNewFileComplete() throws {
        let iterations = ProcessInfo.processInfo.environment["COLUMNAR_COMPACTION_KILLS"].flatMap { Int($0) } ?? 100
        try killCompactions(iterations: iterations, encryptionKey: nil)
    }

    /// The same for an encrypted file, whose compacted copy is encrypted with the same key.
    func testAKilledCompactionOfAnEncryptedFileLeavesTheOldOrTheNewFileComplete() throws {
        let iterations = ProcessInfo.processInfo.environment["COLUMNAR_COMPACTION_KILLS"].flatMap { Int($0) } ?? 100
        try killCompactions(iterations: max(iterations / 3, 1), encryptionKey: testEncryptionKey)
    }

    private func killCompactions(iterations: Int, encryptionKey: [UInt8]?) throws {
        let pristine = directory.file("pristine.columnar")
        let kept = try makePristine(pristine, encryptionKey: encryptionKey)
        let path = directory.file("db.columnar")
        let compactArguments = ["compact", path] + (encryptionKey == nil ? [] : ["--encrypted"])

        // One compaction run to the end gives the span to kill within: from its start to a little past its end.
        try FileManager.default.copyItem(atPath: pristine, toPath: path)
        let measured = try WorkerProcess(compactArguments)
        try measured.waitForSuccess()
        guard let report = measured.outputLines.last, report.hasPrefix("compacted "),
              let microseconds = Double(report.dropFirst("compacted ".count))
        else { throw TestFailure("the compaction worker printed \(measured.outputLines)") }
        let span = microseconds / 1_000_000
        _ = try checkIntact(path, kept: kept, iteration: -1, encryptionKey: encryptionKey)

        var generator = SeededGenerator(seed: 0xC0FFEE)
        var oldCount = 0, newCount = 0, finished = 0
        for iteration in 0..<iterations {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".lock")
            try FileManager.default.copyItem(atPath: pristine, toPath: path)
            var status = stat()
            stat(path, &status)
            let oldInode = UInt64(status.st_ino)

            let worker = try WorkerProcess(compactArguments)
            XCTAssertTrue(worker.waitForFirstLine(timeout: 30), "the compaction worker did not start")
            usleep(UInt32(Double.random(in: 0...(span * 1.2), using: &generator) * 1_000_000))
            worker.kill()
            let (exitStatus, reason) = worker.waitForExit()
            if reason == .exit {
                XCTAssertEqual(exitStatus, 0, "iteration \(iteration): the compaction failed by itself")
                finished += 1
            }
            let inode = try checkIntact(path, kept: kept, iteration: iteration, encryptionKey: encryptionKey)
            if inode == oldInode { oldCount += 1 } else { newCount += 1 }
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        // What a killed compaction left beside the file goes with the next one.
        var options = columnar_open_options()
        try (encryptionKey ?? []).withUnsafeBufferPointer { key in
            options.encryption_key = encryptionKey == nil ? nil : key.baseAddress
            try check(columnar_compact(path, &options, nil, nil, nil), "columnar_compact after the kills")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".compacting"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".compacting.lock"))
        _ = try checkIntact(path, kept: kept, iteration: iterations, encryptionKey: encryptionKey)
        print("compaction kills\(encryptionKey == nil ? "" : " (encrypted)"): \(iterations) (span \(Int(span * 1000)) ms): old file \(oldCount), new file "
              + "\(newCount), of which \(finished) finished before the kill")
    }
}
