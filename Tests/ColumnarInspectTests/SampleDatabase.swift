// SampleDatabase.swift — the database the inspection tests look at: every property type (AllTypesFixture's table
// "all" and its link target "target"), a table "notes" with an indexed primary key, an indexed nullable string
// and a list of links, several commits with changes and deletions so that the free list has entries and several
// header slots are written, and a removed column. Small clusters give the tables inner nodes.
//
// The commits are written with durability UNSAFE, then made durable with one sync, and one last small commit
// (the text of the last note) follows. Recovery checks every range a version's commit record lists, and the last
// commit's record lists only what it wrote itself: the notes' last cluster, the text column and index nodes it
// changed, and the file structure (table list, free list). The tests that damage a node elsewhere therefore see
// the damage found by the integrity walk of the latest version, as damage to an older node would be in use;
// the tests that damage a node of the last commit select its slot (--slot) to walk it.

import CColumnar
import ColumnarTestSupport
import Foundation

struct SampleDatabase {
    static let clusterSize: UInt32 = 32
    static let rowCount = 200
    static let noteCount = 120
    /// The text the last commit gives the last note.
    static let lastEdit = "edited last"

    let path: String
    let fixture: AllTypesFixture
    let notes: TableID
    /// Keys of "all" that were deleted.
    let deletedKeys: Set<ObjectKey>

    /// Builds the database at `path` (closed afterwards), encrypted with `encryptionKey` when one is given.
    static func build(at path: String, seed: UInt64 = 20_240_611,
                      encryptionKey: [UInt8]? = nil) throws -> SampleDatabase {
        let db = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE, clusterSize: clusterSize,
                                  encryptionKey: encryptionKey)
        defer { db.close() }
        let scratch = ValueScratch()
        let fixture = try db.write { txn in try AllTypesFixture.create(in: txn, seed: seed, targetCount: 16) }
        var keys: [ObjectKey] = []
        try db.write { txn in
            for row in 0..<rowCount { keys.append(try fixture.insertRow(UInt64(row), txn: txn.handle, scratch: scratch)) }
        }
        let notes = try db.write { txn -> TableID in
            let notes = try txn.addTable("notes")
            let number = try txn.addColumn(notes, "n", COLUMNAR_TYPE_INT, indexed: true)
            let text = try txn.addColumn(notes, "text", COLUMNAR_TYPE_STRING, nullable: true, indexed: true)
            let refs = try txn.addColumn(notes, "refs", COLUMNAR_TYPE_LINK, collection: COLUMNAR_COLLECTION_LIST,
                                         target: fixture.targetTable)
            _ = try txn.addColumn(notes, "scratch", COLUMNAR_TYPE_INT)
            try txn.setPrimaryKey(notes, column: number)
            for index in 0..<noteCount {
                let key = try txn.createObject(notes, primaryKey: .int(index * 3))
                try txn.set(notes, key, text, index % 5 == 0 ? .null : .string("note \(index)"))
                for step in 0..<(index % 3) {
                    try txn.listAppend(notes, key, refs, .link(fixture.targetKeys[(index + step) % 16]))
                }
            }
            return notes
        }
        var deleted = Set<ObjectKey>()
        try db.write { txn in
            let text = try txn.findColumn(notes, "text")
            for key in try txn.keys(notes).prefix(30) { try txn.set(notes, key, text, .string("changed \(key)")) }
            for key in keys.enumerated().filter({ $0.offset % 7 == 3 }).map(\.element) {
                try txn.deleteObject(fixture.table, key)
                deleted.insert(key)
            }
            try txn.removeColumn(notes, try txn.findColumn(notes, "scratch"))
        }
        try db.sync()
        try db.write { txn in
            let text = try txn.findColumn(notes, "text")
            guard let last = try txn.keys(notes).last else { throw TestFailure("the notes table is empty") }
            try txn.set(notes, last, text, .string(lastEdit))
        }
        try db.read { try XCTAssertVerifiesOrThrow($0) }
        return SampleDatabase(path: path, fixture: fixture, notes: notes, deletedKeys: deleted)
    }
}

/// Throws unless columnar_verify finds the version sound (for builders, which cannot use XCTest assertions).
func XCTAssertVerifiesOrThrow(_ txn: Transaction) throws {
    let report = txn.verify()
    if !report.isSound { throw TestFailure("the sample database does not verify: \(report)") }
}
