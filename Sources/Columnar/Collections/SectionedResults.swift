// SectionedResults: results divided into sections by a key (RealmSwift's `sectioned(by:)`, reference 001).
//
// `realm.objects(Dog.self).sectioned(by: \.breed)` sorts the dogs by breed and gives one `ResultsSection` per breed,
// in sorted order; `sectioned(sortDescriptors:) { $0.name.first! }` takes any key computed from an element, the
// sections in order of each key's first appearance in the sorted results. Both are live, as Results are: every
// read reflects the Realm's current state (including the uncommitted changes of its write), recomputing the
// sections when the data has changed since they were last computed. A section whose key no longer occurs is empty.
//
// Change notifications (`observe`) are in Notifications/SectionedObservation.swift; frozen copies come with the
// frozen-snapshot work and are not offered yet.

import CColumnar
import Foundation

/// The sections of one state of the Realm: each key with the positions of its elements in the sorted results.
final class SectionLayout<Key: Hashable> {
    var state: UInt64 = .max
    var generation: UInt64 = .max
    var keys: [Key] = []
    var positions: [Key: [Int]] = [:]
}

/// Results divided into sections by a key, in the order of the sorted results.
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>:
    RandomAccessCollection, CustomStringConvertible {
    public typealias Element = ResultsSection<Key, SectionElement>

    let results: Results<SectionElement>
    let sectionKey: (SectionElement) -> Key
    private let layout = SectionLayout<Key>()

    init(results: Results<SectionElement>, sectionKey: @escaping (SectionElement) -> Key) {
        self.results = results
        self.sectionKey = sectionKey
        // Threads share frozen sections: they are computed now, so that reading them only reads.
        if results.core.isFrozen { _ = current() }
    }

    /// The sections as the Realm is now.
    func current() -> SectionLayout<Key> {
        let core = results.core
        if layout.state != core.changeCounter || layout.generation != core.generation {
            var keys: [Key] = []
            var positions: [Key: [Int]] = [:]
            for (position, element) in results.enumerated() {
                let key = sectionKey(element)
                if positions[key] == nil { keys.append(key) }
                positions[key, default: []].append(position)
            }
            layout.keys = keys
            layout.positions = positions
            layout.state = core.changeCounter
            layout.generation = core.generation
        }
        return layout
    }

    /// The key of every section, in order.
    public var allKeys: [Key] { current().keys }

    /// The Realm the results come from.
    public var realm: Realm? { results.realm }

    /// Whether the results can no longer be used (their Realm was invalidated); they are then empty.
    public var isInvalidated: Bool { results.isInvalidated }

    public var startIndex: Int { 0 }
    public var endIndex: Int { current().keys.count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// The section at a position.
    public subscript(position: Int) -> ResultsSection<Key, SectionElement> {
        let keys = current().keys
        precondition(position >= 0 && position < keys.count,
                     "Index \(position) is out of bounds (must be less than \(keys.count)).")
        return ResultsSection(parent: self, key: keys[position])
    }

    /// The element at an index path of two indexes, the section's and the element's in it (`IndexPath(indexes:
    /// [section, item])`; Linux's Foundation has no `section` and `item`, which are UIKit's).
    public subscript(indexPath: IndexPath) -> SectionElement {
        precondition(indexPath.count == 2, "An index path into sectioned results has two indexes (section, item), "
                         + "not \(indexPath.count)")
        return self[indexPath[0]][indexPath[1]]
    }

    public var description: String {
        let sections = enumerated().map { index, section in "\t[\(index)] \(section.key): \(section.count) elements" }
        return "SectionedResults<\(Key.self), \(SectionElement.self)> <\(count) sections> (\n"
            + sections.joined(separator: ",\n") + "\n)"
    }
}

/// One section of `SectionedResults`: its key and its elements, in the order of the sorted results.
public struct ResultsSection<Key: _Persistable & Hashable, Element: RealmCollectionValue>:
    RandomAccessCollection, Identifiable, CustomStringConvertible {
    let parent: SectionedResults<Key, Element>
    /// The value every element of the section has for the section key.
    public let key: Key

    /// The section's key, which identifies it among the sections.
    public var id: Key { key }

    private var positions: [Int] { parent.current().positions[key] ?? [] }

    public var realm: Realm? { parent.realm }
    public var isInvalidated: Bool { parent.isInvalidated }

    public var startIndex: Int { 0 }
    public var endIndex: Int { positions.count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// The element at a position in the section.
    public subscript(position: Int) -> Element {
        let positions = self.positions
        precondition(position >= 0 && position < positions.count,
                     "Index \(position) is out of bounds (must be less than \(positions.count)).")
        return parent.results[positions[position]]
    }

    public var description: String {
        "ResultsSection<\(Key.self), \(Element.self)> <\(key)> <\(count) elements>"
    }
}

extension Results {
    /// The results sorted by `sortDescriptors`, the first of which must sort by `name` (the property path
    /// `keyPath` reads), and divided into one section per value of the key path.
    func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, named name: String,
                                                 sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard let first = sortDescriptors.first, first.keyPath == name else {
            fatalError("The section key path '\(name)' must be the key path of the first sort descriptor, so that "
                       + "each section's elements are together")
        }
        return SectionedResults(results: sorted(by: sortDescriptors), sectionKey: { $0[keyPath: keyPath] })
    }
}

extension Results where Element: ObjectBase {
    /// The results sorted by a key path and divided into one section per value of it.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true)
        -> SectionedResults<Key, Element> {
        sectioned(by: keyPath, sortDescriptors: [SortDescriptor(keyPath: _name(for: keyPath), ascending: ascending)])
    }

    /// The results sorted by `sortDescriptors`, the first of which must be the key path's, and divided into one
    /// section per value of the key path.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor])
        -> SectionedResults<Key, Element> {
        sectioned(by: keyPath, named: _name(for: keyPath), sortDescriptors: sortDescriptors)
    }

    /// The results sorted by `sortDescriptors` and divided into one section per key `keyBlock` gives an element
    /// (sections in the order of each key's first appearance).
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor],
                                                        _ keyBlock: @escaping (Element) -> Key)
        -> SectionedResults<Key, Element> {
        SectionedResults(results: sortDescriptors.isEmpty ? self : sorted(by: sortDescriptors), sectionKey: keyBlock)
    }
}

extension QueryableObjectCollection where Element: ObjectBase {
    /// The collection's elements sorted by a key path and divided into one section per value of it.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true)
        -> SectionedResults<Key, Element> {
        _elementResults("sectioned(by:)").sectioned(by: keyPath, ascending: ascending)
    }

    /// The elements sorted by `sortDescriptors` (the first being the key path's), one section per key path value.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor])
        -> SectionedResults<Key, Element> {
        _elementResults("sectioned(by:)").sectioned(by: keyPath, sortDescriptors: sortDescriptors)
    }

    /// The elements sorted by `sortDescriptors`, one section per key `keyBlock` gives.
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor],
                                                        _ keyBlock: @escaping (Element) -> Key)
        -> SectionedResults<Key, Element> {
        _elementResults("sectioned(sortDescriptors:)").sectioned(sortDescriptors: sortDescriptors, keyBlock)
    }
}

// MARK: RealmSectionedResult

/// What SectionedResults and ResultsSection share (RealmSwift's `RealmSectionedResult`), so that code generic over
/// either compiles: the Realm, invalidation, the count, and freezing. (`observe` is a member of each type, with a
/// change type of its own, rather than a requirement.)
public protocol RealmSectionedResult: ThreadConfined, Equatable, RandomAccessCollection {
    /// The Realm managing the results, or nil when they are invalidated.
    var realm: Realm? { get }
    /// Whether the results can no longer be used (their Realm was invalidated).
    var isInvalidated: Bool { get }
    /// The number of sections (SectionedResults) or of objects (ResultsSection).
    var count: Int { get }
    /// Whether the results belong to a frozen Realm.
    var isFrozen: Bool { get }
    /// A frozen snapshot of the results.
    func freeze() -> Self
    /// The live results in the calling thread's Realm.
    func thaw() -> Self?
}

extension SectionedResults: RealmSectionedResult {
    /// Sectioned results are equal when they section the same results (the section keys are not compared:
    /// closures cannot be).
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool { lhs.results == rhs.results }

    public func _handOverRecipe() -> _HandOverRecipe {
        let sectionKey = self.sectionKey
        let results = self.results._handOverRecipe()
        return _HandOverRecipe(core: self.results.core) { core in
            (results.rebuild(core) as? Results<SectionElement>).map {
                SectionedResults(results: $0, sectionKey: sectionKey)
            }
        }
    }
}

extension ResultsSection: RealmSectionedResult {
    /// Sections are equal when they are the same section of equal sectioned results.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool {
        lhs.key == rhs.key && lhs.parent == rhs.parent
    }

    public func _handOverRecipe() -> _HandOverRecipe {
        let key = self.key
        let parent = self.parent._handOverRecipe()
        return _HandOverRecipe(core: self.parent.results.core) { core in
            (parent.rebuild(core) as? SectionedResults<Key, Element>).map { ResultsSection(parent: $0, key: key) }
        }
    }
}
