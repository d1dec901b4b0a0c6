// ActorIsolatedRealm: Realms isolated to an actor, their asynchronous writes, and observation delivered on an
// actor (RealmSwift 20.x's forms).
//
// A Realm opened with `Realm(configuration:actor:)` has a core confined to the actor: only code isolated to that
// actor may use it (checked on each access with `preconditionIsolated`), on whichever thread the actor runs.
// `asyncWrite` takes the writer lock off the actor (waiting for another writer does not hold up the actor), runs
// the block on the actor, and commits off the actor again (the writer lock belongs to the open file, not to a
// thread), so the actor serves other work while the commit's sync is in flight; the commit joins the group commit
// of other writers like any other. Async writes of one Realm run one at a time, in the order they were asked for.

import CColumnar
import Foundation

/// Runs `body` isolated to `actor` (the caller awaits the hop).
func runIsolated<T>(to actor: isolated any Actor, _ body: @Sendable () throws -> T) rethrows -> T {
    try body()
}

extension Realm {
    /// A Realm isolated to `actor`: usable only from code isolated to it.
    public init<A: Actor>(configuration: Configuration = .defaultConfiguration, actor: A) async throws {
        let handOver = QueueHandOver(value: configuration)
        let core: QueueHandOver<RealmCore>
        do {
            core = try await runIsolated(to: actor) {
                QueueHandOver(value: try RealmRegistry.core(for: handOver.value, actor: actor))
            }
        } catch {
            throw Realm.Error.converting(error, fileURL: configuration.fileURL)
        }
        self.init(core: core.value)
    }

    /// Whether an asynchronous write of this Realm is under way.
    public var isPerformingAsynchronousWriteOperations: Bool {
        core.asyncWriteInProgress || core.asyncWrites.isBusy
    }

    /// Runs `block` in a write transaction and commits it, without blocking the actor while waiting for another
    /// writer or for the commit's sync; returns the block's result. If the block throws, the transaction is rolled
    /// back and the error rethrown. For Realms isolated to an actor.
    @discardableResult
    public func asyncWrite<Result>(_isolation: isolated (any Actor)? = #isolation,
                                   _ block: () throws -> Result) async throws -> Result {
        let core = self.core
        precondition(core.actor != nil, "asyncWrite is for Realms isolated to an actor (Realm(configuration:actor:)); "
                         + "use write(_:) elsewhere")
        core.checkThread()
        precondition(!core.isInWriteTransaction, "The Realm is already in a write transaction")
        // One async write of this Realm at a time, in order.
        if core.asyncWriteInProgress {
            await withCheckedContinuation { core.asyncWriteWaiters.append($0) }
        }
        core.asyncWriteInProgress = true
        defer {
            if core.asyncWriteWaiters.isEmpty {
                core.asyncWriteInProgress = false
                core.startNextAsyncBegin()   // callback-based async writes queued meanwhile
            } else {
                core.asyncWriteWaiters.removeFirst().resume()
            }
        }
        let file = QueueHandOver(value: core.file)
        let begun: QueueHandOver<(Int32, OpaquePointer?)> = await Self.offTheActor {
            var txn: OpaquePointer?
            let rc = columnar_txn_begin_write(file.value.handle, &txn)
            return QueueHandOver(value: (rc, txn))
        }
        guard begun.value.0 == COLUMNAR_OK, let txn = begun.value.1 else {
            throw Realm.Error.converting(ColumnarError.fromLastError(begun.value.0), fileURL: configuration.fileURL)
        }
        core.adoptWriteTransaction(txn)
        let result: Result
        do {
            result = try block()
        } catch {
            if core.isInWriteTransaction { core.cancelWrite() }
            throw error
        }
        guard core.isInWriteTransaction else { return result }   // the block cancelled or committed itself
        let taken = QueueHandOver(value: core.takeWriteTransaction())
        let rc = await Self.offTheActor { columnar_txn_commit(taken.value) }
        do { try core.finishCommit(rc) } catch {
            throw Realm.Error.converting(error, fileURL: configuration.fileURL)
        }
        return result
    }

    /// Moves the Realm to the latest version and delivers its notifications; returns whether the version changed.
    /// For Realms isolated to an actor (elsewhere `refresh()` does the same).
    @discardableResult
    public func asyncRefresh(_isolation: isolated (any Actor)? = #isolation) async -> Bool {
        precondition(core.actor != nil, "asyncRefresh is for Realms isolated to an actor; use refresh() elsewhere")
        return core.refresh()
    }

    /// Runs blocking work on a thread of the global pool and awaits it.
    private static func offTheActor<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

// MARK: Observation on an actor
//
// The observation is registered in the actor's core of the file (ConfinedObservation.swift), and the callback,
// which runs there, is called isolated to the actor.

/// A callback that runs in the actor's core (so on the actor's executor), called with the actor isolated.
private func onActor<A: Actor, Change>(_ actor: A, _ block: @Sendable @escaping (isolated A, Change) -> Void)
    -> (Change) -> Void {
    { change in
        nonisolated(unsafe) let change = change
        actor.assumeIsolated { isolatedActor in block(isolatedActor, change) }
    }
}

extension Results {
    /// Registers a block called, isolated to `actor`, with the results' changes (see `observe(keyPaths:on:_:)`);
    /// the results it receives belong to `actor`'s Realm of the same file.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Results<Element>>) -> Void)
        async -> NotificationToken {
        let token = CollectionObservation.start(self, in: .actor(actor), keyPaths: keyPaths, elements: { $0 },
                                                block: onActor(actor, block))
        return await registered(token)
    }
}

extension List {
    /// Registers a block called, isolated to `actor`, with the list's changes (see `observe(keyPaths:on:_:)`); the
    /// list it receives belongs to `actor`'s Realm of the same file.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<List<Element>>) -> Void)
        async -> NotificationToken {
        let token = CollectionObservation.start(self, in: .actor(actor), keyPaths: keyPaths, elements: { $0._elementResults("observe") },
                                                block: onActor(actor, block))
        return await registered(token)
    }
}

extension MutableSet {
    /// Registers a block called, isolated to `actor`, with the set's changes (see `observe(keyPaths:on:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<MutableSet<Element>>) -> Void)
        async -> NotificationToken {
        let token = CollectionObservation.start(self, in: .actor(actor), keyPaths: keyPaths, elements: { $0._elementResults("observe") },
                                                block: onActor(actor, block))
        return await registered(token)
    }
}

extension LinkingObjects {
    /// Registers a block called, isolated to `actor`, with the linking objects' changes (see
    /// `observe(keyPaths:on:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<LinkingObjects<Element>>) -> Void)
        async -> NotificationToken {
        let token = CollectionObservation.start(self, in: .actor(actor), keyPaths: keyPaths, elements: { $0._elementResults("observe") },
                                                block: onActor(actor, block))
        return await registered(token)
    }
}

extension ObjectBase {
    /// Registers a block called, isolated to `actor`, after each write that changes this object (see
    /// `observe(keyPaths:on:_:)`); the object it receives belongs to `actor`'s Realm of the same file.
    public func observe<A: Actor, T: ObjectBase>(keyPaths: [String]? = nil, on actor: A,
                                                 _isolation: isolated (any Actor)? = #isolation,
                                                 _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void)
        async -> NotificationToken {
        let token = ObjectObservation.start(self, in: .actor(actor), keyPaths: keyPaths, block: onActor(actor, block))
        return await registered(token)
    }
}

extension Map {
    /// Registers a block called, isolated to `actor`, with the map's changes (see `observe(keyPaths:on:_:)`); the
    /// map it receives belongs to `actor`'s Realm of the same file.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmMapChange<Map<Key, Value>>) -> Void)
        async -> NotificationToken {
        let token = MapObservation.start(self, in: .actor(actor), keyPaths: keyPaths, block: onActor(actor, block))
        return await registered(token)
    }
}

extension AnyRealmCollection {
    /// Registers a block called, isolated to `actor`, with the wrapped collection's changes (see
    /// `observe(keyPaths:on:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<AnyRealmCollection<Element>>) -> Void)
        async -> NotificationToken {
        let token = observe(keyPaths: keyPaths, in: ConfinementContext.actor(actor), onActor(actor, block))
        return await registered(token)
    }
}

extension SectionedResults {
    /// Registers a block called, isolated to `actor`, with the sectioned results' changes (see
    /// `observe(keyPaths:on:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, SectionedResultsChange<SectionedResults<Key, SectionElement>>) -> Void)
        async -> NotificationToken {
        let sectionedBlock = onActor(actor, block)
        let token = SectionedObservation.start(self, keyPaths: keyPaths, in: .actor(actor)) { sectioned in
            SectionedRegistration(sectioned: sectioned, observed: sectioned, onlySection: nil, keyPaths: keyPaths,
                                  sectionedBlock: sectionedBlock, sectionBlock: nil)
        }
        return await registered(token)
    }
}

extension ResultsSection {
    /// Registers a block called, isolated to `actor`, with this section's changes (see `observe(keyPaths:on:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<ResultsSection<Key, Element>>) -> Void)
        async -> NotificationToken {
        let key = self.key
        let sectionBlock = onActor(actor, block)
        let token = SectionedObservation.start(parent, keyPaths: keyPaths, in: .actor(actor)) { sectioned in
            SectionedRegistration(sectioned: sectioned, observed: ResultsSection(parent: sectioned, key: key),
                                  onlySection: key, keyPaths: keyPaths, sectionedBlock: nil, sectionBlock: sectionBlock)
        }
        return await registered(token)
    }
}

// MARK: Observation on an actor, with Swift key paths

extension Results where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` on an actor, with Swift key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Results<Element>>) -> Void)
        async -> NotificationToken {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension List where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` on an actor, with Swift key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<List<Element>>) -> Void)
        async -> NotificationToken {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension MutableSet where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` on an actor, with Swift key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<MutableSet<Element>>) -> Void)
        async -> NotificationToken {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension LinkingObjects {
    /// `observe(keyPaths:on:_:)` on an actor, with Swift key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<LinkingObjects<Element>>) -> Void)
        async -> NotificationToken {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension Map {
    /// `observe(keyPaths:on:_:)` on an actor, for a map of objects, with Swift key paths of the objects.
    public func observe<A: Actor, T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on actor: A,
                                                 _isolation: isolated (any Actor)? = #isolation,
                                                 _ block: @Sendable @escaping (isolated A, RealmMapChange<Map<Key, Value>>) -> Void)
        async -> NotificationToken where Value == T? {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension AnyRealmCollection where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` on an actor, with Swift key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<AnyRealmCollection<Element>>) -> Void)
        async -> NotificationToken {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension SectionedResults where SectionElement: ObjectBase {
    /// `observe(keyPaths:on:_:)` on an actor, with Swift key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<SectionElement>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, SectionedResultsChange<SectionedResults<Key, SectionElement>>) -> Void)
        async -> NotificationToken {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension ResultsSection where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` on an actor, with Swift key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<ResultsSection<Key, Element>>) -> Void)
        async -> NotificationToken {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension ObjectBase {
    /// `observe(keyPaths:on:_:)` on an actor, with Swift key paths.
    public func observe<A: Actor, T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on actor: A,
                                                 _isolation: isolated (any Actor)? = #isolation,
                                                 _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void)
        async -> NotificationToken {
        await observe(keyPaths: CollectionObservation.names(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

/// `token` once its observation is registered on the actor (NotificationToken.registered()).
func registered(_ token: NotificationToken) async -> NotificationToken {
    await token.registered()
    return token
}
