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

    /// Reads or writes a property by name. Writing a managed object needs a write transaction.
    open subscript(key: String) -> Any? {
        get { _value(forProperty: key) }
        set { _setValue(newValue, forProperty: key) }
    }
}
