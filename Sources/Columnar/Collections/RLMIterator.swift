// RLMIterator: the iterator List, MutableSet, Results and LinkingObjects return from `makeIterator()` (RealmSwift
// names the type, so code may spell it out), and the positional reads (`objects(at:)`) those collections share.

import Foundation

/// The iterator of a `List`, `MutableSet`, `Results` or `LinkingObjects`.
///
/// It yields the elements present when iteration began, as RealmSwift's enumeration of a snapshot does: appending
/// to a list inside its own `for` loop ends, removing or deleting elements does not make the loop skip the ones
/// after them, and an object deleted during the loop before its turn is left out (it could only be read as
/// invalidated).
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    /// Set when iterating results.
    private var results: ResultsIteration<Element>?
    /// Set when iterating a list, set or linking objects.
    private var snapshot: CollectionSnapshot<Element>?

    init(results: Results<Element>) {
        self.results = ResultsIteration(results)
        self.snapshot = nil
    }

    init(snapshot elements: [Element], core: RealmCore?) {
        self.results = nil
        self.snapshot = CollectionSnapshot(elements: elements, core: core)
    }

    public mutating func next() -> Element? {
        if results != nil { return results!.next() }
        return snapshot!.next()
    }
}

/// The elements of a list, set or linking objects when iteration began.
struct CollectionSnapshot<Element> {
    private let elements: [Element]
    /// The Realm of a managed collection, whose change counter tells whether anything can have been deleted.
    private let core: RealmCore?
    private let changeState: UInt64
    private var position = 0

    init(elements: [Element], core: RealmCore?) {
        self.elements = elements
        self.core = core
        self.changeState = core?.changeCounter ?? 0
    }

    mutating func next() -> Element? {
        while position < elements.count {
            let element = elements[position]
            position += 1
            // While the Realm is unchanged nothing can have been deleted, and the existence check is skipped.
            guard let core, core.changeCounter != changeState, let object = element as? ObjectBase,
                  let location = object._location else { return element }
            if core.objectExists(location) { return element }
        }
        return nil
    }
}

extension RandomAccessCollection where Index == Int {
    /// An iterator over the elements as they are now (read position by position, once).
    func snapshotIterator(core: RealmCore?) -> RLMIterator<Element> where Element: RealmCollectionValue {
        let size = count
        var elements: [Element] = []
        elements.reserveCapacity(size)
        for position in 0 ..< size { elements.append(self[position]) }
        return RLMIterator(snapshot: elements, core: core)
    }

    /// The elements at the given positions, in ascending order of position; a position out of range stops with a
    /// message, as the subscript does.
    func elements(at indexes: IndexSet) -> [Element] {
        let size = count
        if let last = indexes.last {
            precondition(indexes.first! >= 0 && last < size,
                         "Index \(last) is out of bounds (must be less than \(size)).")
        }
        return indexes.map { self[$0] }
    }
}
