// EmbeddedObject: the base class of objects owned by exactly one parent object
// (`class Address: EmbeddedObject { @Persisted var street: String }`, `@Persisted var address: Address?`).
//
// An embedded object is not added to a Realm by itself: it becomes managed when assigned to a managed parent's
// link or appended to its List, and it is deleted with its parent, or when the parent's link or list stops
// holding it. A managed embedded object cannot be given a second parent.

import CColumnar

open class EmbeddedObject: ObjectBase, RealmCollectionValue {
    public required init() {
        super.init()
    }

    /// Creates an unmanaged embedded object from a dictionary, an array in property order or another object.
    public convenience init(value: Any) {
        self.init()
        ObjectValueAssignment.assign(value, to: self)
    }

    /// The Realm managing the object, or nil for an unmanaged object.
    public var realm: Realm? { _location.map { Realm(core: $0.core) } }

    /// The schema of the object's class.
    public var objectSchema: ObjectSchema { SchemaDiscovery.info(for: type(of: self)).schema }

    /// Whether the object was deleted (directly, or with its parent) or its Realm invalidated.
    public var isInvalidated: Bool {
        guard let location = _location else { return false }
        return !location.core.objectExists(location)
    }

    /// Reads or writes a property by name. Writing a managed object needs a write transaction.
    open subscript(key: String) -> Any? {
        get { _value(forProperty: key) }
        set { _setValue(newValue, forProperty: key) }
    }
}
