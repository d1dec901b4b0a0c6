// CommitSlotTests.swift — the header's slots: each in a sector of its own with its own checksum, no selector, the
// highest whole version wins.
//
// A commit rewrites exactly one 512-byte sector of the header, so a torn header write can only lose the slot
// being written. Damage to any header byte either leaves the file opening at its latest version (the byte was
// in another slot, or reserved), opens it at the version before (the latest slot itself was hit, which is what a
// torn write of it looks like), or refuses it (the identity sector was hit); never an older version while a
// newer slot is intact.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CommitSlotTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "header-slots") }
    override func tearDown() { directory.cleanup() }

    private func header(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(FileHeader.headerBytes))
    }

    func testACommitRewritesExactlyTheOneSectorOfItsSlot() throws {
        let path = directory.file("sectors.columnar")
        let db = try TestDatabase(path: path)
        defer { db.close() }
        try db.write { try CounterWorkload.createSchema(in: $0) }
        for _ in 0..<40 {
            let before = try header(path)
            try CounterWorkload.commitStep(db)
            let after = try header(path)
            let version = try db.stats().version
            let changed = (0..<16).filter { sector in
                before[(sector * 512)..<(sector * 512 + 512)] != after[(sector * 512)..<(sector * 512 + 512)]
            }
            XCTAssertEqual(changed, [Int(FileHeader.slotOffset(version: version) / 512)],
                           "version \(version) changed sectors \(changed)")
        }
    }

    func testNoDamagedHeaderByteOpensAnOlderVersionWhileANewerSlotIsIntact() throws {
        let path = directory.file("flips.columnar")
        do {
            let db = try TestDatabase(path: path)
            defer { db.close() }
            try db.write { try CounterWorkload.createSchema(in: $0) }
            for _ in 0..<20 { try CounterWorkload.commitStep(db) }
        }
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let latest = try FileHeader.current(path: path)
        let latestSector = Int(latest.offset) / 512
        let damagedPath = directory.file("damaged.columnar")
        var outcomes: [String: Int] = [:]
        // Every bit of the fields of every sector (the first 64 bytes and the checksum) flipped in turn.
        for sector in 0..<16 {
            for byte in Array(0..<64) + Array(508..<512) {
                let bit = (sector * 512 + byte) % 8
                var bytes = original
                bytes[sector * 512 + byte] ^= UInt8(1 << bit)
                try? FileManager.default.removeItem(atPath: damagedPath)
                try? FileManager.default.removeItem(atPath: damagedPath + ".lock")
                FileManager.default.createFile(atPath: damagedPath, contents: Data(bytes))
                let context = "sector \(sector) byte \(byte) bit \(bit)"
                do {
                    let db = try TestDatabase(path: damagedPath, flags: [.readOnly])
                    defer { db.close() }
                    let counter = try db.read { try CounterWorkload.read($0).counter }
                    let version = try db.stats().version
                    if sector == latestSector {
                        XCTAssertTrue(version == latest.version || version == latest.version - 1,
                                      "\(context): opened version \(version)")
                    } else {
                        XCTAssertEqual(version, latest.version, "\(context): a newer slot is intact")
                    }
                    XCTAssertEqual(counter, Int64(version) - 2, context)
                    outcomes[version == latest.version ? "latest" : "the version before", default: 0] += 1
                } catch let error as EngineError {
                    XCTAssertEqual(sector, 0, "\(context): only damage to the identity refuses the file: \(error)")
                    outcomes["refused (\(error.name))", default: 0] += 1
                }
            }
        }
        print("CommitSlot: " + outcomes.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "))
    }
}
