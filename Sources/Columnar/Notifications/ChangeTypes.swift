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

/// What happened to an observed object.
@frozen public enum ObjectChange<T: ObjectBase> {
    /// Kept for source compatibility; Columnar does not deliver errors.
    case error(_ error: NSError)
    /// The object's observed properties changed (the list names each changed property).
    case change(T, [PropertyChange])
    /// The object was deleted; no notification follows.
    case deleted
}

/// A collection addressed by keys (`Map`).
public protocol RealmKeyedCollection {
    associatedtype Key: _MapKey
    associatedtype Value
}

/// What changed in an observed `Map`: keys removed, added, and whose values changed.
@frozen public enum RealmMapChange<Collection: RealmKeyedCollection> {
    case initial(Collection)
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// Kept for source compatibility; Columnar does not deliver errors.
    case error(Error)
}
