// Realm+Dynamic: RealmSwift's dynamic calls, which name a class by its stored name and hand out DynamicObjects
// (`realm.dynamicObjects("Dog")`, `realm.dynamicCreate("Dog", value: ["name": "Rex"])`). Which classes and
// properties they see is RealmCore+DynamicBindings.swift's; how a DynamicObject's properties read and take values
// is DynamicObject+Properties.swift's.

import CColumnar
import Foundation

extension Realm {
    /// Every object of the class stored under `className`, as live results of DynamicObjects. They filter, sort,
    /// deduplicate, aggregate and notify as the results of a model class do, by the dynamic property names. A
    /// class the Realm does not manage stops the program with RealmSwift's message.
    public func dynamicObjects(_ className: String) -> Results<DynamicObject> {
        Results(core: core, binding: core.requireDynamicBinding(named: className))
    }

    /// The object of the class stored under `typeName` whose primary key is `key`, or nil. The class must have a
    /// primary key, and `key` must be a value of its type (or nil for an optional one).
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        let binding = core.requireDynamicBinding(named: typeName)
        guard binding.primaryKeyIndex != nil else {
            fatalError("'\(typeName)' does not have a primary key and can not be queried by one")
        }
        guard let found = DynamicCreation.find(binding, primaryKey: key, core: core) else { return nil }
        return core.materialize(DynamicObject.self, binding: binding, key: found)
    }

    /// Creates an object of the class stored under `typeName` in the write transaction, from a dictionary of
    /// property values, an array of values in property order, or an object with such properties. With `.modified`
    /// or `.all` and an object of the same primary key present, that object is updated instead, only in the
    /// properties the value names (`.modified` writes only those that differ). Linked objects given as
    /// dictionaries or arrays are created (or updated) the same way.
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](),
                              update: UpdatePolicy = .error) -> DynamicObject {
        core.requireWriteTransaction()
        let binding = core.requireDynamicBinding(named: typeName)
        if update != .error && binding.primaryKeyIndex == nil {
            fatalError("'\(typeName)' does not have a primary key and can not be updated")
        }
        return DynamicCreation.create(binding, value: value, update: update, core: core)
    }
}

/// Creating and finding objects of a dynamic binding.
enum DynamicCreation {
    /// The key of the object whose primary key is `primaryKey`, or nil; a key of the wrong type stops.
    static func find(_ binding: ClassBinding, primaryKey: Any, core: RealmCore) -> columnar_key? {
        let property = binding.schema.properties[binding.primaryKeyIndex!]
        guard let persistable = EngineValue.persistable(primaryKey, for: property) else {
            fatalError("Invalid value '\(primaryKey)' of type '\(type(of: primaryKey))' for "
                       + "'\(binding.schema.className).\(property.name)' primary key (\(property.type))")
        }
        var found: columnar_key = 0
        let rc: Int32
        do {
            rc = try persistable._withValue(in: Realm(core: core)) { value in
                columnar_obj_find_primary_key(core.currentTransaction, binding.table, &value, &found)
            }
        } catch {
            fatalError("Columnar: cannot look up a \(binding.schema.className): \(error)")
        }
        if rc == COLUMNAR_ENOTFOUND { return nil }
        Engine.mustSucceed(rc, "finding by primary key")
        return found
    }

    /// Creates (or with `.modified` and `.all` updates) an object from `value` (see `Realm.dynamicCreate`). An
    /// object of an embedded class can only be made as the target of a link (`asLinkTarget`).
    static func create(_ binding: ClassBinding, value: Any, update: Realm.UpdatePolicy, core: RealmCore,
                       asLinkTarget: Bool = false) -> DynamicObject {
        let schema = binding.schema
        precondition(asLinkTarget || !schema.isEmbedded, "Embedded objects cannot be created directly")
        let given = namedValues(value, binding)
        let txn = core.currentTransaction
        var key: columnar_key = 0
        var existed = false
        var defaults: [String: Any]?
        if let pkIndex = binding.primaryKeyIndex {
            let pkProperty = schema.properties[pkIndex]
            let pkValue: Any
            if let provided = given[pkIndex] {
                pkValue = DynamicProperties.coercedToNil(provided) ?? (Optional<Int>.none as Any)
            } else if let modelDefault = defaultValue(pkProperty, binding, &defaults) {
                pkValue = modelDefault
            } else {
                precondition(pkProperty.isOptional,
                             "Missing value for property '\(schema.className).\(pkProperty.name)'")
                pkValue = Optional<Int>.none as Any
            }
            if update != .error, let found = find(binding, primaryKey: pkValue, core: core) {
                key = found
                existed = true
            } else {
                let persistable = EngineValue.persistable(pkValue, for: pkProperty)!   // `find` checked it
                let rc: Int32
                do {
                    rc = try persistable._withValue(in: Realm(core: core)) { pk in
                        columnar_obj_create_with_primary_key(txn, binding.table, &pk, &key)
                    }
                } catch {
                    fatalError("Columnar: cannot create a \(schema.className): \(error)")
                }
                if rc == COLUMNAR_EEXISTS {
                    fatalError("Attempting to create an object of type '\(schema.className)' with an existing "
                               + "primary key value '\(ObjectValueAssignment.unwrapped(pkValue))'.")
                }
                Engine.mustSucceed(rc, "creating a \(schema.className)")
            }
        } else {
            Engine.mustSucceed(columnar_obj_create(txn, binding.table, &key), "creating a \(schema.className)")
        }
        core.noteStructuralChange()
        let object = core.materialize(DynamicObject.self, binding: binding, key: key)
        let location = object._location!
        for (index, property) in schema.properties.enumerated() where index != binding.primaryKeyIndex {
            if let provided = given[index] {
                if existed && update == .modified && holds(provided, location: location, propertyIndex: index) {
                    continue
                }
                DynamicProperties.write(provided, to: location, propertyIndex: index, policy: update)
            } else if !existed {
                // A new object's property the value does not name: the model's default, else nil or empty.
                if property.storage.collection != COLUMNAR_COLLECTION_NONE { continue }
                if let modelDefault = defaultValue(property, binding, &defaults) {
                    DynamicProperties.write(modelDefault, to: location, propertyIndex: index, policy: update)
                    continue
                }
                precondition(property.isOptional || property.type == .object,
                             "Missing value for property '\(schema.className).\(property.name)'")
            }
        }
        return object
    }

    /// The values `value` gives, by property index: a dictionary's by name (an unknown name stops), an array's in
    /// property order (more values than properties stop), an object's by name. A value of nil stays nil.
    private static func namedValues(_ value: Any, _ binding: ClassBinding) -> [Int: Any?] {
        let schema = binding.schema
        var given: [Int: Any?] = [:]
        switch value {
        case let dictionary as [String: Any]:
            for (name, item) in dictionary {
                guard let index = schema.properties.firstIndex(where: { $0.name == name }) else {
                    fatalError("Invalid property name '\(name)' for class '\(schema.className)'.")
                }
                given[index] = .some(item)
            }
        case let array as [Any]:
            precondition(array.count <= schema.properties.count, "Invalid array input: more values (\(array.count)) "
                             + "than properties (\(schema.properties.count)).")
            for (index, item) in array.enumerated() { given[index] = .some(item) }
        case let object as ObjectBase:
            let names = Set(object.objectSchema.properties.map(\.name))
            for (index, property) in schema.properties.enumerated() where names.contains(property.name) {
                given[index] = .some(object.value(forKey: property.name))
            }
        default:
            fatalError("Invalid value '\(value)' to initialize object of type '\(schema.className)': a dictionary, "
                       + "an array or an object is needed")
        }
        return given
    }

    /// The default value of a property in the model class the binding was taken from (nil without one, for nil
    /// defaults, and for collections). `defaults` keeps a prototype's values across properties.
    private static func defaultValue(_ property: Property, _ binding: ClassBinding,
                                     _ defaults: inout [String: Any]?) -> Any? {
        guard let modelClass = binding.dynamicModelClass else { return nil }
        if defaults == nil {
            let prototype = modelClass.init()
            var values: [String: Any] = [:]
            for candidate in binding.schema.properties where candidate.storage.collection == COLUMNAR_COLLECTION_NONE {
                if let value = prototype.value(forKey: candidate.name) { values[candidate.name] = value }
            }
            defaults = values
        }
        return defaults?[property.name]
    }

    /// Whether a property already holds `value` (for `.modified`): compared as stored for values; links,
    /// collections and values that do not convert count as different.
    private static func holds(_ value: Any?, location: ObjectLocation, propertyIndex index: Int) -> Bool {
        let property = location.binding.schema.properties[index]
        let storage = property.storage
        guard storage.collection == COLUMNAR_COLLECTION_NONE, storage.type != COLUMNAR_TYPE_LINK else { return false }
        let core = location.core
        var current = columnar_value()
        Engine.mustSucceed(columnar_obj_get(core.currentTransaction, location.binding.table, location.key,
                                            location.binding.columns[index], &current), "reading a property")
        guard let value = DynamicProperties.coercedToNil(value) else { return current.is_null }
        guard let persistable = DynamicProperties.scalar(value, storage) else { return false }
        return (try? persistable._withValue(in: Realm(core: core)) { EngineValue.equal($0, current) }) ?? false
    }
}
