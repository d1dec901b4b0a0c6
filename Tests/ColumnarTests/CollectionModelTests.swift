// CollectionModelTests: property tests of the managed collections. Random sequences of List, Map and MutableSet
// operations on an object's collection give the same contents as the same operations on a Swift Array, Dictionary
// or Set — after every operation inside the write transaction, after it commits (or is cancelled, which must
// restore the last committed contents), and in the file as a Realm opened afresh on another thread reads it.
// A failure prints the seed that replays it (COLUMNAR_TEST_SEED).

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CollectionModelTests: RealmTestCase {
    private let rounds = 60
    private let reopenEveryRounds = 15

    // MARK: List versus Array

    func testRandomListOperationsMatchAnArray() throws {
        try checkRandomOperations(initial: [Int](), expected: { $0 }, read: { Array($0.intList) }) {
            generator, holder, model in
            let list = holder.intList
            let value = Int.random(in: -1000...1000, using: &generator)
            let count = model.count
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<25:
                list.append(value)
                model.append(value)
                return "append(\(value))"
            case 25..<40:
                let index = Int.random(in: 0...count, using: &generator)
                list.insert(value, at: index)
                model.insert(value, at: index)
                return "insert(\(value), at: \(index))"
            case 40..<55 where count > 0:
                let index = Int.random(in: 0..<count, using: &generator)
                list.remove(at: index)
                model.remove(at: index)
                return "remove(at: \(index))"
            case 55..<63 where count > 0:
                let from = Int.random(in: 0..<count, using: &generator)
                let to = Int.random(in: 0..<count, using: &generator)
                list.move(from: from, to: to)
                model.insert(model.remove(at: from), at: to)
                return "move(from: \(from), to: \(to))"
            case 63..<70 where count > 0:
                let first = Int.random(in: 0..<count, using: &generator)
                let second = Int.random(in: 0..<count, using: &generator)
                list.swapAt(first, second)
                model.swapAt(first, second)
                return "swapAt(\(first), \(second))"
            case 70..<80 where count > 0:
                let index = Int.random(in: 0..<count, using: &generator)
                if Bool.random(using: &generator) {
                    list[index] = value
                } else {
                    list.replace(index: index, object: value)
                }
                model[index] = value
                return "replace(\(index), \(value))"
            case 80..<87:
                let values = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                    Int.random(in: -9...9, using: &generator)
                }
                list.append(objectsIn: values)
                model.append(contentsOf: values)
                return "append(objectsIn: \(values))"
            case 87..<92:
                list.removeLast()   // a no-op on an empty list
                _ = model.popLast()
                return "removeLast()"
            case 92..<94:
                list.removeAll()
                model.removeAll()
                return "removeAll()"
            default:
                XCTAssertEqual(list.count, count)
                XCTAssertEqual(list.isEmpty, model.isEmpty)
                XCTAssertEqual(list.first, model.first)
                XCTAssertEqual(list.last, model.last)
                let probe = model.randomElement(using: &generator) ?? value
                XCTAssertEqual(list.index(of: probe), model.firstIndex(of: probe), "index(of: \(probe))")
                return "reads"
            }
        }
    }

    // MARK: Map versus Dictionary

    private struct MapSnapshot: Equatable {
        var keys: [String]
        var values: [String?]
    }

    private static let keyAlphabet = ["a", "b", "Z", "é", "0", "日"]

    private static func randomKey(_ generator: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...2, using: &generator)).map { _ in keyAlphabet.randomElement(using: &generator)! }
            .joined()
    }

    private static func randomValue(_ generator: inout SeededGenerator) -> String? {
        Int.random(in: 0..<5, using: &generator) == 0 ? nil : String(Int.random(in: 0..<100, using: &generator))
    }

    /// The combining closure of the merges: keeps the current value, appending the new one.
    private static func combine(_ current: String?, _ new: String?) -> String? {
        guard let current else { return new }
        return current + "+" + (new ?? "nil")
    }

    func testRandomMapOperationsMatchADictionary() throws {
        let expected: ([String: String?]) -> MapSnapshot = { model in
            let keys = model.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return MapSnapshot(keys: keys, values: keys.map { model[$0]! })
        }
        try checkRandomOperations(initial: [String: String?](), expected: expected, read: {
            MapSnapshot(keys: $0.optionalStringMap.keys, values: $0.optionalStringMap.values)
        }) { generator, holder, model in
            let map = holder.optionalStringMap
            let key = Self.randomKey(&generator)
            let value = Self.randomValue(&generator)
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<25:
                map.updateValue(value, forKey: key)
                model.updateValue(value, forKey: key)
                return "updateValue(\(String(describing: value)), forKey: \(key))"
            case 25..<40:
                map[key] = .some(value)
                model[key] = .some(value)
                return "[\(key)] = \(String(describing: value))"
            case 40..<50:
                map[key] = nil
                model[key] = nil
                return "[\(key)] = nil"
            case 50..<60:
                map.removeObject(for: key)
                model.removeValue(forKey: key)
                return "removeObject(for: \(key))"
            case 60..<68:
                let pairs = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                    (Self.randomKey(&generator), Self.randomValue(&generator))
                }
                map.merge(pairs.map { (key: $0.0, value: $0.1) }, uniquingKeysWith: Self.combine)
                model.merge(pairs, uniquingKeysWith: Self.combine)
                return "merge(\(pairs))"
            case 68..<74:
                let other = Map<String, String?>()
                var otherModel: [String: String?] = [:]
                for _ in 0..<Int.random(in: 0...4, using: &generator) {
                    let (otherKey, otherValue) = (Self.randomKey(&generator), Self.randomValue(&generator))
                    other.updateValue(otherValue, forKey: otherKey)
                    otherModel.updateValue(otherValue, forKey: otherKey)
                }
                map.merge(other, uniquingKeysWith: Self.combine)
                model.merge(otherModel, uniquingKeysWith: Self.combine)
                return "merge(map \(otherModel))"
            case 74..<76:
                map.merge(map, uniquingKeysWith: Self.combine)
                model.merge(model, uniquingKeysWith: Self.combine)
                return "merge(itself)"
            case 76..<84:
                switch value {
                case .some(let text) where Bool.random(using: &generator):
                    map.setValue(text, forKey: key)
                    model[key] = .some(text)
                case .some:
                    map.setValue(nil, forKey: key)
                    model[key] = nil
                case .none:
                    map.setValue(NSNull(), forKey: key)
                    model[key] = .some(nil)
                }
                return "setValue(\(String(describing: value)), forKey: \(key))"
            case 84..<86:
                map.removeAll()
                model.removeAll()
                return "removeAll()"
            default:
                XCTAssertEqual(map.count, model.count)
                XCTAssertEqual(map.isEmpty, model.isEmpty)
                XCTAssertEqual(map[key], model[key], "[\(key)]")
                XCTAssertEqual(map.object(forKey: key), model[key], "object(forKey: \(key))")
                XCTAssertEqual(map.contains { $0 == key && $1 == value }, model[key] == .some(value))
                return "reads"
            }
        }
    }

    // MARK: MutableSet versus Set

    private struct SetModel {
        var set: Set<Int> = []
        var other: Set<Int> = []
    }

    func testRandomSetOperationsMatchASet() throws {
        try checkRandomOperations(initial: SetModel(), expected: { [$0.set.sorted(), $0.other.sorted()] },
                                  read: { [Array($0.intSet), Array($0.otherIntSet)] }) { generator, holder, model in
            let set = holder.intSet, other = holder.otherIntSet
            let value = Int.random(in: -15...15, using: &generator)
            let randomValues = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                Int.random(in: -15...15, using: &generator)
            }
            let operand = MutableSet<Int>()
            operand.insert(objectsIn: randomValues)
            let operandModel = Set(randomValues)
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<25:
                set.insert(value)
                model.set.insert(value)
                return "insert(\(value))"
            case 25..<32:
                set.insert(objectsIn: randomValues)
                model.set.formUnion(randomValues)
                return "insert(objectsIn: \(randomValues))"
            case 32..<47:
                set.remove(value)
                model.set.remove(value)
                return "remove(\(value))"
            case 47..<55:
                other.insert(value)
                model.other.insert(value)
                return "other.insert(\(value))"
            case 55..<60:
                other.remove(value)
                model.other.remove(value)
                return "other.remove(\(value))"
            case 60..<66:
                set.formUnion(operand)
                model.set.formUnion(operandModel)
                return "formUnion(\(operandModel.sorted()))"
            case 66..<72:
                set.formIntersection(operand)
                model.set.formIntersection(operandModel)
                return "formIntersection(\(operandModel.sorted()))"
            case 72..<78:
                set.subtract(operand)
                model.set.subtract(operandModel)
                return "subtract(\(operandModel.sorted()))"
            case 78..<81:
                set.formUnion(other)
                model.set.formUnion(model.other)
                return "formUnion(other)"
            case 81..<84:
                set.formIntersection(other)
                model.set.formIntersection(model.other)
                return "formIntersection(other)"
            case 84..<87:
                other.subtract(set)
                model.other.subtract(model.set)
                return "other.subtract(set)"
            case 87..<89:
                set.removeAll()
                model.set.removeAll()
                return "removeAll()"
            default:
                XCTAssertEqual(set.count, model.set.count)
                XCTAssertEqual(set.contains(value), model.set.contains(value), "contains(\(value))")
                XCTAssertEqual(set.intersects(other), !model.set.isDisjoint(with: model.other), "intersects(other)")
                XCTAssertEqual(set.intersects(operand), !model.set.isDisjoint(with: operandModel))
                XCTAssertEqual(set.isSubset(of: other), model.set.isSubset(of: model.other), "isSubset(of: other)")
                XCTAssertEqual(operand.isSubset(of: set), operandModel.isSubset(of: model.set))
                XCTAssertEqual(set.first, model.set.min())
                XCTAssertEqual(set.last, model.set.max())
                return "reads"
            }
        }
    }

    // MARK: The harness

    /// Applies random operations (`operate` changes the managed collection of `holder` and the Swift model alike
    /// and names what it did) in write transactions of 1-12 operations, of which about one in eight is cancelled.
    /// `read` renders the managed collection and `expected` the model in the same comparable form.
    private func checkRandomOperations<Model, Snapshot: Equatable>(
        initial: Model,
        expected: (Model) -> Snapshot,
        read: @escaping @Sendable (CollectionHolder) -> Snapshot,
        operate: (inout SeededGenerator, CollectionHolder, inout Model) -> String
    ) throws {
        var generator = makeSeededGenerator()
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write { realm.add(holder) }
        var committed = initial
        var history: [String] = []
        for round in 0..<rounds {
            let cancels = Int.random(in: 0..<8, using: &generator) == 0
            realm.beginWrite()
            var working = committed
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                history.append(operate(&generator, holder, &working))
                guard read(holder) == expected(working) else {
                    XCTFail("round \(round), inside the write: \(read(holder)) != \(expected(working)) after "
                            + history.suffix(8).joined(separator: "; "))
                    realm.cancelWrite()
                    return
                }
            }
            if cancels {
                realm.cancelWrite()
                history.append("-- cancelled")
            } else {
                try realm.commitWrite()
                committed = working
                history.append("-- committed")
            }
            guard read(holder) == expected(committed) else {
                XCTFail("round \(round), after the write: \(read(holder)) != \(expected(committed)) after "
                        + history.suffix(8).joined(separator: "; "))
                return
            }
            if round % reopenEveryRounds == reopenEveryRounds - 1 {
                XCTAssertEqual(try readOnAnotherThread(read), expected(committed), "round \(round), reopened")
            }
        }
    }

    /// The collection as a Realm opened on another thread reads it from the file.
    private func readOnAnotherThread<Snapshot>(_ read: @escaping @Sendable (CollectionHolder) -> Snapshot) throws
        -> Snapshot {
        let url = configuration.fileURL!
        let result = Locked<Result<Snapshot, Error>?>(nil)
        runOnThreads(1) { _ in
            let outcome = Result { () throws -> Snapshot in
                let holders = try Realm(fileURL: url).objects(CollectionHolder.self)
                XCTAssertEqual(holders.count, 1)
                return read(holders[0])
            }
            result.withLock { $0 = outcome }
        }
        return try result.value!.get()
    }
}
