// CollectionColumn: where a managed List, MutableSet or Map lives, and the engine access the three share.
//
// A managed collection is a live view of one object's collection column. Every access goes through the Realm's
// current transaction, after checking that the Realm has not been invalidated since the collection was made. The
// engine answers COLUMNAR_ENOTFOUND when the object has been deleted, which stops the program with a message naming
// the collection's type; any other failure is a misuse or a damaged file and stops it too. Each collection keeps a
// `CollectionColumn?` that is nil while it is unmanaged.

import CColumnar

struct CollectionColumn {
    /// The collection types that live in a column, for their messages.
    enum Kind {
        case list, set, map

        /// The public type's name, as the invalidation messages say it ("List is no longer valid: …").
        var typeName: String {
            switch self {
            case .list: "List"
            case .set: "MutableSet"
            case .map: "Map"
            }
        }

        /// The common noun, as the engine-failure messages say it ("cannot change the set").
        var noun: String {
            switch self {
            case .list: "list"
            case .set: "set"
            case .map: "map"
            }
        }
    }

    /// The object that holds the collection.
    let location: ObjectLocation
    /// The object's collection column.
    let column: columnar_col_id
    /// The core's generation when the collection was made; `invalidate()` makes older collections invalid.
    let generation: UInt64
    /// Which collection type this is, for messages.
    let kind: Kind

    init(location: ObjectLocation, column: columnar_col_id, kind: Kind) {
        self.location = location
        self.column = column
        self.generation = location.core.generation
        self.kind = kind
    }

    var core: RealmCore { location.core }
    /// The table and row of the object, which every collection call into the engine names with `column`.
    var table: columnar_table_id { location.binding.table }
    var key: columnar_key { location.key }

    /// The Realm managing the collection.
    var realm: Realm { Realm(core: core) }

    /// Whether the collection can no longer be used (its object was deleted or its Realm invalidated).
    var isInvalidated: Bool {
        generation != core.generation || !core.objectExists(location)
    }

    // MARK: Engine access

    /// The Realm's current transaction; stops when the Realm has been invalidated since the collection was made.
    func transaction() -> OpaquePointer {
        precondition(generation == core.generation,
                     "\(kind.typeName) is no longer valid: its Realm was invalidated.")
        return core.currentTransaction
    }

    /// Stops, as every read of the collection does, when its Realm was invalidated or its object deleted.
    func requireValid() {
        _ = transaction()
        if !core.objectExists(location) { check(COLUMNAR_ENOTFOUND) }
    }

    /// Stops unless an engine call succeeded; COLUMNAR_ENOTFOUND means the collection's object is gone.
    func check(_ rc: Int32) {
        if rc == COLUMNAR_ENOTFOUND {
            fatalError("\(kind.typeName) is no longer valid: its object has been deleted or invalidated.")
        }
        Engine.mustSucceed(rc, "accessing a \(kind.noun)")
    }

    /// The number of elements or entries (`columnar_coll_size`).
    var size: Int {
        var size: UInt64 = 0
        check(columnar_coll_size(transaction(), table, key, column, &size))
        return Int(size)
    }

    /// The element at a position, read as `type` (`columnar_coll_get`).
    func element(at position: Int, as type: any _Persistable.Type) -> Any {
        var value = columnar_value()
        check(columnar_coll_get(transaction(), table, key, column, UInt64(position), &value))
        // A nested collection in a list element stays live at that position (a set holds none).
        if type == AnyRealmValue.self, kind == .list {
            return AnyRealmValue.read(value, root: .listElement(self, position), in: core)
        }
        return read(value, as: type)
    }

    /// A value read from the collection, as `type`. A link read as a `DynamicObject` is an object of the class
    /// the column links to (`DynamicObject` itself names no class).
    func read(_ value: columnar_value, as type: any _Persistable.Type) -> Any {
        if value.type == COLUMNAR_TYPE_LINK, !value.is_null, Self.holdsDynamicObjects(type) {
            return core.materialize(DynamicObject.self, binding: dynamicTargetBinding, key: value.as.link)
        }
        return type._read(value, from: realm)
    }

    /// Runs `body` with `element` as an engine value. Converting an unmanaged object adds it to the Realm, which
    /// can fail; that error is thrown.
    func withEngineValue<Element>(_ element: Element, _ body: (inout columnar_value) -> Int32) throws -> Int32 {
        guard let persistable = element as? any _Persistable else { fatalError("\(Element.self) cannot be stored") }
        if Self.holdsDynamicObjects(Element.self),
           let object = ObjectValueAssignment.unwrapped(element) as? DynamicObject {
            requireLinkable(object)
        }
        return try persistable._withValue(in: realm) { body(&$0) }
    }

    // MARK: Collections of DynamicObjects

    /// Whether elements of `type` are DynamicObjects (`List<DynamicObject>`, `Map<String, DynamicObject?>`).
    static func holdsDynamicObjects(_ type: Any.Type) -> Bool {
        type == DynamicObject.self || type == Optional<DynamicObject>.self
    }

    /// The dynamic binding of the class the collection's column links to.
    var dynamicTargetBinding: ClassBinding {
        var info = columnar_column_info()
        check(columnar_column_info_get(transaction(), table, column, &info))
        return core.dynamicBinding(table: info.target_table)
    }

    /// The binding of the collection's objects of `objectType`: the model class's, or for DynamicObjects the
    /// dynamic binding of the class the column links to.
    func objectBinding(for objectType: ObjectBase.Type) -> ClassBinding {
        objectType == DynamicObject.self ? dynamicTargetBinding : core.requireBinding(for: objectType)
    }

    /// Whether elements of `type` are DynamicObjects of an embedded class, which the collection owns.
    func holdsEmbeddedDynamicObjects(_ type: Any.Type) -> Bool {
        Self.holdsDynamicObjects(type) && dynamicTargetBinding.schema.isEmbedded
    }

    /// Stops unless a DynamicObject can be stored in this collection: it must be managed by this Realm's file and
    /// be of the class the column links to.
    private func requireLinkable(_ object: DynamicObject) {
        guard let location = object._location else {
            fatalError("Cannot add an unmanaged DynamicObject to a \(kind.typeName): DynamicObjects come from "
                       + "Realm.dynamicCreate(_:value:update:) or Realm.dynamicObjects(_:)")
        }
        let target = dynamicTargetBinding
        precondition(location.binding.table == target.table && location.core.file === core.file,
                     "Object of type '\(location.binding.schema.className)' does not match \(kind.typeName) type "
                         + "'\(target.schema.className)'.")
    }

    /// Runs one change of the collection in the current write transaction (stopping when there is none) and
    /// records it for notifications. `body` gets the transaction and returns the engine's result code.
    func mutate(_ body: (OpaquePointer) throws -> Int32) {
        core.requireWriteTransaction()
        do {
            check(try body(transaction()))
        } catch {
            fatalError("Columnar: cannot change the \(kind.noun): \(error)")
        }
        core.noteLocalChange()
    }

    // MARK: Property plumbing

    /// `Element` as a storable type; stops, naming the collection type, when it is not one.
    static func persistableType<Element>(of _: Element.Type, in kind: Kind) -> any _Persistable.Type {
        guard let type = Element.self as? any _Persistable.Type else {
            fatalError("\(Element.self) cannot be stored in a \(kind.typeName)")
        }
        return type
    }

    /// The storage of a List or MutableSet column of `elementType`. Such a collection holds objects, never nil,
    /// so a link column of it is not nullable although a single link is.
    static func storage(elementType: any _Persistable.Type, collection: columnar_collection_kind) -> _StorageType {
        var storage = elementType._storage
        storage.collection = collection
        if storage.type == COLUMNAR_TYPE_LINK { storage.nullable = false }
        return storage
    }

    /// The elements of an array assigned to a List or MutableSet property: each item is an element or a value
    /// that converts to one (like a dictionary for an object). Nil when `value` is not an array or an item does
    /// not convert.
    static func elements<Element>(fromAny value: Any, elementType: any _Persistable.Type) -> [Element]? {
        guard let array = items(of: value) else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(array.count)
        for item in array {
            let item = ObjectValueAssignment.unwrapped(item)
            if let element = item as? Element {
                elements.append(element)
            } else if let element = elementType._convert(fromAny: item) as? Element {
                elements.append(element)
            } else {
                return nil
            }
        }
        return elements
    }

    /// The items of a value assigned to a to-many property, as RealmSwift takes them: an array, a Swift set, or
    /// another Realm collection (List, MutableSet, Results, LinkingObjects), in its order. Strings, data and
    /// dictionaries are sequences too, but not of elements, and are not taken.
    static func items(of value: Any) -> [Any]? {
        if let array = value as? [Any] { return array }
        if let collection = value as? any RealmCollection { return items(ofCollection: collection) }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .set { return mirror.children.map(\.value) }
        return nil
    }

    private static func items<C: RealmCollection>(ofCollection collection: C) -> [Any] {
        collection.map { $0 as Any }
    }
}
