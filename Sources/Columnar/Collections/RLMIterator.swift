// RLMIterator: the iterator List, MutableSet, Results and LinkingObjects return from `makeIterator()` (RealmSwift
// names the type, so code may spell it out), and the positional reads (`objects(at:)`) those collections share.

import CColumnar
import Foundation

/// The iterator of a `List`, `MutableSet`, `Results` or `LinkingObjects`.
///
/// It yields the elements present when iteration began, as RealmSwift's enumeration of a snapshot does: appending
/// to a list inside its own `for` loop ends, removing or deleting elements does not make the loop skip the ones
/// after them, and an object deleted during the loop before its turn is left out (it could only be read as
/// invalidated).
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    // The state is a class: `next()` is called from other modules without being specialized, and an optional
    // generic struct made it look up the struct's type metadata (a hashed lookup under a lock) on every element.
    // Copies stay independent: `next()` first copies a state another iterator shares. That check is made on
    // `owner`, typed as a non-generic class, because checking a generic class looks its metadata up too; the
    // typed references below are the same object, kept alive by `owner`.
    private var owner: IterationState
    /// Set when iterating results.
    private unowned(unsafe) var results: ResultsIteration<Element>?
    /// Set when iterating a list, set or linking objects.
    private unowned(unsafe) var snapshot: CollectionSnapshot<Element>?

    init(results: Results<Element>) {
        let state = ResultsIteration(results)
        self.owner = state
        self.results = state
        self.snapshot = nil
    }

    private init(snapshotState state: CollectionSnapshot<Element>) {
        self.owner = state
        self.results = nil
        self.snapshot = state
    }

    init(snapshot elements: [Element]) {
        self.init(snapshotState: CollectionSnapshot(elements: elements))
    }

    init(snapshotKeys keys: [columnar_key], of binding: ClassBinding, core: RealmCore) {
        self.init(snapshotState: CollectionSnapshot(keys: keys, binding: binding, core: core))
    }

    public mutating func next() -> Element? {
        if !isKnownUniquelyReferenced(&owner) {
            if let results {
                let state = results.copy()
                owner = state
                self.results = state
            } else if let snapshot {
                let state = snapshot.copy()
                owner = state
                self.snapshot = state
            }
        }
        if let results { return results.next() }
        return snapshot.unsafelyUnwrapped.next()
    }
}

/// The state of an iteration, as RLMIterator holds it (see there).
class IterationState {}

/// The elements of a list, set or linking objects when iteration began. Objects are kept as their keys and made
/// as the loop reaches them, so a loop that stops early (`first(where:)`) makes few and a long list does not hold
/// every object at once.
final class CollectionSnapshot<Element>: IterationState {
    private enum Members {
        case elements([Element])
        case objects(keys: [columnar_key], binding: ClassBinding)
    }

    private let members: Members
    /// The Realm of a managed collection of objects, whose change counter tells whether any can have been deleted.
    private let core: RealmCore?
    private let changeState: UInt64
    private var position = 0
    /// Makes the objects of a managed collection of objects, handing out the last one again when nothing else
    /// references it (AccessorReuse.swift).
    @exclusivity(unchecked) private var accessors: LoopAccessor

    /// Values, or the objects of an unmanaged collection: nothing to check as the loop goes.
    init(elements: [Element]) {
        self.members = .elements(elements)
        self.core = nil
        self.changeState = 0
        accessors = LoopAccessor(binding: nil)
    }

    init(keys: [columnar_key], binding: ClassBinding, core: RealmCore) {
        self.members = .objects(keys: keys, binding: binding)
        self.core = core
        self.changeState = core.changeCounter
        accessors = LoopAccessor(binding: binding)
    }

    private init(copying other: CollectionSnapshot) {
        members = other.members
        core = other.core
        changeState = other.changeState
        position = other.position
        if case .objects(_, let binding) = other.members {
            accessors = LoopAccessor(binding: binding)
        } else {
            accessors = LoopAccessor(binding: nil)
        }
    }

    /// A state of its own for an iterator copied from another (RLMIterator.next).
    func copy() -> CollectionSnapshot { CollectionSnapshot(copying: self) }

    func next() -> Element? {
        switch members {
        case .elements(let elements):
            guard position < elements.count else { return nil }
            position += 1
            return elements[position - 1]
        case .objects(let keys, let binding):
            let core = core!
            while position < keys.count {
                let key = keys[position]
                position += 1
                // While the Realm is unchanged nothing can have been deleted, and the existence check is skipped.
                if core.changeCounter != changeState {
                    var exists = false
                    Engine.mustSucceed(columnar_obj_exists(core.currentTransaction, binding.table, key, &exists),
                                       "checking an object")
                    if !exists { continue }
                }
                // `Element` is the binding's class (the collection's element type).
                return accessors.object(key: key, binding: binding, core: core) as? Element
            }
            return nil
        }
    }
}

extension CollectionColumn {
    /// An iterator over the managed list's or set's elements as they are now: the keys of objects (made as the loop
    /// reaches them), or the values read at once.
    func snapshotIterator<Element: RealmCollectionValue>(of _: Element.Type) -> RLMIterator<Element> {
        if let objectType = Element.self as? ObjectBase.Type {
            requireValid()
            do {
                let keys = try ResultsSource.collection(self).candidateKeys(in: core) ?? []
                return RLMIterator(snapshotKeys: keys, of: objectBinding(for: objectType), core: core)
            } catch {
                fatalError("Columnar: cannot read the \(kind.noun): \(error)")
            }
        }
        let elementType = CollectionColumn.persistableType(of: Element.self, in: kind)
        return RLMIterator(snapshot: (0 ..< size).map { element(at: $0, as: elementType) as! Element })
    }
}

extension RandomAccessCollection where Index == Int {
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
