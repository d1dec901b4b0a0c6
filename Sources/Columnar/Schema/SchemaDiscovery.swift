// SchemaDiscovery: the schema of a model class, found without the Objective-C runtime.
//
// A prototype instance is made with the required `init()`, and `Mirror` lists its `@Persisted` properties (as
// `_name`, in declaration order; superclass properties first). Each wrapper's shared cell says the property's
// storage type and its declared attributes. The result is computed once per class and cached.
//
// Discovery also decides whether the accessor objects of the class can be made without cells (Persisted.swift):
// it can when the class is not Encodable (encoding a wrapper reaches the value through its cell), constructing it
// makes no other objects, and its initializer does not use its properties (tried once by constructing it so).

import CColumnar
import Foundation

/// What Columnar knows of one model class, independent of any file.
final class ClassInfo: @unchecked Sendable {
    let schema: ObjectSchema
    /// When an object's cells can be claimed at construction: the schema index of the cell construction makes at
    /// each position (the identity for a class that derives directly from Object or EmbeddedObject; with deeper
    /// hierarchies subclass properties are initialised before superclass ones). nil when construction makes other
    /// cells too (an initializer that makes objects); then the cells are found with `Mirror`.
    let constructionOrder: [Int32]?
    /// The cells of the prototype discovery made, in schema order: they give each property's value type and
    /// declared attributes to type-erased paths (`readAny`, `object[key] = value`) for objects without cells.
    let prototypeCells: [PersistedCellBase]
    /// When accessor objects of the class can be made without cells: the schema index of each `@Persisted`
    /// wrapper in the order construction initialises them (subclass properties before superclass ones). A buffer
    /// the info owns, so that constructions reach it without reference counting (CellFreeConstruction).
    let cellFreeOrder: UnsafeBufferPointer<Int32>?
    /// Whether a loop over results may re-point an accessor object it handed out to another row once nothing else
    /// references it (AccessorReuse.swift): the accessor objects are cell-free and every stored property the
    /// class's own code declares is `@Persisted`, so a fresh accessor object holds nothing but its location.
    let accessorsAreReusable: Bool

    init(schema: ObjectSchema, constructionOrder: [Int32]?, prototypeCells: [PersistedCellBase],
         cellFreeOrder: [Int32]?, storesOnlyPersistedProperties: Bool) {
        self.schema = schema
        accessorsAreReusable = cellFreeOrder != nil && storesOnlyPersistedProperties
        self.constructionOrder = constructionOrder
        self.prototypeCells = prototypeCells
        self.cellFreeOrder = cellFreeOrder.map { order in
            let buffer = UnsafeMutableBufferPointer<Int32>.allocate(capacity: order.count)
            _ = buffer.initialize(from: order)
            return UnsafeBufferPointer(buffer)
        }
    }

    deinit { cellFreeOrder?.deallocate() }
}

enum SchemaDiscovery {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var infos: [ObjectIdentifier: ClassInfo] = [:]

    /// The (cached) schema information of a model class.
    static func info(for type: ObjectBase.Type) -> ClassInfo {
        let id = ObjectIdentifier(type)
        lock.lock()
        if let info = infos[id] {
            lock.unlock()
            return info
        }
        lock.unlock()
        let state = ThreadLocalState.current
        let pendingBefore = state.pendingCells.count
        state.discoveryDepth += 1
        let prototype = type.init()
        // The cells construction made, in the order it made them (with those of any other objects it made).
        let constructionCells = Array(state.pendingCells[pendingBefore...])
        let schema = discover(type, prototype: prototype)
        let prototypeCells = cells(of: prototype)
        let order = constructionOrder(prototypeCells: prototypeCells, constructionCells: constructionCells)
        let cellFreeOrder = order.flatMap { canMakeAccessorsWithoutCells(type, order: $0, state: state) ? $0 : nil }
        state.discoveryDepth -= 1
        // Forget the prototype's cells.
        state.pendingCells.removeLast(state.pendingCells.count - pendingBefore)
        let info = ClassInfo(schema: schema, constructionOrder: order,
                             prototypeCells: prototypeCells, cellFreeOrder: cellFreeOrder,
                             storesOnlyPersistedProperties: storesOnlyPersistedProperties(prototype))
        lock.lock()
        defer { lock.unlock() }
        if let raced = infos[id] { return raced }
        infos[id] = info
        return info
    }

    /// The model classes discovered so far in this process whose class name is in `names`. A name that more than
    /// one discovered class is stored under is left out: which of them describes the file cannot be known.
    static func discoveredClasses(named names: Set<String>) -> [ObjectBase.Type] {
        lock.lock()
        let candidates = infos.values.filter {
            names.contains($0.schema.className)
                && ObjectIdentifier($0.schema.objectClass) != ObjectIdentifier(DynamicObject.self)
        }
        lock.unlock()
        let byName = Dictionary(grouping: candidates, by: \.schema.className)
        return byName.values.filter { $0.count == 1 }.map { $0[0].schema.objectClass }
    }

    /// The order in which construction makes the class's cells, as schema indexes; nil when construction makes
    /// other cells too.
    private static func constructionOrder(prototypeCells: [PersistedCellBase],
                                          constructionCells: [PersistedCellBase]) -> [Int32]? {
        guard constructionCells.count == prototypeCells.count else { return nil }
        var order: [Int32] = []
        for cell in constructionCells {
            guard let index = prototypeCells.firstIndex(where: { $0 === cell }) else { return nil }
            order.append(Int32(index))
        }
        return order
    }

    /// Whether the class's accessor objects can be made without cells, their wrappers taking the schema indexes of
    /// the construction `order` (see the top of this file).
    private static func canMakeAccessorsWithoutCells(_ type: ObjectBase.Type, order: [Int32],
                                                     state: ThreadLocalState) -> Bool {
        guard !(type is Encodable.Type) else { return false }
        // Construct one without cells, as RealmCore.materialize will: an initializer that reads or writes its
        // properties (it would find no values) rules the class out.
        state.cellFreeObjectWasAccessed = false
        let usable = order.withUnsafeBufferPointer { buffer in
            CellFreeConstruction.begin(buffer, of: type)
            _ = type.init()
            return !CellFreeConstruction.isActive && !state.cellFreeObjectWasAccessed
        }
        CellFreeConstruction.reset()
        state.cellFreeObjectWasAccessed = false
        return usable
    }

    /// Whether every stored property declared below the library's own base classes is a `@Persisted` wrapper.
    private static func storesOnlyPersistedProperties(_ prototype: ObjectBase) -> Bool {
        let libraryClasses: [ObjectIdentifier] = [ObjectIdentifier(ObjectBase.self), ObjectIdentifier(Object.self),
                                                  ObjectIdentifier(EmbeddedObject.self)]
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            if let type = current.subjectType as? AnyClass, libraryClasses.contains(ObjectIdentifier(type)) { break }
            guard current.children.allSatisfy({ $0.value is PersistedProperty }) else { return false }
            mirror = current.superclassMirror
        }
        return true
    }

    /// The persisted-property cells of an object, in schema order.
    static func cells(of object: ObjectBase) -> [PersistedCellBase] {
        if let cells = object._cells { return cells }
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            mirrors.append(current)
            mirror = current.superclassMirror
        }
        var cells: [PersistedCellBase] = []
        for current in mirrors.reversed() {
            for child in current.children {
                guard let property = child.value as? PersistedProperty else { continue }
                guard let cell = property.persistedCell else {
                    fatalError("Columnar: the cells of a cell-free accessor object were asked for")
                }
                cells.append(cell)
            }
        }
        return cells
    }

    /// The declared names of an object's persisted properties, in schema order.
    private static func names(of object: ObjectBase) -> [String] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            mirrors.append(current)
            mirror = current.superclassMirror
        }
        var names: [String] = []
        for current in mirrors.reversed() {
            for child in current.children where child.value is PersistedProperty {
                var name = child.label ?? "?"
                if name.hasPrefix("_") { name.removeFirst() }
                names.append(name)
            }
        }
        return names
    }

    private static func discover(_ type: ObjectBase.Type, prototype: ObjectBase) -> ObjectSchema {
        let cells = cells(of: prototype)
        let names = names(of: prototype)
        let objectType = type as? Object.Type
        let mapping = objectType?.propertiesMapping() ?? (type as? EmbeddedObject.Type)?.propertiesMapping() ?? [:]
        let legacyPrimaryKey = objectType?.primaryKey()
        let legacyIndexed = Set(objectType?.indexedProperties() ?? [])
        let className = type.storedClassName
        precondition(!className.hasPrefix("__"), "Class name '\(className)': names beginning with '__' are reserved "
                         + "for the file's own tables")
        var properties: [Property] = []
        for (cell, name) in zip(cells, names) {
            let storage = cell.storageType
            let isPrimary = cell.isPrimaryKey || legacyPrimaryKey == name
            if isPrimary {
                let allowed: [columnar_type] = [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_OBJECTID,
                                                COLUMNAR_TYPE_UUID]
                precondition(allowed.contains(storage.type) && storage.collection == COLUMNAR_COLLECTION_NONE,
                             "Property '\(className).\(name)' cannot be a primary key: only Int, String, ObjectId "
                                 + "and UUID properties (and their optionals) can")
            }
            if storage.type == COLUMNAR_TYPE_LINK && storage.collection == COLUMNAR_COLLECTION_NONE
                && cell.originProperty == nil {
                precondition(storage.nullable, "Property '\(className).\(name)' links to an object and must be optional")
            }
            properties.append(Property(name: name, columnName: mapping[name] ?? name, storage: storage,
                                       isPrimary: isPrimary, isIndexed: cell.isIndexed || legacyIndexed.contains(name),
                                       linkOriginPropertyName: cell.originProperty))
        }
        let primaryKeys = properties.filter(\.isPrimary)
        precondition(primaryKeys.count <= 1, "Class '\(className)' declares more than one primary key: "
                         + primaryKeys.map(\.name).joined(separator: ", "))
        let isEmbedded = type is EmbeddedObject.Type
        precondition(!isEmbedded || primaryKeys.isEmpty, "Embedded object type '\(className)' cannot have a primary key")
        for property in properties {
            guard let target = property.storage.objectType, target is EmbeddedObject.Type else { continue }
            precondition(property.storage.collection != COLUMNAR_COLLECTION_SET,
                         "Property '\(className).\(property.name)': a MutableSet cannot hold embedded objects (they "
                             + "have no identity to compare; use a List or a Map)")
        }
        return ObjectSchema(className: className, properties: properties, objectClass: type, isEmbedded: isEmbedded)
    }
}
