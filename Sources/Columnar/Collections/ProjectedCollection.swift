// ProjectedCollection: a list or set of objects seen as one property of each element, for projections
// (`@Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>`).
//
// `projectTo` on a List or MutableSet of objects gives a CollectionElementMapper; its dynamic members give the
// ProjectedCollection of that property of each element. The collection reads the source collection live, position
// by position (a set's positions are its iteration order, and its projected values can repeat); setting an element
// sets the property of the object at that position. Observing it observes the source collection.

import Foundation

/// The elements' values of one property of a List or MutableSet of objects.
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible, ThreadConfined
    where Element: RealmCollectionValue {
    public typealias Index = Int

    private let source: any ProjectedCollectionSource
    private let read: (ObjectBase) -> Element
    private let write: (ObjectBase, Element) -> Void

    init(source: any ProjectedCollectionSource, read: @escaping (ObjectBase) -> Element,
         write: @escaping (ObjectBase, Element) -> Void) {
        self.source = source
        self.read = read
        self.write = write
    }

    /// The same projection of another state of the source (frozen, thawed, rebuilt elsewhere).
    private func with(_ source: any ProjectedCollectionSource) -> ProjectedCollection<Element> {
        ProjectedCollection(source: source, read: read, write: write)
    }

    /// The projected value of the object at `position` (get), or sets that object's property (set; in a write
    /// transaction for a managed collection).
    public subscript(position: Int) -> Element {
        get { read(source.object(at: position)) }
        nonmutating set { write(source.object(at: position), newValue) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { source.count }

    /// The Realm managing the source collection, or nil when it is unmanaged.
    public var realm: Realm? { source.realm }
    /// Whether the source collection can no longer be used (its owner was deleted or its Realm invalidated).
    public var isInvalidated: Bool { source.isInvalidated }
    /// Whether the source collection is frozen.
    public var isFrozen: Bool { source.isFrozen }

    /// The projection of a frozen snapshot of the source collection.
    public func freeze() -> ProjectedCollection<Element> { with(source.frozen()) }
    /// The projection of the live source collection, or nil when its owner was deleted.
    public func thaw() -> ProjectedCollection<Element>? { source.thawed().map(with) }

    /// The position of the first element equal to `object`, or nil.
    public func index(of object: Element) -> Int? { firstIndex(of: object) }

    /// The position of the first object of the source collection that satisfies the predicate (which names the
    /// objects' properties), or nil.
    public func index(matching predicate: NSPredicate) -> Int? { source.index(matching: predicate) }

    /// Registers a block called with the source collection's changes, each with this projection of it (see
    /// `Results.observe(keyPaths:on:_:)`).
    public func observe(on queue: DispatchQueue?,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void)
        -> NotificationToken {
        observe(keyPaths: nil, on: queue, block)
    }

    /// Registers a block called with the source collection's changes; `keyPaths` name properties of its objects.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void)
        -> NotificationToken {
        source.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let source): block(.initial(with(source)))
            case .update(let source, let deletions, let insertions, let modifications):
                block(.update(with(source), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }

    public var description: String {
        "ProjectedCollection<\(Element.self)> {\n"
            + enumerated().map { "\t[\($0.offset)] \(ObjectBase.describeProperty($0.element))\n" }.joined() + "}"
    }

    public func _handOverRecipe() -> _HandOverRecipe {
        let (core, rebuild) = source.handOverRecipe()
        return _HandOverRecipe(core: core) { core in (rebuild(core) as? (any ProjectedCollectionSource)).map(with) }
    }
}

/// Maps a List or MutableSet of objects to a ProjectedCollection of one of their properties (`projectTo`).
@dynamicMemberLookup
public struct CollectionElementMapper<Element> where Element: ObjectBase & RealmCollectionValue {
    let source: any ProjectedCollectionSource

    /// The collection of each object's value at `member`.
    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        ProjectedCollection(source: source, read: { ($0 as! Element)[keyPath: member] }, write: { object, value in
            guard let writable = member as? ReferenceWritableKeyPath<Element, V> else {
                fatalError("Columnar: \(member) is not writable")
            }
            (object as! Element)[keyPath: writable] = value
        })
    }
}

extension List where Element: ObjectBase {
    /// The list's objects seen as one of their properties (`person.friends.projectTo.firstName`), for projections.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: ObjectCollectionSource(collection: self))
    }
}

extension MutableSet where Element: ObjectBase {
    /// The set's objects seen as one of their properties, in the set's order (values can repeat), for projections.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: ObjectCollectionSource(collection: self))
    }
}

/// A projected collection's source, whatever the class of its objects.
protocol ProjectedCollectionSource {
    var count: Int { get }
    func object(at position: Int) -> ObjectBase
    var realm: Realm? { get }
    var isInvalidated: Bool { get }
    var isFrozen: Bool { get }
    func frozen() -> any ProjectedCollectionSource
    func thawed() -> (any ProjectedCollectionSource)?
    func index(matching predicate: NSPredicate) -> Int?
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<any ProjectedCollectionSource>) -> Void) -> NotificationToken
    /// Rebuilds the source in another core (its `_HandOverRecipe`, which needs the source to be managed).
    func handOverRecipe() -> (core: RealmCore, rebuild: (RealmCore) -> Any?)
}

/// A List or MutableSet of objects as a projected collection's source.
struct ObjectCollectionSource<Collection: RealmCollection & ThreadConfined & ErasedObservableCollection>:
    ProjectedCollectionSource where Collection.Element: ObjectBase {
    let collection: Collection

    var count: Int { collection.count }
    func object(at position: Int) -> ObjectBase { collection[position] }
    var realm: Realm? { collection.realm }
    var isInvalidated: Bool { collection.isInvalidated }
    var isFrozen: Bool { collection.isFrozen }
    func frozen() -> any ProjectedCollectionSource { Self(collection: collection.freeze()) }
    func thawed() -> (any ProjectedCollectionSource)? { collection.thaw().map { Self(collection: $0) } }
    func index(matching predicate: NSPredicate) -> Int? { collection.index(matching: predicate) }

    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<any ProjectedCollectionSource>) -> Void)
        -> NotificationToken {
        collection.observeErased(keyPaths: keyPaths, in: queue.map(ConfinementContext.queue)) { change in
            switch change {
            case .initial(let collection): block(.initial(Self(collection: collection as! Collection)))
            case .update(let collection, let deletions, let insertions, let modifications):
                block(.update(Self(collection: collection as! Collection), deletions: deletions,
                              insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }

    func handOverRecipe() -> (core: RealmCore, rebuild: (RealmCore) -> Any?) {
        guard let realm = collection.realm else { fatalError("Cannot construct reference to unmanaged object") }
        let recipe = collection._handOverRecipe()
        return (realm.core, { core in (recipe.rebuild(core) as? Collection).map { Self(collection: $0) } })
    }
}
