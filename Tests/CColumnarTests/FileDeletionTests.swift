// FileDeletionTests: columnar_delete_files removes a database and its lock file only when no handle anywhere has
// it open, whatever name reaches it, and an open that had already reached the file when it was deleted starts over
// instead of going on with the deleted file (and a lock file nobody else can find).

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class FileDeletionTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "file-deletion") }
    override func tearDown() { directory.cleanup() }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    private func delete(_ path: String) -> (rc: Int32, deleted: Bool) {
        var deleted = false
        let rc = columnar_delete_files(path, &deleted)
        return (rc, deleted)
    }

    func testAnOpenFileIsNotDeletedAndAClosedOneGoesWithItsLockFile() throws {
        let path = directory.file("db.columnar")
        let db = try TestDatabase(path: path)
        try LogWorkload.ensureSchema(db)
        let other = try TestDatabase(path: path, flags: [])
        db.close()
        XCTAssertEqual(delete(path).rc, -EBUSY, "another handle of this process has it open")
        XCTAssertTrue(exists(path) && exists(path + ".lock"))
        XCTAssertTrue(String(cString: columnar_last_error().pointee.message).contains("is open"))
        try other.read { txn in XCTAssertVerifies(txn) }
        other.close()

        XCTAssertEqual(delete(path).rc, COLUMNAR_OK)
        XCTAssertFalse(exists(path))
        XCTAssertFalse(exists(path + ".lock"))
        let again = delete(path)
        XCTAssertEqual(again.rc, COLUMNAR_OK)
        XCTAssertFalse(again.deleted, "nothing left to delete")
        XCTAssertEngineError(-ENOENT, try TestDatabase(path: path, flags: []), "the file is gone")
    }

    func testDeletingThroughASymlinkDeletesTheFileItNamesAndItsLockFile() throws {
        let path = directory.file("real.columnar")
        try TestDatabase(path: path).close()
        let link = directory.file("link.columnar")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let result = delete(link)
        XCTAssertEqual(result.rc, COLUMNAR_OK)
        XCTAssertTrue(result.deleted)
        XCTAssertFalse(exists(path))
        XCTAssertFalse(exists(path + ".lock"))
    }

    func testAPathThatCannotBeDeletedLeavesNoLockFileBehind() throws {
        let path = directory.file("a-directory")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let result = delete(path)
        XCTAssertEqual(result.rc, -EISDIR, errorName(result.rc))
        XCTAssertFalse(result.deleted)
        XCTAssertTrue(exists(path))
        XCTAssertFalse(exists(path + ".lock"), "the lock file the deletion made for itself is gone again")
    }

    func testAFileOpenInAnotherProcessIsNotDeleted() throws {
        let path = directory.file("shared.columnar")
        let db = try TestDatabase(path: path)
        try LogWorkload.ensureSchema(db)
        try LogWorkload.commitStep(db)
        db.close()
        let reader = Process()
        reader.executableURL = try WorkerProcess.executableURL()
        reader.arguments = ["hold-reader", path]
        let input = Pipe(), output = Pipe()
        reader.standardInput = input
        reader.standardOutput = output
        try reader.run()
        let pinned = String(decoding: output.fileHandleForReading.readLine(), as: UTF8.self)
        XCTAssertTrue(pinned.hasPrefix("pinned "), pinned)
        XCTAssertEqual(delete(path).rc, -EBUSY)
        XCTAssertTrue(exists(path))
        input.fileHandleForWriting.write(Data("go\n".utf8))
        reader.waitUntilExit()
        XCTAssertEqual(reader.terminationStatus, 0)
        XCTAssertEqual(delete(path).rc, COLUMNAR_OK)
        XCTAssertFalse(exists(path))
    }

    /// The deletion's own steps, made by hand so that an opener can be caught in between: the init byte of the lock
    /// file locked alone (as columnar_delete_files holds it), an opener started meanwhile, both files unlinked, the
    /// lock released. The opener must not open the unlinked file: without CREATE it finds no file, with CREATE it
    /// makes a new one under the path, with a lock file under the path too.
    func testAnOpenThatReachedTheFileBeforeItWasDeletedStartsOver() throws {
        for create in [false, true] {
            let path = directory.file("raced-\(create).columnar")
            try TestDatabase(path: path).close()
            let lockFile = open(path + ".lock", O_RDWR | O_CLOEXEC)
            XCTAssertGreaterThanOrEqual(lockFile, 0)
            var request = flock()
            request.l_type = Int16(F_WRLCK)
            request.l_whence = Int16(SEEK_SET)
            request.l_start = (1 << 40) - 1   // the init byte (lock.c, CC_LOCK_INIT_BYTE)
            request.l_len = 1
            XCTAssertEqual(fcntl(lockFile, 37 /* F_OFD_SETLK (glibc defines it only with _GNU_SOURCE) */, &request), 0)

            let finished = DispatchSemaphore(value: 0)
            let outcome = Locked<Int32>(0)
            Thread {
                var options = columnar_open_options()
                options.flags = create ? COLUMNAR_OPEN_CREATE.rawValue : 0
                options.durability = COLUMNAR_DURABILITY_FULL
                var db: OpaquePointer?
                let rc = columnar_open(path, &options, &db)
                outcome.withLock { $0 = rc }
                if let db { columnar_close(db) }
                finished.signal()
            }.start()
            // The opener has the data file by now and waits for the init byte.
            XCTAssertEqual(finished.wait(timeout: .now() + 0.3), .timedOut, "the opener waits for the lock file")
            XCTAssertEqual(unlink(path), 0)
            XCTAssertEqual(unlink(path + ".lock"), 0)
            close(lockFile)
            XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
            if create {
                XCTAssertEqual(outcome.value, COLUMNAR_OK)
                XCTAssertTrue(exists(path) && exists(path + ".lock"), "a new file, with its lock file, under the path")
                let db = try TestDatabase(path: path, flags: [])
                try db.read { txn in XCTAssertVerifies(txn) }
                db.close()
            } else {
                XCTAssertEqual(outcome.value, -ENOENT, "the file is gone: \(errorName(outcome.value))")
            }
        }
    }
}
