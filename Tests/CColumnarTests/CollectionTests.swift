// CollectionTests.swift — lists, sets and dictionaries behave like Swift's Array, Set and Dictionary under random
// operations (before commit, after commit, after rollback and after reopen), and links — single or in lists —
// keep their backlinks exact, including when the target object is deleted.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CollectionTests: DatabaseTestCase {
    override var databaseName: String { "collections" }

    // MARK: Lists

    /// Applies one random list operation to the engine and to `reference`.
    private func randomListOperation(_ txn: Transaction, _ table: TableID, _ key: ObjectKey, _ column: ColumnID,
                                     _ reference: inout [Value], makeValue: (inout SeededGenerator) -> Value,
                                     _ generator: inout SeededGenerator, insertWeight: Int = 4) throws {
        let count = reference.count
        let choice = Int.random(in: 0..<(insertWeight + 5), using: &generator)
        if count == 0 || choice < insertWeight {
            let index = Int.random(in: 0...count, using: &generator)
            let value = makeValue(&generator)
            try txn.listInsert(table, key, column, at: UInt64(index), value)
            reference.insert(value, at: index)
        } else if choice == insertWeight {
            let index = Int.random(in: 0..<count, using: &generator)
            let value = makeValue(&generator)
            try txn.listSet(table, key, column, at: UInt64(index), value)
            reference[index] = value
        } else if choice <= insertWeight + 2 {
            let index = Int.random(in: 0..<count, using: &generator)
            try txn.listRemove(table, key, column, at: UInt64(index))
            reference.remove(at: index)
        } else if choice == insertWeight + 3 {
            let from = Int.random(in: 0..<count, using: &generator)
            let to = Int.random(in: 0..<count, using: &generator)
            try txn.listMove(table, key, column, from: UInt64(from), to: UInt64(to))
            reference.insert(reference.remove(at: from), at: to)
        } else if Int.random(in: 0..<20, using: &generator) == 0 {
            try txn.clear(table, key, column)
            reference.removeAll()
        }
    }

    func testListsMatchAnArrayUnderRandomInsertSetRemoveMoveAndClear() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let objectCount = 4
        let (table, ints, names, keys) = try db.write { txn -> (TableID, ColumnID, ColumnID, [ObjectKey]) in
            let table = try txn.addTable("t")
            let ints = try txn.addColumn(table, "ints", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            let names = try txn.addColumn(table, "names", COLUMNAR_TYPE_STRING, collection: COLUMNAR_COLLECTION_LIST,
                                          nullable: true)
            return (table, ints, names, try (0..<objectCount).map { _ in try txn.createObject(table) })
        }
        let makeInt: (inout SeededGenerator) -> Value = { .int(Int64.random(in: -1_000_000_000...1_000_000_000, using: &$0) >> Int64.random(in: 0...40, using: &$0)) }
        let makeName: (inout SeededGenerator) -> Value = { generator in
            if Int.random(in: 0..<8, using: &generator) == 0 { return .null }
            return .string(String(repeating: "é", count: Int.random(in: 0...30, using: &generator)) + "\(generator.next() % 1000)")
        }
        var intLists = [[Value]](repeating: [], count: objectCount)
        var nameLists = [[Value]](repeating: [], count: objectCount)

        func assertMatches(_ stage: String, line: UInt = #line) throws {
            try db.read { txn in
                for (index, key) in keys.enumerated() {
                    XCTAssertEqual(try txn.elements(table, key, ints), intLists[index], "\(stage), ints of \(key); \(note)", line: line)
                    XCTAssertEqual(try txn.elements(table, key, names), nameLists[index], "\(stage), names of \(key); \(note)", line: line)
                }
            }
        }

        try db.write { txn in
            for step in 0..<400 {
                for (index, key) in keys.enumerated() {
                    try randomListOperation(txn, table, key, ints, &intLists[index], makeValue: makeInt, &generator)
                    try randomListOperation(txn, table, key, names, &nameLists[index], makeValue: makeName, &generator)
                }
                if step % 25 == 0 {
                    for (index, key) in keys.enumerated() {
                        XCTAssertEqual(try txn.elements(table, key, ints), intLists[index], "step \(step); \(note)")
                        XCTAssertEqual(try txn.size(table, key, names), UInt64(nameLists[index].count), "step \(step)")
                    }
                }
            }
            if let value = intLists[0].first {
                XCTAssertTrue(try txn.contains(table, keys[0], ints, value), "columnar_coll_contains on a list")
            }
            XCTAssertFalse(try txn.contains(table, keys[0], ints, .int(Int64.max)))
        }
        try assertMatches("after commit")

        // A rolled-back transaction leaves the lists as they were.
        let txn = try db.beginWrite()
        var scratch = intLists[0]
        for _ in 0..<50 { try randomListOperation(txn, table, keys[0], ints, &scratch, makeValue: makeInt, &generator) }
        txn.rollback()
        try assertMatches("after rollback")

        // One list grows past a leaf (1,000 elements), then shrinks and moves across leaves.
        try db.write { txn in
            for _ in 0..<2_500 {
                let index = Int.random(in: 0...intLists[1].count, using: &generator)
                let value = makeInt(&generator)
                try txn.listInsert(table, keys[1], ints, at: UInt64(index), value)
                intLists[1].insert(value, at: index)
            }
            for _ in 0..<600 {
                try randomListOperation(txn, table, keys[1], ints, &intLists[1], makeValue: makeInt, &generator,
                                        insertWeight: 1)
            }
            XCTAssertEqual(try txn.elements(table, keys[1], ints), intLists[1], "long list before commit; \(note)")
        }
        try assertMatches("long list after commit")
        try reopen()
        try assertMatches("after reopen")
        try db.read { XCTAssertVerifies($0) }
    }

    func testListOperationsOutOfRangeOrWithBadValuesAreRejected() throws {
        try db.write { txn in
            let table = try txn.addTable("t")
            let ints = try txn.addColumn(table, "ints", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            let key = try txn.createObject(table)
            for value in 0..<3 { try txn.listAppend(table, key, ints, .int(value)) }
            XCTAssertEngineError(COLUMNAR_ERANGE, try txn.listInsert(table, key, ints, at: 4, .int(9)), "insert past end")
            XCTAssertEngineError(COLUMNAR_ERANGE, try txn.listSet(table, key, ints, at: 3, .int(9)), "set at size")
            XCTAssertEngineError(COLUMNAR_ERANGE, try txn.listRemove(table, key, ints, at: 3), "remove at size")
            XCTAssertEngineError(COLUMNAR_ERANGE, try txn.listMove(table, key, ints, from: 3, to: 0), "move from size")
            XCTAssertEngineError(COLUMNAR_ERANGE, try txn.listMove(table, key, ints, from: 0, to: 3), "move to size")
            XCTAssertEngineError(COLUMNAR_ERANGE, try txn.element(table, key, ints, at: 3), "get at size")
            XCTAssertEngineError(COLUMNAR_ENULL, try txn.listInsert(table, key, ints, at: 0, .null), "null element")
            XCTAssertEngineError(COLUMNAR_ETYPE, try txn.listInsert(table, key, ints, at: 0, .string("1")))
            XCTAssertEqual(try txn.elements(table, key, ints), [.int(0), .int(1), .int(2)], "failed calls change nothing")
        }
    }

    // MARK: Sets

    func testSetsMatchASwiftSetUnderRandomInsertAndRemove() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let pool: [Value] = (0..<60).map { index in
            switch index {
            case 0: return .string("")
            case 1: return .string(String(repeating: "long ", count: 60))
            case 2: return .string("ünïcødé")
            default: return .string("value \(index)")
            }
        }
        let (table, column, key) = try db.write { txn -> (TableID, ColumnID, ObjectKey) in
            let table = try txn.addTable("t")
            let column = try txn.addColumn(table, "tags", COLUMNAR_TYPE_STRING, collection: COLUMNAR_COLLECTION_SET)
            return (table, column, try txn.createObject(table))
        }
        var reference = Set<Value>()

        func assertMatches(_ txn: Transaction, _ stage: String, line: UInt = #line) throws {
            let elements = try txn.elements(table, key, column)
            XCTAssertEqual(elements.count, reference.count, "\(stage): size; \(note)", line: line)
            XCTAssertEqual(Set(elements), reference, "\(stage): elements; \(note)", line: line)
            XCTAssertEqual(Set(elements).count, elements.count, "\(stage): duplicates in a set", line: line)
            for value in pool.shuffled(using: &generator).prefix(10) {
                XCTAssertEqual(try txn.contains(table, key, column, value), reference.contains(value),
                               "\(stage): contains \(value)", line: line)
            }
        }

        for round in 0..<3 {
            try db.write { txn in
                for step in 0..<300 {
                    let value = pool.randomElement(using: &generator)!
                    if Bool.random(using: &generator) {
                        let inserted = try txn.setInsert(table, key, column, value)
                        XCTAssertEqual(inserted, reference.insert(value).inserted, "insert \(value); \(note)")
                    } else {
                        let removed = try txn.setRemove(table, key, column, value)
                        XCTAssertEqual(removed, reference.remove(value) != nil, "remove \(value); \(note)")
                    }
                    if step % 50 == 0 { try assertMatches(txn, "round \(round) step \(step)") }
                }
                XCTAssertEngineError(COLUMNAR_ETYPE, try txn.setInsert(table, key, column, .int(1)))
                XCTAssertEngineError(COLUMNAR_ENULL, try txn.setInsert(table, key, column, .null))
            }
            try db.read { try assertMatches($0, "round \(round) after commit") }
        }
        try reopen()
        try db.read { txn in
            try assertMatches(txn, "after reopen")
            XCTAssertVerifies(txn)
        }
        try db.write { txn in
            try txn.clear(table, key, column)
            reference.removeAll()
            try assertMatches(txn, "after clear")
        }
    }

    // MARK: Dictionaries

    func testDictionariesMatchASwiftDictionaryWithKeysInByteOrder() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let keyPool: [[UInt8]] = (0..<80).map { index in
            switch index {
            case 0: return []
            case 1: return Array(repeating: UInt8(ascii: "z"), count: 252)
            case 2: return Array("Zebra".utf8)
            case 3: return Array("zebra".utf8)
            case 4: return Array("ä".utf8)
            case 5: return [0x00, 0x01]
            case 6: return [0xFF]
            default: return Array("key\(index * 7 % 100)".utf8)
            }
        }
        let (table, column, key) = try db.write { txn -> (TableID, ColumnID, ObjectKey) in
            let table = try txn.addTable("t")
            let column = try txn.addColumn(table, "weights", COLUMNAR_TYPE_DOUBLE,
                                           collection: COLUMNAR_COLLECTION_DICT, nullable: true)
            return (table, column, try txn.createObject(table))
        }
        var reference: [[UInt8]: Value] = [:]

        func assertMatches(_ txn: Transaction, _ stage: String, line: UInt = #line) throws {
            let sortedKeys = reference.keys.sorted { $0.lexicographicallyPrecedes($1) }
            XCTAssertEqual(try txn.size(table, key, column), UInt64(sortedKeys.count), "\(stage); \(note)", line: line)
            for (index, dictKey) in sortedKeys.enumerated() {
                XCTAssertEqual(try txn.dictKey(table, key, column, at: UInt64(index)), dictKey,
                               "\(stage): key \(index) in byte order; \(note)", line: line)
                XCTAssertEqual(try txn.element(table, key, column, at: UInt64(index)), reference[dictKey],
                               "\(stage): value at \(index); \(note)", line: line)
            }
            for dictKey in keyPool.shuffled(using: &generator).prefix(15) {
                XCTAssertEqual(try txn.dictGet(table, key, column, dictKey), reference[dictKey],
                               "\(stage): get \(hex(dictKey)); \(note)", line: line)
            }
        }

        for round in 0..<3 {
            try db.write { txn in
                for step in 0..<300 {
                    let dictKey = keyPool.randomElement(using: &generator)!
                    if Int.random(in: 0..<3, using: &generator) > 0 {
                        let value: Value = Int.random(in: 0..<10, using: &generator) == 0
                            ? .null : .double(Double.random(in: -1e6...1e6, using: &generator))
                        try txn.dictSet(table, key, column, dictKey, value)
                        reference[dictKey] = value
                    } else {
                        let removed = try txn.dictRemove(table, key, column, dictKey)
                        XCTAssertEqual(removed, reference.removeValue(forKey: dictKey) != nil, "remove; \(note)")
                    }
                    if step % 50 == 0 { try assertMatches(txn, "round \(round) step \(step)") }
                }
            }
            try db.read { try assertMatches($0, "round \(round) after commit") }
        }
        try db.write { txn in
            XCTAssertEngineError(COLUMNAR_ETYPE, try txn.dictSet(table, key, column, [1], .int(1)))
            XCTAssertEngineError(COLUMNAR_ERANGE, try txn.dictKey(table, key, column, at: UInt64(reference.count)))
            do {
                try txn.dictSet(table, key, column, Array(repeating: 0x61, count: 253), .double(1))
                XCTFail("a 253-byte dictionary key must be refused")
            } catch let error as EngineError {
                XCTAssertTrue([COLUMNAR_ETOOBIG, COLUMNAR_EMISUSE].contains(error.code), "\(error)")
            }
            try assertMatches(txn, "after refused calls")
        }
        try reopen()
        try db.read { txn in
            try assertMatches(txn, "after reopen")
            XCTAssertVerifies(txn)
        }
    }

    // MARK: Links and backlinks

    func testLinksAndListsOfLinksKeepBacklinksExactThroughChangesAndDeletes() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        struct Schema { var person: TableID; var dog: TableID; var owner: ColumnID; var team: TableID; var members: ColumnID }
        var owners: [ObjectKey: ObjectKey?] = [:]       // dog -> person
        var memberLists: [ObjectKey: [ObjectKey]] = [:]  // team -> persons
        var persons: [ObjectKey] = []

        let schema = try db.write { txn -> Schema in
            let person = try txn.addTable("person")
            _ = try txn.addColumn(person, "name", COLUMNAR_TYPE_STRING)
            let dog = try txn.addTable("dog")
            let owner = try txn.addColumn(dog, "owner", COLUMNAR_TYPE_LINK, nullable: true, target: person)
            let team = try txn.addTable("team")
            let members = try txn.addColumn(team, "members", COLUMNAR_TYPE_LINK,
                                            collection: COLUMNAR_COLLECTION_LIST, target: person)
            persons = try (0..<20).map { _ in try txn.createObject(person) }
            for _ in 0..<100 {
                let key = try txn.createObject(dog)
                let target: ObjectKey? = Int.random(in: 0..<5, using: &generator) == 0 ? nil : persons.randomElement(using: &generator)!
                try txn.set(dog, key, owner, target.map { .link($0) } ?? .null)
                owners[key] = target
            }
            for _ in 0..<30 {
                let key = try txn.createObject(team)
                var list: [ObjectKey] = []
                for _ in 0..<Int.random(in: 0...8, using: &generator) {
                    let member = persons.randomElement(using: &generator)!
                    try txn.listAppend(team, key, members, .link(member))
                    list.append(member)
                }
                memberLists[key] = list
            }
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.set(dog, owners.keys.first!, owner, .link(1_000_000)),
                                 "a link to an object that does not exist")
            return Schema(person: person, dog: dog, owner: owner, team: team, members: members)
        }

        /// Expected origins per person, in the order the links were made when `ordered`.
        func assertBacklinks(_ txn: Transaction, ordered: Bool, _ stage: String, line: UInt = #line) throws {
            for person in persons {
                let dogs = owners.keys.sorted().filter { owners[$0]! == person }
                let teams = memberLists.keys.sorted().flatMap { team in
                    memberLists[team]!.filter { $0 == person }.map { _ in team }
                }
                let dogBacklinks = try txn.backlinks(schema.person, person, from: schema.dog, schema.owner)
                let teamBacklinks = try txn.backlinks(schema.person, person, from: schema.team, schema.members)
                if ordered {
                    XCTAssertEqual(dogBacklinks, dogs, "\(stage): dogs of \(person) in link order", line: line)
                    XCTAssertEqual(teamBacklinks, teams, "\(stage): teams of \(person) in link order", line: line)
                } else {
                    XCTAssertEqual(dogBacklinks.sorted(), dogs, "\(stage): dogs of \(person); \(note)", line: line)
                    XCTAssertEqual(teamBacklinks.sorted(), teams, "\(stage): teams of \(person); \(note)", line: line)
                }
            }
        }

        func assertLinks(_ txn: Transaction, _ stage: String, line: UInt = #line) throws {
            for (dog, person) in owners {
                XCTAssertEqual(try txn.get(schema.dog, dog, schema.owner), person.map { .link($0) } ?? .null,
                               "\(stage): owner of dog \(dog)", line: line)
            }
            for (team, list) in memberLists {
                XCTAssertEqual(try txn.elements(schema.team, team, schema.members), list.map { .link($0) },
                               "\(stage): members of team \(team)", line: line)
            }
        }

        try db.read { txn in
            try assertBacklinks(txn, ordered: true, "after creation")
            try assertLinks(txn, "after creation")
        }

        // Random changes: new owners, null owners, list edits.
        try db.write { txn in
            for _ in 0..<200 {
                if Bool.random(using: &generator) {
                    let dog = owners.keys.randomElement(using: &generator)!
                    let target: ObjectKey? = Int.random(in: 0..<4, using: &generator) == 0 ? nil : persons.randomElement(using: &generator)!
                    try txn.set(schema.dog, dog, schema.owner, target.map { .link($0) } ?? .null)
                    owners[dog] = target
                } else {
                    let team = memberLists.keys.randomElement(using: &generator)!
                    var list = memberLists[team]!.map { Value.link($0) }
                    try randomListOperation(txn, schema.team, team, schema.members, &list,
                                            makeValue: { .link(persons.randomElement(using: &$0)!) }, &generator)
                    memberLists[team] = list.map { if case .link(let key) = $0 { return key } else { return -1 } }
                }
            }
            try assertBacklinks(txn, ordered: false, "after changes, before commit")
        }
        try db.read { txn in
            try assertBacklinks(txn, ordered: false, "after changes")
            try assertLinks(txn, "after changes")
            XCTAssertVerifies(txn)
        }

        // Deleting people nulls the dogs' links to them and takes them out of every team.
        let doomed = Array(persons.shuffled(using: &generator).prefix(4))
        try db.write { txn in
            for person in doomed { try txn.deleteObject(schema.person, person) }
        }
        persons.removeAll { doomed.contains($0) }
        for (dog, person) in owners where person.map({ doomed.contains($0) }) ?? false { owners[dog] = .some(nil) }
        for (team, list) in memberLists { memberLists[team] = list.filter { !doomed.contains($0) } }
        try db.read { txn in
            try assertLinks(txn, "after deleting people")
            try assertBacklinks(txn, ordered: false, "after deleting people")
            for person in doomed { XCTAssertFalse(try txn.exists(schema.person, person)) }
            XCTAssertVerifies(txn)
        }
        try reopen()
        try db.read { txn in
            try assertLinks(txn, "after reopen")
            try assertBacklinks(txn, ordered: false, "after reopen")
            XCTAssertVerifies(txn)
        }
    }
}
