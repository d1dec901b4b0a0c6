// WriteLogTests.swift — the write log in the lock file (columnar.h, "Write log"): what each commit set comes back by
// the versions that made them, through any handle of the file; a version made again after a failed or abandoned
// commit is reported as its last commit made it; what the ring no longer holds, or never held, is reported as
// incomplete; and readers racing a writer never see a torn record.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class WriteLogTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "write-log") }
    override func tearDown() { directory.cleanup() }

    private struct Write: Hashable {
        let table: UInt32
        let column: UInt32
        let key: Int64
    }

    /// Opens a database with a table "t" holding one object, so that every later commit has something to change.
    private func openDatabase(_ name: String = "log.columnar") throws -> (TestDatabase, TableID) {
        let db = try TestDatabase(path: directory.file(name))
        let table = try db.write { txn -> TableID in
            let table = try txn.addTable("t")
            _ = try txn.createObject(table)
            return table
        }
        return (db, table)
    }

    /// Commits one transaction that creates an object and logs `writes` (nil: logs nothing). Returns the version.
    @discardableResult
    private func commit(_ db: TestDatabase, _ table: TableID, logging writes: [Write]?) throws -> UInt64 {
        let txn = try db.beginWrite()
        let version = txn.version + 1
        _ = try txn.createObject(table)
        if let writes { try Self.log(txn, writes) }
        try txn.commit()
        return version
    }

    private static func log(_ txn: Transaction, _ writes: [Write]) throws {
        let logged = writes.map { columnar_logged_write(table: $0.table, column: $0.column, key: $0.key) }
        try check(logged.withUnsafeBufferPointer { columnar_txn_log_writes(txn.handle, $0.baseAddress, $0.count) },
                  "columnar_txn_log_writes")
    }

    private static func read(_ db: TestDatabase, after: UInt64, through: UInt64) throws -> (writes: [Write], complete: Bool) {
        final class Box { var writes: [Write] = [] }
        let box = Box()
        var complete = false
        try withExtendedLifetime(box) {
            try check(columnar_write_log_read(db.handle, after, through, { context, writes, count in
                let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
                for write in UnsafeBufferPointer(start: writes, count: count) {
                    box.writes.append(Write(table: write.table, column: write.column, key: write.key))
                }
            }, Unmanaged.passUnretained(box).toOpaque(), &complete), "columnar_write_log_read")
        }
        return (box.writes, complete)
    }

    private func writes(_ keys: Range<Int64>, column: UInt32 = 1) -> [Write] {
        keys.map { Write(table: 0, column: column, key: $0) }
    }

    func testWritesComeBackByTheVersionsThatMadeThemThroughAnotherHandle() throws {
        let (db, table) = try openDatabase()
        XCTAssertFalse(columnar_write_log_enabled(db.handle))
        let other = try TestDatabase(path: db.path, flags: [])
        try check(columnar_write_log_enable(other.handle))
        XCTAssertTrue(columnar_write_log_enabled(db.handle), "the flag is shared by every handle of the file")

        let base = try db.read { $0.version }
        let first = try commit(db, table, logging: writes(0..<3))
        let second = try commit(db, table, logging: writes(10..<12, column: 2))
        let unlogged = try commit(db, table, logging: nil)

        let all = try Self.read(other, after: base, through: unlogged)
        XCTAssertTrue(all.complete)
        XCTAssertEqual(Set(all.writes), Set(writes(0..<3) + writes(10..<12, column: 2)))
        let last = try Self.read(other, after: first, through: second)
        XCTAssertTrue(last.complete)
        XCTAssertEqual(Set(last.writes), Set(writes(10..<12, column: 2)))
        let none = try Self.read(other, after: second, through: unlogged)
        XCTAssertTrue(none.complete, "a commit that logged nothing while the log was enabled set nothing")
        XCTAssertEqual(none.writes, [])
        let empty = try Self.read(other, after: unlogged, through: unlogged)
        XCTAssertTrue(empty.complete)
        XCTAssertEqual(empty.writes, [])
        other.close()
    }

    func testAVersionMadeAgainIsReportedAsItsLastCommitMadeIt() throws {
        let (db, table) = try openDatabase()
        try check(columnar_write_log_enable(db.handle))
        let base = try db.read { $0.version }

        // Rolled back after logging: the next commit of that version logs other writes.
        let abandoned = try db.beginWrite()
        _ = try abandoned.createObject(table)
        try Self.log(abandoned, writes(100..<105))
        abandoned.rollback()
        let version = try commit(db, table, logging: writes(7..<8))
        XCTAssertEqual(version, base + 1)
        XCTAssertEqual(try Self.read(db, after: base, through: version).writes, writes(7..<8))

        // Rolled back after logging, then committed without logging: that commit set nothing.
        let again = try db.beginWrite()
        _ = try again.createObject(table)
        try Self.log(again, writes(200..<203))
        again.rollback()
        let next = try commit(db, table, logging: nil)
        let result = try Self.read(db, after: version, through: next)
        XCTAssertTrue(result.complete)
        XCTAssertEqual(result.writes, [])
        XCTAssertEqual(Set(try Self.read(db, after: base, through: next).writes), Set(writes(7..<8)))
    }

    func testCommitsMadeBeforeTheLogWasEnabledAreReportedIncomplete() throws {
        let (db, table) = try openDatabase()
        let base = try db.read { $0.version }
        let early = try commit(db, table, logging: nil)
        try check(columnar_write_log_enable(db.handle))
        let late = try commit(db, table, logging: writes(1..<2))
        let spanning = try Self.read(db, after: base, through: late)
        XCTAssertFalse(spanning.complete)
        XCTAssertEqual(spanning.writes, writes(1..<2), "what was logged is still reported")
        let after = try Self.read(db, after: early, through: late)
        XCTAssertTrue(after.complete, "every commit since the log was enabled left its entry")
        XCTAssertEqual(after.writes, writes(1..<2))
    }

    /// A transaction that began before the log was enabled did not know to log: its commit is reported as unknown,
    /// not as having set nothing.
    func testATransactionBegunBeforeTheLogWasEnabledIsReportedIncomplete() throws {
        let (db, table) = try openDatabase()
        let base = try db.read { $0.version }
        let txn = try db.beginWrite()
        _ = try txn.createObject(table)
        let other = try TestDatabase(path: db.path, flags: [])
        try check(columnar_write_log_enable(other.handle))
        try txn.commit()
        let made = try commit(db, table, logging: writes(5..<6))
        let result = try Self.read(other, after: base, through: made)
        XCTAssertFalse(result.complete)
        XCTAssertEqual(result.writes, writes(5..<6))
        let later = try Self.read(other, after: base + 1, through: made)
        XCTAssertTrue(later.complete)
        other.close()
    }

    func testTheRingForgetsTheOldestCommitsAndSaysSo() throws {
        let (db, table) = try openDatabase()
        try check(columnar_write_log_enable(db.handle))
        let base = try db.read { $0.version }
        let size = 30_000
        let first = try commit(db, table, logging: writes(0..<Int64(size)))
        let second = try commit(db, table, logging: writes(Int64(size)..<Int64(2 * size)))
        let third = try commit(db, table, logging: writes(Int64(2 * size)..<Int64(3 * size)))
        XCTAssertEqual(third, first + 2)

        let everything = try Self.read(db, after: base, through: third)
        XCTAssertFalse(everything.complete, "the first commit's writes were overwritten")
        XCTAssertEqual(Set(everything.writes), Set(writes(Int64(size)..<Int64(3 * size))))
        let recent = try Self.read(db, after: first, through: third)
        XCTAssertTrue(recent.complete)
        XCTAssertEqual(recent.writes.count, 2 * size)
        XCTAssertEqual(Set(recent.writes), Set(writes(Int64(size)..<Int64(3 * size))))
        XCTAssertEqual(Set(try Self.read(db, after: first, through: second).writes),
                       Set(writes(Int64(size)..<Int64(2 * size))))
    }

    func testACommitTooLargeForHalfTheRingIsRecordedAsIncomplete() throws {
        let (db, table) = try openDatabase()
        try check(columnar_write_log_enable(db.handle))
        let base = try db.read { $0.version }
        let large = try commit(db, table, logging: writes(0..<40_000))
        let small = try commit(db, table, logging: writes(50_000..<50_001))
        let both = try Self.read(db, after: base, through: small)
        XCTAssertFalse(both.complete)
        XCTAssertEqual(both.writes, writes(50_000..<50_001))
        let later = try Self.read(db, after: large, through: small)
        XCTAssertTrue(later.complete, "the large commit's trailer still marks where the later commits begin")
        XCTAssertEqual(later.writes, writes(50_000..<50_001))
    }

    func testMisuseIsRefused() throws {
        let (db, table) = try openDatabase()
        try db.read { txn in
            XCTAssertEqual(columnar_txn_log_writes(txn.handle, nil, 0), COLUMNAR_EMISUSE, "a read transaction")
        }
        let txn = try db.beginWrite()
        _ = try txn.createObject(table)
        var reserved = columnar_logged_write(table: UInt32.max, column: 0, key: 1)
        XCTAssertEqual(columnar_txn_log_writes(txn.handle, &reserved, 1), COLUMNAR_EMISUSE, "table id UINT32_MAX")
        try Self.log(txn, writes(0..<1))
        XCTAssertEqual(columnar_txn_log_writes(txn.handle, nil, 0), COLUMNAR_EMISUSE, "a second call")
        try txn.commit()

        let path = db.path
        db.close()
        let inspector = try TestDatabase(path: path, flags: [.readOnly, .noLock])
        XCTAssertEqual(columnar_write_log_enable(inspector.handle), COLUMNAR_EMISUSE)
        XCTAssertFalse(columnar_write_log_enabled(inspector.handle))
        inspector.close()
    }

    /// A writer appends commits of many writes (each write's key names its version) while readers read ranges over
    /// and over: every read holds exactly the writes of the versions it asked for (none torn, none from elsewhere),
    /// and is complete whenever the ring still held them all.
    func testReadersRacingTheWriterNeverSeeATornOrForeignRecord() throws {
        let (db, table) = try openDatabase()
        try check(columnar_write_log_enable(db.handle))
        let base = try db.read { $0.version }
        let commits = 120
        let perCommit: Int64 = 3_000
        // The latest committed version, and whether the writer is done.
        let latest = Locked((version: base, finished: false))
        let failures = Locked<[String]>([])
        let writer = Thread {
            do {
                for _ in 0..<commits {
                    let txn = try db.beginWrite()
                    let version = txn.version + 1
                    _ = try txn.createObject(table)
                    let keys = (0..<perCommit).map { Int64(version) * 1_000_000 + $0 }
                    try Self.log(txn, keys.map { Write(table: 0, column: 1, key: $0) })
                    try txn.commit()
                    latest.withLock { $0.version = version }
                }
            } catch { failures.withLock { $0.append("writer: \(error)") } }
            latest.withLock { $0.finished = true }
        }
        let readerDone = DispatchGroup()
        for seed in 0..<2 {
            readerDone.enter()
            Thread {
                defer { readerDone.leave() }
                let other: TestDatabase
                do { other = try TestDatabase(path: db.path, flags: []) } catch {
                    failures.withLock { $0.append("open: \(error)") }
                    return
                }
                var generator = SeededGenerator(seed: UInt64(seed))
                var readsAfterFinish = 0
                var completeReads = 0
                while readsAfterFinish < 20 {
                    let (through, finished) = latest.value
                    if finished { readsAfterFinish += 1 }
                    guard through > base else { continue }
                    let span = 1 + generator.next() % 25
                    let after = through > base + span ? through - span : base
                    guard let result = try? Self.read(other, after: after, through: through) else {
                        failures.withLock { $0.append("read failed") }
                        return
                    }
                    var seen = Set<Int64>()
                    for write in result.writes {
                        let version = UInt64(write.key / 1_000_000)
                        let index = write.key % 1_000_000
                        if write.table != 0 || write.column != 1 || version <= after || version > through
                            || index >= perCommit || !seen.insert(write.key).inserted {
                            failures.withLock { $0.append("read (\(after), \(through)] holds \(write)") }
                            return
                        }
                    }
                    if result.complete {
                        completeReads += 1
                        if seen.count != Int(through - after) * Int(perCommit) {
                            failures.withLock {
                                $0.append("complete read (\(after), \(through)] holds \(seen.count) writes")
                            }
                            return
                        }
                    }
                }
                if completeReads == 0 { failures.withLock { $0.append("no read was complete") } }
                other.close()
            }.start()
        }
        writer.start()
        XCTAssertEqual(readerDone.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(failures.value, [])
    }
}
