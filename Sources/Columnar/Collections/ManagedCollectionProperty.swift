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
    /// RealmSwift's equality: objects of a class with a primary key, and objects of a frozen Realm, are equal when
    /// they are the same stored object (the same row of the same file); any other object only to itself (the same
    /// instance). `isSameObject(as:)` compares stored objects whatever the class.
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        if lhs === rhs { return true }
        guard let left = lhs._location, let right = rhs._location, left.comparesByStoredObject else { return false }
        return left.key == right.key && left.binding.table == right.binding.table && left.core.file === right.core.file
    }

    /// Consistent with `==`: the stored object's key and table where that decides equality, else the instance.
    public func hash(into hasher: inout Hasher) {
        if let location = _location, location.comparesByStoredObject {
            hasher.combine(location.key)
            hasher.combine(location.binding.table)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

/// `index(of:)` of the collections: the position of the first element that is the same stored object as `object`
/// (as RealmSwift's engine lookup answers, whatever `==` says for the class), or of the first equal value.
enum ElementPosition {
    static func first<S: Sequence>(of element: S.Element, in elements: S) -> Int? where S.Element: Equatable {
        if let object = element as? ObjectBase {
            for (position, candidate) in elements.enumerated() {
                if let candidate = candidate as? ObjectBase, candidate._isSameObject(as: object) { return position }
            }
            return nil
        }
        for (position, candidate) in elements.enumerated() where candidate == element { return position }
        return nil
    }
}

extension ObjectLocation {
    /// Whether `==` compares the stored object (a class with a primary key, or a frozen Realm) rather than the
    /// instance.
    var comparesByStoredObject: Bool { binding.primaryKeyIndex != nil || core.frozen != nil }
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
