// InjectedFaultTests.swift — `verify` finds each fault the issue names and says where it is: a flipped byte in a
// node header, a ref past the end of the file, two live nodes overlapping, a live node inside free space, a
// broken backlink and a stale index entry. Faults other than the flipped byte keep every node checksum valid (the
// damaged node's CRC is recomputed), so that the check the test is about is the one that must find them.
//
// Damage to a node the latest commit wrote (listed in its commit record) makes that version not whole: the
// engine and the tool open the version before it, as after a crash, and the header findings say so. The faults
// are therefore placed in nodes no recorded range covers, where the walk of the latest version must find them,
// except in the free list, which every commit rewrites: there the test selects the damaged version's slot.

import CColumnar
import ColumnarTestSupport
import XCTest

final class InjectedFaultTests: SampleDatabaseTestCase {
    /// Runs `verify --json` (with `--slot` when given) and returns its findings; the exit status must be 1.
    private func verifyFindings(_ path: String, slot: Int? = nil, file: StaticString = #filePath,
                                line: UInt = #line) throws -> [(offset: UInt64, what: String)] {
        let slotArguments = slot.map { ["--slot", "\($0)"] } ?? []
        let result = try inspect(["verify", "--json"] + slotArguments + [path], file: file, line: line)
        XCTAssertEqual(result.status, 1, result.description, file: file, line: line)
        let json = result.object(file: file, line: line)
        XCTAssertEqual(json.string("status"), "findings", file: file, line: line)
        if let slot { XCTAssertEqual(json.int("slot"), Int64(slot), file: file, line: line) }
        let text = try inspect(["verify"] + slotArguments + [path], file: file, line: line)
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
        XCTAssertFalse(structure.isRecorded(values), "a node the latest commit did not write")
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
        XCTAssertFalse(structure.isRecorded(cluster), "a node the latest commit did not write")
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
        let blob = try XCTUnwrap(structure.nodes.first {
            $0.role == FileSurgery.roleBlob && starts[$0.end] != nil && !structure.isRecorded($0)
        })
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
        // Every commit writes the free list anew, so the latest commit's record lists it: the version is no longer
        // whole and the tool, like the engine, falls back to the version before it, and says so.
        XCTAssertTrue(structure.isRecorded(positions))
        let current = Int(structure.version.slot)
        let fallback = try verifyFindings(path)
        XCTAssertTrue(fallback.contains { $0.offset == FileSurgery.slotOffset(current) && $0.what.contains("not whole") },
                      describe(fallback))
        // Its slot selected, the damaged version is walked, and the walk names the node inside free space.
        let findings = try verifyFindings(path, slot: current)
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
        XCTAssertFalse(structure.isRecorded(values), "a node the latest commit did not write")
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
        XCTAssertFalse(structure.isRecorded(values), "a node the latest commit did not write")
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

    func testDamageToANodeTheLatestCommitWroteReadsAsACommitCutShort() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let sample = try self.sample
        let structure = try FileStructure.read(path)
        let latest = structure.version.version
        let current = FileSurgery.slot(of: latest)
        // The last commit changed the text of the last note: its leaf is one of the nodes that commit wrote.
        let text = try XCTUnwrap(structure.nodes.last {
            $0.table == sample.notes && $0.column == 1 && !$0.inIndex && $0.role == FileSurgery.roleValues
        })
        XCTAssertTrue(structure.isRecorded(text))
        let byte = try FileSurgery.read(path, at: text.ref + 16, count: 1)[0]
        try FileSurgery.write(path, at: text.ref + 16, [byte ^ 0x20])
        // The engine opens the version before, without the edit, as if the commit had never happened.
        let db = try TestDatabase(path: path, flags: [.readOnly, .noLock])
        let (version, lastText) = try db.read { txn -> (UInt64, Value) in
            let last = try XCTUnwrap(try txn.keys(sample.notes).last)
            return (txn.version, try txn.get(sample.notes, last, try txn.findColumn(sample.notes, "text")))
        }
        db.close()
        XCTAssertEqual(version, latest - 1)
        XCTAssertNotEqual(lastText, .string(SampleDatabase.lastEdit))
        // So does the tool, and the finding names the slot and the range that fails.
        let range = try XCTUnwrap(structure.record.first { $0.contains(text) })
        let findings = try verifyFindings(path)
        XCTAssertTrue(findings.contains { $0.offset == FileSurgery.slotOffset(current)
                                          && $0.what.contains("holds version \(latest), which is not whole")
                                          && $0.what.contains("at \(range.pos) written by version \(latest)")
                                          && $0.what.contains("the engine opens version \(latest - 1)") },
                      describe(findings))
        let verify = try inspect("verify", "--json", path)
        XCTAssertEqual(verify.object().uint("version"), latest - 1, verify.description)
        // The damaged version can still be walked by its slot: the walk names the node.
        let walked = try verifyFindings(path, slot: current)
        XCTAssertTrue(walked.contains { $0.offset == text.ref && $0.what.contains("checksum") }, describe(walked))
    }

    func testADamagedTopNodeMakesThePreviousVersionCurrentAndCanStillBeInspectedBySlot() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let top = structure.version.top_ref
        let latest = structure.version.version
        let current = FileSurgery.slot(of: latest)
        try FileSurgery.write(path, at: top + 6, [0])   // role 0: invalid
        // The engine opens the version before (its top is checked before anything else of the version).
        let db = try TestDatabase(path: path, flags: [.readOnly, .noLock])
        XCTAssertEqual(try db.read { $0.version }, latest - 1)
        db.close()
        // The header says why: slot `current` is usable but not whole, because of its top node.
        let header = try inspect("header", "--json", path)
        XCTAssertEqual(header.status, 1, header.description)
        XCTAssertEqual(header.object().int("currentSlot"), Int64(FileSurgery.slot(of: latest - 1)))
        let slot = try XCTUnwrap(header.object().objects("slots").first { $0.int("slot") == Int64(current) })
        XCTAssertEqual(slot.bool("usable"), true)
        XCTAssertEqual(slot.bool("whole"), false)
        XCTAssertTrue((slot.string("problem") ?? "").contains("top node"), "\(slot)")
        // The version is walked when its slot is selected: verify names the top node, and the other subcommands
        // show what they can and name it too.
        let findings = try verifyFindings(path, slot: current)
        XCTAssertTrue(findings.contains { $0.offset == top && $0.what.contains("invalid header") }, describe(findings))
        for subcommand in ["info", "tables", "space", "schema"] {
            let result = try inspect(subcommand, "--json", "--slot", "\(current)", path)
            XCTAssertEqual(result.status, 1, result.description)
            XCTAssertTrue(result.object().objects("findings").contains { $0.uint("offset") == top }, result.description)
        }
        // dump reads through the engine, which opens the previous version; it says so and exits 1.
        let dump = try inspect("dump", "--json", path, "notes")
        XCTAssertEqual(dump.status, 1, dump.description)
        XCTAssertFalse(dump.stdout.contains(SampleDatabase.lastEdit), "the last commit's edit is gone")
        XCTAssertTrue(dump.object().objects("findings").contains {
            $0.uint("offset") == FileSurgery.slotOffset(current)
        }, dump.description)
        XCTAssertTrue(try inspect("dump", path, "notes").stderr.contains("the rows are those of version \(latest - 1)"))
    }

    func testADamagedCurrentSlotMakesThePreviousVersionCurrentAndNothingWholeIsUnreadable() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let latest = structure.version.version
        let current = Int(structure.header.current_slot)
        XCTAssertEqual(current, FileSurgery.slot(of: latest), "version v lives in slot v % 15")
        let slotOffset = FileSurgery.slotOffset(current)
        let byte = try FileSurgery.read(path, at: slotOffset + 16, count: 1)[0]
        try FileSurgery.write(path, at: slotOffset + 16, [byte ^ 0x10])   // its used size
        let result = try inspect("verify", "--json", path)
        XCTAssertEqual(result.status, 1, result.description)
        let json = result.object()
        XCTAssertEqual(json.int("slot"), Int64(FileSurgery.slot(of: latest - 1)))
        XCTAssertEqual(json.uint("version"), latest - 1)
        XCTAssertTrue(json.objects("findings").contains {
            $0.uint("offset") == slotOffset && ($0.string("what") ?? "").contains("fails its checksum")
                && ($0.string("what") ?? "").contains("the engine opens version \(latest - 1)")
        }, result.description)
        let header = try inspect("header", path)
        XCTAssertEqual(header.status, 1, header.description)
        XCTAssertTrue(header.stdout.contains("Current         version \(latest - 1) (slot "
                                             + "\(FileSurgery.slot(of: latest - 1)))"), header.stdout)
        XCTAssertTrue(header.stdout.contains("FAILS"), header.stdout)
        // A slot that is not usable cannot be selected.
        let selected = try inspect("info", "--slot", "\(current)", path)
        XCTAssertEqual(selected.status, 2, selected.description)
        XCTAssertTrue(selected.stderr.contains("not usable"), selected.description)

        // Every written slot damaged: no version is whole, nothing can be read (exit 2), and the findings say why.
        let written = structure.slots.enumerated().filter { !$0.element.is_zero }.map(\.offset)
        XCTAssertEqual(written.count, Int(latest), "versions 1 ... \(latest) each have their slot")
        for slot in written where slot != current {
            let at = FileSurgery.slotOffset(slot) + 16
            try FileSurgery.write(path, at: at, [try FileSurgery.read(path, at: at, count: 1)[0] ^ 0x10])
        }
        let unreadable = try inspect("verify", "--json", path)
        XCTAssertEqual(unreadable.status, 2, unreadable.description)
        XCTAssertEqual(unreadable.object().string("status"), "unreadable")
        let offsets = Set(unreadable.object().objects("findings").compactMap { $0.uint("offset") })
        for slot in written { XCTAssertTrue(offsets.contains(FileSurgery.slotOffset(slot)), unreadable.description) }
        XCTAssertTrue(unreadable.object().objects("findings").contains {
            ($0.string("what") ?? "").contains("no whole version")
        }, unreadable.description)
        let unreadableHeader = try inspect("header", path)
        XCTAssertEqual(unreadableHeader.status, 2, unreadableHeader.description)
        XCTAssertTrue(unreadableHeader.stdout.contains("none: no slot holds a whole version"), unreadableHeader.stdout)
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try TestDatabase(path: path, flags: [.readOnly, .noLock]))
    }
}
