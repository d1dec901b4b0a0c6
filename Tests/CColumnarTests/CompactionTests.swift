// CompactionTests: columnar_write_copy and columnar_compact keep every value, key, link, collection, index and
// primary key; a compacted file is about the size of a file written fresh with the same objects; compaction never
// runs under an open handle; openers that arrive meanwhile open the new file; and a copy taken while a writer
// commits is consistent. The kill campaign is CompactionKillTests.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CompactionTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "compaction") }
    override func tearDown() { directory.cleanup() }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Rows of the all-types fixture, some deleted, in a file that also has a removed table and a removed column.
    private func makeFixtureFile(_ path: String, rows: UInt64) throws -> [UInt64: ObjectKey] {
        let db = try TestDatabase(path: path)
        defer { db.close() }
        var kept: [UInt64: ObjectKey] = [:]
        try db.write { txn in
            let scratch = ValueScratch()
            let fixture = try AllTypesFixture.create(in: txn, seed: 7)
            let doomed = try txn.addTable("doomed")
            _ = try txn.addColumn(doomed, "x", COLUMNAR_TYPE_INT)
            let extra = try txn.addColumn(fixture.table, "extra", COLUMNAR_TYPE_STRING)
            for row in 0..<rows {
                let key = try fixture.insertRow(row, txn: txn.handle, scratch: scratch)
                if row % 3 == 1 { try txn.deleteObject(fixture.table, key) } else { kept[row] = key }
            }
            try txn.removeColumn(fixture.table, extra)
            try txn.removeTable(doomed)
        }
        return kept
    }

    private func checkFixture(_ path: String, kept: [UInt64: ObjectKey], file: StaticString = #filePath,
                              line: UInt = #line) throws {
        let db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        try db.read { txn in
            XCTAssertVerifies(txn, file: file, line: line)
            let fixture = try AllTypesFixture.find(in: txn, seed: 7)
            XCTAssertEqual(try txn.count(fixture.table), UInt64(kept.count), file: file, line: line)
            XCTAssertNil(try txn.tableIfPresent("doomed"), "a removed table is not copied", file: file, line: line)
            XCTAssertNil(try txn.columnIfPresent(fixture.table, "extra"), file: file, line: line)
            let scratch = ValueScratch()
            var mismatches: [String] = []
            var wrong = 0
            for (row, key) in kept {
                wrong += try fixture.checkRow(row, key: key, txn: txn.handle, scratch: scratch, mismatches: &mismatches)
            }
            XCTAssertEqual(wrong, 0, mismatches.joined(separator: "\n"), file: file, line: line)
        }
    }

    private func writeCopy(of path: String, to destination: String) throws {
        let db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        try db.read { txn in try check(columnar_write_copy(txn.handle, destination, nil), "columnar_write_copy") }
    }

    func testACopyHoldsEveryValueKeyLinkAndCollectionButNoRemovedTableOrColumn() throws {
        let path = directory.file("source.columnar")
        let kept = try makeFixtureFile(path, rows: 600)
        let copy = directory.file("copy.columnar")
        try writeCopy(of: path, to: copy)
        try checkFixture(copy, kept: kept)
        XCTAssertFalse(exists(copy + ".copying") || exists(copy + ".copying.lock"), "no temporary file left")
        try checkFixture(path, kept: kept)
    }

    func testACopyIsNotWrittenOverAnExistingFileNorFromAWriteTransaction() throws {
        let path = directory.file("source.columnar")
        _ = try makeFixtureFile(path, rows: 10)
        let occupied = directory.file("occupied")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: occupied))
        XCTAssertEngineError(-EEXIST, try writeCopy(of: path, to: occupied))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: occupied)), Data("mine".utf8))
        let db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        try db.write { txn in
            XCTAssertEqual(columnar_write_copy(txn.handle, directory.file("other"), nil), COLUMNAR_EMISUSE)
        }
        XCTAssertFalse(exists(directory.file("other")))
    }

    func testCompactingKeepsEveryValueAndTheFileKeepsItsSymlink() throws {
        let real = directory.file("real.columnar")
        let kept = try makeFixtureFile(real, rows: 600)
        let link = directory.file("link.columnar")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        var result = columnar_compact_result()
        try check(columnar_compact(link, nil, nil, nil, &result), "columnar_compact")
        XCTAssertTrue(result.compacted)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), real)
        XCTAssertFalse(exists(real + ".compacting") || exists(real + ".compacting.lock"))
        try checkFixture(link, kept: kept)
    }

    func testDeletingAFileAlsoDeletesWhatACrashedCompactionLeft() throws {
        let path = directory.file("left.columnar")
        _ = try makeFixtureFile(path, rows: 10)
        _ = try makeFixtureFile(path + ".compacting", rows: 10)   // as a compaction killed before its rename
        XCTAssertEqual(columnar_delete_files(path, nil), COLUMNAR_OK)
        for leftover in [path, path + ".lock", path + ".compacting", path + ".compacting.lock"] {
            XCTAssertFalse(exists(leftover), leftover)
        }
    }

    func testCompactionShrinksAFileAfterLargeDeletesToAboutAFreshFilesSize() throws {
        let objectCount = 60_000
        func fill(_ db: TestDatabase, keys: some Sequence<Int>) throws {
            try db.write { txn in
                let table = try txn.tableIfPresent("item") ?? txn.addTable("item")
                let id = try txn.columnIfPresent(table, "id") ?? txn.addColumn(table, "id", COLUMNAR_TYPE_INT,
                                                                                 indexed: true)
                let name = try txn.columnIfPresent(table, "name") ?? txn.addColumn(table, "name", COLUMNAR_TYPE_STRING)
                let score = try txn.columnIfPresent(table, "score")
                    ?? txn.addColumn(table, "score", COLUMNAR_TYPE_DOUBLE)
                for key in keys {
                    try txn.createObject(table, key: Int64(key))
                    try txn.set(table, Int64(key), id, .int(key))
                    try txn.set(table, Int64(key), name, .string("item \(key)"))
                    try txn.set(table, Int64(key), score, .double(Double(key) / 7))
                }
            }
        }
        let path = directory.file("big.columnar")
        let db = try TestDatabase(path: path)
        try fill(db, keys: 0..<objectCount)
        try db.write { txn in
            let table = try txn.findTable("item")
            for key in 0..<objectCount where key % 10 != 0 { try txn.deleteObject(table, Int64(key)) }
        }
        db.close()
        let fresh = directory.file("fresh.columnar")
        let freshDB = try TestDatabase(path: fresh)
        try fill(freshDB, keys: stride(from: 0, to: objectCount, by: 10))
        freshDB.close()

        let before = try fileSizeBytes(atPath: path)
        var result = columnar_compact_result()
        try check(columnar_compact(path, nil, nil, nil, &result), "columnar_compact")
        let after = try fileSizeBytes(atPath: path)
        let freshSize = try fileSizeBytes(atPath: fresh)
        XCTAssertEqual(result.size_before_bytes, before)
        XCTAssertEqual(result.size_after_bytes, after)
        XCTAssertLessThan(result.used_before_bytes, before)
        XCTAssertLessThanOrEqual(Double(after), 1.2 * Double(freshSize),
                                 "compacted \(after) bytes against a fresh file's \(freshSize) (before: \(before))")
        let reopened = try TestDatabase(path: path, flags: [])
        defer { reopened.close() }
        try reopened.read { txn in
            XCTAssertVerifies(txn)
            let table = try txn.findTable("item")
            XCTAssertEqual(try txn.count(table), UInt64(objectCount / 10))
            let id = try txn.findColumn(table, "id")
            XCTAssertEqual(try txn.findFirst(table, id, .int(12_340)), 12_340, "the index is rebuilt")
            XCTAssertNil(try txn.findFirst(table, id, .int(12_341)))
            XCTAssertEqual(try txn.get(table, 59_990, try txn.findColumn(table, "name")), .string("item 59990"))
        }
        try reopened.write { txn in
            let table = try txn.findTable("item")
            XCTAssertEqual(try txn.createObject(table), Int64(objectCount),
                           "keys of deleted objects are not handed out again")
        }
    }

    func testPrimaryKeysSurviveCompactionAndStayUnique() throws {
        let path = directory.file("pk.columnar")
        let db = try TestDatabase(path: path)
        try db.write { txn in
            let table = try txn.addTable("person")
            let name = try txn.addColumn(table, "name", COLUMNAR_TYPE_STRING, indexed: true)
            try txn.setPrimaryKey(table, column: name)
            for index in 0..<500 { _ = try txn.createObject(table, primaryKey: .string("p\(index)")) }
        }
        db.close()
        try check(columnar_compact(path, nil, nil, nil, nil), "columnar_compact")
        let reopened = try TestDatabase(path: path, flags: [])
        defer { reopened.close() }
        try reopened.write { txn in
            let table = try txn.findTable("person")
            XCTAssertEqual(try txn.tableInfo(table).primary_key, try txn.findColumn(table, "name"))
            XCTAssertEqual(try txn.findPrimaryKey(table, .string("p321")), 321)
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.createObject(table, primaryKey: .string("p5")))
        }
    }

    func testAnOpenFileIsNotCompactedAndADecisionCanDecline() throws {
        let path = directory.file("open.columnar")
        _ = try makeFixtureFile(path, rows: 30)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let db = try TestDatabase(path: path, flags: [])
        XCTAssertEqual(columnar_compact(path, nil, nil, nil, nil), -EBUSY)
        XCTAssertTrue(String(cString: columnar_last_error().pointee.message).contains("is open"))
        db.close()

        final class Asked: @unchecked Sendable { var sizes: [(UInt64, UInt64)] = [] }
        let asked = Asked()
        var result = columnar_compact_result()
        let rc = columnar_compact(path, nil, { size, used, context in
            Unmanaged<Asked>.fromOpaque(context!).takeUnretainedValue().sizes.append((size, used))
            return false
        }, Unmanaged.passUnretained(asked).toOpaque(), &result)
        XCTAssertEqual(rc, COLUMNAR_OK)
        XCTAssertFalse(result.compacted)
        XCTAssertEqual(asked.sizes.count, 1)
        XCTAssertEqual(asked.sizes.first?.0, UInt64(original.count))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original, "declined: nothing changes")
    }

    func testAnOpenerThatArrivesDuringCompactionOpensTheNewFile() throws {
        let path = directory.file("busy.columnar")
        let kept = try makeFixtureFile(path, rows: 3_000)
        let compaction = BackgroundWork { columnar_compact(path, nil, nil, nil, nil) }
        // Openers race the compaction: each open succeeds, before it (old file) or after it (new file), and sees
        // every object either way.
        var opens = 0
        while !compaction.isFinished || opens == 0 {
            let db = try TestDatabase(path: path, flags: [])
            try db.read { txn in
                let table = try txn.findTable("all")
                XCTAssertEqual(try txn.count(table), UInt64(kept.count))
            }
            db.close()
            opens += 1
        }
        let rc = compaction.value
        XCTAssertTrue(rc == COLUMNAR_OK || rc == -EBUSY, "compaction: \(errorName(rc))")
        try checkFixture(path, kept: kept)
    }

    func testCopiesTakenWhileAWriterCommitsAThousandTransactionsOpenAndVerify() throws {
        let path = directory.file("live.columnar")
        let db = try TestDatabase(path: path)
        try LogWorkload.ensureSchema(db)
        let writer = BackgroundWork { () -> String? in
            do {
                for _ in 0..<1_000 { try LogWorkload.commitStep(db) }
                return nil
            } catch { return "\(error)" }
        }
        var copies: [(path: String, count: UInt64)] = []
        while !writer.isFinished || copies.isEmpty {
            let copyPath = directory.file("copy-\(copies.count).columnar")
            let count = try db.read { txn -> UInt64 in
                try check(columnar_write_copy(txn.handle, copyPath, nil), "columnar_write_copy")
                return try txn.count(try txn.findTable("log"))
            }
            copies.append((copyPath, count))
        }
        XCTAssertNil(writer.value)
        db.close()
        XCTAssertGreaterThan(copies.count, 1)
        for copy in copies {
            let copyDB = try TestDatabase(path: copy.path, flags: [])
            try copyDB.read { txn in
                XCTAssertVerifies(txn, copy.path)
                XCTAssertEqual(try txn.count(try txn.findTable("log")), copy.count, "the snapshot it was taken from")
                XCTAssertTrue(LogWorkload.isConsistent(try LogWorkload.read(txn)), "commits whole, in order")
            }
            copyDB.close()
        }
    }
}
