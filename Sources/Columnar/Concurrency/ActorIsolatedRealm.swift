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
    public var isPerformingAsynchronousWriteOperations: Bool { core.asyncWriteInProgress }

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

extension Results {
    /// Registers a block called, isolated to `actor`, with the results' changes (see `observe(keyPaths:on:_:)`);
    /// the results it receives belong to `actor`'s Realm of the same file.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Results<Element>>) -> Void)
        async -> NotificationToken {
        core.requireObservable()
        if let binding, let keyPaths { _ = ObservedNode.keyPaths(keyPaths, of: binding, in: core) }
        let rebuild = QueueHandOver(value: { (core: RealmCore) in self.rebound(to: core) })
        return ActorObservation.start(on: actor, configuration: core.configuration) { core in
            let rebuilt = rebuild.value(core)
            return CollectionRegistration(collection: rebuilt, results: rebuilt, keyPaths: keyPaths) { change in
                nonisolated(unsafe) let change = change
                actor.assumeIsolated { isolatedActor in block(isolatedActor, change) }
            }
        }
    }
}

extension List {
    /// Registers a block called, isolated to `actor`, with the list's changes (see `observe(keyPaths:on:_:)`); the
    /// list it receives belongs to `actor`'s Realm of the same file.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<List<Element>>) -> Void)
        async -> NotificationToken {
        let results = _elementResults("observe")
        let location = QueueHandOver(value: managed!.location)
        let column = managed!.column
        return ActorObservation.collection(results, keyPaths: keyPaths, on: actor, block: block) { core in
            let list = List<Element>(location: location.value.rebound(to: core), column: column)
            return (list, list._elementResults("observe"))
        }
    }
}

extension MutableSet {
    /// Registers a block called, isolated to `actor`, with the set's changes (see `observe(keyPaths:on:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<MutableSet<Element>>) -> Void)
        async -> NotificationToken {
        let results = _elementResults("observe")
        let location = QueueHandOver(value: managed!.location)
        let column = managed!.column
        return ActorObservation.collection(results, keyPaths: keyPaths, on: actor, block: block) { core in
            let set = MutableSet<Element>(location: location.value.rebound(to: core), column: column)
            return (set, set._elementResults("observe"))
        }
    }
}

extension LinkingObjects {
    /// Registers a block called, isolated to `actor`, with the linking objects' changes (see
    /// `observe(keyPaths:on:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<LinkingObjects<Element>>) -> Void)
        async -> NotificationToken {
        let results = _elementResults("observe")
        guard case .backlinks(let owner, _, _) = results.source else {
            fatalError("Columnar: linking objects without a managed object cannot be observed")
        }
        let location = QueueHandOver(value: owner)
        let property = propertyName
        return ActorObservation.collection(results, keyPaths: keyPaths, on: actor, block: block) { core in
            let rebuilt = LinkingObjects<Element>(location: location.value.rebound(to: core), originProperty: property)
            return (rebuilt, rebuilt._elementResults("observe"))
        }
    }
}

extension ObjectBase {
    /// Registers a block called, isolated to `actor`, after each write that changes this object (see
    /// `observe(keyPaths:on:_:)`); the object it receives belongs to `actor`'s Realm of the same file.
    public func observe<A: Actor, T: ObjectBase>(keyPaths: [String]? = nil, on actor: A,
                                                 _isolation: isolated (any Actor)? = #isolation,
                                                 _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void)
        async -> NotificationToken {
        guard let location = _location else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        location.core.requireObservable()
        if let keyPaths { _ = ObservedNode.keyPaths(keyPaths, of: location.binding, in: location.core) }
        let objectType = type(of: self)
        let handOver = QueueHandOver(value: location)
        return ActorObservation.start(on: actor, configuration: location.core.configuration) { core in
            let rebound = handOver.value.rebound(to: core)
            guard core.objectExists(rebound),
                  let object = core.materialize(objectType, binding: rebound.binding, key: rebound.key) as? T else {
                return nil
            }
            return ObjectRegistration(object: object, keyPaths: keyPaths) { change in
                nonisolated(unsafe) let change = change
                actor.assumeIsolated { isolatedActor in block(isolatedActor, change) }
            }
        }
    }
}

enum ActorObservation {
    /// The actor form of a collection's `observe`: checks now, then registers in the actor's core the collection
    /// `rebuild` makes there.
    static func collection<Collection, Element: RealmCollectionValue, A: Actor>(
        _ results: Results<Element>, keyPaths: [String]?, on actor: A,
        block: @Sendable @escaping (isolated A, RealmCollectionChange<Collection>) -> Void,
        rebuild: @escaping (RealmCore) -> (Collection, Results<Element>)
    ) -> NotificationToken {
        results.core.requireObservable()
        if let binding = results.binding, let keyPaths { _ = ObservedNode.keyPaths(keyPaths, of: binding, in: results.core) }
        return start(on: actor, configuration: results.core.configuration) { core in
            let rebuilt = rebuild(core)
            return CollectionRegistration(collection: rebuilt.0, results: rebuilt.1, keyPaths: keyPaths) { change in
                nonisolated(unsafe) let change = change
                actor.assumeIsolated { isolatedActor in block(isolatedActor, change) }
            }
        }
    }

    /// Registers, isolated to `actor`, the registration `make` builds in the actor's core of the file. The
    /// registration is made by a task on the actor, so the first callback comes after this returns.
    static func start(on actor: any Actor, configuration: Realm.Configuration,
                      _ make: @escaping (RealmCore) -> NotificationRegistration?) -> NotificationToken {
        let token = NotificationToken()
        let tokenHandOver = QueueHandOver(value: token)
        let makeHandOver = QueueHandOver(value: make)
        let configurationHandOver = QueueHandOver(value: configuration)
        Task {
            await runIsolated(to: actor) {
                let core: RealmCore
                do { core = try RealmRegistry.core(for: configurationHandOver.value, actor: actor) } catch {
                    fatalError("Columnar: cannot open the Realm on the observing actor: \(error)")
                }
                guard let registration = makeHandOver.value(core) else { return }
                tokenHandOver.value.attach(registration)
                guard !registration.isInvalidated else { return }
                core.register(registration)
            }
        }
        return token
    }
}
