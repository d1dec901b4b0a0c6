// ChangeStreams: change notifications as asynchronous sequences (`for await change in results.changes`), since
// Linux has no Combine.
//
// Each stream observes on a private serial queue and yields every change with a frozen copy of the collection
// (Freezing.swift): a task resumes on whichever thread the executor picks, where a live collection could not be
// read, while a frozen one can. Ending the loop (or cancelling its task) ends the observation. Changes are not
// dropped when the consumer lags (each one's positions refer to the previous one), so each change waiting in the
// stream keeps its version until it is consumed.

import Foundation

/// An asynchronous sequence of changes, which may be handed to another task: the collections it yields are frozen.
public struct RealmChanges<Change>: AsyncSequence, @unchecked Sendable {
    public typealias Element = Change
    let stream: AsyncStream<Change>

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Change>.Iterator
        public mutating func next() async -> Change? { await base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}

enum ChangeStream {
    /// A stream fed by an observation on a private serial queue; `frozen` turns each change into one whose values
    /// are frozen; `isLast` tells the change after which nothing follows (an object's deletion).
    static func make<Change>(
        _ observe: (DispatchQueue, @escaping (Change) -> Void) -> NotificationToken,
        frozen: @escaping (Change) -> Change, isLast: @escaping (Change) -> Bool = { _ in false }
    ) -> RealmChanges<Change> {
        let (stream, continuation) = AsyncStream<Change>.makeStream()
        let queue = DispatchQueue(label: "org.columnar.changes")
        let frozenHandOver = QueueHandOver(value: frozen)
        let isLastHandOver = QueueHandOver(value: isLast)
        let token = observe(queue) { change in
            // Frozen, the values may go to any thread (the compiler cannot know that they are frozen).
            nonisolated(unsafe) let frozenChange = frozenHandOver.value(change)
            continuation.yield(frozenChange)
            if isLastHandOver.value(change) { continuation.finish() }
        }
        let tokenHandOver = QueueHandOver(value: token)
        continuation.onTermination = { _ in tokenHandOver.value.invalidate() }
        return RealmChanges(stream: stream)
    }

    /// A collection change stream: each change carries the collection frozen by `freeze`.
    static func make<Collection>(
        _ observe: (DispatchQueue, @escaping (RealmCollectionChange<Collection>) -> Void) -> NotificationToken,
        freeze: @escaping (Collection) -> Collection
    ) -> RealmChanges<RealmCollectionChange<Collection>> {
        make(observe, frozen: { $0.withCollection(freeze) })
    }

    /// `value` frozen when it is a managed, valid object or collection; other values as they are.
    static func frozen(_ value: Any?) -> Any? {
        guard let confined = value as? any ThreadConfined, let realm = confined.realm, !confined.isInvalidated else {
            return value
        }
        return Freezing.freezeErased(confined, core: realm.core)
    }
}

extension RealmCollectionChange {
    /// The change with `transform` applied to its collection.
    func withCollection(_ transform: (CollectionType) -> CollectionType) -> Self {
        switch self {
        case .initial(let collection): return .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            return .update(transform(collection), deletions: deletions, insertions: insertions,
                           modifications: modifications)
        case .error: return self
        }
    }
}

extension RealmMapChange {
    /// The change with `transform` applied to its map.
    func withCollection(_ transform: (Collection) -> Collection) -> Self {
        switch self {
        case .initial(let map): return .initial(transform(map))
        case .update(let map, let deletions, let insertions, let modifications):
            return .update(transform(map), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error: return self
        }
    }
}

extension SectionedResultsChange {
    /// The change with `transform` applied to its sectioned results.
    func withCollection(_ transform: (Collection) -> Collection) -> Self {
        switch self {
        case .initial(let sectioned): return .initial(transform(sectioned))
        case .update(let sectioned, let deletions, let insertions, let modifications, let sectionsToInsert,
                     let sectionsToDelete):
            return .update(transform(sectioned), deletions: deletions, insertions: insertions,
                           modifications: modifications, sectionsToInsert: sectionsToInsert,
                           sectionsToDelete: sectionsToDelete)
        }
    }
}

extension ObjectChange {
    /// The change with its object, and the links and collections among the property values, frozen.
    var withFrozenValues: Self {
        switch self {
        case .change(let object, let properties):
            return .change(ChangeStream.frozen(object as Any?) as! T, properties.map {
                PropertyChange(name: $0.name, oldValue: ChangeStream.frozen($0.oldValue),
                               newValue: ChangeStream.frozen($0.newValue))
            })
        case .deleted, .error: return self
        }
    }

    var isDeletion: Bool { if case .deleted = self { return true } else { return false } }
}

extension Results {
    /// The results' changes as an asynchronous sequence: `.initial`, then each `.update`, every one with a frozen
    /// copy of the results (readable in whichever thread the task runs on). See `observe(keyPaths:on:_:)`.
    public var changes: RealmChanges<RealmCollectionChange<Results<Element>>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<Results<Element>>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) }, freeze: { $0.freeze() })
    }
}

extension List {
    /// The list's changes as an asynchronous sequence, each with a frozen copy of the list.
    public var changes: RealmChanges<RealmCollectionChange<List<Element>>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<List<Element>>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) }, freeze: { $0.freeze() })
    }
}

extension MutableSet {
    /// The set's changes as an asynchronous sequence, each with a frozen copy of the set.
    public var changes: RealmChanges<RealmCollectionChange<MutableSet<Element>>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<MutableSet<Element>>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) }, freeze: { $0.freeze() })
    }
}

extension LinkingObjects {
    /// The linking objects' changes as an asynchronous sequence, each with a frozen copy.
    public var changes: RealmChanges<RealmCollectionChange<LinkingObjects<Element>>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<LinkingObjects<Element>>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) }, freeze: { $0.freeze() })
    }
}

extension AnyRealmCollection {
    /// The wrapped collection's changes as an asynchronous sequence, each with a frozen copy.
    public var changes: RealmChanges<RealmCollectionChange<AnyRealmCollection<Element>>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<AnyRealmCollection<Element>>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) }, freeze: { $0.freeze() })
    }
}

extension Map {
    /// The map's changes as an asynchronous sequence: `.initial`, then each `.update`, every one with a frozen copy
    /// of the map. See `observe(keyPaths:on:_:)`.
    public var changes: RealmChanges<RealmMapChange<Map<Key, Value>>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChanges<RealmMapChange<Map<Key, Value>>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) },
                          frozen: { $0.withCollection { $0.freeze() } })
    }
}

extension SectionedResults {
    /// The sectioned results' changes as an asynchronous sequence, each with a frozen copy.
    public var changes: RealmChanges<SectionedResultsChange<SectionedResults<Key, SectionElement>>> {
        changes(keyPaths: nil)
    }

    public func changes(keyPaths: [String]?)
        -> RealmChanges<SectionedResultsChange<SectionedResults<Key, SectionElement>>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) },
                          frozen: { $0.withCollection { $0.freeze() } })
    }
}

extension ResultsSection {
    /// This section's changes as an asynchronous sequence, each with a frozen copy of the section.
    public var changes: RealmChanges<RealmCollectionChange<ResultsSection<Key, Element>>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<ResultsSection<Key, Element>>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) }, freeze: { $0.freeze() })
    }
}

/// Objects, for `changes` typed by the object's own class.
public protocol ObservableRealmObject: ObjectBase {}
extension ObjectBase: ObservableRealmObject {}

extension ObservableRealmObject {
    /// The object's changes as an asynchronous sequence (see `observe(keyPaths:on:_:)`): each `.change` carries
    /// the object frozen, and links and collections among the values frozen too; the sequence ends after
    /// `.deleted`.
    public var changes: RealmChanges<ObjectChange<Self>> { changes(keyPaths: nil) }

    public func changes(keyPaths: [String]?) -> RealmChanges<ObjectChange<Self>> {
        ChangeStream.make({ queue, block in observe(keyPaths: keyPaths, on: queue, block) },
                          frozen: { $0.withFrozenValues }, isLast: { $0.isDeletion })
    }
}

extension Realm {
    /// The Realm's notifications as an asynchronous sequence: `.didChange` for every version the file moves to
    /// (this process's commits and other processes'), as `observe(_:)` reports them. The notifications come from
    /// a Realm of the same file confined to a private queue, which follows every commit; ending the loop ends them.
    public var changes: RealmChanges<Realm.Notification> {
        let configuration = self.configuration
        return ChangeStream.make({ queue, block in
            queue.sync {
                let queueRealm: Realm
                do { queueRealm = try Realm(configuration: configuration, queue: queue) } catch {
                    fatalError("Columnar: cannot open the Realm whose changes are followed: \(error)")
                }
                return queueRealm.observe { notification, _ in block(notification) }
            }
        }, frozen: { $0 })
    }
}
