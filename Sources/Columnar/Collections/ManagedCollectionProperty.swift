// ManagedCollectionProperty: how a collection-typed `@Persisted` property (List, MutableSet, Map) is read and
// assigned on a managed object. Reading returns a live collection bound to the object's column; assigning
// replaces the column's contents.

import CColumnar
import Foundation

protocol ManagedCollectionProperty {
    /// A live collection of the object's column.
    static func managed(in core: RealmCore, location: ObjectLocation, column: columnar_col_id) -> Any
    /// Replaces the column's contents with this collection's elements.
    func assign(to core: RealmCore, location: ObjectLocation, column: columnar_col_id) throws
}

/// Values that can be elements of Realm collections (RealmSwift's `RealmCollectionValue`).
public protocol RealmCollectionValue: Hashable {}

extension ObjectBase: Hashable {
    /// Managed objects are equal when they are the same row of the same file; unmanaged ones when identical.
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        if lhs === rhs { return true }
        guard let left = lhs._location, let right = rhs._location else { return false }
        return left.key == right.key && left.binding.table == right.binding.table && left.core.file === right.core.file
    }

    public func hash(into hasher: inout Hasher) {
        if let location = _location {
            hasher.combine(location.key)
            hasher.combine(location.binding.table)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

extension Object: RealmCollectionValue {}
extension Int: RealmCollectionValue {}
extension Int8: RealmCollectionValue {}
extension Int16: RealmCollectionValue {}
extension Int32: RealmCollectionValue {}
extension Int64: RealmCollectionValue {}
extension Bool: RealmCollectionValue {}
extension Float: RealmCollectionValue {}
extension Double: RealmCollectionValue {}
extension String: RealmCollectionValue {}
extension Data: RealmCollectionValue {}
extension Date: RealmCollectionValue {}
extension UUID: RealmCollectionValue {}
extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue {}
