// FuzzRegressionTests — the essence of each problem the engine's fuzzing found (docs/Reliability.md), and of the
// known problems that fuzzing was started for: a file built through the API, damaged in the node or field that
// carried the fault, then read, written and verified. Each must end in an error code (or a verify finding), never
// a crash, a write outside memory the engine owns (these tests run under AddressSanitizer in `make asan`), a hang
// or live data put on the free list.

import CColumnar
import ColumnarTestSupport
import Foundation
import Glibc
import XCTest

final class FuzzRegressionTests: DatabaseTestCase {
    override var databaseName: String { "fuzz-regressions" }
    /// Small clusters: a few dozen objects make inner nodes.
    override var clusterSize: UInt32 { 4 }

    private static let roleInner: UInt8 = 10
    private static let roleCluster: UInt8 = 11
    private static let roleKeys: UInt8 = 12
    private static let roleColumn: UInt8 = 13
    private static let roleValues: UInt8 = 14
    /// CC_MAX_LEAF_ROWS (tree.h): the most rows a leaf a writer makes can hold.
    private static let maxLeafRows: UInt32 = 4 * 65_536

    // MARK: Helpers

    /// Closes the database, lets `damage` change the file, and opens it again.
    private func damage(_ body: (FileStructure) throws -> Void) throws {
        try settle()
        db.close()
        let structure = try FileStructure.read(path)
        XCTAssertTrue(structure.nodes.allSatisfy { $0.table == COLUMNAR_NO_TABLE || !structure.isRecorded($0) },
                      "the latest commit record lists no node of a table")
        try body(structure)
        try reopen()
    }

    /// Makes what was committed durable and commits once more, changing nothing. This database commits without
    /// waiting for syncs, so the nodes of its latest commits are listed in its commit record: damage there reads as
    /// a write torn by a power cut, and the file would open at the version before the damage instead of meeting it.
    private func settle() throws {
        try db.sync()
        try db.write { _ in }
    }

    /// A table "items" with an int column "value" (and any further columns `extra` adds) holding `count` objects
    /// with keys 0 ..< count, in clusters of 4.
    @discardableResult
    private func makeItems(count: Int, extra: (Transaction, TableID) throws -> Void = { _, _ in })
        throws -> (table: TableID, value: ColumnID) {
        try db.write { txn in
            let table = try txn.addTable("items")
            let value = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT)
            try extra(txn, table)
            for index in 0..<count { try txn.set(table, try txn.createObject(table), value, .int(index)) }
            return (table, value)
        }
    }

    /// The nodes of `table`'s own tree (not its indexes, not collections) with `role`, shallowest first, then in
    /// file order; with `parentRole`, only those whose parent has it.
    private func treeNodes(_ structure: FileStructure, table: TableID, role: UInt8, parentRole: UInt8? = nil)
        -> [LiveNode] {
        structure.nodes.filter {
            $0.table == table && $0.role == role && !$0.inIndex && !$0.inCollection &&
                (parentRole == nil || $0.parentRole == parentRole)
        }.sorted { ($0.depth, $0.ref) < ($1.depth, $1.ref) }
    }

    /// Runs `body` with glibc filling the memory it hands out with a pattern (mallopt M_PERTURB), so that code using
    /// memory it never wrote fails here as it does under AddressSanitizer, instead of finding zeros by luck. (Swift's
    /// Glibc module does not import malloc.h's mallopt; it is looked up by name.)
    private func withPerturbedMalloc<R>(_ body: () throws -> R) rethrows -> R {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let perturb: Int32 = -6   // M_PERTURB
        guard let symbol = dlsym(nil, "mallopt") else { return try body() }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(perturb, 0xA5)
        defer { _ = mallopt(perturb, 0) }
        return try body()
    }

    /// Changes the schema of the closed database (`edit` gets the SCHEMA node's field offsets), fixes the node's
    /// checksum and expects the file to be refused when it is opened. Were it opened, `use` does what once crashed.
    private func assertSchemaRefused(_ edit: (SchemaLayout) throws -> Void, use: () throws -> Void,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        try settle()
        db.close()
        let layout = try SchemaLayout.read(path)
        try edit(layout)
        try FileSurgery.fixChecksum(path, ref: layout.ref)
        do {
            try reopen()
        } catch let error as EngineError {
            XCTAssertEqual(error.code, COLUMNAR_ECORRUPT, "\(error)", file: file, line: line)
            XCTAssertTrue(error.message.contains("schema"), "\(error)", file: file, line: line)
            return
        }
        try use()
        XCTFail("the damaged schema was accepted", file: file, line: line)
    }

    /// Sets (or with `clear`, clears) `bits` in the byte at `offset`.
    private func setBits(_ bits: UInt8, at offset: UInt64, clear: Bool = false) throws {
        let byte = try FileSurgery.read(path, at: offset, count: 1)[0]
        try FileSurgery.write(path, at: offset, [clear ? byte & ~bits : byte | bits])
    }

    /// Asserts that verify finds something (the damage) and that none of its findings is `forbidden`.
    private func assertVerifyFinds(_ txn: Transaction, mentioning expected: String? = nil, notMentioning forbidden: String? = nil,
                                   file: StaticString = #filePath, line: UInt = #line) {
        let report = txn.verify()
        XCTAssertEqual(report.code, COLUMNAR_ECORRUPT, "\(report)", file: file, line: line)
        if let expected {
            XCTAssertTrue(report.findings.contains { $0.what.contains(expected) }, "\(report)", file: file, line: line)
        }
        if let forbidden {
            XCTAssertFalse(report.findings.contains { $0.what.contains(forbidden) }, "\(report)", file: file, line: line)
        }
    }

    // MARK: Copying damaged tree nodes

    /// Copying an inner node for a write filled in its children one by one, and the inner node held a count set
    /// before them: a null child after valid ones made the failure path free the slots not yet filled in,
    /// uninitialised pointers. The write now fails with COLUMNAR_ECORRUPT and nothing else happens.
    func testAWriteThroughAnInnerNodeWithANullChildFails() throws {
        let (table, value) = try makeItems(count: 64)
        try damage { structure in
            let root = try XCTUnwrap(treeNodes(structure, table: table, role: Self.roleInner).first)
            XCTAssertEqual(root.count, 17, "16 clusters of 4 objects under one inner node")
            // The second child (keys 4 ..< 8): fourteen slots after it are not filled in when the copy fails.
            try FileSurgery.writeUInt64(path, at: root.ref + 16 + 8 * 2, 0)
            try FileSurgery.fixChecksum(path, ref: root.ref)
        }
        let txn = try db.beginWrite()
        try withPerturbedMalloc {
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.set(table, 0, value, .int(-1)))
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.createObject(table))
        }
        txn.rollback()
        try db.read { txn in
            XCTAssertEqual(try txn.getInt(table, 63, value), 63)
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.getInt(table, 5, value))
            assertVerifyFinds(txn, mentioning: "null")
        }
    }

    /// A cluster whose copy failed half-way (its second column leaf holds fewer values than the cluster has rows)
    /// had already put the first column's nodes on the transaction's to-free list. A commit after the failed write
    /// then listed live nodes as free, for a later commit to overwrite. The failed copy now takes them back.
    func testAFailedCopyOfAClusterLeavesItsNodesLive() throws {
        var other: ColumnID = 0
        let (table, value) = try makeItems(count: 8) { txn, table in
            other = try txn.addColumn(table, "other", COLUMNAR_TYPE_INT)
        }
        try db.write { txn in
            for key in 0..<8 { try txn.set(table, ObjectKey(key), other, .int(key * 1_000)) }
        }
        try damage { structure in
            let values = structure.nodes.filter {
                $0.table == table && $0.column == other && $0.role == Self.roleValues && !$0.inIndex
            }.sorted { $0.ref < $1.ref }
            // The values of the cluster holding key 0: the node whose first element is 0.
            let first = try XCTUnwrap(values.first { (try? FileSurgery.packedGet(path, ref: $0.ref, width: $0.width,
                                                                                   index: 0)) == 0 })
            try FileSurgery.setWidthAndCount(path, ref: first.ref, width: UInt8(first.width),
                                             count: UInt32(first.count - 1))
            try FileSurgery.fixChecksum(path, ref: first.ref)
        }
        let txn = try db.beginWrite()
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.set(table, 0, value, .int(-1)))
        try txn.commit()
        // Commits that reuse freed space must not overwrite the first column's values.
        for round in 0..<4 {
            try db.write { txn in try txn.set(table, 7, value, .int(Int64(100 + round))) }
        }
        try db.read { txn in
            for key in 0..<4 { XCTAssertEqual(try txn.getInt(table, ObjectKey(key), value), Int64(key)) }
            assertVerifyFinds(txn, mentioning: "values", notMentioning: "overlaps")
        }
    }

    // MARK: Counts read from disk

    /// A cluster's key array of width 0 has an empty payload whatever count it claims: 2^31 + 1 keys passed
    /// validation, the first write tried to copy them and looped forever (holding the writer lock) growing its key
    /// array, and columnar_verify collected 2^31 keys. The node is now refused when it is read.
    func testAClusterClaimingBillionsOfKeysAtWidthZeroIsRefused() throws {
        let (table, value) = try makeItems(count: 8)
        try damage { structure in
            // The keys of the second cluster (keys 4 ..< 8), written after the first.
            let keys = try XCTUnwrap(treeNodes(structure, table: table, role: Self.roleKeys,
                                               parentRole: Self.roleCluster).last)
            try FileSurgery.setWidthAndCount(path, ref: keys.ref, width: 0, count: (1 << 31) + 1)
        }
        let txn = try db.beginWrite()
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.set(table, 7, value, .int(-1)))
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.createObject(table))
        txn.rollback()
        try db.read { txn in
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.keys(table).count)
            assertVerifyFinds(txn, mentioning: "2147483649 elements")
        }
    }

    /// The same count bound for a key array whose payload is really there (width 8, 2^18 + 1 bytes of the file
    /// after it): no cluster a writer makes holds more than CC_MAX_LEAF_ROWS rows, so the tree refuses it before
    /// any copy or scan sizes anything by it, and verify reports the count instead of collecting the rows.
    func testAClusterWithMoreRowsThanAWriterMakesIsRefused() throws {
        let (table, value) = try makeItems(count: 8) { txn, _ in
            // A large value written after the items' clusters, so that a long key array still lies in the file.
            let blobs = try txn.addTable("blobs")
            let data = try txn.addColumn(blobs, "data", COLUMNAR_TYPE_BINARY)
            try txn.set(blobs, try txn.createObject(blobs), data, .binary(Data(repeating: 7, count: 400_000)))
        }
        try damage { structure in
            let keys = try XCTUnwrap(treeNodes(structure, table: table, role: Self.roleKeys,
                                               parentRole: Self.roleCluster).first)
            let blob = try XCTUnwrap(structure.nodes.filter { $0.payloadBytes >= 400_000 }.first)
            XCTAssertLessThan(keys.ref, blob.ref, "the blob follows the key array")
            try FileSurgery.setWidthAndCount(path, ref: keys.ref, width: 8, count: Self.maxLeafRows + 1)
        }
        let txn = try db.beginWrite()
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.set(table, 0, value, .int(-1)))
        txn.rollback()
        try db.read { txn in
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.keys(table).count)
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.getInt(table, 0, value))
            assertVerifyFinds(txn, mentioning: "rows are not read")
        }
    }

    // MARK: Search indexes

    /// An index cluster that stores no leaf for its first-key column reads every row's default. The default was
    /// written as 16 bytes whatever the column, into the 8-byte key the index lookup had on its stack.
    func testAnIndexClusterWithoutItsFirstKeyColumnIsReadWithinItsCells() throws {
        var number: ColumnID = 0
        let (table, _) = try makeItems(count: 12) { txn, table in
            number = try txn.addColumn(table, "number", COLUMNAR_TYPE_INT, indexed: true)
        }
        try db.write { txn in
            for key in 0..<12 { try txn.set(table, ObjectKey(key), number, .int(key % 3)) }
        }
        try damage { structure in
            let clusters = structure.nodes.filter { $0.table == table && $0.column == number && $0.inIndex &&
                                                    $0.role == Self.roleCluster }
            XCTAssertFalse(clusters.isEmpty)
            for cluster in clusters {
                try FileSurgery.writeUInt64(path, at: cluster.ref + 16 + 8, 0)
                try FileSurgery.fixChecksum(path, ref: cluster.ref)
            }
        }
        try db.read { txn in
            // The lookups read key 0 for every entry: whatever they answer, they answer with values or errors.
            for wanted in 0..<3 { _ = try? txn.findFirst(table, number, .int(Int64(wanted))) }
            var index: [Int64] = Array(repeating: 0, count: 64)
            var keys: [columnar_key] = Array(repeating: 0, count: 64)
            var count = 0
            _ = columnar_index_ordered_entries(txn.handle, table, number, &index, &keys, 64, &count)
            var extreme = columnar_value()
            var found = false
            _ = columnar_index_extreme(txn.handle, table, number, true, &extreme, &found)
            assertVerifyFinds(txn)
        }
        // A write reads the index entry it changes the same way.
        let txn = try db.beginWrite()
        _ = try? txn.set(table, 4, number, .int(9))
        txn.rollback()
    }

    // MARK: Links

    /// A link to an object that does not exist (a damaged value): changing it looked for the old target's backlinks
    /// and answered COLUMNAR_ENOTFOUND, as if the caller had named a missing object. It is damage.
    func testChangingALinkToAMissingObjectReportsDamage() throws {
        let (people, pets, owner) = try db.write { txn -> (TableID, TableID, ColumnID) in
            let people = try txn.addTable("people")
            let pets = try txn.addTable("pets")
            let owner = try txn.addColumn(pets, "owner", COLUMNAR_TYPE_LINK, target: people)
            for _ in 0..<4 { _ = try txn.createObject(people) }
            try txn.deleteObject(people, 2)
            for target in [3, 1] as [Int64] { try txn.set(pets, try txn.createObject(pets), owner, .link(target)) }
            return (people, pets, owner)
        }
        try damage { structure in
            let values = try XCTUnwrap(structure.nodes.first {
                $0.table == pets && $0.column == owner && $0.role == Self.roleValues && !$0.inIndex
            })
            XCTAssertEqual(try FileSurgery.packedGet(path, ref: values.ref, width: values.width, index: 1), 1)
            try FileSurgery.packedSet(path, ref: values.ref, width: values.width, index: 1, 2)
            try FileSurgery.fixChecksum(path, ref: values.ref)
        }
        let txn = try db.beginWrite()
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.set(pets, 1, owner, .null))
        txn.rollback()
        try db.read { txn in
            XCTAssertEqual(try txn.get(pets, 1, owner), .link(2))
            XCTAssertEqual(try txn.count(people), 3)
            assertVerifyFinds(txn, mentioning: "does not exist")
        }
    }

    // MARK: Collections

    /// A list of bools whose values node claims 2^32 - 16 elements at one bit each (a payload of 512 MiB the file
    /// does not have, were the width honoured; at width 0 none at all): found by the fuzzer as a timeout, the
    /// integrity walk checking each of the four billion claimed flags. Such a node is refused when it is read.
    func testABoolListClaimingBillionsOfElementsIsRefusedAtOnce() throws {
        var flags: ColumnID = 0
        let (table, _) = try makeItems(count: 2) { txn, table in
            flags = try txn.addColumn(table, "flags", COLUMNAR_TYPE_BOOL, collection: COLUMNAR_COLLECTION_LIST)
        }
        try db.write { txn in
            for index in 0..<5 { try txn.listAppend(table, 1, flags, .bool(index % 2 == 0)) }
        }
        try damage { structure in
            let values = try XCTUnwrap(structure.nodes.first {
                $0.table == table && $0.column == flags && $0.inCollection && $0.role == Self.roleValues
            })
            try FileSurgery.setWidthAndCount(path, ref: values.ref, width: 0, count: UInt32.max - 15)
        }
        let started = Date()
        try db.read { txn in
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.size(table, 1, flags))
            assertVerifyFinds(txn, mentioning: "4294967280 elements")
        }
        let txn = try db.beginWrite()
        XCTAssertEngineError(COLUMNAR_ECORRUPT, try txn.listAppend(table, 1, flags, .bool(true)))
        txn.rollback()
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "no walk over the claimed elements")
    }

    /// A list's inner node whose cumulative counts claim more elements than its leaves hold: the list's size is
    /// what the root claims, so list_insert, list_set, list_move and list_remove accepted positions up to it, and
    /// after the list was copied into memory (with the elements the leaves really hold) wrote past the copy. The
    /// copy now checks the counts and the write fails.
    func testAListWhoseCountsClaimMoreElementsThanItsLeavesHoldIsRefusedByWrites() throws {
        var numbers: ColumnID = 0
        let (table, _) = try makeItems(count: 2) { txn, table in
            numbers = try txn.addColumn(table, "numbers", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
        }
        try db.write { txn in
            for index in 0..<2_500 { try txn.listAppend(table, 1, numbers, .int(index)) }
        }
        try damage { structure in
            let counts = try XCTUnwrap(structure.nodes.first {
                $0.table == table && $0.column == numbers && $0.inCollection && $0.parentRole == 17 && $0.role == 2
            })
            XCTAssertEqual(counts.count, 3, "2,500 elements are three leaves")
            try FileSurgery.packedSet(path, ref: counts.ref, width: counts.width, index: 2, 3_000)
            try FileSurgery.fixChecksum(path, ref: counts.ref)
        }
        try db.read { txn in XCTAssertEqual(try txn.size(table, 1, numbers), 3_000) }
        let writes: [(String, (Transaction) throws -> Void)] = [
            ("insert", { try $0.listInsert(table, 1, numbers, at: 2_999, .int(-1)) }),
            ("set", { try $0.listSet(table, 1, numbers, at: 2_800, .int(-1)) }),
            ("move", { try $0.listMove(table, 1, numbers, from: 0, to: 2_999) }),
            ("remove", { try $0.listRemove(table, 1, numbers, at: 2_900) }),
        ]
        for (name, write) in writes {
            let txn = try db.beginWrite()
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try write(txn), name)
            txn.rollback()
        }
        try db.read { txn in assertVerifyFinds(txn, mentioning: "counts") }
    }

    // MARK: Undefined behaviour (found with UndefinedBehaviorSanitizer; these paths run under it in the fuzzer)

    /// An empty prefix may be passed without bytes (NULL, size 0); the prefix query handed that NULL to memchr.
    func testAnEmptyPrefixWithoutBytesCountsEveryString() throws {
        let (table, name) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("names")
            let name = try txn.addColumn(table, "name", COLUMNAR_TYPE_STRING, nullable: true, indexed: true)
            for (index, text) in ["", "a", "ab", "b"].enumerated() {
                try txn.set(table, try txn.createObject(table), name, .string(text))
                if index == 1 { _ = try txn.createObject(table) }   // a null
            }
            return (table, name)
        }
        try db.read { txn in
            var count: UInt64 = 0
            try check(columnar_index_count_prefix(txn.handle, table, name, nil, 0, &count))
            XCTAssertEqual(count, 4)
        }
    }

    /// Timestamps and strings were compared through struct pointers into byte buffers of any alignment (a lookup
    /// without an index, set membership): they are now copied out first.
    func testTimestampsAndStringsAreComparedFromCellsOfAnyAlignment() throws {
        let (table, when, words) = try db.write { txn -> (TableID, ColumnID, ColumnID) in
            let table = try txn.addTable("events")
            let when = try txn.addColumn(table, "when", COLUMNAR_TYPE_TIMESTAMP)
            let words = try txn.addColumn(table, "words", COLUMNAR_TYPE_STRING, collection: COLUMNAR_COLLECTION_SET)
            for index in 0..<6 {
                let key = try txn.createObject(table)
                try txn.set(table, key, when, .timestamp(seconds: Int64(index) * 60, nanoseconds: Int32(index)))
                _ = try txn.setInsert(table, key, words, .string("word \(index)"))
            }
            return (table, when, words)
        }
        try db.read { txn in
            XCTAssertEqual(try txn.findFirst(table, when, .timestamp(seconds: 240, nanoseconds: 4)), 4)
            XCTAssertTrue(try txn.contains(table, 3, words, .string("word 3")))
            XCTAssertFalse(try txn.contains(table, 3, words, .string("word 4")))
        }
    }

    // MARK: The schema

    /// A single link whose column lost its nullable flag: deleting the linked object sets the link to null, which
    /// wrote through the column's absent null flags. Such a schema is refused when it is decoded.
    func testASingleLinkThatIsNotNullableIsRefused() throws {
        let (people, pets, owner) = try db.write { txn -> (TableID, TableID, ColumnID) in
            let people = try txn.addTable("people")
            let pets = try txn.addTable("pets")
            let owner = try txn.addColumn(pets, "owner", COLUMNAR_TYPE_LINK, target: people)
            let person = try txn.createObject(people)
            for index in 0..<3 {
                let pet = try txn.createObject(pets)
                if index > 0 { try txn.set(pets, pet, owner, .link(person)) }
            }
            return (people, pets, owner)
        }
        try assertSchemaRefused({ layout in
            try setBits(1, at: layout.tables[Int(pets)].columns[Int(owner)].flagsOffset, clear: true)
        }, use: {
            try db.write { txn in try txn.deleteObject(people, 0) }
        })
    }

    /// A primary key naming a removed column: creating an object by primary key wrote the value into the removed
    /// column's cells, which a private leaf does not have.
    func testAPrimaryKeyNamingARemovedColumnIsRefused() throws {
        let (table, removed) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("users")
            let id = try txn.addColumn(table, "id", COLUMNAR_TYPE_INT, indexed: true)
            let removed = try txn.addColumn(table, "old id", COLUMNAR_TYPE_INT)
            try txn.setPrimaryKey(table, column: id)
            _ = try txn.createObject(table, primaryKey: .int(1))
            try txn.removeColumn(table, removed)
            return (table, removed)
        }
        try assertSchemaRefused({ layout in
            let primaryKey = layout.tables[Int(table)].primaryKeyOffset
            try FileSurgery.write(path, at: primaryKey, (0..<4).map { UInt8(truncatingIfNeeded: removed >> (8 * $0)) })
        }, use: {
            try db.write { txn in _ = try txn.createObject(table, primaryKey: .int(2)) }
        })
    }

    /// A backlink column that is not a list of links: backlink maintenance took its 8-byte cells for collection
    /// cells twice their size.
    func testABacklinkColumnThatIsNotAListIsRefused() throws {
        let (people, pets, owner) = try db.write { txn -> (TableID, TableID, ColumnID) in
            let people = try txn.addTable("people")
            let pets = try txn.addTable("pets")
            let owner = try txn.addColumn(pets, "owner", COLUMNAR_TYPE_LINK, target: people)
            return (people, pets, owner)
        }
        try assertSchemaRefused({ layout in
            let backlink = try XCTUnwrap(layout.tables[Int(people)].columns.first { $0.name.hasPrefix("@backlink") })
            try FileSurgery.write(path, at: backlink.collectionOffset, [UInt8(COLUMNAR_COLLECTION_NONE.rawValue)])
        }, use: {
            try db.write { txn in
                let person = try txn.createObject(people)
                try txn.set(pets, try txn.createObject(pets), owner, .link(person))
            }
        })
    }

    /// Search indexes only where the writer makes them: not on a collection, nor on a type without index keys.
    func testAnIndexOnAColumnThatCannotHaveOneIsRefused() throws {
        let (table, scores) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("results")
            let scores = try txn.addColumn(table, "scores", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            _ = try txn.addColumn(table, "ratio", COLUMNAR_TYPE_DOUBLE)
            try txn.listAppend(table, try txn.createObject(table), scores, .int(3))
            return (table, scores)
        }
        for column in [scores, scores + 1] {
            try assertSchemaRefused({ layout in
                try setBits(2, at: layout.tables[Int(table)].columns[Int(column)].flagsOffset)
            }, use: {
                try db.write { txn in try txn.deleteObject(table, 0) }
            })
            try setBits(2, at: try SchemaLayout.read(path).tables[Int(table)].columns[Int(column)].flagsOffset,
                        clear: true)
            try FileSurgery.fixChecksum(path, ref: try SchemaLayout.read(path).ref)
            try reopen()
        }
    }
}
