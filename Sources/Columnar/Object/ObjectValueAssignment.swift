// ObjectValueAssignment: setting an object's properties from untyped values — `Object(value:)` with a dictionary,
// an array in property order or another object, and `object[key] = value`.

import CColumnar

enum ObjectValueAssignment {
    static func assign(_ value: Any, to object: ObjectBase) {
        let schema = SchemaDiscovery.info(for: type(of: object)).schema
        let cells = SchemaDiscovery.cells(of: object)
        if let dictionary = value as? [String: Any] {
            for key in dictionary.keys where schema[key] == nil {
                fatalError("Invalid property name '\(key)' for class '\(schema.className)'.")
            }
            for (index, property) in schema.properties.enumerated() {
                guard let newValue = dictionary[property.name] else { continue }
                set(newValue, cell: cells[index], property: property, schema: schema)
            }
        } else if let array = value as? [Any] {
            // RealmSwift's rule: the values go to the properties in declaration order (linking objects have none);
            // properties past the end of a shorter array keep their defaults; more values than properties is an
            // error.
            let assignable = schema.properties.enumerated().filter { $0.element.type != .linkingObjects }
            precondition(array.count <= assignable.count,
                         "Invalid array input: more values (\(array.count)) than properties (\(assignable.count)).")
            for (newValue, (index, property)) in zip(array, assignable) {
                set(newValue, cell: cells[index], property: property, schema: schema)
            }
        } else if let other = value as? ObjectBase {
            precondition(type(of: other) == type(of: object),
                         "Cannot initialize '\(schema.className)' from an object of class '\(type(of: other))'.")
            for (index, property) in schema.properties.enumerated() where property.type != .linkingObjects {
                let newValue: Any = other._location != nil
                    ? other._location!.core.readAny(other, propertyIndex: index)
                    : SchemaDiscovery.cells(of: other)[index].unmanagedValue
                set(newValue, cell: cells[index], property: property, schema: schema)
            }
        } else {
            fatalError("Invalid value '\(value)' to initialize an object of type '\(schema.className)': expected a "
                       + "dictionary, an array or an object of the same class")
        }
    }

    private static func set(_ value: Any, cell: PersistedCellBase, property: Property, schema: ObjectSchema) {
        guard cell.setUnmanagedValue(unwrapped(value)) else {
            fatalError("Invalid value '\(value)' of type '\(type(of: value))' for '\(schema.className).\(property.name)'"
                       + " (\(property.type)\(property.isOptional ? "?" : ""))")
        }
    }

    /// The schema indexes of the properties `value` names: a dictionary's keys, an array's first positions (in
    /// declaration order, linking objects skipped), nil (all) for an object.
    static func namedProperties(of value: Any, for type: ObjectBase.Type) -> Set<Int>? {
        let schema = SchemaDiscovery.info(for: type).schema
        if let dictionary = value as? [String: Any] {
            return Set(schema.properties.indices.filter { dictionary[schema.properties[$0].name] != nil })
        }
        if let array = value as? [Any] {
            let assignable = schema.properties.indices.filter { schema.properties[$0].type != .linkingObjects }
            return Set(assignable.prefix(array.count))
        }
        return nil
    }

    /// A value from an `[Any?]` literal arrives wrapped in an Optional: take out what it holds (nil stays nil).
    static func unwrapped(_ value: Any) -> Any {
        guard let optional = value as? OptionalProtocol else { return value }
        if optional.isNone { return value }
        return Mirror(reflecting: value).children.first.map { unwrapped($0.value) } ?? value
    }

    /// `object[key] = value`.
    static func set(_ value: Any?, propertyIndex: Int, of object: ObjectBase) {
        let schema = SchemaDiscovery.info(for: type(of: object)).schema
        let property = schema.properties[propertyIndex]
        let newValue: Any = value ?? (Optional<Int>.none as Any)
        if let location = object._location {
            location.core.requireWriteTransaction()
            // Validate through a fresh cell of the property's type (a managed object may have no cells), then write
            // it as the unmanaged value would be.
            let scratch = location.binding.info.prototypeCells[propertyIndex].makeScratchCell()
            set(newValue, cell: scratch, property: property, schema: schema)
            do {
                try scratch.copyUnmanagedValue(to: object, column: location.binding.columns[propertyIndex])
            } catch {
                fatalError("Columnar: cannot set '\(schema.className).\(property.name)': \(error)")
            }
        } else {
            set(newValue, cell: SchemaDiscovery.cells(of: object)[propertyIndex], property: property, schema: schema)
        }
    }
}
