// ThreadSafeReference: handing a live object, collection or Realm to another thread or queue.
//
// Live values are confined to the thread (or queue) whose Realm core made them. A reference records what the value
// is (an object's class and key, a collection's owner and column, a query) and keeps the version it was made at
// readable (it holds that version's read transaction); `Realm.resolve(_:)` on the other thread moves that Realm to
// at least that version and rebuilds the value there. A reference is resolved at most once, as RealmSwift's is:
// resolving it releases the version it pinned.

import Foundation

/// A value confined to the thread or queue of its Realm: objects, collections and Realms.
public protocol ThreadConfined {
    /// The Realm managing the value, or nil for an unmanaged one.
    var realm: Realm? { get }
    /// Whether the value can no longer be used (deleted, or its Realm invalidated).
    var isInvalidated: Bool { get }
    /// Whether the value is a frozen snapshot (Freezing.swift; each type also has `freeze()` and `thaw()`).
    var isFrozen: Bool { get }
    /// How to rebuild the value in another core of the same file (an implementation detail of
    /// ThreadSafeReference and @ThreadSafe).
    func _handOverRecipe() -> _HandOverRecipe
}

/// What a ThreadSafeReference needs to rebuild a value elsewhere (opaque outside Columnar).
public final class _HandOverRecipe: @unchecked Sendable {
    let configuration: Realm.Configuration
    /// The file's identity, to check that the resolving Realm is of the same file.
    let fileKey: String
    let rebuild: (RealmCore) -> Any?

    init(core: RealmCore, rebuild: @escaping (RealmCore) -> Any?) {
        self.configuration = core.configuration
        let identity = core.configuration.storageIdentity
        self.fileKey = (identity.inMemory ? "memory:" : "file:") + identity.path
        self.rebuild = rebuild
    }

    /// The value rebuilt in `realm`'s core, or nil when it no longer exists there.
    func resolve(in realm: Realm) -> Any? {
        let identity = realm.configuration.storageIdentity
        precondition((identity.inMemory ? "memory:" : "file:") + identity.path == fileKey,
                     "Cannot resolve a thread safe reference in a Realm of another file")
        return rebuild(realm.core)
    }
}

/// A reference to a live object, collection or Realm that can be passed to another thread and resolved there once
/// with `Realm.resolve(_:)`. Until it is resolved (or released) it keeps its version readable.
public struct ThreadSafeReference<Confined: ThreadConfined>: @unchecked Sendable {
    private let storage: Storage

    final class Storage: @unchecked Sendable {
        let recipe: _HandOverRecipe
        let lock = NSLock()
        /// The version the value was read at, kept readable until the reference is resolved.
        var pinned: ReadVersion?
        var isResolved = false

        init(recipe: _HandOverRecipe, pinned: ReadVersion?) {
            self.recipe = recipe
            self.pinned = pinned
        }
    }

    /// A reference to `threadConfined`, which must be managed (objects) and not from inside a write transaction.
    public init(to threadConfined: Confined) {
        guard let realm = threadConfined.realm else {
            fatalError("Cannot construct reference to unmanaged object, which can be passed across threads directly")
        }
        precondition(!threadConfined.isInvalidated, "Cannot construct reference to invalidated object")
        let core = realm.core
        core.checkThread()
        precondition(!core.isInWriteTransaction, "Cannot obtain a ThreadSafeReference during a write transaction.")
        _ = core.currentTransaction
        storage = Storage(recipe: threadConfined._handOverRecipe(), pinned: core.readVersion)
    }

    /// Whether the reference was resolved already (it can be resolved once).
    public var isInvalidated: Bool { storage.lock.withLock { storage.isResolved } }

    /// Takes the reference (once): the version to reach, and the recipe.
    func take() -> (version: UInt64, recipe: _HandOverRecipe) {
        storage.lock.withLock {
            precondition(!storage.isResolved, "Can only resolve a thread safe reference once.")
            storage.isResolved = true
            defer { storage.pinned = nil }
            return (storage.pinned?.version ?? 0, storage.recipe)
        }
    }
}

extension Realm {
    /// The value a ThreadSafeReference refers to, in this Realm (moved to at least the reference's version), or
    /// nil when it no longer exists. A reference is resolved once; resolving it again stops with a message.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        core.checkThread()
        let (version, recipe) = reference.take()
        if core.version < version {
            precondition(!isInWriteTransaction, "Cannot resolve a thread safe reference made at a newer version "
                             + "inside a write transaction")
            refresh()
        }
        return recipe.resolve(in: self) as? Confined
    }

    /// A Realm confined to a serial dispatch queue: usable from blocks of that queue (on whichever thread runs
    /// them), and made from inside one.
    public init(configuration: Configuration = .defaultConfiguration, queue: DispatchQueue?) throws {
        guard let queue else {
            try self.init(configuration: configuration)
            return
        }
        let marker = QueueMarker.marker(of: queue)
        guard DispatchQueue.getSpecific(key: QueueMarker.key) === marker else {
            fatalError("Realm opened from incorrect dispatch queue.")
        }
        let queueCore: RealmCore
        do { queueCore = try RealmRegistry.core(for: configuration, queue: queue) } catch {
            throw Realm.Error.converting(error, fileURL: configuration.fileURL)
        }
        self.init(core: queueCore)
    }
}

// MARK: Conformances

extension Realm: ThreadConfined {
    public var realm: Realm? { self }
    public var isInvalidated: Bool { false }
    public func _handOverRecipe() -> _HandOverRecipe {
        _HandOverRecipe(core: core) { Realm(core: $0) }
    }
}

extension ObjectBase {
    public func _handOverRecipe() -> _HandOverRecipe {
        guard let location = _location else { fatalError("Cannot construct reference to unmanaged object") }
        let type = Swift.type(of: self)
        return _HandOverRecipe(core: location.core) { core in
            let rebound = location.rebound(to: core)
            guard core.objectExists(rebound) else { return nil }
            return core.materialize(type, binding: rebound.binding, key: rebound.key)
        }
    }
}

extension ObjectBase: ThreadConfined {}

extension Results: ThreadConfined {
    public func _handOverRecipe() -> _HandOverRecipe {
        _HandOverRecipe(core: core) { self.rebound(to: $0) }
    }
}

extension List: ThreadConfined {
    public func _handOverRecipe() -> _HandOverRecipe {
        if let nested {
            // The same place in the other core, while it still holds a list.
            return _HandOverRecipe(core: nested.core) { core in
                let rebound = nested.rebound(to: core)
                guard case .list? = rebound.currentTree() else { return nil }
                return List<Element>(nestedSlot: rebound)
            }
        }
        guard let managed else { fatalError("Cannot construct reference to unmanaged object") }
        return _HandOverRecipe(core: managed.core) { core in
            let location = managed.location.rebound(to: core)
            guard core.objectExists(location) else { return nil }
            return List<Element>(location: location, column: managed.column)
        }
    }
}

extension MutableSet: ThreadConfined {
    public func _handOverRecipe() -> _HandOverRecipe {
        guard let managed else { fatalError("Cannot construct reference to unmanaged object") }
        return _HandOverRecipe(core: managed.core) { core in
            let location = managed.location.rebound(to: core)
            guard core.objectExists(location) else { return nil }
            return MutableSet<Element>(location: location, column: managed.column)
        }
    }
}

extension Map: ThreadConfined {
    public func _handOverRecipe() -> _HandOverRecipe {
        if let nested {
            // The same place in the other core, while it still holds a dictionary.
            return _HandOverRecipe(core: nested.core) { core in
                let rebound = nested.rebound(to: core)
                guard case .dictionary? = rebound.currentTree() else { return nil }
                return Map<Key, Value>(nestedSlot: rebound)
            }
        }
        guard let managed else { fatalError("Cannot construct reference to unmanaged object") }
        return _HandOverRecipe(core: managed.core) { core in
            let location = managed.location.rebound(to: core)
            guard core.objectExists(location) else { return nil }
            return Map<Key, Value>(location: location, column: managed.column)
        }
    }
}

extension LinkingObjects: ThreadConfined {
    public func _handOverRecipe() -> _HandOverRecipe {
        let results = _elementResults("ThreadSafeReference")
        guard case .backlinks(let location, _, _) = results.source else {
            fatalError("Cannot construct reference to unmanaged object")
        }
        let property = propertyName
        return _HandOverRecipe(core: location.core) { core in
            let rebound = location.rebound(to: core)
            guard core.objectExists(rebound) else { return nil }
            return LinkingObjects<Element>(location: rebound, originProperty: property)
        }
    }
}
