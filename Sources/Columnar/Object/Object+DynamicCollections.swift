// Object+DynamicCollections: `dynamicList(_:)`, `dynamicMutableSet(_:)` and `dynamicMap(_:)`, RealmSwift's way of
// reaching a to-many property of objects by name with its elements as DynamicObjects, whatever the object's class
// (a model class or a DynamicObject). EmbeddedObject has `dynamicList(_:)` only, as in RealmSwift.
//
// The collections are live views of the object's column, as the typed property would give: the same elements,
// read as DynamicObjects of the linked class. They need a managed object, whose column they are (RealmSwift's view
// of an unmanaged object's collection has no Linux counterpart: its elements are of the model class, which is not
// DynamicObject), and a property that is that kind of collection of objects; otherwise the program stops.

import CColumnar

extension Object {
    /// The list property `propertyName` (a `List` of objects) with its elements as DynamicObjects.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        let (location, column) = _dynamicCollectionColumn(propertyName, COLUMNAR_COLLECTION_LIST, "dynamicList")
        return List(location: location, column: column)
    }

    /// The set property `propertyName` (a `MutableSet` of objects) with its elements as DynamicObjects.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        let (location, column) = _dynamicCollectionColumn(propertyName, COLUMNAR_COLLECTION_SET,
                                                          "dynamicMutableSet")
        return MutableSet(location: location, column: column)
    }

    /// The map property `propertyName` (a `Map` of objects) with its values as DynamicObjects.
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        let (location, column) = _dynamicCollectionColumn(propertyName, COLUMNAR_COLLECTION_DICT, "dynamicMap")
        return Map(location: location, column: column)
    }
}

extension EmbeddedObject {
    /// The list property `propertyName` (a `List` of objects) with its elements as DynamicObjects.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        let (location, column) = _dynamicCollectionColumn(propertyName, COLUMNAR_COLLECTION_LIST, "dynamicList")
        return List(location: location, column: column)
    }
}

extension ObjectBase {
    /// Where the collection property `propertyName` lives, after checking that it is a collection of objects of
    /// `kind`; stops otherwise, naming `method`.
    func _dynamicCollectionColumn(_ propertyName: String, _ kind: columnar_collection_kind,
                                  _ method: String) -> (ObjectLocation, columnar_col_id) {
        if let dynamic = self as? DynamicObject, dynamic.isMigrationObject {
            fatalError("\(method)(_:) is not available on a migration's objects, whose collections read as arrays "
                       + "(a dictionary for a map) through their subscript")
        }
        guard let location = _location else {
            fatalError("\(method)(_:) needs a managed object: an unmanaged object's collections hold objects of their "
                       + "model class, not DynamicObjects")
        }
        let schema = location.binding.schema
        guard let index = schema.properties.firstIndex(where: { $0.name == propertyName }) else {
            fatalError("Invalid property name '\(propertyName)' for class '\(schema.className)'.")
        }
        let property = schema.properties[index]
        let typeName = kind == COLUMNAR_COLLECTION_LIST ? "List"
            : kind == COLUMNAR_COLLECTION_SET ? "MutableSet" : "Map"
        guard property.type == .object, property.storage.collection == kind else {
            fatalError("\(method)(_:): property '\(schema.className).\(propertyName)' is not a \(typeName) of objects")
        }
        return (location, location.binding.columns[index])
    }
}
