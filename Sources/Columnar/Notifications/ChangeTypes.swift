// The values change notifications deliver, with RealmSwift's names and shapes.

import Foundation

/// What changed in an observed collection (Results, List, MutableSet, LinkingObjects, AnyRealmCollection).
///
/// `.initial` comes first, with the collection as it is when the notification is delivered; each `.update`
/// reports, for one or more coalesced write transactions, the positions of the removed elements in the previous
/// collection (`deletions`) and of the added and changed ones in the new collection (`insertions`,
/// `modifications`). Applying the deletions to the previous elements, then the insertions, gives the new ones.
@frozen public enum RealmCollectionChange<CollectionType> {
    case initial(CollectionType)
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// Kept for source compatibility; Columnar does not deliver errors.
    case error(Error)
}

/// One changed property of an observed object. `oldValue` is the value at the version the previous notification
/// (or the observation's start) saw; collections and links are given as live values of the current version.
public struct PropertyChange {
    public let name: String
    public let oldValue: Any?
    public let newValue: Any?
}

/// What happened to an observed object (or projection).
@frozen public enum ObjectChange<T> {
    /// Kept for source compatibility; Columnar does not deliver errors.
    case error(_ error: NSError)
    /// The object's observed properties changed (the list names each changed property).
    case change(T, [PropertyChange])
    /// The object was deleted; no notification follows.
    case deleted
}

/// A collection addressed by keys (`Map`), RealmSwift's `RealmKeyedCollection`: code generic over it reads, writes,
/// queries, aggregates and freezes any of them. (`observe` is a member of `Map` but not a requirement.)
public protocol RealmKeyedCollection: Sequence, ThreadConfined, CustomStringConvertible {
    associatedtype Key: _MapKey
    associatedtype Value: RealmCollectionValue

    /// The Realm managing the collection, or nil when it is unmanaged.
    var realm: Realm? { get }
    /// Whether the collection can no longer be used (its object was deleted or its Realm invalidated).
    var isInvalidated: Bool { get }
    var count: Int { get }
    var description: String { get }
    /// The keys, in the collection's key order.
    var keys: [Key] { get }
    /// The values, in key order.
    var values: [Value] { get }

    /// The value of a key (nil when absent); setting nil removes the key.
    subscript(key: Key) -> Value? { get set }
    /// The value of a key, or nil.
    func object(forKey key: Key) -> Value?
    /// Sets the value of a key, adding the key when absent.
    func updateValue(_ value: Value, forKey key: Key)
    /// Removes a key and its value.
    func removeObject(for key: Key)
    /// Removes every key.
    func removeAll()
    /// Whether some entry satisfies `predicate`.
    func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool

    /// The values that satisfy a predicate-format string.
    func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value>
    /// The values that satisfy an NSPredicate.
    func filter(_ predicate: NSPredicate) -> Results<Value>
    /// The values sorted by a property.
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Value>
    /// The values sorted by several properties.
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Element == SortDescriptor
    func min<T: MinMaxType>(ofProperty property: String) -> T?
    func max<T: MinMaxType>(ofProperty property: String) -> T?
    func sum<T: AddableType>(ofProperty property: String) -> T
    func average<T: AddableType>(ofProperty property: String) -> T?

    /// Whether the collection belongs to a frozen Realm.
    var isFrozen: Bool { get }
    /// The collection in a frozen snapshot of its Realm's current version.
    func freeze() -> Self
    /// The live collection in the calling thread's Realm, or nil when its object was deleted there.
    func thaw() -> Self?
}

/// What changed in an observed `Map`: keys removed, added, and whose values changed.
@frozen public enum RealmMapChange<Collection: RealmKeyedCollection> {
    case initial(Collection)
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// Kept for source compatibility; Columnar does not deliver errors.
    case error(Error)
}

/// One changed property of a projection, RealmSwift's type of that name (its projections' `observe` reports
/// `PropertyChange`s, and so do Columnar's; this type is declared for code that names it).
@frozen public struct ProjectedPropertyChange {
    /// The projection's property name.
    public let name: String
    /// The projected value before the change.
    public let oldValue: Any?
    /// The projected value after the change.
    public let newValue: Any?
}
