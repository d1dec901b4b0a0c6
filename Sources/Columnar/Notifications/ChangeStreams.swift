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
    static func make<Collection>(
        _ observe: (DispatchQueue, @escaping (RealmCollectionChange<Collection>) -> Void) -> NotificationToken,
        freeze: @escaping (Collection) -> Collection
    ) -> RealmChanges<RealmCollectionChange<Collection>> {
        let (stream, continuation) = AsyncStream<RealmCollectionChange<Collection>>.makeStream()
        let queue = DispatchQueue(label: "org.columnar.changes")
        let freezeHandOver = QueueHandOver(value: freeze)
        let token = observe(queue) { change in
            // Frozen, the collection may go to any thread (the compiler cannot know that it is frozen).
            nonisolated(unsafe) let frozenChange: RealmCollectionChange<Collection>
            switch change {
            case .initial(let collection): frozenChange = .initial(freezeHandOver.value(collection))
            case .update(let collection, let deletions, let insertions, let modifications):
                frozenChange = .update(freezeHandOver.value(collection), deletions: deletions, insertions: insertions,
                                       modifications: modifications)
            case .error(let error): frozenChange = .error(error)
            }
            continuation.yield(frozenChange)
        }
        let tokenHandOver = QueueHandOver(value: token)
        continuation.onTermination = { _ in tokenHandOver.value.invalidate() }
        return RealmChanges(stream: stream)
    }
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
