// MultiProcessTests.swift — processes that share a file serialize their writes through the lock file.
//
// Two ColumnarTestWorker processes each run 1,000 read-modify-write transactions on one counter. The writer lock
// is process-shared, and each write transaction starts from the latest version, so no increment may be lost:
// the counter must read 2,000. Both workers also race to create the counter table, which only one may do.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class MultiProcessTests: XCTestCase {
    func testTwoProcessesIncrementingOneCounterLoseNoUpdate() throws {
        try incrementInTwoProcesses(encryptionKey: nil)
    }

    /// With an encrypted file each process reads through its own decrypted image, which must take in the other
    /// process's commits before every write transaction, or an increment would be lost.
    func testTwoProcessesIncrementingOneCounterOfAnEncryptedFileLoseNoUpdate() throws {
        try incrementInTwoProcesses(encryptionKey: testEncryptionKey)
    }

    private func incrementInTwoProcesses(encryptionKey: [UInt8]?) throws {
        let directory = try TemporaryDirectory(prefix: "multiprocess")
        let path = directory.file("counter.columnar")
        let incrementsPerWorker = 1_000

        let arguments = ["increment", path, String(incrementsPerWorker)] + (encryptionKey == nil ? [] : ["--encrypted"])
        let workers = try (0..<2).map { _ in try WorkerProcess(arguments) }
        for worker in workers { try worker.waitForSuccess() }

        let db = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
        defer { db.close() }
        try db.read { txn in
            let table = try txn.findTable("counter")
            let keys = try txn.keys(table)
            XCTAssertEqual(keys.count, 1, "exactly one counter object, however the workers raced to create it")
            let value = try txn.getInt(table, keys[0], try txn.findColumn(table, "value"))
            XCTAssertEqual(value, Int64(incrementsPerWorker * workers.count))
            XCTAssertVerifies(txn)
        }
    }
}
