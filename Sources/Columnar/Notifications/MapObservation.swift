// MapObservation: `Map.observe`, which reports the keys removed, added, and whose values changed. A value that is
// an object counts as changed when the entry holds another object, or when the object it holds changed as the key
// paths observe it (by default every property, four levels deep, as for collections).

import CColumnar
import Foundation

extension Map: RealmKeyedCollection {}

final class MapRegistration<Key: _MapKey, Value: RealmCollectionValue>: NotificationRegistration {
    private let map: Map<Key, Value>
    private let node: ObservedNode?
    private let block: (RealmMapChange<Map<Key, Value>>) -> Void
    private var entries: [Key: Value] = [:]

    init(map: Map<Key, Value>, keyPaths: [String]?, block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) {
        self.map = map
        self.block = block
        if let objectType = Value.self as? ObjectBase.Type ?? (Value.self as? any OptionalObjectValue.Type)?.wrappedObjectType,
           let managed = map.managed {
            let binding = managed.objectBinding(for: objectType)
            node = keyPaths.map { ObservedNode.keyPaths($0, of: binding, in: managed.core) }
                ?? ObservedNode.allProperties(of: binding, in: managed.core, depth: 4)
        } else {
            node = nil
        }
    }

    private func currentEntries() -> [Key: Value] {
        guard !map.isInvalidated else { return [:] }
        // A nested dictionary's values as copies: a collection among them compares by its contents then.
        if let copies = map.nestedEntryCopies { return copies }
        var result: [Key: Value] = [:]
        for (key, value) in map.asKeyValueSequence() { result[key] = value }
        return result
    }

    override func deliver(_ comparison: VersionComparison, notify: Bool, siblingFired: Bool) {
        if needsInitial {
            needsInitial = false
            entries = currentEntries()
            if notify { block(.initial(map)) }
            return
        }
        guard comparison.versionChanged else { return }
        let now = currentEntries()
        var deletions: [Key] = [], insertions: [Key] = [], modifications: [Key] = []
        var kept: [(key: Key, objectKey: Int64)] = []
        for (key, old) in entries {
            guard let new = now[key] else {
                deletions.append(key)
                continue
            }
            if !Self.sameValue(old, new) {
                modifications.append(key)
            } else if node != nil, let object = Self.object(in: new), let location = object._location {
                kept.append((key, location.key))
            }
        }
        for key in now.keys where entries[key] == nil { insertions.append(key) }
        if let node, !kept.isEmpty {
            let changed = comparison.modifiedKeys(node, among: kept.map(\.objectKey))
            modifications += kept.filter { changed.contains($0.objectKey) }.map(\.key)
        }
        entries = now
        guard notify, !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
        block(.update(map, deletions: deletions, insertions: insertions, modifications: modifications))
    }

    /// Whether an entry still holds the same value: for objects the same stored object (two reads give two
    /// instances, which `==` tells apart for classes without a primary key), else equal values.
    private static func sameValue(_ old: Value, _ new: Value) -> Bool {
        if let before = object(in: old), let after = object(in: new) { return before._isSameObject(as: after) }
        return old == new
    }

    private static func object(in value: Value) -> ObjectBase? {
        if let object = value as? ObjectBase { return object }
        return (value as? any OptionalObjectValue)?.wrappedObject
    }
}

/// `Optional<SomeObject>`, the value type of a map of objects, seen without knowing the object class.
protocol OptionalObjectValue {
    static var wrappedObjectType: ObjectBase.Type? { get }
    var wrappedObject: ObjectBase? { get }
}

extension Optional: OptionalObjectValue {
    static var wrappedObjectType: ObjectBase.Type? { Wrapped.self as? ObjectBase.Type }
    var wrappedObject: ObjectBase? { self.flatMap { $0 as? ObjectBase } }
}

extension Map {
    /// Registers a block called with the map's changes: `.initial` first, then `.update` with the keys removed,
    /// added, and whose values changed (for objects, as `keyPaths` select). Delivered on `queue`, or, without
    /// one, on this thread from its run loop and in `refresh()` and after this thread's commits. The map must be
    /// managed; not inside a write transaction, nor on a read-only Realm.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        MapObservation.start(self, in: queue.map(ConfinementContext.queue), keyPaths: keyPaths, block: block)
    }

    /// `observe(keyPaths:on:_:)` for a map of objects, with Swift key paths of the objects.
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void)
        -> NotificationToken where Value == T? {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }
}

enum MapObservation {
    /// Registers an observation of `map` on the observing thread, or in `context` (a serial queue or an actor),
    /// where the map is rebuilt with its hand-over recipe (nothing is registered if its object was deleted).
    static func start<Key, Value>(_ map: Map<Key, Value>, in context: ConfinementContext?, keyPaths: [String]?,
                                  block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        guard let core = map.managed?.core ?? map.nested?.core else {
            fatalError("Columnar: observe may only be called on a managed Map")
        }
        core.requireObservable()
        guard let context else {
            let registration = MapRegistration(map: map, keyPaths: keyPaths, block: block)
            core.register(registration)
            return NotificationToken(registration)
        }
        _ = MapRegistration(map: map, keyPaths: keyPaths) { _ in }   // checks the key paths now
        let recipe = map._handOverRecipe()
        return ConfinedObservation.start(in: context, configuration: core.configuration) { confinedCore in
            guard let rebuilt = recipe.rebuild(confinedCore) as? Map<Key, Value> else { return nil }
            return MapRegistration(map: rebuilt, keyPaths: keyPaths, block: block)
        }
    }
}
