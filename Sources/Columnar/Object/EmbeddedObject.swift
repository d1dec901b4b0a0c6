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

    /// Properties not to persist (only meaningful for properties without `@Persisted`, which are never persisted).
    open class func ignoredProperties() -> [String] { [] }
    /// Swift property name -> column name in the file, for properties stored under another name.
    open class func propertiesMapping() -> [String: String] { [:] }

    /// Reads or writes a property by name. Writing a managed object needs a write transaction.
    open subscript(key: String) -> Any? {
        get { _value(forProperty: key) }
        set { _setValue(newValue, forProperty: key) }
    }

    /// Whether both are the same managed embedded object (same Realm file, same row); false for unmanaged objects
    /// unless identical.
    public func isSameObject(as object: EmbeddedObject?) -> Bool {
        guard let object else { return false }
        return _isSameObject(as: object)
    }
}
