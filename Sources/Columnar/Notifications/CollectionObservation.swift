// CollectionObservation: `observe` on Results, List, MutableSet, LinkingObjects and AnyRealmCollection.
//
// Every collection observes through the Results over its elements (the same keys its subscript reads), so one
// registration type serves all of them: its state is the element keys (objects) or the element values (values) at
// the notifications' base version, and each delivery diffs them with the new ones (OrderedChangeSet) and asks the
// version comparison which kept objects changed as the key paths observe them.
//
// With a queue (or an actor: ActorIsolatedRealm.swift), the collection is rebuilt there, in that context's own core
// (ConfinedObservation.swift), and the callback receives that copy, usable there for as long as the application
// keeps it; the initial callback follows from that context. Without one, the callback runs on the observing
// thread, from its run loop or synchronously in `refresh()` and after its own commits.

import CColumnar
import Foundation

final class CollectionRegistration<Collection, Element: RealmCollectionValue>: NotificationRegistration {
    private let collection: Collection
    private let results: Results<Element>
    private let node: ObservedNode?
    private let block: (RealmCollectionChange<Collection>) -> Void
    private var keys: [Int64] = []
    private var values: [Element] = []

    init(collection: Collection, results: Results<Element>, keyPaths: [String]?,
         block: @escaping (RealmCollectionChange<Collection>) -> Void) {
        self.collection = collection
        self.results = results
        self.block = block
        if let binding = results.binding, !results.source.holdsValues {
            let core = results.core
            node = keyPaths.map { ObservedNode.keyPaths($0, of: binding, in: core) }
                ?? ObservedNode.allProperties(of: binding, in: core, depth: 4)
        } else {
            node = nil
        }
    }

    private var holdsValues: Bool { results.source.holdsValues }

    override func deliver(_ comparison: VersionComparison, notify: Bool, siblingFired: Bool) {
        if needsInitial {
            needsInitial = false
            takeSnapshot()
            if notify { block(.initial(collection)) }
            return
        }
        guard comparison.versionChanged else { return }
        let change: OrderedChangeSet
        if holdsValues {
            let newValues = Array(results)
            change = OrderedChangeSet.between(values, newValues)
            values = newValues
        } else {
            // A large sorted Results changed in a few objects is patched rather than evaluated again, and then only
            // the changed objects can have moved.
            let patched = results.keysPatched(from: keys, comparison: comparison)
            let newKeys = patched?.keys ?? results.keys
            let modified = node.map { comparison.modifiedKeys($0, among: newKeys) } ?? []
            change = OrderedChangeSet.between(keys, newKeys, modified: modified, movable: patched?.movable)
            keys = newKeys
        }
        guard notify, !change.isEmpty else { return }
        block(.update(collection, deletions: change.deletions, insertions: change.insertions,
                      modifications: change.modifications))
    }

    private func takeSnapshot() {
        if holdsValues { values = Array(results) } else { keys = results.keys }
    }
}

enum CollectionObservation {
    /// Registers an observation of `collection`, whose elements `elements` gives as Results, on the observing
    /// thread, or in `context` (a serial queue or an actor), where the collection is rebuilt with its hand-over
    /// recipe, as a ThreadSafeReference rebuilds it.
    static func start<Collection: ThreadConfined, Element: RealmCollectionValue>(
        _ collection: Collection, in context: ConfinementContext?, keyPaths: [String]?,
        elements: @escaping (Collection) -> Results<Element>,
        block: @escaping (RealmCollectionChange<Collection>) -> Void
    ) -> NotificationToken {
        let results = elements(collection)
        let core = results.core
        core.requireObservable()
        guard let context else {
            let registration = CollectionRegistration(collection: collection, results: results, keyPaths: keyPaths,
                                                      block: block)
            core.register(registration)
            return NotificationToken(registration)
        }
        // Key paths are checked now, on the observing thread, so a mistake stops at the call.
        if let binding = results.binding, let keyPaths { _ = ObservedNode.keyPaths(keyPaths, of: binding, in: core) }
        let recipe = collection._handOverRecipe()
        return ConfinedObservation.start(in: context, configuration: core.configuration) { confinedCore in
            guard let rebuilt = recipe.rebuild(confinedCore) as? Collection else { return nil }
            return CollectionRegistration(collection: rebuilt, results: elements(rebuilt), keyPaths: keyPaths,
                                          block: block)
        }
    }

    /// Key paths given as Swift key paths, as property names.
    static func names<Root: ObjectBase>(_ keyPaths: [PartialKeyPath<Root>]) -> [String] {
        keyPaths.map { keyPath in
            guard let names = KeyPathNames.propertyNames(for: keyPath) else {
                fatalError("Key path \(keyPath) is not a persisted property of \(Root.self) (or a path of them)")
            }
            return names.joined(separator: ".")
        }
    }
}

extension ObjectLocation {
    /// The same object in another core of the same file.
    func rebound(to core: RealmCore) -> ObjectLocation {
        ObjectLocation(core: core, binding: core.requireBinding(like: binding), key: key,
                       generation: core.generation)
    }
}

extension CollectionColumn {
    func rebound(to core: RealmCore) -> CollectionColumn {
        CollectionColumn(location: location.rebound(to: core), column: column, kind: kind)
    }
}

extension ResultsSource {
    func rebound(to core: RealmCore) -> ResultsSource {
        switch self {
        case .table: return .table
        case .collection(let column): return .collection(column.rebound(to: core))
        case .values(let column): return .values(column.rebound(to: core))
        case .backlinks(let location, let originTable, let originColumn):
            return .backlinks(location.rebound(to: core), originTable: originTable, originColumn: originColumn)
        }
    }
}

extension Results {
    /// The same selection in another core of the same file.
    func rebound(to core: RealmCore) -> Results<Element> {
        Results(core: core, binding: binding.map { core.requireBinding(like: $0) },
                source: source.rebound(to: core), query: query.withoutPreparedSeek)
    }

    /// Registers a block called with the results' changes: `.initial` first, then `.update` after each write that
    /// changed the results or, as `keyPaths` select (by default every property, and those of linked objects four
    /// levels deep), one of their objects. Delivered on `queue` (a serial queue), or, without one, on this thread
    /// from its run loop and in `refresh()` and after this thread's commits. Keep the token as long as the
    /// notifications are wanted. Not inside a write transaction, nor on a read-only Realm.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        CollectionObservation.start(self, in: queue.map(ConfinementContext.queue), keyPaths: keyPaths,
                                    elements: { $0 }, block: block)
    }

    /// `observe(keyPaths:on:_:)` with Swift key paths.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken
        where Element: ObjectBase {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }
}

extension List {
    /// Registers a block called with the list's changes (see `Results.observe(keyPaths:on:_:)`); the list must be
    /// managed.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        if let nested {
            return NestedCollectionObservation.start(self, slot: nested, in: queue.map(ConfinementContext.queue),
                                                     block: block)
        }
        return CollectionObservation.start(self, in: queue.map(ConfinementContext.queue), keyPaths: keyPaths,
                                           elements: { $0._elementResults("observe") }, block: block)
    }

    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken
        where Element: ObjectBase {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }
}

extension MutableSet {
    /// Registers a block called with the set's changes (see `Results.observe(keyPaths:on:_:)`); the set must be
    /// managed. Positions are those of the set's iteration order.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        CollectionObservation.start(self, in: queue.map(ConfinementContext.queue), keyPaths: keyPaths,
                                    elements: { $0._elementResults("observe") }, block: block)
    }

    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken
        where Element: ObjectBase {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }
}

extension LinkingObjects {
    /// Registers a block called with the linking objects' changes (see `Results.observe(keyPaths:on:_:)`); they
    /// must belong to a managed object.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        CollectionObservation.start(self, in: queue.map(ConfinementContext.queue), keyPaths: keyPaths,
                                    elements: { $0._elementResults("observe") }, block: block)
    }

    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }
}

/// The observable collections, for AnyRealmCollection (which knows its wrapped collection only as `Any`).
protocol ErasedObservableCollection {
    func observeErased(keyPaths: [String]?, in context: ConfinementContext?,
                       _ block: @escaping (RealmCollectionChange<Any>) -> Void) -> NotificationToken
}

extension RealmCollectionChange {
    /// The same change with the collection as `Any`.
    var erased: RealmCollectionChange<Any> {
        switch self {
        case .initial(let collection): return .initial(collection)
        case .update(let collection, let deletions, let insertions, let modifications):
            return .update(collection, deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): return .error(error)
        }
    }
}

extension Results: ErasedObservableCollection {
    func observeErased(keyPaths: [String]?, in context: ConfinementContext?,
                       _ block: @escaping (RealmCollectionChange<Any>) -> Void) -> NotificationToken {
        CollectionObservation.start(self, in: context, keyPaths: keyPaths, elements: { $0 }) { block($0.erased) }
    }
}

extension List: ErasedObservableCollection {
    func observeErased(keyPaths: [String]?, in context: ConfinementContext?,
                       _ block: @escaping (RealmCollectionChange<Any>) -> Void) -> NotificationToken {
        CollectionObservation.start(self, in: context, keyPaths: keyPaths,
                                    elements: { $0._elementResults("observe") }) { block($0.erased) }
    }
}

extension MutableSet: ErasedObservableCollection {
    func observeErased(keyPaths: [String]?, in context: ConfinementContext?,
                       _ block: @escaping (RealmCollectionChange<Any>) -> Void) -> NotificationToken {
        CollectionObservation.start(self, in: context, keyPaths: keyPaths,
                                    elements: { $0._elementResults("observe") }) { block($0.erased) }
    }
}

extension LinkingObjects: ErasedObservableCollection {
    func observeErased(keyPaths: [String]?, in context: ConfinementContext?,
                       _ block: @escaping (RealmCollectionChange<Any>) -> Void) -> NotificationToken {
        CollectionObservation.start(self, in: context, keyPaths: keyPaths,
                                    elements: { $0._elementResults("observe") }) { block($0.erased) }
    }
}
