// RandomWorkloadTests: random write transactions (objects created and deleted, values, links, lists, sets,
// dictionaries, self-links; some rolled back; the file reopened now and then) run on the engine and on a plain
// Swift model. After every commit the engine must hold exactly the model's data, backlinks included, and
// columnar_verify must find the file sound.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class RandomWorkloadTests: DatabaseTestCase {
    override var databaseName: String { "random-workload" }
    /// Clusters of 4 objects: a few hundred objects make trees with inner nodes, splits and emptied clusters.
    override var clusterSize: UInt32 { 4 }

    /// What one Item object holds, in the model.
    private struct Item: Equatable {
        var number: Int64 = 0
        var name: String?
        var owner: Int64?
        var scores: [Int64] = []
        var tags: Set<String> = []
        var attributes: [String: Double] = [:]
        var friends: [Int64] = []
    }

    private struct Model: Equatable {
        var items: [Int64: Item] = [:]
        var owners: Set<Int64> = []
    }

    private struct Schema {
        var owner: TableID = 0
        var item: TableID = 0
        var number: ColumnID = 0
        var name: ColumnID = 0
        var ownerLink: ColumnID = 0
        var scores: ColumnID = 0
        var tags: ColumnID = 0
        var attributes: ColumnID = 0
        var friends: ColumnID = 0
    }

    private static let tagAlphabet = ["red", "green", "blue", "a-much-longer-tag-than-the-others-by-far", ""]
    private static let attributeKeys = ["height", "width", "depth", "x", "a long key with spaces"]

    func testRandomTransactionsMatchAModelAndVerifyAfterEveryCommit() throws {
        var generator = makeSeededGenerator()
        let schema = try db.write { txn -> Schema in
            var s = Schema()
            s.owner = try txn.addTable("Owner")
            s.item = try txn.addTable("Item")
            s.number = try txn.addColumn(s.item, "number", COLUMNAR_TYPE_INT, indexed: true)
            s.name = try txn.addColumn(s.item, "name", COLUMNAR_TYPE_STRING, nullable: true)
            s.ownerLink = try txn.addColumn(s.item, "owner", COLUMNAR_TYPE_LINK, nullable: true, target: s.owner)
            s.scores = try txn.addColumn(s.item, "scores", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            s.tags = try txn.addColumn(s.item, "tags", COLUMNAR_TYPE_STRING, collection: COLUMNAR_COLLECTION_SET)
            s.attributes = try txn.addColumn(s.item, "attributes", COLUMNAR_TYPE_DOUBLE,
                                             collection: COLUMNAR_COLLECTION_DICT)
            s.friends = try txn.addColumn(s.item, "friends", COLUMNAR_TYPE_LINK, collection: COLUMNAR_COLLECTION_LIST,
                                          target: s.item)
            return s
        }
        var model = Model()
        let transactionCount = 300
        for transaction in 0..<transactionCount {
            var next = model
            let rollBack = Int.random(in: 0..<5, using: &generator) == 0
            let txn = try db.beginWrite()
            do {
                for _ in 0..<Int.random(in: 1...15, using: &generator) {
                    try randomOperation(txn, schema, &next, &generator)
                }
            } catch {
                txn.rollback()
                throw error
            }
            if rollBack {
                txn.rollback()
            } else {
                try txn.commit()
                model = next
            }
            if transaction % 50 == 49 { try reopen() }
            try db.read { txn in
                try assertMatches(txn, schema, model, "after transaction \(transaction), \(generator.replayNote)")
                XCTAssertVerifies(txn, "after transaction \(transaction), \(generator.replayNote)")
            }
        }
        print("RandomWorkload: \(transactionCount) transactions, \(model.items.count) items and "
              + "\(model.owners.count) owners at the end")
    }

    // MARK: Operations, each applied to the engine and the model

    private func randomOperation(_ txn: Transaction, _ s: Schema, _ model: inout Model,
                                 _ generator: inout SeededGenerator) throws {
        let item = model.items.keys.sorted().randomElement(using: &generator)
        let owner = model.owners.sorted().randomElement(using: &generator)
        switch Int.random(in: 0..<14, using: &generator) {
        case 0, 1:
            let key = try txn.createObject(s.item)
            model.items[key] = Item()
        case 2:
            model.owners.insert(try txn.createObject(s.owner))
        case 3:
            guard let item else { return }
            try txn.deleteObject(s.item, item)
            model.items[item] = nil
            for key in model.items.keys { model.items[key]!.friends.removeAll { $0 == item } }
        case 4:
            guard let owner else { return }
            try txn.deleteObject(s.owner, owner)
            model.owners.remove(owner)
            for key in model.items.keys where model.items[key]!.owner == owner { model.items[key]!.owner = nil }
        case 5:
            guard let item else { return }
            let number = Int64.random(in: -1_000...1_000, using: &generator) * 1_000_003
            try txn.set(s.item, item, s.number, .int(number))
            model.items[item]!.number = number
        case 6:
            guard let item else { return }
            let name: String? = Bool.random(using: &generator)
                ? nil : String(repeating: "n", count: Int.random(in: 0...60, using: &generator))
            try txn.set(s.item, item, s.name, name.map(Value.string) ?? .null)
            model.items[item]!.name = name
        case 7:
            guard let item else { return }
            let target = Bool.random(using: &generator) ? owner : nil
            try txn.set(s.item, item, s.ownerLink, target.map(Value.link) ?? .null)
            model.items[item]!.owner = target
        case 8:
            guard let item else { return }
            var scores = model.items[item]!.scores
            if !scores.isEmpty && Bool.random(using: &generator) {
                let index = Int.random(in: 0..<scores.count, using: &generator)
                try txn.listRemove(s.item, item, s.scores, at: UInt64(index))
                scores.remove(at: index)
            } else {
                let index = Int.random(in: 0...scores.count, using: &generator)
                let value = Int64.random(in: Int64.min...Int64.max, using: &generator) >> Int.random(in: 0...63, using: &generator)
                try txn.listInsert(s.item, item, s.scores, at: UInt64(index), .int(value))
                scores.insert(value, at: index)
            }
            model.items[item]!.scores = scores
        case 9:
            guard let item else { return }
            let tag = Self.tagAlphabet.randomElement(using: &generator)!
            if Bool.random(using: &generator) {
                XCTAssertEqual(try txn.setInsert(s.item, item, s.tags, .string(tag)),
                               model.items[item]!.tags.insert(tag).inserted)
            } else {
                XCTAssertEqual(try txn.setRemove(s.item, item, s.tags, .string(tag)),
                               model.items[item]!.tags.remove(tag) != nil)
            }
        case 10:
            guard let item else { return }
            let key = Self.attributeKeys.randomElement(using: &generator)!
            if Bool.random(using: &generator) {
                let value = Double.random(in: -1e6...1e6, using: &generator)
                try txn.dictSet(s.item, item, s.attributes, Array(key.utf8), .double(value))
                model.items[item]!.attributes[key] = value
            } else {
                XCTAssertEqual(try txn.dictRemove(s.item, item, s.attributes, Array(key.utf8)),
                               model.items[item]!.attributes.removeValue(forKey: key) != nil)
            }
        case 11, 12:
            guard let item, let friend = model.items.keys.sorted().randomElement(using: &generator) else { return }
            try txn.listAppend(s.item, item, s.friends, .link(friend))
            model.items[item]!.friends.append(friend)
        default:
            guard let item, !model.items[item]!.friends.isEmpty else { return }
            let index = Int.random(in: 0..<model.items[item]!.friends.count, using: &generator)
            try txn.listRemove(s.item, item, s.friends, at: UInt64(index))
            model.items[item]!.friends.remove(at: index)
        }
    }

    // MARK: Comparison

    private func assertMatches(_ txn: Transaction, _ s: Schema, _ model: Model, _ context: String) throws {
        XCTAssertEqual(try txn.count(s.item), UInt64(model.items.count), context)
        XCTAssertEqual(try txn.count(s.owner), UInt64(model.owners.count), context)
        var ownerBacklinks: [Int64: UInt64] = [:]
        var friendBacklinks: [Int64: UInt64] = [:]
        for (key, expected) in model.items {
            XCTAssertEqual(try txn.get(s.item, key, s.number), .int(expected.number), context)
            XCTAssertEqual(try txn.get(s.item, key, s.name), expected.name.map(Value.string) ?? .null, context)
            XCTAssertEqual(try txn.get(s.item, key, s.ownerLink), expected.owner.map(Value.link) ?? .null, context)
            XCTAssertEqual(try txn.elements(s.item, key, s.scores), expected.scores.map(Value.int), context)
            // Sets keep the engine's value order: bytewise for strings.
            let tags = expected.tags.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            XCTAssertEqual(try txn.elements(s.item, key, s.tags), tags.map(Value.string), context)
            let attributeKeys = expected.attributes.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            let size = try txn.size(s.item, key, s.attributes)
            XCTAssertEqual(size, UInt64(attributeKeys.count), context)
            for (index, name) in attributeKeys.enumerated() where UInt64(index) < size {
                XCTAssertEqual(try txn.dictKey(s.item, key, s.attributes, at: UInt64(index)), Array(name.utf8), context)
                XCTAssertEqual(try txn.dictGet(s.item, key, s.attributes, Array(name.utf8)),
                               .double(expected.attributes[name]!), context)
            }
            XCTAssertEqual(try txn.elements(s.item, key, s.friends), expected.friends.map(Value.link), context)
            if let owner = expected.owner { ownerBacklinks[owner, default: 0] += 1 }
            for friend in expected.friends { friendBacklinks[friend, default: 0] += 1 }
        }
        for owner in model.owners {
            XCTAssertEqual(try txn.backlinkCount(s.owner, owner, from: s.item, s.ownerLink), ownerBacklinks[owner] ?? 0,
                           context)
        }
        for key in model.items.keys {
            XCTAssertEqual(try txn.backlinkCount(s.item, key, from: s.item, s.friends), friendBacklinks[key] ?? 0,
                           context)
            XCTAssertEqual(try txn.findFirst(s.item, s.number, .int(model.items[key]!.number)).map {
                model.items[$0]!.number
            }, model.items[key]!.number, context)
        }
    }
}
