// Freezing: `freeze()`, `thaw()` and `isFrozen` on Realms, objects and collections.
//
// `freeze()` gives the same value in the frozen core of the version its Realm reads now (one frozen core per
// version while any frozen value of it exists; FrozenVersion.swift): immutable, readable from any thread at once,
// and pinning that version until the last frozen value of it is gone. Queries on frozen values (`filter`,
// `sorted`, aggregates) run at the frozen version and give frozen results. `thaw()` gives the live value in the
// calling thread's Realm of the same file (moved to at least the frozen version), or nil when it no longer exists
// there. Both rebuild the value with the hand-over recipe ThreadSafeReference uses.

import Foundation

enum Freezing {
    /// The frozen core of the version `core` reads now (itself when frozen).
    static func frozenCore(of core: RealmCore) -> RealmCore {
        if core.isFrozen { return core }
        core.checkThread()
        let version = core.version
        if let cached = core.frozenCache?.core, cached.frozen?.version == version { return cached }
        do {
            let frozen = try RealmCore(freezing: core)
            core.frozenCache = WeakCoreReference(core: frozen)
            return frozen
        } catch {
            fatalError("Columnar: cannot freeze version \(version): \(error)")
        }
    }

    /// The calling thread's live core of `core`'s file, moved to at least `core`'s version.
    static func liveCore(thawing core: RealmCore) -> RealmCore {
        guard let frozen = core.frozen else { return core }
        let live: RealmCore
        do { live = try RealmRegistry.core(for: core.configuration) } catch {
            fatalError("Columnar: cannot open the Realm to thaw into on this thread: \(error)")
        }
        if live.version < frozen.version && !live.isInWriteTransaction { _ = live.refresh() }
        return live
    }

    /// `value` in the frozen core of the version its `core` reads; an unmanaged value (no core) cannot be frozen
    /// and stops with `unmanaged`.
    static func freeze<Value: ThreadConfined>(_ value: Value, core: RealmCore?,
                                             unmanaged: @autoclosure () -> String = "") -> Value {
        guard let core else { fatalError(unmanaged()) }
        return freezeErased(value, core: core) as! Value
    }

    /// `value` live in the calling thread's core; an unmanaged value (no core) is its own live self.
    static func thaw<Value: ThreadConfined>(_ value: Value, core: RealmCore?) -> Value? {
        guard let core else { return value }
        return thawErased(value, core: core) as? Value
    }

    /// `freeze` for a value known only as `any ThreadConfined` (AnyRealmCollection's).
    static func freezeErased(_ value: any ThreadConfined, core: RealmCore) -> Any {
        if core.isFrozen { return value }
        guard let frozen = value._handOverRecipe().rebuild(frozenCore(of: core)) else {
            fatalError("Cannot freeze an object or collection that was deleted or invalidated")
        }
        return frozen
    }

    static func thawErased(_ value: any ThreadConfined, core: RealmCore) -> Any? {
        guard core.isFrozen else { return value }
        return value._handOverRecipe().rebuild(liveCore(thawing: core))
    }
}

extension Realm {
    /// Whether this Realm is a frozen snapshot of one version.
    public var isFrozen: Bool { core.isFrozen }

    /// A frozen snapshot of the version this Realm reads: immutable, readable from any thread, and keeping that
    /// version until the last frozen value of it is gone. Not inside a write transaction.
    public func freeze() -> Realm { Realm(core: Freezing.frozenCore(of: core)) }

    /// The calling thread's live Realm of the same file (at least at this snapshot's version).
    public func thaw() -> Realm { Realm(core: Freezing.liveCore(thawing: core)) }

    /// RealmSwift's spelling of `object.freeze()`: the object in a frozen snapshot of its Realm's current version.
    public func freeze<T: ObjectBase>(_ obj: T) -> T { obj.freeze() }

    /// RealmSwift's spelling of `object.thaw()`: the live object in the calling thread's Realm, or nil when it was
    /// deleted there.
    public func thaw<T: ObjectBase>(_ obj: T) -> T? { obj.thaw() }

    /// RealmSwift's spelling of `collection.freeze()`.
    public func freeze<Collection: RealmCollection>(_ collection: Collection) -> Collection { collection.freeze() }

    /// RealmSwift's spelling of `collection.thaw()`: nil when the collection's owner was deleted.
    public func thaw<Collection: RealmCollection>(_ collection: Collection) -> Collection? { collection.thaw() }
}

extension ObjectBase {
    /// Whether the object belongs to a frozen Realm (unmanaged objects are not frozen).
    public var isFrozen: Bool { _location?.core.isFrozen ?? false }

    /// The object in a frozen snapshot of its Realm's current version (readable from any thread).
    public func freeze() -> Self {
        Freezing.freeze(self, core: _location?.core, unmanaged: "Unmanaged objects cannot be frozen.")
    }

    /// The live object in the calling thread's Realm, or nil when it was deleted there.
    public func thaw() -> Self? { Freezing.thaw(self, core: _location?.core) }
}

extension Results {
    public var isFrozen: Bool { core.isFrozen }
    /// The results at a frozen snapshot of the Realm's current version (computed once; readable from any thread).
    public func freeze() -> Results<Element> { Freezing.freeze(self, core: core) }
    /// The live results in the calling thread's Realm.
    public func thaw() -> Results<Element>? { Freezing.thaw(self, core: core) }
}

extension List {
    public var isFrozen: Bool { managed?.core.isFrozen ?? nested?.core.isFrozen ?? false }
    public func freeze() -> List<Element> {
        Freezing.freeze(self, core: managed?.core ?? nested?.core, unmanaged: "Unmanaged lists cannot be frozen.")
    }
    public func thaw() -> List<Element>? { Freezing.thaw(self, core: managed?.core ?? nested?.core) }
}

extension MutableSet {
    public var isFrozen: Bool { managed?.core.isFrozen ?? false }
    public func freeze() -> MutableSet<Element> {
        Freezing.freeze(self, core: managed?.core, unmanaged: "Unmanaged sets cannot be frozen.")
    }
    public func thaw() -> MutableSet<Element>? { Freezing.thaw(self, core: managed?.core) }
}

extension Map {
    public var isFrozen: Bool { managed?.core.isFrozen ?? nested?.core.isFrozen ?? false }
    public func freeze() -> Map<Key, Value> {
        Freezing.freeze(self, core: managed?.core ?? nested?.core, unmanaged: "Unmanaged maps cannot be frozen.")
    }
    public func thaw() -> Map<Key, Value>? { Freezing.thaw(self, core: managed?.core ?? nested?.core) }
}

extension LinkingObjects {
    public var isFrozen: Bool { realm?.isFrozen ?? false }
    public func freeze() -> LinkingObjects<Element> {
        Freezing.freeze(self, core: realm?.core, unmanaged: "Linking objects of an unmanaged object cannot be frozen.")
    }
    public func thaw() -> LinkingObjects<Element>? { Freezing.thaw(self, core: realm?.core) }
}

extension SectionedResults {
    public var isFrozen: Bool { results.isFrozen }
    /// The sections of a frozen snapshot of the results.
    public func freeze() -> SectionedResults<Key, SectionElement> {
        SectionedResults(results: results.freeze(), sectionKey: sectionKey)
    }
    public func thaw() -> SectionedResults<Key, SectionElement>? {
        results.thaw().map { SectionedResults(results: $0, sectionKey: sectionKey) }
    }
}

extension ResultsSection {
    public var isFrozen: Bool { parent.isFrozen }
    public func freeze() -> ResultsSection<Key, Element> { ResultsSection(parent: parent.freeze(), key: key) }
    public func thaw() -> ResultsSection<Key, Element>? {
        parent.thaw().map { ResultsSection(parent: $0, key: key) }
    }
}
