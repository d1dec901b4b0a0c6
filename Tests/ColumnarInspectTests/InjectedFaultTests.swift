// InjectedFaultTests.swift — `verify` finds each fault the issue names and says where it is: a flipped byte in a
// node header, a ref past the end of the file, two live nodes overlapping, a live node inside free space, a
// broken backlink and a stale index entry. Faults other than the flipped byte keep every checksum valid (the
// damaged node's CRC is recomputed), so that the check the test is about is the one that must find them.

import CColumnar
import ColumnarTestSupport
import XCTest

final class InjectedFaultTests: SampleDatabaseTestCase {
    /// Runs `verify --json` and returns its findings; the exit status must be 1 (findings).
    private func verifyFindings(_ path: String, file: StaticString = #filePath,
                                line: UInt = #line) throws -> [(offset: UInt64, what: String)] {
        let result = try inspect(["verify", "--json", path], file: file, line: line)
        XCTAssertEqual(result.status, 1, result.description, file: file, line: line)
        let json = result.object(file: file, line: line)
        XCTAssertEqual(json.string("status"), "findings", file: file, line: line)
        let text = try inspect(["verify", path], file: file, line: line)
        XCTAssertEqual(text.status, 1, file: file, line: line)
        return json.objects("findings").map { ($0.uint("offset") ?? 0, $0.string("what") ?? "") }
    }

    private func describe(_ findings: [(offset: UInt64, what: String)]) -> String {
        findings.map { "  at \($0.offset): \($0.what)" }.joined(separator: "\n")
    }

    func testAFlippedByteInANodeHeaderIsFoundAtThatNode() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let sample = try self.sample
        let structure = try FileStructure.read(path)
        let values = try XCTUnwrap(structure.nodes(table: sample.fixture.table, column: sample.fixture.scalars[0].id,
                                                   role: FileSurgery.roleValues).first)
        // The count field: the header stays plausible, so only the checksum (or the count check) can tell.
        let byte = try FileSurgery.read(path, at: values.ref + 8, count: 1)[0]
        try FileSurgery.write(path, at: values.ref + 8, [byte ^ 0x01])
        let findings = try verifyFindings(path)
        XCTAssertTrue(findings.contains { $0.offset == values.ref && $0.what.contains("checksum") },
                      "no checksum finding at \(values.ref):\n\(describe(findings))")

        // A flip that makes the header itself invalid (the role byte) is named at the node too.
        let (path2, directory2) = try copy(named: "role.columnar")
        defer { directory2.cleanup() }
        try FileSurgery.write(path2, at: values.ref + 6, [0xEE])
        let invalid = try verifyFindings(path2)
        XCTAssertTrue(invalid.contains { $0.offset == values.ref && $0.what.contains("invalid header") },
                      describe(invalid))
    }

    func testARefPastTheEndOfTheFileIsFoundWithTheNodeHoldingIt() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let cluster = try XCTUnwrap(structure.nodes.first { $0.role == FileSurgery.roleCluster && $0.table == 1 })
        let fileSize = try fileSizeBytes(atPath: path)
        let badRef = fileSize + 4096
        try FileSurgery.writeUInt64(path, at: cluster.ref + 16 + 8, badRef)   // the first column's leaf
        try FileSurgery.fixChecksum(path, ref: cluster.ref)
        let findings = try verifyFindings(path)
        XCTAssertTrue(findings.contains { $0.offset == badRef && $0.what.contains("past the end")
                                          && $0.what.contains("\(cluster.ref)") },
                      "no finding at \(badRef) naming the cluster at \(cluster.ref):\n\(describe(findings))")
    }

    func testTwoLiveNodesOverlappingAreFound() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let starts = Dictionary(structure.nodes.map { ($0.ref, $0) }, uniquingKeysWith: { first, _ in first })
        // A string blob directly followed by another live node: 8 more bytes make the blob reach into that node,
        // and the strings' offsets still lie inside the blob, so nothing else about the blob is wrong.
        let blob = try XCTUnwrap(structure.nodes.first { $0.role == FileSurgery.roleBlob && starts[$0.end] != nil })
        let next = try XCTUnwrap(starts[blob.end])
        let count = try FileSurgery.read(path, at: blob.ref + 8, count: 4)
        let newCount = UInt32(count[0]) | UInt32(count[1]) << 8 | UInt32(count[2]) << 16 | UInt32(count[3]) << 24 + 0
        try FileSurgery.write(path, at: blob.ref + 8, (0..<4).map { UInt8(truncatingIfNeeded: (newCount + 8) >> (8 * $0)) })
        try FileSurgery.fixChecksum(path, ref: blob.ref)
        let findings = try verifyFindings(path)
        XCTAssertTrue(findings.contains { $0.offset == next.ref && $0.what.contains("overlaps the node at \(blob.ref)") },
                      "no overlap finding at \(next.ref) (blob at \(blob.ref)):\n\(describe(findings))")
    }

    func testALiveNodeInsideFreeSpaceIsFound() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let free = structure.freeList
        XCTAssertGreaterThan(free.count, 2)
        let positions = try XCTUnwrap(structure.nodes.first { $0.role == FileSurgery.roleFreePos })
        let sizes = try XCTUnwrap(structure.nodes.first { $0.role == FileSurgery.roleFreeSize })
        // Entry i is moved onto a live node that lies between entries i - 1 and i + 1, so the list stays sorted.
        var choice: (index: Int, node: LiveNode)?
        for index in 1..<(free.count - 1) where choice == nil {
            let low = free[index - 1].pos + free[index - 1].size_bytes, high = free[index + 1].pos
            if let node = structure.nodes.first(where: { $0.ref >= low && $0.end <= high }) { choice = (index, node) }
        }
        let (index, node) = try XCTUnwrap(choice)
        try FileSurgery.packedSet(path, ref: positions.ref, width: 64, index: UInt64(index), Int64(node.ref))
        try FileSurgery.packedSet(path, ref: sizes.ref, width: 64, index: UInt64(index), Int64(node.sizeBytes))
        try FileSurgery.fixChecksum(path, ref: positions.ref)
        try FileSurgery.fixChecksum(path, ref: sizes.ref)
        let findings = try verifyFindings(path)
        XCTAssertTrue(findings.contains { $0.offset == node.ref
                                          && $0.what.contains("overlaps the live node at \(node.ref)") },
                      "no free-space finding at \(node.ref):\n\(describe(findings))")
    }

    func testABrokenBacklinkIsFoundAtTheClustersInvolved() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let sample = try self.sample
        let structure = try FileStructure.read(path)
        // A link value of table "all" is changed to another target object: the old target's backlinks now name an
        // object that does not link to it, and the new target's backlinks miss it.
        let leaf = try XCTUnwrap(structure.nodes.first {
            $0.table == sample.fixture.table && $0.column == sample.fixture.link && $0.role == FileSurgery.roleColumn })
        let values = try XCTUnwrap(structure.nodes.first { $0.parentRef == leaf.ref && $0.position == 0 })
        let nulls = structure.nodes.first { $0.parentRef == leaf.ref && $0.position == 1 }
        var row: UInt64?
        for index in 0..<values.count where row == nil {
            let isNull = try nulls.map { try FileSurgery.packedGet(path, ref: $0.ref, width: $0.width, index: index) } ?? 0
            if isNull == 0 { row = index }
        }
        let index = try XCTUnwrap(row)
        let old = try FileSurgery.packedGet(path, ref: values.ref, width: values.width, index: index)
        let new = old ^ 1   // another of the 16 target objects (keys 0 ... 15), in the same width
        try FileSurgery.packedSet(path, ref: values.ref, width: values.width, index: index, new)
        try FileSurgery.fixChecksum(path, ref: values.ref)
        let findings = try verifyFindings(path)
        XCTAssertTrue(findings.contains { $0.offset == leaf.parentRef && $0.what.contains("missing backlink")
                                          && $0.what.contains("links to object \(new)") },
                      "no missing-backlink finding at the cluster \(leaf.parentRef):\n\(describe(findings))")
        XCTAssertTrue(findings.contains { $0.what.contains("stale backlink") && $0.what.contains("object \(old)") },
                      describe(findings))
    }

    func testAStaleIndexEntryIsFoundAtTheIndexCluster() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let sample = try self.sample
        let structure = try FileStructure.read(path)
        // The indexed primary key "n" (multiples of 3) of one object is changed without its index: the index
        // still lists the object under the old value's hash.
        let leaf = try XCTUnwrap(structure.nodes.first {
            $0.table == sample.notes && $0.column == 0 && !$0.inIndex && $0.role == FileSurgery.roleColumn })
        let values = try XCTUnwrap(structure.nodes.first { $0.parentRef == leaf.ref && $0.position == 0 })
        let old = try FileSurgery.packedGet(path, ref: values.ref, width: values.width, index: 0)
        try FileSurgery.packedSet(path, ref: values.ref, width: values.width, index: 0, old + 1)
        try FileSurgery.fixChecksum(path, ref: values.ref)
        let indexClusters = Set(structure.nodes.filter {
            $0.table == sample.notes && $0.column == 0 && $0.inIndex && $0.role == FileSurgery.roleCluster
        }.map(\.ref))
        let findings = try verifyFindings(path)
        XCTAssertTrue(findings.contains { indexClusters.contains($0.offset) && $0.what.contains("stale index entry") },
                      "no stale-index finding at an index cluster \(indexClusters.sorted()):\n\(describe(findings))")
        XCTAssertTrue(findings.contains { $0.offset == leaf.parentRef && $0.what.contains("missing from the search index") },
                      describe(findings))
    }

    func testADamagedTopNodeIsReportedWhereTheEngineRefusesToOpen() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let top = structure.version.top_ref
        try FileSurgery.write(path, at: top + 6, [0])   // role 0: invalid
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try TestDatabase(path: path, flags: [.readOnly, .noLock]))
        let findings = try verifyFindings(path)
        XCTAssertTrue(findings.contains { $0.offset == top && $0.what.contains("invalid header") }, describe(findings))
        // The header still decodes, and the other subcommands show what they can.
        let header = try inspect("header", "--json", path)
        XCTAssertEqual(header.status, 0, header.description)
        for subcommand in ["info", "tables", "space", "schema"] {
            let result = try inspect(subcommand, "--json", path)
            XCTAssertEqual(result.status, 1, result.description)
            XCTAssertTrue(result.object().objects("findings").contains { $0.uint("offset") == top }, result.description)
        }
        let dump = try inspect("dump", path, "all")
        XCTAssertEqual(dump.status, 2, dump.description)
        XCTAssertTrue(dump.stderr.contains("\(top)"), dump.stderr)
    }

    func testADamagedCurrentSlotFallsBackToThePreviousVersionAndSaysSo() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let current = Int(structure.header.current_slot)
        let slotOffset = UInt64(32 + 48 * current)
        let byte = try FileSurgery.read(path, at: slotOffset + 16, count: 1)[0]
        try FileSurgery.write(path, at: slotOffset + 16, [byte ^ 0x10])   // its used size
        let result = try inspect("verify", "--json", path)
        XCTAssertEqual(result.status, 1, result.description)
        let json = result.object()
        XCTAssertEqual(json.int("slot"), Int64(1 - current))
        XCTAssertEqual(json.uint("version"), structure.version.version - 1)
        XCTAssertTrue(json.objects("findings").contains { $0.uint("offset") == slotOffset }, result.description)
        // Both slots bad: nothing can be read (exit 2), and the findings say why.
        try FileSurgery.write(path, at: UInt64(32 + 48 * (1 - current)) + 16, [0xFF])
        let unreadable = try inspect("verify", "--json", path)
        XCTAssertEqual(unreadable.status, 2, unreadable.description)
        XCTAssertEqual(unreadable.object().string("status"), "unreadable")
        XCTAssertTrue(unreadable.object().objects("findings").contains { $0.uint("offset") == 32 }, unreadable.description)
        let header = try inspect("header", path)
        XCTAssertEqual(header.status, 2, header.description)
        XCTAssertTrue(header.stdout.contains("FAILS"), header.stdout)
    }
}
