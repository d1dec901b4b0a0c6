// NestedMixedCollectionTests: lists and dictionaries inside AnyRealmValue (RealmSwift 20's `.list` and
// `.dictionary`), at the three places a mixed value is stored (a property, a List element, a Map value): trees of
// every case through commit and reopen, nested collections that stay live (reads see later writes, writes through
// them are stored), random edits at random depths against a plain Swift model, invalidation when the value holding
// a nested collection is replaced, change notifications, and the misuse RealmSwift refuses.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

/// A mixed value as plain Swift data, to compare with what Columnar reads back.
private indirect enum Shape: Equatable, CustomStringConvertible {
    case leaf(AnyRealmValue)
    case list([Shape])
    case dictionary([String: Shape])

    init(_ value: AnyRealmValue) {
        switch value {
        case .list(let list): self = .list(list.map(Shape.init))
        case .dictionary(let map):
            self = .dictionary(Dictionary(uniqueKeysWithValues: map.asKeyValueSequence().map { ($0.key, Shape($0.value)) }))
        default: self = .leaf(value)
        }
    }

    /// The value as unmanaged collections.
    var value: AnyRealmValue {
        switch self {
        case .leaf(let value): return value
        case .list(let elements): return .fromArray(elements.map(\.value))
        case .dictionary(let entries): return .fromDictionary(entries.mapValues(\.value))
        }
    }

    var description: String {
        switch self {
        case .leaf(let value): return "\(value)"
        case .list(let elements): return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            return "{" + entries.keys.sorted().map { "\($0): \(entries[$0]!)" }.joined(separator: ", ") + "}"
        }
    }

    /// The paths of every collection in the tree, this one first.
    func collectionPaths(_ prefix: [PathStep] = []) -> [[PathStep]] {
        switch self {
        case .leaf: return []
        case .list(let elements):
            return [prefix] + elements.enumerated().flatMap { $0.element.collectionPaths(prefix + [.index($0.offset)]) }
        case .dictionary(let entries):
            return [prefix] + entries.flatMap { $0.value.collectionPaths(prefix + [.key($0.key)]) }
        }
    }

    subscript(path: ArraySlice<PathStep>) -> Shape {
        get {
            guard let step = path.first else { return self }
            switch (self, step) {
            case (.list(let elements), .index(let index)): return elements[index][path.dropFirst()]
            case (.dictionary(let entries), .key(let key)): return entries[key]![path.dropFirst()]
            default: fatalError("no such path")
            }
        }
        set {
            guard let step = path.first else {
                self = newValue
                return
            }
            switch (self, step) {
            case (.list(var elements), .index(let index)):
                elements[index][path.dropFirst()] = newValue
                self = .list(elements)
            case (.dictionary(var entries), .key(let key)):
                entries[key]![path.dropFirst()] = newValue
                self = .dictionary(entries)
            default: fatalError("no such path")
            }
        }
    }
}

private enum PathStep: Equatable {
    case index(Int)
    case key(String)
}

/// The live value reached from `value` along `path`.
private func reach(_ value: AnyRealmValue, _ path: [PathStep]) -> AnyRealmValue {
    var current = value
    for step in path {
        switch (current, step) {
        case (.list(let list), .index(let index)): current = list[index]
        case (.dictionary(let map), .key(let key)): current = map[key]!
        default: fatalError("no such path")
        }
    }
    return current
}

final class NestedMixedCollectionTests: RealmTestCase {
    /// A tree holding every scalar case, an object, empty collections and three levels of nesting.
    private func sampleTree(_ target: MixedTarget) -> Shape {
        .list([
            .leaf(.int(1)), .leaf(.string("two")), .leaf(.none), .leaf(.double(-0.5)), .leaf(.bool(true)),
            .leaf(.data(Data([0, 1, 2]))), .leaf(.date(Date(timeIntervalSince1970: 12.5))),
            .leaf(.objectId(ObjectId("0123456789abcdef01234567"))), .leaf(.decimal128(Decimal128(stringLiteral: "1.5"))),
            .leaf(.uuid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00CF4FC964FF")!)), .leaf(.float(2.25)),
            .leaf(.object(target)), .list([]), .dictionary([:]),
            .dictionary(["a": .leaf(.int(3)), "": .leaf(.string("empty key")), "é": .list([.leaf(.int(4)),
                .dictionary(["deep": .list([.leaf(.bool(false))])])])]),
        ])
    }

    func testTreesRoundTripThroughCommitAndReopenAtEveryPlace() throws {
        try scoped {
            let realm = try openRealm()
            try realm.write {
                let target = realm.create(MixedTarget.self, value: ["id": 1, "name": "t"])
                let tree = sampleTree(target).value
                let item = realm.create(MixedItem.self, value: ["id": 1, "value": tree])
                item.values.append(.int(0))
                item.values.append(tree)
                item.valueMap["tree"] = tree
                item.valueMap["dictionary"] = .fromDictionary(["x": .fromArray([.int(9)])])
            }
        }
        let realm = try openRealm()
        let target = try XCTUnwrap(realm.object(ofType: MixedTarget.self, forPrimaryKey: 1))
        let item = try XCTUnwrap(realm.object(ofType: MixedItem.self, forPrimaryKey: 1))
        let expected = sampleTree(target)
        XCTAssertEqual(Shape(item.value), expected)
        XCTAssertEqual(Shape(item.values[1]), expected)
        XCTAssertEqual(item.values[0], .int(0))
        XCTAssertEqual(Shape(try XCTUnwrap(item.valueMap["tree"])), expected)
        XCTAssertEqual(Shape(try XCTUnwrap(item.valueMap["dictionary"])), .dictionary(["x": .list([.leaf(.int(9))])]))
        // Reading through the enum's accessors, as RealmSwift code does.
        let list = try XCTUnwrap(item.value.listValue)
        XCTAssertEqual(list.count, 15)
        XCTAssertEqual(list[11].object(MixedTarget.self)?.name, "t")
        XCTAssertEqual(list[14].dictionaryValue?["é"]?.listValue?[1].dictionaryValue?["deep"]?.listValue?[0], .bool(false))
        XCTAssertNotNil(list.realm)
        XCTAssertFalse(list.isInvalidated)
        XCTAssertFalse(list.isFrozen)
        XCTAssertEqual(item.values[1].listValue?.realm?.configuration.fileURL, realm.configuration.fileURL)
    }

    func testNestedCollectionsAreLiveAndWritesThroughThemAreStored() throws {
        try scoped {
            let realm = try openRealm()
            let item = try realm.write {
                realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.int(1), .fromArray([])])])
            }
            let outer = try XCTUnwrap(item.value.listValue)
            let inner = try XCTUnwrap(outer[1].listValue)
            try realm.write {
                outer.append(.string("appended"))
                inner.append(objectsIn: [.int(2), .fromDictionary(["k": .int(3)])])
                inner[1].dictionaryValue?["k2"] = .fromArray([.bool(true)])
                outer.insert(.double(0.5), at: 0)
            }
            // The inner list was read at position 1, which now holds 1 (the insert moved the list to 2).
            XCTAssertEqual(outer.count, 4)
            XCTAssertEqual(Shape(outer[2]), .list([.leaf(.int(2)), .dictionary(["k": .leaf(.int(3)), "k2": .list([.leaf(.bool(true))])])]))
            try realm.write {
                outer.remove(at: 0)
                outer.move(from: 0, to: 2)
                outer.swapAt(0, 1)
            }
            XCTAssertEqual(Shape(item.value), .list([.leaf(.string("appended")), .list([.leaf(.int(2)),
                .dictionary(["k": .leaf(.int(3)), "k2": .list([.leaf(.bool(true))])])]), .leaf(.int(1))]))
            // Writes through another accessor are seen by a nested list read earlier.
            let held = try XCTUnwrap(item.value.listValue)
            try realm.write { item.value = .fromArray([.int(7)]) }
            XCTAssertEqual(Array(held), [.int(7)])
            try realm.write { held.removeAll() }
            XCTAssertEqual(Shape(item.value), .list([]))
        }
        let realm = try openRealm()
        XCTAssertEqual(Shape(try XCTUnwrap(realm.object(ofType: MixedItem.self, forPrimaryKey: 1)).value), .list([]))
    }

    /// RealmSwift's reassignment cases, including assigning a nested collection to another place of its own tree
    /// (which RealmSwift's tests leave out for a known core issue): the value is copied as it is at the time.
    func testReassigningElementsIncludingNestedCollectionsOfTheSameTree() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([
                .bool(true), .fromDictionary(["key": .int(12)]), .float(13.12)])])
        }
        XCTAssertEqual(item.value.listValue?[1].dictionaryValue?["key"], .int(12))
        try realm.write { item.value.listValue?.append(.fromArray([.double(20.20), .string("hello")])) }
        XCTAssertEqual(item.value.listValue?[3].listValue?[0], .double(20.20))
        try realm.write { item.value.listValue?.append(item.value.listValue![0]) }
        XCTAssertEqual(item.value.listValue?[4], .bool(true))
        try realm.write { item.value.listValue?.append(item.value.listValue![3]) }
        XCTAssertEqual(item.value.listValue?[5].listValue?[0], .double(20.20))
        try realm.write { item.value.listValue?[3] = item.value.listValue![3] }
        XCTAssertEqual(item.value.listValue?[3].listValue?[0], .double(20.20))
        try realm.write { item.value.listValue?[1] = .fromDictionary(["new-key": .int(3)]) }
        try realm.write { item.value.listValue?[3] = item.value.listValue![1] }
        XCTAssertEqual(item.value.listValue?[3].dictionaryValue?["new-key"], .int(3))
        // A copy, not a second name: changing one leaves the other.
        try realm.write { item.value.listValue?[3].dictionaryValue?["new-key"] = .int(4) }
        XCTAssertEqual(item.value.listValue?[1].dictionaryValue?["new-key"], .int(3))
        try realm.write { item.value.listValue?[1].dictionaryValue?["self"] = item.value.listValue![1] }
        XCTAssertEqual(item.value.listValue?[1].dictionaryValue?["self"]?.dictionaryValue?["new-key"], .int(3))
        XCTAssertEqual(item.value.listValue?.count, 6)
        // Enumerating every level reaches every value.
        func count(_ value: AnyRealmValue) -> Int {
            switch value {
            case .list(let list): return 1 + list.reduce(0) { $0 + count($1) }
            case .dictionary(let map): return 1 + map.asKeyValueSequence().reduce(0) { $0 + count($1.value) }
            default: return 1
            }
        }
        XCTAssertEqual(count(item.value), 13)
        try realm.write { item.value = .fromDictionary(["key1": .string("adios")]) }
        XCTAssertNil(item.value.dictionaryValue?["key2"])
    }

    func testAnUnmanagedObjectInANestedCollectionIsAddedToTheRealm() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromDictionary([:])])
        }
        try realm.write { item.value.dictionaryValue?["target"] = .object(MixedTarget(value: ["id": 5, "name": "new"])) }
        XCTAssertEqual(realm.objects(MixedTarget.self).count, 1)
        XCTAssertEqual(item.value.dictionaryValue?["target"]?.object(MixedTarget.self)?.name, "new")
    }

    /// Random edits of random collections at every depth, through live nested collections read afresh from the
    /// stored value each time, against a plain Swift model of the tree; then the file is reopened and compared.
    func testRandomEditsAgreeWithAPlainSwiftModelAtEveryPlace() throws {
        var generator = SeededGenerator(seed: 0x6e65_7374)
        enum Place: CaseIterable { case property, listElement, mapValue }
        var models: [Place: Shape] = [:]
        var edits = 0
        try scoped {
            let realm = try openRealm()
            let item = try realm.write {
                realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([]),
                                                     "values": [AnyRealmValue.int(-1), AnyRealmValue.fromArray([])],
                                                     "valueMap": ["root": AnyRealmValue.fromDictionary([:])]])
            }
            func stored(_ place: Place) -> AnyRealmValue {
                switch place {
                case .property: return item.value
                case .listElement: return item.values[1]
                case .mapValue: return item.valueMap["root"]!
                }
            }
            models = [.property: .list([]), .listElement: .list([]), .mapValue: .dictionary([:])]
            for round in 0..<300 {
                let place = Place.allCases[round % 3]
                var model = models[place]!
                let paths = model.collectionPaths()
                let path = paths[Int.random(in: 0..<paths.count, using: &generator)]
                let live = reach(stored(place), path)
                let fresh = randomValue(depth: path.count, using: &generator)
                try realm.write {
                    switch (live, model[path[...]]) {
                    case (.list(let list), .list(var elements)):
                        let choice = elements.isEmpty ? 0 : Int.random(in: 0..<5, using: &generator)
                        switch choice {
                        case 0, 1:
                            let at = Int.random(in: 0...elements.count, using: &generator)
                            list.insert(fresh.value, at: at)
                            elements.insert(fresh, at: at)
                        case 2:
                            let at = Int.random(in: 0..<elements.count, using: &generator)
                            list.remove(at: at)
                            elements.remove(at: at)
                        case 3:
                            let at = Int.random(in: 0..<elements.count, using: &generator)
                            list[at] = fresh.value
                            elements[at] = fresh
                        default:
                            let from = Int.random(in: 0..<elements.count, using: &generator)
                            let to = Int.random(in: 0..<elements.count, using: &generator)
                            list.move(from: from, to: to)
                            elements.insert(elements.remove(at: from), at: to)
                        }
                        model[path[...]] = .list(elements)
                    case (.dictionary(let map), .dictionary(var entries)):
                        let key = ["a", "b", "c", "d", "é", ""][Int.random(in: 0..<6, using: &generator)]
                        if Bool.random(using: &generator), entries[key] != nil {
                            map.removeObject(for: key)
                            entries[key] = nil
                        } else {
                            map[key] = fresh.value
                            entries[key] = fresh
                        }
                        model[path[...]] = .dictionary(entries)
                    default:
                        XCTFail("round \(round): \(path) is \(live) in Columnar but \(model[path[...]]) in the model")
                    }
                }
                models[place] = model
                edits += 1
                XCTAssertEqual(Shape(stored(place)), model, "round \(round), \(place), path \(path)")
            }
        }
        XCTAssertEqual(edits, 300)
        let realm = try openRealm()
        let item = try XCTUnwrap(realm.object(ofType: MixedItem.self, forPrimaryKey: 1))
        XCTAssertEqual(Shape(item.value), models[.property])
        XCTAssertEqual(Shape(item.values[1]), models[.listElement])
        XCTAssertEqual(Shape(try XCTUnwrap(item.valueMap["root"])), models[.mapValue])
        XCTAssertEqual(item.values[0], .int(-1))
    }

    /// A random value: mostly scalars, sometimes a small collection (shallower the deeper it goes).
    private func randomValue(depth: Int, using generator: inout SeededGenerator) -> Shape {
        let roll = Int.random(in: 0..<10, using: &generator)
        if roll < 2 && depth < 5 {
            return .list((0..<Int.random(in: 0..<3, using: &generator)).map { _ in
                randomValue(depth: depth + 1, using: &generator)
            })
        }
        if roll < 3 && depth < 5 {
            var entries: [String: Shape] = [:]
            for _ in 0..<Int.random(in: 0..<3, using: &generator) {
                entries["k\(Int.random(in: 0..<4, using: &generator))"] = randomValue(depth: depth + 1, using: &generator)
            }
            return .dictionary(entries)
        }
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: return .leaf(.none)
        case 1: return .leaf(.int(Int.random(in: -1000...1000, using: &generator)))
        case 2: return .leaf(.string(String(repeating: "s", count: Int.random(in: 0..<20, using: &generator))))
        case 3: return .leaf(.double(Double(Int.random(in: -50...50, using: &generator)) / 4))
        default: return .leaf(.bool(Bool.random(using: &generator)))
        }
    }

    func testANestedCollectionIsInvalidatedWhenTheValueHoldingItIsReplaced() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.fromDictionary([:])])])
        }
        let outer = try XCTUnwrap(item.value.listValue)
        let inner = try XCTUnwrap(outer[0].dictionaryValue)
        XCTAssertFalse(inner.isInvalidated)
        try realm.write { outer[0] = .int(3) }
        XCTAssertTrue(inner.isInvalidated)
        XCTAssertFalse(outer.isInvalidated)
        try realm.write { item.value = .string("no longer a list") }
        XCTAssertTrue(outer.isInvalidated)
        try realm.write { realm.delete(item) }
        XCTAssertTrue(outer.isInvalidated)
    }

    func testDynamicAccessReadsAndWritesNestedCollections() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromDictionary(["l": .fromArray([])])])
        }
        let dynamic = try XCTUnwrap(realm.dynamicObjects("MixedItem").first)
        let value = try XCTUnwrap(dynamic["value"] as? AnyRealmValue)
        try realm.write { value.dictionaryValue?["l"]?.listValue?.append(.string("through dynamic access")) }
        XCTAssertEqual(Shape(item.value), .dictionary(["l": .list([.leaf(.string("through dynamic access"))])]))
        try realm.write { dynamic["value"] = AnyRealmValue.fromArray([.int(2)]) }
        XCTAssertEqual(Shape(item.value), .list([.leaf(.int(2))]))
    }

    func testTwoReadsOfOneNestedCollectionAreEqual() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.fromDictionary([:])])])
        }
        XCTAssertEqual(item.value, item.value)
        XCTAssertEqual(item.value.listValue?[0], item.value.listValue?[0])
        XCTAssertEqual(Set([item.value, item.value]).count, 1)
        XCTAssertNotEqual(item.value, AnyRealmValue.fromArray([.fromDictionary([:])]))
    }

    func testChangingANestedCollectionNotifiesObserversOfTheProperty() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.fromArray([])])])
        }
        var changed: [String] = []
        let token = item.observe { change in
            if case .change(_, let properties) = change { changed += properties.map(\.name) }
        }
        defer { token.invalidate() }
        let inner = try XCTUnwrap(item.value.listValue?[0].listValue)
        try realm.write { inner.append(.int(1)) }
        realm.refresh()
        XCTAssertEqual(changed, ["value"])
    }

    /// RealmSwift's own expectations (its nested-collection notification tests): an append is an insertion, an
    /// element replaced is a modification, elements removed are deletions, at every depth.
    func testNestedListsReportInsertionsModificationsAndDeletions() throws {
        let realm = try openRealm()
        let inner: AnyRealmValue = .fromArray([.float(43), .string("lunch"), .double(12.34)])
        let outer: [AnyRealmValue] = [.fromArray([inner, .bool(false)]), .decimal128(Decimal128(1))]
        let item = try realm.write { realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray(outer)]) }
        func expect(_ list: List<AnyRealmValue>?, _ deletions: [Int], _ insertions: [Int], _ modifications: [Int],
                    _ change: () -> Void, line: UInt = #line) throws {
            var updates: [[[Int]]] = []
            var initial = 0
            let token = try XCTUnwrap(list).observe { change in
                switch change {
                case .initial: initial += 1
                case .update(_, let d, let i, let m): updates.append([d, i, m])
                case .error(let error): XCTFail("\(error)", line: line)
                }
            }
            defer { token.invalidate() }
            realm.refresh()
            try realm.write(change)
            realm.refresh()
            XCTAssertEqual(initial, 1, line: line)
            XCTAssertEqual(updates, [[deletions, insertions, modifications]], line: line)
        }
        try expect(item.value.listValue, [], [2], []) { item.value.listValue?.append(.fromArray(outer)) }
        try expect(item.value.listValue?[0].listValue, [], [], [1]) {
            item.value.listValue?[0].listValue?[1] = .objectId(ObjectId.generate())
        }
        try expect(item.value.listValue?[0].listValue?[0].listValue, [2], [], []) {
            item.value.listValue?[0].listValue?[0].listValue?.removeLast()
        }
        try expect(item.value.listValue?[0].listValue?[0].listValue, [0, 1], [], []) {
            item.value.listValue?[0].listValue?[0].listValue?.removeAll()
        }
        // A change deeper down modifies the element that holds it.
        try expect(item.value.listValue, [], [], [0]) { item.value.listValue?[0].listValue?[0].listValue?.append(.int(1)) }
        try expect(item.value.listValue, [0], [], []) { item.value.listValue?.remove(at: 0) }
    }

    /// Observed on a queue, a nested list is rebuilt at its place in the queue's Realm and reports there.
    func testNestedListsDeliverOnAQueue() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.fromArray([.int(1)])])])
        }
        let queue = DispatchQueue(label: "nested notifications")
        let initial = expectation(description: "initial")
        let update = expectation(description: "update")
        let token = try XCTUnwrap(item.value.listValue?[0].listValue).observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let list): XCTAssertEqual(Array(list), [.int(1)]); initial.fulfill()
            case .update(let list, let deletions, let insertions, let modifications):
                XCTAssertEqual(Array(list), [.int(1), .string("two")])
                XCTAssertEqual([deletions, insertions, modifications], [[], [1], []])
                update.fulfill()
            case .error: break
            }
        }
        wait(for: [initial], timeout: 10)
        try realm.write { item.value.listValue?[0].listValue?.append(.string("two")) }
        wait(for: [update], timeout: 10)
        token.invalidate()
    }

    func testNestedDictionariesReportKeysInsertedModifiedAndDeleted() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "valueMap": ["root": AnyRealmValue.fromDictionary(
                ["a": .int(1), "b": .fromArray([]), "c": .string("x")])]])
        }
        let map = try XCTUnwrap(item.valueMap["root"]?.dictionaryValue)
        var changes: [[[String]]] = []
        let token = map.observe { change in
            if case .update(_, let d, let i, let m) = change { changes.append([d.sorted(), i.sorted(), m.sorted()]) }
        }
        defer { token.invalidate() }
        realm.refresh()
        try realm.write {
            map["d"] = .bool(true)
            map["a"] = nil
            map["b"]?.listValue?.append(.int(2))
        }
        realm.refresh()
        XCTAssertEqual(changes, [[["a"], ["d"], ["b"]]])
    }

    func testNestedCollectionsFreezeThawAndMoveBetweenThreads() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.fromDictionary(["k": .int(1)])])])
        }
        let list = try XCTUnwrap(item.value.listValue)
        let frozen = list.freeze()
        XCTAssertTrue(frozen.isFrozen)
        try realm.write { list.append(.int(2)) }
        XCTAssertEqual(frozen.count, 1, "a frozen nested list stays at its version")
        XCTAssertEqual(frozen[0].dictionaryValue?["k"], .int(1))
        XCTAssertEqual(frozen.thaw()?.count, 2)
        let reference = ThreadSafeReference(to: try XCTUnwrap(list[0].dictionaryValue))
        let configuration = self.configuration!
        let seen = BackgroundWork { () -> String in
            guard let other = try? Realm(configuration: configuration), let map = other.resolve(reference) else {
                return "not resolved"
            }
            return map["k"].map { "\($0)" } ?? "no key"
        }.value
        XCTAssertEqual(seen, "\(AnyRealmValue.int(1))")
    }

    func testUnmanagedNestedCollectionsAreEqualByContents() {
        let tree: [String: AnyRealmValue] = ["a": .fromArray([.int(1), .fromDictionary(["b": .string("x")])])]
        XCTAssertEqual(AnyRealmValue.fromDictionary([:]), AnyRealmValue.fromDictionary([:]))
        XCTAssertEqual(AnyRealmValue.fromDictionary(tree), AnyRealmValue.fromDictionary(tree))
        var other = tree
        other["new"] = .bool(false)
        XCTAssertNotEqual(AnyRealmValue.fromDictionary(tree), AnyRealmValue.fromDictionary(other))
        XCTAssertEqual(AnyRealmValue.fromArray([.int(1)]), AnyRealmValue.fromArray([.int(1)]))
        XCTAssertNotEqual(AnyRealmValue.fromArray([.int(1)]), AnyRealmValue.fromArray([.int(1), .int(1)]))
        XCTAssertNotEqual(AnyRealmValue.fromArray([]), AnyRealmValue.fromDictionary([:]))
    }

    func testStoredCollectionsAreEqualOnlyAtTheSamePlace() throws {
        let realm = try openRealm()
        let tree = AnyRealmValue.fromArray([.int(1)])
        let (first, second) = try realm.write {
            (realm.create(MixedItem.self, value: ["id": 1, "value": tree]),
             realm.create(MixedItem.self, value: ["id": 2, "value": tree]))
        }
        XCTAssertEqual(first.value, first.value)
        XCTAssertNotEqual(first.value, second.value, "two objects' lists of equal contents are two lists")
    }

    func testQueriesOverANestedListWorkOnItsCurrentElements() throws {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.int(5), .int(1), .int(9)])])
        }
        let list = try XCTUnwrap(item.value.listValue)
        XCTAssertEqual(list.index(of: .int(9)), 2)
        XCTAssertEqual(list.firstIndex { $0.intValue ?? 0 < 5 }, 1)
        try realm.write { list.append(.int(0)) }
        XCTAssertEqual(list.index(of: .int(0)), 3)
        XCTAssertTrue(list.contains(.int(1)))
    }
}

/// Misuse of nested collections stops with a message, as RealmSwift throws.
final class NestedMixedCollectionMisuseTests: RealmTestCase, DeathCaseTable {
    static let deathCaseRunner = "ColumnarTests.NestedMixedCollectionMisuseTests/testRunDeathCase"

    private func nestedList() throws -> (Realm, List<AnyRealmValue>) {
        let realm = try openRealm()
        let item = try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromArray([.fromDictionary([:])])])
        }
        return (realm, item.value.listValue!)
    }

    var deathCases: [String: () throws -> Void] {
        [
            "a nested collection in a set": {
                let realm = try self.openRealm()
                try realm.write {
                    realm.create(MixedItem.self, value: ["id": 1]).valueSet.insert(.fromArray([.int(1)]))
                }
            },
            "changing a nested list outside a write": {
                let (_, list) = try self.nestedList()
                list.append(.int(1))
            },
            "a key with a dot in a nested dictionary": {
                let (realm, list) = try self.nestedList()
                try realm.write { list[0].dictionaryValue!["a.b"] = .int(1) }
            },
            "sorting a nested list": {
                let (_, list) = try self.nestedList()
                _ = list.sorted(ascending: true)
            },
            "using a nested list after its value was replaced": {
                let (realm, list) = try self.nestedList()
                let inner = list[0].dictionaryValue!
                try realm.write { list[0] = .none }
                _ = inner.count
            },
        ]
    }

    func testRunDeathCase() throws {
        try runDeathCase()
    }

    func testMisuseStopsWithAMessage() {
        assertStops("a nested collection in a set", "cannot hold a nested List or Map")
        assertStops("changing a nested list outside a write",
                    "Attempting to modify object outside of a write transaction")
        assertStops("a key with a dot in a nested dictionary", "a.b")
        assertStops("sorting a nested list", "is not supported on a List nested in an AnyRealmValue")
        assertStops("using a nested list after its value was replaced",
                    "Map is no longer valid: the AnyRealmValue holding it was deleted or replaced.")
    }
}
