// AllTypesRoundTripTests.swift — every value type survives a commit, a close and a reopen bit for bit.
//
// The data comes from AllTypesFixture: a non-nullable and a nullable column of every type, a link, a list, a
// set and a dictionary, with values derived from (seed, row, column). The large test writes a million objects in
// one transaction so every leaf form (short and long strings, every packed width, nulls arrays, inner nodes)
// appears many times; the small one also checks counting, existence and cluster iteration.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class AllTypesRoundTripTests: XCTestCase {
    /// Writes `rowCount` rows in one write transaction; returns the keys in creation order.
    private func insertRows(_ rowCount: Int, fixture: AllTypesFixture, txn: Transaction) throws -> [ObjectKey] {
        let scratch = ValueScratch()
        var keys: [ObjectKey] = []
        keys.reserveCapacity(rowCount)
        for row in 0..<UInt64(rowCount) {
            keys.append(try fixture.insertRow(row, txn: txn.handle, scratch: scratch))
        }
        return keys
    }

    /// Checks rows `keys.indices` against the generated values on `threadCount` threads, each in its own read
    /// transaction of `db`. Returns the number of wrong values and the first descriptions.
    private func checkRows(keys: [ObjectKey], fixture: AllTypesFixture, db: TestDatabase,
                           threadCount: Int) -> (wrong: Int, mismatches: [String], errors: [String]) {
        let result = Locked((wrong: 0, mismatches: [String](), errors: [String]()))
        let chunk = (keys.count + threadCount - 1) / max(threadCount, 1)
        runOnThreads(threadCount) { index in
            let range = min(index * chunk, keys.count)..<min((index + 1) * chunk, keys.count)
            var mismatches: [String] = []
            var wrong = 0
            do {
                let scratch = ValueScratch()
                try db.read { txn in
                    for row in range {
                        wrong += try fixture.checkRow(UInt64(row), key: keys[row], txn: txn.handle,
                                                      scratch: scratch, mismatches: &mismatches)
                    }
                }
            } catch {
                result.withLock { $0.errors.append("rows \(range): \(error)") }
            }
            result.withLock {
                $0.wrong += wrong
                $0.mismatches += mismatches.prefix(20)
            }
        }
        return result.value
    }

    private var checkThreadCount: Int { min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 4) }

    /// Asserts that iteration visits exactly `expectedKeys` (ascending), each once, in PACKED_INT key arrays.
    private func assertIterationVisits(_ expectedKeys: [ObjectKey], table: TableID, txn: Transaction,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        var visited: [ObjectKey] = []
        visited.reserveCapacity(expectedKeys.count)
        var clusterCount = 0
        try txn.forEachCluster(table) { cluster in
            clusterCount += 1
            XCTAssertEqual(cluster.keys.encoding, COLUMNAR_ENCODING_PACKED_INT, "cluster key array encoding",
                           file: file, line: line)
            XCTAssertEqual(cluster.keys.count, cluster.row_count, "cluster key array length", file: file, line: line)
            XCTAssertGreaterThan(cluster.row_count, 0, "an empty cluster was reported", file: file, line: line)
            var keys = cluster.keys
            for row in 0..<cluster.row_count { visited.append(columnar_array_get_int(&keys, row)) }
        }
        XCTAssertEqual(visited.count, expectedKeys.count, "objects visited by iteration", file: file, line: line)
        let ascending = zip(visited, visited.dropFirst()).allSatisfy { $0 < $1 }
        XCTAssertTrue(ascending, "iteration must visit keys in strictly ascending order", file: file, line: line)
        XCTAssertEqual(visited, expectedKeys.sorted(), "iteration must visit every key once", file: file, line: line)
        XCTAssertGreaterThan(clusterCount, 0, file: file, line: line)
    }

    func testMillionObjectsOfEveryTypeReadBackEqualAfterReopen() throws {
        let rowCount = 1_000_000
        let generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "alltypes")
        let path = directory.file("million.columnar")

        var db = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_FULL)
        var started = Date()
        let keys = try db.write { txn -> [ObjectKey] in
            let fixture = try AllTypesFixture.create(in: txn, seed: generator.seed)
            return try insertRows(rowCount, fixture: fixture, txn: txn)
        }
        print("AllTypesRoundTrip: wrote and committed \(rowCount) objects in \(Date().timeIntervalSince(started)) s")
        XCTAssertEqual(Set(keys).count, rowCount, "object keys must be unique")
        db.close()

        db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        started = Date()
        let fixture = try db.read { txn -> AllTypesFixture in
            let fixture = try AllTypesFixture.find(in: txn, seed: generator.seed)
            XCTAssertEqual(try txn.count(fixture.table), UInt64(rowCount))
            XCTAssertEqual(try txn.keys(fixture.table), keys, "iteration order must be creation (key) order")
            return fixture
        }
        let result = checkRows(keys: keys, fixture: fixture, db: db, threadCount: checkThreadCount)
        print("AllTypesRoundTrip: checked \(rowCount) objects in \(Date().timeIntervalSince(started)) s")
        XCTAssertEqual(result.errors, [], generator.replayNote)
        XCTAssertEqual(result.wrong, 0, "values read back differ (\(generator.replayNote)):\n"
                       + result.mismatches.prefix(20).joined(separator: "\n"))
    }

    func testThousandObjectsAreCountedFoundAndIteratedInKeyOrder() throws {
        let rowCount = 1_000
        let generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "alltypes")
        let path = directory.file("thousand.columnar")
        var db = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE)

        // Within the write transaction the new objects are visible to counting and iteration already.
        let keys = try db.write { txn -> [ObjectKey] in
            let fixture = try AllTypesFixture.create(in: txn, seed: generator.seed)
            let keys = try insertRows(rowCount, fixture: fixture, txn: txn)
            XCTAssertEqual(try txn.count(fixture.table), UInt64(rowCount))
            try assertIterationVisits(keys, table: fixture.table, txn: txn)
            var mismatches: [String] = []
            let scratch = ValueScratch()
            var wrong = 0
            for (row, key) in keys.enumerated() {
                wrong += try fixture.checkRow(UInt64(row), key: key, txn: txn.handle, scratch: scratch,
                                              mismatches: &mismatches)
            }
            XCTAssertEqual(wrong, 0, "before commit:\n" + mismatches.joined(separator: "\n"))
            return keys
        }
        XCTAssertEqual(keys, keys.sorted(), "keys from columnar_obj_create must increase")

        func checkEverything(_ db: TestDatabase, liveKeys: [ObjectKey], deletedKeys: Set<ObjectKey>,
                             stage: String) throws {
            try db.read { txn in
                let fixture = try AllTypesFixture.find(in: txn, seed: generator.seed)
                XCTAssertEqual(try txn.count(fixture.table), UInt64(liveKeys.count), stage)
                XCTAssertEqual(try txn.tableInfo(fixture.table).object_count, UInt64(liveKeys.count), stage)
                for key in liveKeys { XCTAssertTrue(try txn.exists(fixture.table, key), "\(stage): key \(key)") }
                for key in deletedKeys { XCTAssertFalse(try txn.exists(fixture.table, key), "\(stage): key \(key)") }
                let beyond = (keys.max() ?? 0) + 1
                for key in [beyond, beyond + 1, beyond + 1_000_000] {
                    XCTAssertFalse(try txn.exists(fixture.table, key), "\(stage): never created key \(key)")
                }
                XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.get(fixture.table, beyond, fixture.scalars[0].id),
                                     "\(stage): reading an object that does not exist")
                try assertIterationVisits(liveKeys, table: fixture.table, txn: txn)
                var mismatches: [String] = []
                let scratch = ValueScratch()
                var wrong = 0
                for (row, key) in keys.enumerated() where !deletedKeys.contains(key) {
                    wrong += try fixture.checkRow(UInt64(row), key: key, txn: txn.handle, scratch: scratch,
                                                  mismatches: &mismatches)
                }
                XCTAssertEqual(wrong, 0, "\(stage) (\(generator.replayNote)):\n" + mismatches.joined(separator: "\n"))
                XCTAssertVerifies(txn, stage)
            }
        }

        try checkEverything(db, liveKeys: keys, deletedKeys: [], stage: "after commit")
        db.close()
        db = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE)
        try checkEverything(db, liveKeys: keys, deletedKeys: [], stage: "after reopen")

        // Deleting every seventh object leaves gaps that counting, existence and iteration must all skip.
        let deleted = Set(keys.enumerated().filter { $0.offset % 7 == 3 }.map(\.element))
        try db.write { txn in
            let fixture = try AllTypesFixture.find(in: txn, seed: generator.seed)
            for key in deleted { try txn.deleteObject(fixture.table, key) }
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.deleteObject(fixture.table, deleted.first!),
                                 "deleting an object twice")
        }
        let live = keys.filter { !deleted.contains($0) }
        try checkEverything(db, liveKeys: live, deletedKeys: deleted, stage: "after deletes")
        db.close()
        db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        try checkEverything(db, liveKeys: live, deletedKeys: deleted, stage: "after deletes and reopen")
    }
}
