// WritePathChecksumTests.swift — what the write path reads and acts on is checked against its checksum.
//
// A commit hands out the free list's space and frees the nodes it replaces by the sizes their headers give. A
// damaged value there that still looks sane (a free entry moved onto a live node, a node header's count
// changed) would make a commit overwrite live data or put it on the free list, and the commit would succeed.
// Damage made while the file is open (recovery at open checks the latest commit's own ranges) must stop the
// write with COLUMNAR_ECORRUPT instead, and leave the file as it was.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class WritePathChecksumTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "write-checksums") }
    override func tearDown() { directory.cleanup() }

    private func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        bytes[offset..<(offset + 8)].enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }

    /// Child `index` of the REFS node at `ref`.
    private func child(_ bytes: [UInt8], _ ref: UInt64, _ index: Int) -> UInt64 { u64(bytes, Int(ref) + 16 + 8 * index) }

    /// Writes `bytes` at `offset` of the file through a descriptor of its own, behind the engine's back.
    private func damage(_ path: String, at offset: UInt64, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw TestFailure("cannot open \(path)") }
        defer { close(fd) }
        XCTAssertEqual(pwrite(fd, bytes, bytes.count, off_t(offset)), bytes.count)
    }

    private func makeDatabase(_ name: String) throws -> (TestDatabase, String) {
        let path = directory.file(name)
        let db = try TestDatabase(path: path)
        try db.write { try CounterWorkload.createSchema(in: $0) }
        for _ in 0..<50 { try CounterWorkload.commitStep(db) }
        return (db, path)
    }

    func testADamagedFreeListStopsTheNextWrite() throws {
        let (db, path) = try makeDatabase("free-list.columnar")
        defer { db.close() }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let top = try FileHeader.currentTopRef(path: path)
        let positions = child(bytes, top, 3)
        XCTAssertGreaterThan(bytes[Int(positions) + 8], 0, "the free list has entries")
        // The first entry's position moved onto the top node: sorted, aligned and in bounds, so only its checksum
        // tells it is wrong.
        var moved = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { moved[index] = UInt8(truncatingIfNeeded: top >> (8 * UInt64(index))) }
        try damage(path, at: positions + 16, moved)
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try CounterWorkload.commitStep(db), "a write on a damaged free list")
        XCTAssertTrue(columnarLastMessage().contains("checksum"), columnarLastMessage())
        // Undamaged again, the same handle commits and the file is sound.
        try damage(path, at: positions + 16, Array(bytes[(Int(positions) + 16)..<(Int(positions) + 24)]))
        XCTAssertEqual(try CounterWorkload.commitStep(db), 51)
        try db.read { XCTAssertVerifies($0) }
    }

    func testADamagedSizeOfANodeAWriteWouldFreeStopsTheWrite() throws {
        let (db, path) = try makeDatabase("freed-size.columnar")
        defer { db.close() }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let top = try FileHeader.currentTopRef(path: path)
        // The "items" table (id 1): its tree root, a cluster; the cluster's keys node.
        let table = child(bytes, child(bytes, top, 2), 1)
        let root = child(bytes, table, 1)
        XCTAssertEqual(bytes[Int(root) + 6], 11, "the items table is one cluster")
        let keys = child(bytes, root, 0)
        let count = UInt32(bytes[Int(keys) + 8]) | UInt32(bytes[Int(keys) + 9]) << 8
        XCTAssertEqual(count, 50)
        // One key fewer: still a valid node inside the file, freed by the next write that copies the cluster.
        try damage(path, at: keys + 8, [UInt8(count - 1), 0])
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try CounterWorkload.commitStep(db), "a write freeing a damaged node")
        try damage(path, at: keys + 8, [UInt8(count), 0])
        XCTAssertEqual(try CounterWorkload.commitStep(db), 51)
        try db.read { XCTAssertVerifies($0) }
    }
}

private func columnarLastMessage() -> String {
    columnar_last_error().pointee.message.map { String(cString: $0) } ?? ""
}
