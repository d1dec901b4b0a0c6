// RandomWorkloadFile.swift — small database files written by random write workloads: a few tables (links
// between them and to themselves, every collection kind, an index, sometimes a primary key), then a few write
// transactions of random creations, deletions, value changes, collection edits and schema changes, some rolled
// back, with small clusters so that trees split and merge. Every file the engine writes must verify.

import CColumnar
import ColumnarTestSupport
import Foundation

enum RandomWorkloadFile {
    private static let tags = ["red", "green", "blue", "a-longer-tag-than-the-short-string-slots-hold", ""]
    private static let keys = ["x", "y", "height", "a key with spaces"]

    /// Writes the file for `seed` at `path` (closing it and removing its lock file afterwards).
    static func write(at path: String, seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let clusterSize = [2, 3, 4, 8, 256].randomElement(using: &generator)!
        let db = try TestDatabase(path: path, flags: [.create, .noIOUring], durability: COLUMNAR_DURABILITY_UNSAFE,
                                  clusterSize: UInt32(clusterSize))
        defer {
            db.close()
            try? FileManager.default.removeItem(atPath: path + ".lock")
        }
        let owner = try db.write { txn -> TableID in try txn.addTable("Owner") }
        let item = try db.write { txn -> TableID in
            let item = try txn.addTable("Item")
            let number = try txn.addColumn(item, "number", COLUMNAR_TYPE_INT, indexed: true)
            _ = try txn.addColumn(item, "name", COLUMNAR_TYPE_STRING, nullable: true,
                                  indexed: Bool.random(using: &generator))
            _ = try txn.addColumn(item, "owner", COLUMNAR_TYPE_LINK, nullable: true, target: owner)
            _ = try txn.addColumn(item, "scores", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            _ = try txn.addColumn(item, "tags", COLUMNAR_TYPE_STRING, collection: COLUMNAR_COLLECTION_SET)
            _ = try txn.addColumn(item, "attributes", COLUMNAR_TYPE_DOUBLE, collection: COLUMNAR_COLLECTION_DICT)
            _ = try txn.addColumn(item, "friends", COLUMNAR_TYPE_LINK, collection: COLUMNAR_COLLECTION_LIST, target: item)
            if Bool.random(using: &generator) { try txn.setPrimaryKey(item, column: number) }
            return item
        }
        var nextNumber: Int64 = 0
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let txn = try db.beginWrite()
            do {
                for _ in 0..<Int.random(in: 1...25, using: &generator) {
                    try operation(txn, item: item, owner: owner, nextNumber: &nextNumber, &generator)
                }
            } catch {
                txn.rollback()
                throw error
            }
            if Int.random(in: 0..<6, using: &generator) == 0 { txn.rollback() } else { try txn.commit() }
        }
    }

    private static func operation(_ txn: Transaction, item: TableID, owner: TableID, nextNumber: inout Int64,
                                  _ generator: inout SeededGenerator) throws {
        let items = try txn.keys(item)
        let owners = try txn.keys(owner)
        let some = items.randomElement(using: &generator)
        let column = { (name: String) in try txn.findColumn(item, name) }
        switch Int.random(in: 0..<12, using: &generator) {
        case 0, 1, 2:
            let info = try txn.tableInfo(item)
            nextNumber += 1
            if info.primary_key != COLUMNAR_NO_COLUMN {
                _ = try txn.createObject(item, primaryKey: .int(nextNumber * 7))
            } else {
                let key = try txn.createObject(item)
                try txn.set(item, key, try column("number"), .int(nextNumber * 7))
            }
        case 3:
            _ = try txn.createObject(owner)
        case 4:
            if let some { try txn.deleteObject(item, some) }
        case 5:
            if let victim = owners.randomElement(using: &generator) { try txn.deleteObject(owner, victim) }
        case 6:
            guard let some else { return }
            let name: Value = Bool.random(using: &generator) ? .null
                : .string(String(repeating: "n", count: Int.random(in: 0...50, using: &generator)))
            try txn.set(item, some, try column("name"), name)
        case 7:
            guard let some else { return }
            try txn.set(item, some, try column("owner"), owners.randomElement(using: &generator).map(Value.link) ?? .null)
        case 8:
            guard let some else { return }
            let value = Int64.random(in: .min ... .max, using: &generator) >> Int.random(in: 0...63, using: &generator)
            try txn.listAppend(item, some, try column("scores"), .int(value))
        case 9:
            guard let some else { return }
            try txn.setInsert(item, some, try column("tags"), .string(tags.randomElement(using: &generator)!))
        case 10:
            guard let some else { return }
            try txn.dictSet(item, some, try column("attributes"), Array(keys.randomElement(using: &generator)!.utf8),
                            .double(Double.random(in: -1e6...1e6, using: &generator)))
        default:
            guard let some, let friend = items.randomElement(using: &generator) else { return }
            try txn.listAppend(item, some, try column("friends"), .link(friend))
        }
    }
}
