// QueryObjectReference: an object compared with a link in a query (`owner == %@` with a Dog, `$0.owner == dog`,
// `ANY dogs == %@`, `owner IN %@` with an array of dogs).
//
// A link holds the key of the object it points to, so the object stands in a query for its class and its key.
// Only an object stored in the Realm being queried can match: the object layer describes an unmanaged, deleted
// or foreign object as it is. An unmanaged object matches no link, as in RealmSwift (`owner == %@` selects
// nothing, `!=` everything); a deleted or foreign one is refused by the type checker with a message that says
// which, at the position of the value, as RealmSwift raises an exception for each.

/// An object used as a query constant.
public struct QueryObjectReference: Hashable, Sendable {
    /// Where the object is stored.
    public enum Storage: Hashable, Sendable {
        /// Stored under `key` in the database that `database` identifies (the object layer's identity of an open
        /// file; nil for an `objkey(…)` literal, which names a key of the database it is run on).
        case stored(key: Int64, database: ObjectIdentifier?)
        /// Never added to a Realm.
        case unmanaged
        /// Deleted, or its Realm invalidated.
        case invalidated
    }

    /// The object's class, as the model names it.
    public var className: String
    public var storage: Storage

    public init(className: String, storage: Storage) {
        self.className = className
        self.storage = storage
    }
}
