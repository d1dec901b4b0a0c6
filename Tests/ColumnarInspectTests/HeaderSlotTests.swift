// HeaderSlotTests.swift — the header's fifteen commit slots as the tool shows them: which versions are whole, why
// a slot is not (a range its commit record lists fails its checksum), that an older version that is no longer
// whole is normal, that --slot selects an older whole version or a usable one that is not whole (but not an
// empty one), and that `node` shows the ranges a commit record lists and whether they still match.

import CColumnar
import ColumnarTestSupport
import XCTest

final class HeaderSlotTests: SampleDatabaseTestCase {
    /// The sample's latest version and a node its last commit wrote (the text leaf of the last note's cluster).
    private func latestCommitNode(_ structure: FileStructure) throws -> LiveNode {
        let sample = try self.sample
        let node = try XCTUnwrap(structure.nodes.last {
            $0.table == sample.notes && $0.column == 1 && !$0.inIndex && $0.role == FileSurgery.roleValues
        })
        XCTAssertTrue(structure.isRecorded(node), "the last commit wrote the last note's text")
        return node
    }

    func testTheHeaderListsFifteenSlotsAndNamesWhyOneIsNotWhole() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let latest = structure.version.version
        let node = try latestCommitNode(structure)
        let range = try XCTUnwrap(structure.record.first { $0.contains(node) })
        let byte = try FileSurgery.read(path, at: node.ref + 16, count: 1)[0]
        try FileSurgery.write(path, at: node.ref + 16, [byte ^ 0x01])

        let result = try inspect("header", "--json", path)
        XCTAssertEqual(result.status, 1, "a slot above the current version that is not whole is a finding")
        let json = result.object()
        let slots = json.objects("slots")
        XCTAssertEqual(slots.count, 15)
        XCTAssertEqual(json.int("currentSlot"), Int64(FileSurgery.slot(of: latest - 1)))
        XCTAssertEqual(json.uint("currentVersion"), latest - 1)
        let damaged = slots[FileSurgery.slot(of: latest)]
        XCTAssertEqual(damaged.uint("version"), latest)
        XCTAssertEqual(damaged.bool("checksumValid"), true, "the slot itself is intact")
        XCTAssertEqual(damaged.bool("usable"), true)
        XCTAssertEqual(damaged.bool("whole"), false)
        XCTAssertEqual(damaged.bool("current"), false)
        let problem = try XCTUnwrap(damaged.string("problem"))
        XCTAssertTrue(problem.contains("the \(range.sizeBytes) bytes at \(range.pos) written by version \(latest) fail "
                                       + "their checksum"), problem)
        for version in 1..<latest {
            XCTAssertEqual(slots[FileSurgery.slot(of: version)].bool("whole"), true, "version \(version)")
        }
        XCTAssertTrue(json.objects("findings").contains {
            $0.uint("offset") == FileSurgery.slotOffset(FileSurgery.slot(of: latest))
                && ($0.string("what") ?? "").contains("not whole")
        }, result.description)

        let text = try inspect("header", path)
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.stdout.contains("usable, NOT whole"), text.stdout)
        XCTAssertTrue(text.stdout.contains("whole, current"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Why not whole:\n  slot \(FileSurgery.slot(of: latest)), version \(latest): "
                                           + problem), text.stdout)
    }

    func testAnOlderVersionThatIsNoLongerWholeIsNormal() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let latest = structure.version.version
        let olderSlot = FileSurgery.slot(of: latest - 1)
        let older = try FileStructure.read(path, slot: olderSlot)
        // A node the previous version's record lists and the latest version freed: later commits may reuse that
        // space, which takes the previous version's wholeness with it.
        let freed = structure.freeList.filter { $0.version == latest }
        let node = try XCTUnwrap(older.nodes.first { node in
            node.role != FileStructure.roleTop && node.role != FileStructure.roleCommitRecord && older.isRecorded(node)
                && freed.contains { $0.pos <= node.ref && node.end <= $0.pos + $0.size_bytes }
        })
        let byte = try FileSurgery.read(path, at: node.ref + 16, count: 1)[0]
        try FileSurgery.write(path, at: node.ref + 16, [byte ^ 0x01])

        let result = try inspect("header", "--json", path)
        XCTAssertEqual(result.status, 0, result.description)
        let slot = result.object().objects("slots")[olderSlot]
        XCTAssertEqual(slot.bool("usable"), true)
        XCTAssertEqual(slot.bool("whole"), false)
        XCTAssertEqual(result.object().uint("currentVersion"), latest)
        XCTAssertEqual(result.object().objects("findings").count, 0)
        let text = try inspect("header", path)
        XCTAssertTrue(text.stdout.contains("slot \(olderSlot), version \(latest - 1) (older than the current version: "
                                           + "later commits may have reused its space)"), text.stdout)
        XCTAssertEqual(try inspect("verify", path).status, 0, "the current version is sound")
        // Walked by its slot, the older version shows the damage.
        let walked = try inspect("verify", "--json", "--slot", "\(olderSlot)", path)
        XCTAssertEqual(walked.status, 1, walked.description)
        XCTAssertTrue(walked.object().objects("findings").contains { $0.uint("offset") == node.ref }, walked.description)
    }

    func testSlotSelectsAnOlderWholeVersion() throws {
        let sample = try self.sample
        let structure = try FileStructure.read(sample.path)
        let latest = structure.version.version
        let olderSlot = FileSurgery.slot(of: latest - 1)
        let info = try inspect("info", "--json", "--slot", "\(olderSlot)", sample.path)
        XCTAssertEqual(info.status, 0, info.description)
        XCTAssertEqual(info.object().uint("version"), latest - 1)
        XCTAssertEqual(info.object().int("headerSlot"), Int64(olderSlot))
        XCTAssertEqual(info.object().uint("topRef"), structure.slots[olderSlot].top_ref)
        let verify = try inspect("verify", "--slot", "\(olderSlot)", sample.path)
        XCTAssertEqual(verify.status, 0, verify.description)
        XCTAssertTrue(verify.stdout.contains("sound, version \(latest - 1) (header slot \(olderSlot))"), verify.stdout)
        for subcommand in ["schema", "tables", "space"] {
            let result = try inspect(subcommand, "--json", "--slot", "\(olderSlot)", sample.path)
            XCTAssertEqual(result.status, 0, result.description)
            XCTAssertEqual(result.object().uint("version"), latest - 1, result.description)
        }
    }

    func testSlotSelectsAUsableVersionThatIsNotWholeButNotAnEmptySlot() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let latest = structure.version.version
        let node = try latestCommitNode(structure)
        let byte = try FileSurgery.read(path, at: node.ref + 16, count: 1)[0]
        try FileSurgery.write(path, at: node.ref + 16, [byte ^ 0x01])
        let slot = FileSurgery.slot(of: latest)
        let info = try inspect("info", "--json", "--slot", "\(slot)", path)
        XCTAssertEqual(info.status, 1, info.description)
        XCTAssertEqual(info.object().uint("version"), latest)
        XCTAssertTrue(info.object().objects("findings").contains {
            $0.uint("offset") == FileSurgery.slotOffset(slot) && ($0.string("what") ?? "").contains("not whole")
        }, info.description)
        let decoded = try inspect("node", "--json", "--slot", "\(slot)", path, "\(node.ref)")
        XCTAssertEqual(decoded.object().bool("live"), true, "the node is live in the selected version")
        XCTAssertEqual(decoded.object().bool("checksumValid"), false)

        let empty = structure.slots.indices.first { structure.slots[$0].is_zero }!
        let refused = try inspect("info", "--json", "--slot", "\(empty)", path)
        XCTAssertEqual(refused.status, 2, refused.description)
        XCTAssertTrue((refused.object().string("error") ?? "").contains("header slot \(empty) (offset "
                                                                        + "\(FileSurgery.slotOffset(empty))) is not usable"),
                      refused.description)
    }

    func testNodeShowsTheRangesACommitRecordListsAndWhetherTheyStillMatch() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let record = try XCTUnwrap(structure.nodes.first { $0.role == FileStructure.roleCommitRecord })
        XCTAssertEqual(record.what, "commit record")
        XCTAssertEqual(record.parentRef, structure.version.top_ref)
        XCTAssertEqual(record.position, 6, "the top node's last child")
        let result = try inspect("node", "--json", path, "\(record.ref)")
        XCTAssertEqual(result.status, 0, result.description)
        let ranges = result.object().objects("commitRecord")
        XCTAssertFalse(ranges.isEmpty)
        XCTAssertEqual(ranges.map { $0.uint("pos") }, structure.record.map { Optional($0.pos) })
        XCTAssertEqual(ranges.map { $0.uint("sizeBytes") }, structure.record.map { Optional($0.sizeBytes) })
        XCTAssertEqual(ranges.map { $0.uint("version") }, structure.record.map { Optional($0.version) })
        XCTAssertTrue(ranges.allSatisfy { $0.bool("checksumValid") == true }, "the current version is whole")
        let text = try inspect("node", path, "\(record.ref)")
        XCTAssertTrue(text.stdout.contains("Role         19 (COMMIT_RECORD)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Commit record: \(ranges.count) range"), text.stdout)

        // A flipped byte inside a range: the node itself is intact, the range no longer matches.
        let node = try latestCommitNode(structure)
        let byte = try FileSurgery.read(path, at: node.ref + 16, count: 1)[0]
        try FileSurgery.write(path, at: node.ref + 16, [byte ^ 0x01])
        let damaged = try inspect("node", "--json", path, "\(record.ref)")
        XCTAssertEqual(damaged.status, 0, "the record node's own checksum holds")
        let failing = damaged.object().objects("commitRecord").filter { $0.bool("checksumValid") == false }
        XCTAssertEqual(failing.count, 1, damaged.description)
        let failingPos = try XCTUnwrap(failing.first?.uint("pos"))
        XCTAssertTrue(structure.record.contains { $0.pos == failingPos && $0.contains(node) })
        XCTAssertTrue(try inspect("node", path, "\(record.ref)").stdout.contains("DO NOT MATCH"))
    }
}
