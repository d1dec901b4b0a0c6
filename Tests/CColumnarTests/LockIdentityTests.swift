// LockIdentityTests.swift — who holds the locks is proven without process ids, and one file has one set of locks
// whatever path reaches it.
//
// Process ids are per pid namespace (containers sharing a volume), and one file can be reached through a symlink,
// a hard link or a bind mount. Readers and writers are told apart by open-file-description locks, the writer lock
// is a lock on the data file itself, and the lock file is named after the file's real path: a reader in another
// namespace keeps its snapshot, every path shares one writer lock (no update is lost), and a second name whose
// lock file would differ is refused instead of silently getting a reader table of its own. The namespace and
// bind-mount tests need root (unshare); they are skipped without it.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class LockIdentityTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "lock-identity") }
    override func tearDown() { directory.cleanup() }

    /// Whether this process may create namespaces (root, and a kernel and sandbox that allow unshare).
    private func requireUnshare(_ flags: [String]) throws {
        guard getuid() == 0 else { throw XCTSkip("needs root for unshare") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = flags + ["true"]
        do { try probe.run() } catch { throw XCTSkip("unshare is not available: \(error)") }
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else { throw XCTSkip("unshare \(flags) is refused here") }
    }

    /// Starts the worker under `unshare` with `flags`, running `shell` (the worker's path is $WORKER).
    private func workerInNamespace(_ flags: [String], shell: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = flags + ["sh", "-c", shell]
        var environment = ProcessInfo.processInfo.environment
        environment["WORKER"] = try WorkerProcess.executableURL().path
        process.environment = environment
        return process
    }

    private func counter(_ path: String) throws -> Int64 {
        let db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        return try db.read { txn in
            let table = try txn.findTable("counter")
            let keys = try txn.keys(table)
            XCTAssertEqual(keys.count, 1)
            XCTAssertVerifies(txn)
            return try txn.getInt(table, keys[0], try txn.findColumn(table, "value")) ?? -1
        }
    }

    // MARK: Pid namespaces

    func testAReaderInAnotherPidNamespaceKeepsItsSnapshotWhileWritersReuseSpace() throws {
        try requireUnshare(["--pid", "--fork"])
        let path = directory.file("namespace-reader.columnar")
        let db = try TestDatabase(path: path)
        defer { db.close() }
        try LogWorkload.ensureSchema(db)
        for _ in 0..<200 { try LogWorkload.commitStep(db) }

        let input = Pipe(), output = Pipe()
        let reader = try workerInNamespace(["--pid", "--fork"], shell: "exec \"$WORKER\" hold-reader '\(path)'")
        reader.standardInput = input
        reader.standardOutput = output
        try reader.run()
        let pinned = String(decoding: output.fileHandleForReading.readLine(), as: UTF8.self)
        XCTAssertTrue(pinned.hasPrefix("pinned "), pinned)

        // Rewrite the log many times over: space is reused, but never the space of the pinned version.
        try db.write { txn in
            let log = try txn.findTable("log")
            for key in try txn.keys(log) { try txn.deleteObject(log, key) }
        }
        XCTAssertEqual(try db.stats().live_versions, 2, "the reader in the other namespace pins its version")
        for _ in 0..<300 { try LogWorkload.commitStep(db) }
        XCTAssertEqual(try db.stats().live_versions, 2, "still pinned after 300 commits")

        input.fileHandleForWriting.write(Data("go\n".utf8))
        let verdict = String(decoding: output.fileHandleForReading.readLine(), as: UTF8.self)
        reader.waitUntilExit()
        let sum = pinned.split(separator: " ").last.map(String.init) ?? ""
        XCTAssertEqual(verdict, "intact \(sum)", "the snapshot of the reader in another pid namespace")
        XCTAssertEqual(try db.stats().live_versions, 1, "its slot is free once it is gone")
    }

    func testWritersInTwoPidNamespacesTakeTurnsWithoutLosingAnUpdate() throws {
        try requireUnshare(["--pid", "--fork"])
        let path = directory.file("namespace-writers.columnar")
        let workers = try (0..<2).map { _ -> Process in
            let worker = try workerInNamespace(["--pid", "--fork"], shell: "exec \"$WORKER\" increment '\(path)' 400")
            try worker.run()
            return worker
        }
        // And this process, in the original namespace, at the same time.
        let db = try TestDatabase(path: path)
        for _ in 0..<400 {
            try db.write { txn in
                let table = try (try? txn.findTable("counter")) ?? {
                    let table = try txn.addTable("counter")
                    let column = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT)
                    try txn.set(table, try txn.createObject(table), column, .int(0))
                    return table
                }()
                let column = try txn.findColumn(table, "value")
                let key = try txn.keys(table)[0]
                try txn.set(table, key, column, .int((try txn.getInt(table, key, column) ?? 0) + 1))
            }
        }
        db.close()
        for worker in workers {
            worker.waitUntilExit()
            XCTAssertEqual(worker.terminationStatus, 0, "a worker in its own pid namespace failed")
        }
        XCTAssertEqual(try counter(path), 1_200, "every increment of the three namespaces' writers")
    }

    // MARK: Paths

    func testASymlinkSharesTheLockFileAndTheWriterLock() throws {
        let path = directory.file("real.columnar")
        let link = directory.file("link.columnar")
        _ = try TestDatabase(path: path).close()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let direct = try TestDatabase(path: path)
        let viaLink = try TestDatabase(path: link)
        defer { direct.close(); viaLink.close() }
        try LogWorkload.ensureSchema(direct)
        runOnThreads(2) { index in
            let db = index == 0 ? direct : viaLink
            for _ in 0..<150 { _ = try? LogWorkload.commitStep(db) }
        }
        try viaLink.read { txn in
            let state = try LogWorkload.read(txn)
            XCTAssertEqual(state.last, 300, "both paths' commits, none lost")
            XCTAssertTrue(LogWorkload.isConsistent(state))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: link + ".lock"), "the link has no lock file of its own")
    }

    func testAHardLinkOpenedWhileTheFileIsOpenIsRefusedAndWorksOnceItIsNot() throws {
        let path = directory.file("original.columnar")
        let hardLink = directory.file("hardlink.columnar")
        let db = try TestDatabase(path: path)
        try LogWorkload.ensureSchema(db)
        try LogWorkload.commitStep(db)
        try FileManager.default.linkItem(atPath: path, toPath: hardLink)
        XCTAssertEngineError(COLUMNAR_ELOCKFILE, try TestDatabase(path: hardLink),
                             "a second name whose lock file differs, while the file is open")
        // Still one writer: the first handle goes on.
        XCTAssertEqual(try LogWorkload.commitStep(db), 2)
        db.close()
        let viaLink = try TestDatabase(path: hardLink)
        defer { viaLink.close() }
        XCTAssertEqual(try LogWorkload.commitStep(viaLink), 3, "the hard link works once the other name is closed")
        XCTAssertEngineError(COLUMNAR_ELOCKFILE, try TestDatabase(path: path), "and now the first name is refused")
    }

    func testWritersThroughABindMountedDirectoryShareOneWriterLock() throws {
        try requireUnshare(["--mount"])
        let original = directory.file("dir")
        let mountPoint = directory.file("mounted")
        try FileManager.default.createDirectory(atPath: original, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let path = original + "/counter.columnar"
        // The worker sees the directory at a second path, in its own mount namespace, and increments through it.
        let worker = try workerInNamespace(["--mount"], shell: """
            mount --bind '\(original)' '\(mountPoint)' && exec "$WORKER" increment '\(mountPoint)/counter.columnar' 300
            """)
        try worker.run()
        for _ in 0..<300 {
            let db = try TestDatabase(path: path)
            try db.write { txn in
                let table = try (try? txn.findTable("counter")) ?? {
                    let table = try txn.addTable("counter")
                    let column = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT)
                    try txn.set(table, try txn.createObject(table), column, .int(0))
                    return table
                }()
                let column = try txn.findColumn(table, "value")
                let key = try txn.keys(table)[0]
                try txn.set(table, key, column, .int((try txn.getInt(table, key, column) ?? 0) + 1))
            }
            db.close()
        }
        worker.waitUntilExit()
        XCTAssertEqual(worker.terminationStatus, 0, "the worker writing through the bind mount failed")
        XCTAssertEqual(try counter(path), 600, "both paths' increments")
    }

    func testABindMountOfTheFileItselfIsRefusedWhileTheFileIsOpen() throws {
        try requireUnshare(["--mount"])
        let path = directory.file("bound.columnar")
        let target = directory.file("elsewhere.columnar")
        let db = try TestDatabase(path: path)
        defer { db.close() }
        try LogWorkload.ensureSchema(db)
        FileManager.default.createFile(atPath: target, contents: nil)
        let worker = try workerInNamespace(["--mount"], shell: """
            mount --bind '\(path)' '\(target)' && exec "$WORKER" increment '\(target)' 1
            """)
        let errors = Pipe()
        worker.standardError = errors
        try worker.run()
        worker.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertNotEqual(worker.terminationStatus, 0, "opening the file through a bind mount of it must fail")
        XCTAssertTrue(message.contains("another path"), message)
    }

    // MARK: Threads

    func testAWriteCommittedOnAnotherThreadReleasesTheWriterLock() throws {
        let path = directory.file("threads.columnar")
        let db = try TestDatabase(path: path)
        defer { db.close() }
        try LogWorkload.ensureSchema(db)
        for round in 0..<20 {
            let txn = Locked<Transaction?>(try db.beginWrite())
            // Committed or rolled back on another thread than the one that began it.
            let outcome = Locked<Error?>(nil)
            runOnThreads(1) { _ in
                txn.withLock { transaction in
                    do {
                        let meta = try transaction!.findTable("meta")
                        let key = try transaction!.keys(meta)[0]
                        try transaction!.set(meta, key, try transaction!.findColumn(meta, "last"), .int(Int64(1000 + round)))
                        if round % 2 == 0 { try transaction!.commit() } else { transaction!.rollback() }
                    } catch { outcome.withLock { $0 = error } }
                }
            }
            XCTAssertNil(outcome.value, "round \(round)")
            // A third thread (this one) takes the writer lock at once.
            let started = Date()
            try db.write { txn in _ = try txn.findTable("meta") }
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the writer lock was not released")
        }
    }
}
