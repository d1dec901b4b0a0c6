// MapTests: Map unmanaged and managed — keys in bytewise order, nil values versus missing keys, merging, the
// key-value-coding accessors, maps of objects, Codable as a JSON object, and persistence across reopening.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class MapTests: RealmTestCase {
    /// Runs `body` with an unmanaged map and with a managed one (inside a write transaction), so that both kinds
    /// are held to the same behaviour.
    private func withBothKinds(_ body: (Map<String, Int>, String) throws -> Void) throws {
        try body(Map<String, Int>(), "unmanaged")
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write {
            realm.add(holder)
            try body(holder.intMap, "managed")
        }
    }

    /// RealmSwift's RealmKeyedCollection: code generic over it writes, reads, queries and aggregates a map, managed
    /// or not, and freezes a managed one.
    func testCodeGenericOverRealmKeyedCollectionWorksOnAMap() throws {
        func fill<M: RealmKeyedCollection>(_ map: M) -> [String] where M.Key == String, M.Value == Int {
            map.updateValue(3, forKey: "c")
            map.updateValue(1, forKey: "a")
            map.updateValue(2, forKey: "b")
            map.removeObject(for: "c")
            let total: Int = map.sum(ofProperty: "self")
            let largest: Int? = map.max(ofProperty: "self")
            return [map.keys.joined(), "\(map.values)", "\(map.count)", "\(total)", "\(largest ?? -1)",
                    "\(map.contains { $0 == "b" && $1 == 2 })", "\(map.object(forKey: "a") ?? -1)"]
        }
        try withBothKinds { map, kind in
            XCTAssertEqual(fill(map), ["ab", "[1, 2]", "2", "3", "2", "true", "1"], kind)
        }
        let realm = try openRealm()
        let holder = try realm.write { () -> CollectionHolder in
            let holder = realm.create(CollectionHolder.self)
            holder.intMap["x"] = 5
            return holder
        }
        func frozenCount<M: RealmKeyedCollection>(_ map: M) -> Int? { map.freeze().isFrozen ? map.freeze().count : nil }
        XCTAssertEqual(frozenCount(holder.intMap), 1)
    }

    func testEmptyMap() throws {
        try withBothKinds { map, kind in
            XCTAssertEqual(map.count, 0, kind)
            XCTAssertTrue(map.isEmpty, kind)
            XCTAssertEqual(map.keys, [], kind)
            XCTAssertEqual(map.values, [], kind)
            XCTAssertNil(map["missing"], kind)
            XCTAssertNil(map.object(forKey: "missing"), kind)
            XCTAssertNil(map.value(forKey: "missing"), kind)
            XCTAssertNil(map.value(forKeyPath: "missing.name"), kind)
            XCTAssertFalse(map.contains { _, _ in true }, kind)
            var iterator = map.makeIterator()
            XCTAssertNil(iterator.next(), kind)
            XCTAssertEqual(Array(map.asKeyValueSequence()).count, 0, kind)
            map.removeObject(for: "missing")
            map.removeAll()
            XCTAssertTrue(map.isEmpty, kind)
        }
    }

    func testUpdatingReadingAndRemovingKeys() throws {
        try withBothKinds { map, kind in
            map.updateValue(1, forKey: "b")
            map["a"] = 2
            map["c"] = 3
            map.updateValue(20, forKey: "a")
            XCTAssertEqual(map.count, 3, kind)
            XCTAssertFalse(map.isEmpty, kind)
            XCTAssertEqual(map.keys, ["a", "b", "c"], kind)
            XCTAssertEqual(map.values, [20, 1, 3], kind)
            XCTAssertEqual(map["a"], 20, kind)
            XCTAssertEqual(map.object(forKey: "b"), 1, kind)
            XCTAssertEqual(map.object(forKey: "c" as AnyObject) as? Int, 3, kind)
            XCTAssertEqual(map.value(forKey: "c") as? Int, 3, kind)
            XCTAssertEqual(map.value(forKeyPath: "b") as? Int, 1, kind)
            XCTAssertTrue(map.contains { key, value in key == "b" && value == 1 }, kind)
            XCTAssertFalse(map.contains { key, value in key == "b" && value == 2 }, kind)

            map["b"] = nil
            XCTAssertNil(map["b"], kind)
            XCTAssertEqual(map.keys, ["a", "c"], kind)
            map.removeObject(for: "a")
            map.removeObject(for: "a")
            XCTAssertEqual(map.keys, ["c"], kind)
            map.setValue(7, forKey: "d")
            map.setValue(Int8(8), forKey: "e")
            XCTAssertEqual(map.values, [3, 7, 8], kind)
            map.setValue(nil, forKey: "d")
            XCTAssertEqual(map.keys, ["c", "e"], kind)
            map.removeAll()
            XCTAssertTrue(map.isEmpty, kind)
        }
    }

    func testKeysAreOrderedBytewise() throws {
        let keys = ["zebra", "Zebra", "", "apple", "äpfel", "app", "10", "9", "日本", "a b"]
        let expected = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        try withBothKinds { map, kind in
            for (index, key) in keys.enumerated() { map[key] = index }
            XCTAssertEqual(map.keys, expected, kind)
            XCTAssertEqual(map.values, expected.map { keys.firstIndex(of: $0)! }, kind)
            XCTAssertEqual(map.map(\.key), expected, kind)
            XCTAssertEqual(map.asKeyValueSequence().map(\.key), expected, kind)
            XCTAssertEqual(map[""], 2, kind)
        }
    }

    /// Map iteration as `(key:, value:)` tuples. The reference's Map page, the contract, documents `makeIterator()`
    /// yielding `SingleMapEntry` values and `asKeyValueSequence()` yielding `(key: Key, value: Value)` tuples
    /// (RealmSwift 20 made the tuples the default sequence): a tuple loop goes through `asKeyValueSequence()`.
    func testTupleIterationIsTheKeyValueSequenceAsTheReferenceDocuments() throws {
        try withBothKinds { map, kind in
            map["b"] = 2
            map["a"] = 1
            var pairs: [String] = []
            for (key, value) in map.asKeyValueSequence() { pairs.append("\(key)=\(value)") }
            XCTAssertEqual(pairs, ["a=1", "b=2"], kind)
            let tuples: [(key: String, value: Int)] = Array(map.asKeyValueSequence())
            XCTAssertEqual(tuples.map(\.key), ["a", "b"], kind)
            var entries: [String] = []
            for entry in map { entries.append("\(entry.key)=\(entry.value)") }
            XCTAssertEqual(entries, pairs, kind)
        }
    }

    func testIterationYieldsEntriesAndIsASnapshot() throws {
        try withBothKinds { map, kind in
            map["x"] = 1
            map["y"] = 2
            var entries: [SingleMapEntry<String, Int>] = []
            for entry in map {
                entries.append(entry)
                map[entry.key + entry.key] = 0   // changing the map while iterating does not disturb the loop
            }
            XCTAssertEqual(entries, [SingleMapEntry(key: "x", value: 1), SingleMapEntry(key: "y", value: 2)], kind)
            let pairs = Array(map.asKeyValueSequence())
            XCTAssertEqual(pairs.map(\.key), ["x", "xx", "y", "yy"], kind)
            XCTAssertEqual(pairs.map(\.value), [1, 0, 2, 0], kind)
        }
    }

    func testMergingSequencesAndMaps() throws {
        try withBothKinds { map, kind in
            map["a"] = 1
            map["b"] = 2
            map.merge([(key: "b", value: 10), (key: "c", value: 3)], uniquingKeysWith: +)
            XCTAssertEqual(map.values, [1, 12, 3], kind)
            map.merge([(key: "a", value: 5)]) { current, _ in current }
            XCTAssertEqual(map["a"], 1, kind)
            let other = Map<String, Int>()
            other["a"] = 100
            other["d"] = 4
            map.merge(other) { _, new in new }
            XCTAssertEqual(map.keys, ["a", "b", "c", "d"], kind)
            XCTAssertEqual(map.values, [100, 12, 3, 4], kind)
            map.merge(map, uniquingKeysWith: +)
            XCTAssertEqual(map.values, [200, 24, 6, 8], "merging a map into itself combines every value")
            struct Refused: Error {}
            XCTAssertThrowsError(try map.merge([(key: "a", value: 1)]) { _, _ in throw Refused() }, kind)
            XCTAssertEqual(map["a"], 200, kind)
        }
    }

    func testManagedMapMergesAnotherManagedMap() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write {
            realm.add(holder)
            holder.intMap["a"] = 1
            holder.otherIntMap["a"] = 2
            holder.otherIntMap["b"] = 3
            holder.intMap.merge(holder.otherIntMap) { Swift.max($0, $1) }
        }
        XCTAssertEqual(Array(holder.intMap.asKeyValueSequence()).map { "\($0.key)=\($0.value)" }, ["a=2", "b=3"])
    }

    func testOptionalValuesDistinguishNilFromAMissingKey() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write { realm.add(holder) }
        for (map, kind) in [(Map<String, String?>(), "unmanaged"), (holder.optionalStringMap, "managed")] {
            try realm.write {
                map.updateValue(nil, forKey: "null")
                map["some"] = "text"
                map["stored null"] = .some(nil)
                map["gone"] = "x"
                map["gone"] = nil
            }
            XCTAssertEqual(map.count, 3, kind)
            XCTAssertEqual(map.keys, ["null", "some", "stored null"], kind)
            XCTAssertEqual(map.values, [nil, "text", nil], kind)
            let null: String?? = map["null"]
            XCTAssertTrue(null != nil, "\(kind): a key holding nil is present")
            XCTAssertEqual(null, .some(nil), kind)
            XCTAssertTrue(map["gone"] == nil, kind)
            XCTAssertTrue(map.value(forKey: "null") is NSNull, kind)
            XCTAssertNil(map.value(forKey: "gone"), kind)
            XCTAssertTrue(map.contains { $1 == nil }, kind)
            try realm.write {
                map.setValue(NSNull(), forKey: "some")
                map.merge([(key: "null", value: "filled")]) { current, new in current ?? new }
            }
            XCTAssertEqual(map.values, ["filled", nil, nil], kind)
        }
    }

    func testMapOfObjects() throws {
        let realm = try openRealm()
        let kennel = Kennel()
        kennel.dogsByName["rex"] = KennelDog(value: ["name": "Rex"])
        kennel.dogsByName.updateValue(nil, forKey: "nobody")
        XCTAssertEqual(kennel.dogsByName.objectClassName, "KennelDog")
        try realm.write { realm.add(kennel) }
        XCTAssertEqual(realm.objects(KennelDog.self).count, 1, "the dog was added with the kennel")
        let map = kennel.dogsByName
        XCTAssertEqual(map.keys, ["nobody", "rex"])
        XCTAssertEqual(map["rex"]??.name, "Rex")
        XCTAssertEqual(map["nobody"], .some(nil))
        XCTAssertEqual(map.value(forKeyPath: "rex.name") as? String, "Rex")
        XCTAssertTrue(map.value(forKeyPath: "nobody.name") is NSNull)
        XCTAssertNil(map.value(forKeyPath: "missing.name"))

        let fido = KennelDog(value: ["name": "Fido"])
        try realm.write { map["fido"] = fido }
        XCTAssertNotNil(fido.realm, "an unmanaged object set in a managed map is added to its Realm")
        XCTAssertEqual(map.values.map { $0?.name }, ["Fido", nil, "Rex"])
        XCTAssertTrue(map.contains { $1?.name == "Fido" })
        try realm.write { realm.delete(fido) }
        XCTAssertEqual(map.keys, ["fido", "nobody", "rex"], "deleting an object leaves its key, holding nil")
        XCTAssertEqual(map["fido"], .some(nil))
        try realm.write { map.setValue(["name": "Spot"], forKey: "spot") }
        XCTAssertEqual(map["spot"]??.name, "Spot", "a dictionary makes a new object")
    }

    func testKeysMayHoldDotsAndDollarsOnlyWhereRealmSwiftAllowsThem() throws {
        // Refused keys stop the program (see CollectionMisuseTests); lookups with them simply find nothing, and
        // "$" or "." elsewhere than RealmSwift forbids is fine.
        try withBothKinds { map, kind in
            XCTAssertNil(map["a.b"], kind)
            XCTAssertNil(map["$a"], kind)
            map["a$"] = 1
            map["-$-"] = 2
            XCTAssertEqual(map.keys, ["-$-", "a$"], kind)
            map.removeObject(for: "$a")
            map.removeObject(for: String(repeating: "k", count: 1000))
            XCTAssertNil(map[String(repeating: "k", count: 1000)], kind)
            XCTAssertEqual(map.count, 2, kind)
        }
    }

    func testMapFromUntypedValuesAndAssignment() throws {
        let holder = CollectionHolder(value: ["intMap": ["one": 1, "two": 2],
                                              "optionalStringMap": ["n": nil, "s": "s"] as [String: Any?]])
        XCTAssertEqual(holder.intMap.keys, ["one", "two"])
        XCTAssertEqual(holder.optionalStringMap.values, [nil, "s"])
        let realm = try openRealm()
        try realm.write { realm.add(holder) }
        XCTAssertEqual(holder.optionalStringMap.values, [nil, "s"])
        let replacement = Map<String, Int>()
        replacement["three"] = 3
        try realm.write { holder.intMap = replacement }
        XCTAssertEqual(holder.intMap.keys, ["three"])
        try realm.write { holder.intMap = holder.intMap }
        XCTAssertEqual(holder.intMap.keys, ["three"], "assigning a map to its own property keeps it")
        try realm.write { holder.otherIntMap = holder.intMap }
        XCTAssertEqual(holder.otherIntMap.values, [3])
    }

    func testMapRealmAndInvalidation() throws {
        let map = Map<String, Int>()
        XCTAssertNil(map.realm)
        XCTAssertFalse(map.isInvalidated)
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write { realm.add(holder) }
        XCTAssertEqual(holder.intMap.realm, realm)
        XCTAssertFalse(holder.intMap.isInvalidated)
        let managed = holder.intMap
        try realm.write { realm.delete(holder) }
        XCTAssertTrue(managed.isInvalidated)
    }

    func testMapDescription() throws {
        let map = Map<String, Int?>()
        map["b"] = 2
        map["a"] = .some(nil)
        XCTAssertEqual(map.description, "Map<String, Optional<Int>> <2 entries> (\n\t[\"a\"]: (null),\n\t[\"b\"]: 2\n)")
    }

    func testMapCodableAsAJSONObject() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write {
            realm.add(holder)
            holder.optionalStringMap["b"] = "B"
            holder.optionalStringMap["a"] = .some(nil)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try encoder.encode(holder.optionalStringMap)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"a":null,"b":"B"}"#)
        let decoded = try JSONDecoder().decode(Map<String, String?>.self, from: Data(#"{"y":null,"x":"X"}"#.utf8))
        XCTAssertEqual(decoded.keys, ["x", "y"])
        XCTAssertEqual(decoded["y"], .some(nil))
        XCTAssertEqual(decoded["x"], "X")
        XCTAssertThrowsError(try JSONDecoder().decode(Map<String, Int>.self, from: Data("[1]".utf8)))
    }

    func testMapsSurviveReopening() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        holder.intMap["k"] = 1
        holder.optionalStringMap.updateValue(nil, forKey: "n")
        holder.dateMap["epoch"] = Date(timeIntervalSince1970: 0)
        holder.dateMap["later"] = Date(timeIntervalSince1970: 1_700_000_000.5)
        try realm.write { realm.add(holder) }
        let url = configuration.fileURL!
        let reread = Locked<Result<String, Error>>(.success(""))
        runOnThreads(1) { _ in
            reread.withLock { result in
                result = Result {
                    let object = try Realm(fileURL: url).objects(CollectionHolder.self)[0]
                    return "\(Array(object.intMap.asKeyValueSequence()))|\(object.optionalStringMap.keys)"
                        + "|\(object.optionalStringMap.values)|\(object.dateMap.values.map(\.timeIntervalSince1970))"
                }
            }
        }
        XCTAssertEqual(try reread.value.get(),
                       #"[(key: "k", value: 1)]|["n"]|[nil]|[0.0, 1700000000.5]"#)
    }
}
