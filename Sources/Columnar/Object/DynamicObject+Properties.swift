// DynamicObject+Properties: reading and writing a property of a managed DynamicObject by name, outside migrations.
//
// What a property reads as: nil for null; a DynamicObject (of the class the file says) for a link; Int for every
// integer column; Bool, Float, Double, String, Data, Date, ObjectId, UUID, Decimal128 for the others; and for a
// collection a live List, MutableSet or Map of the element type, optional when the elements are
// (`List<Int>`, `MutableSet<String?>`, `Map<String, Date>`), with `List<DynamicObject>`,
// `MutableSet<DynamicObject>` and `Map<String, DynamicObject?>` for objects, as RealmSwift's DynamicObject gives.
//
// What a property takes (inside a write transaction): a value of the column's type (any integer type for an
// integer column that it fits, Float or Double for either); nil (or NSNull) for an optional property; for a link,
// a managed object of the linked class (a DynamicObject or a model object), an unmanaged model object of that class
// (added), or a dictionary or array of property values (a new object is created, as `dynamicCreate` would); for a
// list or set, an array, a Swift set or any Realm collection of such elements; for a map, a `[String: Any]`
// dictionary. A value of another type, nil for a required property, or an object of another class stops the
// program with RealmSwift's message, as does changing a primary key.

import CColumnar
import Foundation

extension DynamicObject {
    /// The schema index of a property of a dynamic binding; an unknown name stops with RealmSwift's message.
    func dynamicPropertyIndex(_ name: String, _ binding: ClassBinding) -> Int {
        guard let index = binding.schema.properties.firstIndex(where: { $0.name == name }) else {
            fatalError("Invalid property name '\(name)' for class '\(binding.schema.className)'.")
        }
        return index
    }
}

enum DynamicProperties {
    // MARK: Reading

    /// The value of a property of a managed DynamicObject (see the top of the file).
    static func read(_ location: ObjectLocation, propertyIndex index: Int) -> Any? {
        let core = location.core
        precondition(location.generation == core.generation, "Object has been deleted or invalidated.")
        let binding = location.binding
        let property = binding.schema.properties[index]
        let column = binding.columns[index]
        if property.storage.collection != COLUMNAR_COLLECTION_NONE {
            return collection(property.storage, location: location, column: column)
        }
        var value = columnar_value()
        let rc = columnar_obj_get(core.currentTransaction, binding.table, location.key, column, &value)
        if rc == COLUMNAR_ENOTFOUND { fatalError("Object has been deleted or invalidated.") }
        Engine.mustSucceed(rc, "reading \(binding.schema.className).\(property.name)")
        if value.is_null { return nil }
        if value.type == COLUMNAR_TYPE_LINK {
            let target = core.linkedBinding(of: binding, propertyIndex: index)!
            return core.materialize(DynamicObject.self, binding: target, key: value.as.link)
        }
        if value.type == COLUMNAR_TYPE_MIXED {
            // A nested collection in the value stays live at this property, as through the model class.
            return AnyRealmValue.read(value, root: .property(location, column), in: core)
        }
        return DynamicValues.scalarValue(value, realm: Realm(core: core))
    }

    /// The live collection of a collection property, typed by its elements (see the top of the file).
    static func collection(_ storage: _StorageType, location: ObjectLocation, column: columnar_col_id) -> Any {
        visitElementType(storage, CollectionMaking(collection: storage.collection, location: location, column: column))
    }

    /// A managed DynamicObject's description, in the format of model objects' (ObjectBase.description).
    static func describe(_ location: ObjectLocation) -> String {
        let schema = location.binding.schema
        guard location.core.objectExists(location) else { return "[invalid object]" }
        let lines = schema.properties.indices.map { index in
            "\t\(schema.properties[index].name) = "
                + "\(ObjectBase.describeProperty(read(location, propertyIndex: index) as Any));"
        }
        return "\(schema.className) {\n" + lines.joined(separator: "\n") + "\n}"
    }

    // MARK: Writing

    /// Sets a property of a managed DynamicObject (see the top of the file). Objects that `newValue` describes by
    /// a dictionary or an array are created with `policy`.
    static func write(_ newValue: Any?, to location: ObjectLocation, propertyIndex index: Int,
                      policy: Realm.UpdatePolicy) {
        let core = location.core
        core.requireWriteTransaction()
        guard core.objectExists(location) else { fatalError("Object has been deleted or invalidated.") }
        let binding = location.binding
        let property = binding.schema.properties[index]
        let column = binding.columns[index]
        let value = coercedToNil(newValue)
        if property.isPrimary {
            fatalError("Primary key can't be changed to '\(value.map { "\($0)" } ?? "nil")' after an object is "
                       + "inserted.")
        }
        let storage = property.storage
        if storage.collection != COLUMNAR_COLLECTION_NONE {
            writeCollection(value, to: location, propertyIndex: index, policy: policy)
        } else if storage.type == COLUMNAR_TYPE_LINK {
            writeLink(value, to: location, propertyIndex: index, policy: policy)
        } else {
            writeValue(value, to: location, propertyIndex: index)
        }
        core.noteWrite(binding.table, location.key, column)
        core.noteLocalChange()
    }

    /// Sets a property that holds one value (not a link): converted to the column's type, or null.
    private static func writeValue(_ value: Any?, to location: ObjectLocation, propertyIndex index: Int) {
        let binding = location.binding
        let property = binding.schema.properties[index]
        let persistable: any _Persistable
        if let value {
            guard let converted = scalar(value, property.storage) else {
                fatalError(invalidValueMessage(value, property, binding.schema.className))
            }
            persistable = converted
        } else {
            precondition(property.storage.nullable, "Invalid null value for non-nullable property "
                             + "'\(binding.schema.className).\(property.name)'.")
            persistable = NullValue(type: property.storage.type)
        }
        let core = location.core
        do {
            try persistable._withValue(in: Realm(core: core)) { engineValue in
                try Engine.check(columnar_obj_set(core.currentTransaction, binding.table, location.key,
                                                  binding.columns[index], &engineValue))
            }
        } catch {
            fatalError("Columnar: cannot set '\(binding.schema.className).\(property.name)': \(error)")
        }
    }

    /// nil for nil, an Optional holding nil, and NSNull (which RealmSwift takes for nil); else the value itself.
    static func coercedToNil(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let unwrapped = ObjectValueAssignment.unwrapped(value)
        if let optional = unwrapped as? OptionalProtocol, optional.isNone { return nil }
        if unwrapped is NSNull { return nil }
        return unwrapped
    }

    /// A value as the `_Persistable` a column of `storage` stores, or nil when it cannot be one. Beside
    /// EngineValue's conversions, Float and Double columns take integers, as RealmSwift's numbers do, and a
    /// column takes any value stored as its type (a `PersistableEnum` case, say, which a model's default can be).
    static func scalar(_ value: Any, _ storage: _StorageType) -> (any _Persistable)? {
        if let converted = EngineValue.persistable(value, type: storage.type, nullable: storage.nullable) {
            return converted
        }
        if let persistable = value as? any _Persistable, !type(of: persistable)._isCollection,
           type(of: persistable)._storage.type == storage.type, storage.type != COLUMNAR_TYPE_LINK {
            return persistable
        }
        guard let integer = value as? any BinaryInteger else { return nil }
        switch storage.type {
        case COLUMNAR_TYPE_FLOAT: return Float(exactly: integer)
        case COLUMNAR_TYPE_DOUBLE: return Double(exactly: integer)
        default: return nil
        }
    }

    /// RealmSwift's message for a value a property cannot take.
    static func invalidValueMessage(_ value: Any, _ property: Property, _ className: String) -> String {
        let typeName: String
        if property.type == .object, let target = property.objectClassName {
            typeName = property.storage.collection == COLUMNAR_COLLECTION_NONE ? target : "\(target) collection"
        } else {
            typeName = "\(property.type)" + (property.isOptional ? "?" : "")
                + (property.storage.collection == COLUMNAR_COLLECTION_NONE ? "" : " collection")
        }
        return "Invalid value '\(value)' of type '\(type(of: value))' for '\(typeName)' property "
            + "'\(className).\(property.name)'."
    }

    /// Sets a link: nil, an object of the linked class, or a new one from a dictionary or array. Replacing the
    /// object of a link to an embedded class deletes the object it held, which belonged to this one.
    private static func writeLink(_ value: Any?, to location: ObjectLocation, propertyIndex index: Int,
                                  policy: Realm.UpdatePolicy) {
        let core = location.core
        let binding = location.binding
        let column = binding.columns[index]
        let target = core.linkedBinding(of: binding, propertyIndex: index)!
        let property = binding.schema.properties[index]
        let txn = core.currentTransaction
        var current = columnar_value()
        Engine.mustSucceed(columnar_obj_get(txn, binding.table, location.key, column, &current), "reading a link")
        let key = value.map { linkKey($0, target: target, core: core, policy: policy,
                                      property: property, className: binding.schema.className) }
        var link = columnar_value()
        link.type = COLUMNAR_TYPE_LINK
        link.is_null = key == nil
        link.as.link = key ?? 0
        Engine.mustSucceed(columnar_obj_set(core.currentTransaction, binding.table, location.key, column, &link),
                           "setting \(binding.schema.className).\(property.name)")
        if target.schema.isEmbedded, !current.is_null, current.as.link != key {
            core.deleteOrphans([core.materialize(DynamicObject.self, binding: target, key: current.as.link)])
        }
    }

    /// The key of the object a link (or a collection of links) of `property` takes for `value`: a managed object
    /// of the linked class; an unmanaged model object of that class, which is added; or a new object created from
    /// a dictionary or an array of property values. Anything else stops the program.
    static func linkKey(_ value: Any, target: ClassBinding, core: RealmCore, policy: Realm.UpdatePolicy,
                        property: Property, className: String) -> columnar_key {
        switch value {
        case let object as ObjectBase:
            if let location = object._location {
                precondition(location.core.file === core.file,
                             "Cannot link to an object managed by another Realm: copy it into this Realm with "
                                 + "dynamicCreate(_:value:update:) first")
                precondition(location.binding.table == target.table,
                             "Can't set object of type '\(location.binding.schema.className)' to property of type "
                                 + "'\(target.schema.className)'")
                var exists = false
                Engine.mustSucceed(columnar_obj_exists(core.currentTransaction, target.table, location.key, &exists),
                                   "checking an object")
                precondition(exists && location.generation == location.core.generation,
                             "Object has been deleted or invalidated.")
                core.requireUnowned(object)
                return location.key
            }
            precondition(!(object is DynamicObject), "Cannot add an unmanaged DynamicObject to a Realm: it has no "
                             + "class; create the object with dynamicCreate(_:value:update:) or from a dictionary")
            precondition(object.objectSchema.className == target.schema.className,
                         "Can't set object of type '\(object.objectSchema.className)' to property of type "
                             + "'\(target.schema.className)'")
            do { try core.add(object, update: policy) } catch {
                fatalError("Columnar: cannot add a \(target.schema.className): \(error)")
            }
            return object._location!.key
        case is [String: Any], is [Any]:
            return DynamicCreation.create(target, value: value, update: policy, core: core, asLinkTarget: true)
                ._location!.key
        default:
            fatalError(invalidValueMessage(value, property, className))
        }
    }

    /// Replaces a collection's contents: values are converted to the element type, objects found or created as
    /// for links. nil empties the collection.
    private static func writeCollection(_ value: Any?, to location: ObjectLocation, propertyIndex index: Int,
                                        policy: Realm.UpdatePolicy) {
        let binding = location.binding
        let property = binding.schema.properties[index]
        let storage = property.storage
        let isMap = storage.collection == COLUMNAR_COLLECTION_DICT
        let source: Any = value ?? (isMap ? [String: Any]() : [Any]())
        if storage.type == COLUMNAR_TYPE_LINK {
            writeLinks(source, to: location, propertyIndex: index, policy: policy)
            return
        }
        let assignment = CollectionAssignment(source: source, collection: storage.collection, location: location,
                                              column: binding.columns[index])
        if !visitElementType(storage, assignment) {
            fatalError(invalidValueMessage(source, property, binding.schema.className))
        }
    }

    /// Replaces the contents of a collection of links. The objects are found, added or created first (the value
    /// may be this very collection, which is cleared next); clearing deletes the embedded objects it owned, and
    /// the new ones, made for it, are linked directly.
    private static func writeLinks(_ source: Any, to location: ObjectLocation, propertyIndex index: Int,
                                   policy: Realm.UpdatePolicy) {
        let core = location.core
        let binding = location.binding
        let property = binding.schema.properties[index]
        let className = binding.schema.className
        let column = binding.columns[index]
        let target = core.linkedBinding(of: binding, propertyIndex: index)!
        func key(_ item: Any) -> columnar_key {
            linkKey(item, target: target, core: core, policy: policy, property: property, className: className)
        }
        func link(_ key: columnar_key?) -> columnar_value {
            var value = columnar_value()
            value.type = COLUMNAR_TYPE_LINK
            value.is_null = key == nil
            value.as.link = key ?? 0
            return value
        }
        let what = "setting \(className).\(property.name)"
        switch property.storage.collection {
        case COLUMNAR_COLLECTION_DICT:
            guard let entries = source as? [String: Any] else {
                fatalError(invalidValueMessage(source, property, className))
            }
            for name in entries.keys { Map<String, DynamicObject?>.checkInsertable(name) }
            let keys = entries.mapValues { coercedToNil($0).map(key) }
            Map<String, DynamicObject?>(location: location, column: column).removeAll()
            for (name, objectKey) in keys {
                var value = link(objectKey)
                Engine.mustSucceed(Array(name.utf8).withUnsafeBytes { bytes in
                    columnar_dict_set(core.currentTransaction, binding.table, location.key, column, bytes.baseAddress,
                                      bytes.count, &value)
                }, what)
            }
        default:
            guard let items = CollectionColumn.items(of: source) else {
                fatalError(invalidValueMessage(source, property, className))
            }
            let keys = items.map { item -> columnar_key in
                guard let item = coercedToNil(item) else {
                    fatalError("Invalid null value in '\(className).\(property.name)': a collection of objects cannot "
                               + "hold nil")
                }
                return key(item)
            }
            let isList = property.storage.collection == COLUMNAR_COLLECTION_LIST
            if isList {
                List<DynamicObject>(location: location, column: column).removeAll()
            } else {
                MutableSet<DynamicObject>(location: location, column: column).removeAll()
            }
            for (position, objectKey) in keys.enumerated() {
                var value = link(objectKey)
                let txn = core.currentTransaction
                Engine.mustSucceed(isList
                    ? columnar_list_insert(txn, binding.table, location.key, column, UInt64(position), &value)
                    : columnar_set_insert(txn, binding.table, location.key, column, &value, nil), what)
            }
        }
    }

    // MARK: Element types

    /// Calls `visitor` with the Swift element type of a collection column: the value type (optional when the
    /// column is nullable), or DynamicObject for links (optional in a map, whose keys can hold nil).
    private static func visitElementType<Visitor: CollectionElementVisitor>(_ storage: _StorageType,
                                                                            _ visitor: Visitor) -> Visitor.Result {
        let optional = storage.nullable
        switch storage.type {
        case COLUMNAR_TYPE_INT: return optional ? visitor.visit(Int?.self) : visitor.visit(Int.self)
        case COLUMNAR_TYPE_BOOL: return optional ? visitor.visit(Bool?.self) : visitor.visit(Bool.self)
        case COLUMNAR_TYPE_FLOAT: return optional ? visitor.visit(Float?.self) : visitor.visit(Float.self)
        case COLUMNAR_TYPE_DOUBLE: return optional ? visitor.visit(Double?.self) : visitor.visit(Double.self)
        case COLUMNAR_TYPE_STRING: return optional ? visitor.visit(String?.self) : visitor.visit(String.self)
        case COLUMNAR_TYPE_BINARY: return optional ? visitor.visit(Data?.self) : visitor.visit(Data.self)
        case COLUMNAR_TYPE_TIMESTAMP: return optional ? visitor.visit(Date?.self) : visitor.visit(Date.self)
        case COLUMNAR_TYPE_OBJECTID: return optional ? visitor.visit(ObjectId?.self) : visitor.visit(ObjectId.self)
        case COLUMNAR_TYPE_UUID: return optional ? visitor.visit(UUID?.self) : visitor.visit(UUID.self)
        case COLUMNAR_TYPE_DECIMAL128:
            return optional ? visitor.visit(Decimal128?.self) : visitor.visit(Decimal128.self)
        case COLUMNAR_TYPE_MIXED: return visitor.visit(AnyRealmValue.self)
        case COLUMNAR_TYPE_LINK:
            return storage.collection == COLUMNAR_COLLECTION_DICT ? visitor.visit(DynamicObject?.self)
                : visitor.visit(DynamicObject.self)
        default:
            fatalError("Columnar: a collection of \(PropertyType(storage.type)) values cannot be used dynamically")
        }
    }
}

/// Something done with the element type of a collection column, which is known only when the program runs.
private protocol CollectionElementVisitor {
    associatedtype Result
    func visit<Element: RealmCollectionValue>(_ type: Element.Type) -> Result
}

/// Makes the live List, MutableSet or Map of a column.
private struct CollectionMaking: CollectionElementVisitor {
    let collection: columnar_collection_kind
    let location: ObjectLocation
    let column: columnar_col_id

    func visit<Element: RealmCollectionValue>(_ type: Element.Type) -> Any {
        switch collection {
        case COLUMNAR_COLLECTION_LIST: return List<Element>(location: location, column: column)
        case COLUMNAR_COLLECTION_SET: return MutableSet<Element>(location: location, column: column)
        default: return Map<String, Element>(location: location, column: column)
        }
    }
}

/// Replaces a column's contents with `source`'s elements, converted as the typed collection converts values
/// assigned to it; false when `source` is not a collection of such elements.
private struct CollectionAssignment: CollectionElementVisitor {
    let source: Any
    let collection: columnar_collection_kind
    let location: ObjectLocation
    let column: columnar_col_id

    func visit<Element: RealmCollectionValue>(_ type: Element.Type) -> Bool {
        let converted: (any ManagedCollectionProperty)?
        switch collection {
        case COLUMNAR_COLLECTION_LIST: converted = List<Element>._convert(fromAny: source)
        case COLUMNAR_COLLECTION_SET: converted = MutableSet<Element>._convert(fromAny: source)
        default: converted = Map<String, Element>._convert(fromAny: source)
        }
        guard let converted else { return false }
        do { try converted.assign(to: location.core, location: location, column: column) } catch {
            fatalError("Columnar: cannot set a \(location.binding.schema.className) collection: \(error)")
        }
        return true
    }
}
