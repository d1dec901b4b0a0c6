// ObjectKeyIdentifiable: a stable identity for objects, for list UIs and any diffing by identity (RealmSwift's
// protocol; there it sits with the Combine support, here it needs only the standard library's Identifiable).

/// An object whose `id` is the same for every instance of one stored object (`isSameObject(as:)`), and for an
/// unmanaged object is that instance's own. Conform a model class to it to use its objects where `Identifiable`
/// is asked for (a class whose own property is named `id` cannot).
public protocol ObjectKeyIdentifiable: Identifiable where ID == UInt64 {
    var id: UInt64 { get }
}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// Managed: the top bit set, the table below it (15 bits) and the object key (48 bits), so instances read
    /// from any thread or version agree. Unmanaged: the instance's address, which never has the top bit set.
    public var id: UInt64 { ObjectKeyIdentity.id(of: self) }
}

extension ObjectKeyIdentifiable where Self: ProjectionObservable {
    /// The root object's identity: projections of one stored object have the same id.
    public var id: UInt64 { ObjectKeyIdentity.id(of: rootObject) }
}

enum ObjectKeyIdentity {
    static func id(of object: ObjectBase) -> UInt64 {
        guard let location = object._location else {
            return UInt64(UInt(bitPattern: ObjectIdentifier(object).hashValue))
        }
        return 1 << 63 | (UInt64(location.binding.table) & 0x7FFF) << 48
            | (UInt64(bitPattern: location.key) & 0xFFFF_FFFF_FFFF)
    }
}
