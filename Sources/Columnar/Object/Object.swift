// ObjectBase and Object: the base classes of model classes (`class Dog: Object { @Persisted var name: String }`).
//
// An object is unmanaged (its values live in its `@Persisted` cells) until it is added to a Realm; from then on it
// is a live view of one row: every property access reads or writes the row in the Realm's current transaction.

import CColumnar
import Foundation

/// Where a managed object lives: its Realm (thread-confined), its class's binding to a table, its key.
struct ObjectLocation {
    let core: RealmCore
    let binding: ClassBinding
    var key: columnar_key
    /// The core's generation when the object was bound; `invalidate()` makes older objects invalid.
    var generation: UInt64

    mutating func repoint(key: columnar_key, generation: UInt64) {
        self.key = key
        self.generation = generation
    }
}

/// `ObjectLocation`'s parts without reference counting, for the managed-read fast path (Persisted's getter).
/// Valid while the object's `_location` holds the same core and binding, which keeps them alive: copying a
/// location costs four atomic reference-count operations, which is more than the column read itself.
struct UnmanagedLocation {
    let core: Unmanaged<RealmCore>
    let binding: Unmanaged<ClassBinding>
    let key: columnar_key
    let generation: UInt64

    init(_ location: ObjectLocation) {
        core = Unmanaged.passUnretained(location.core)
        binding = Unmanaged.passUnretained(location.binding)
        key = location.key
        generation = location.generation
    }
}

/// The root of model classes (RealmSwift's `ObjectBase`, on Objective-C `RLMObjectBase`).
open class ObjectBase: CustomStringConvertible {
    var _location: ObjectLocation? {
        didSet { _unmanagedLocation = _location.map(UnmanagedLocation.init) }
    }
    /// The same location without reference counting (see UnmanagedLocation); set with `_location`.
    private(set) var _unmanagedLocation: UnmanagedLocation?
    /// The object's `@Persisted` cells in schema order, when claimed at construction (nil: found with Mirror).
    var _cells: [PersistedCellBase]?

    /// Points this accessor object at the row `key` of the same table in the same Realm, as if it had just been
    /// made for that row (a loop's `LoopAccessor` reuses the object it handed out last once nothing else can reach
    /// it; AccessorReuse.swift). The core and binding stay: no reference count changes.
    final func _repoint(key: columnar_key, generation: UInt64) {
        _location!.repoint(key: key, generation: generation)   // one change: `didSet` updates the unmanaged copy
    }

    public required init() {
        // The subclass's property wrappers were initialised just before this runs: their cells are on top of the
        // thread's pending stack. (Prototypes made by schema discovery are skipped.)
        if CellFreeConstruction.isActive {
            // A cell-free accessor object (RealmCore.materialize): its wrappers took schema indexes, not cells.
            CellFreeConstruction.finish(type(of: self))
            return
        }
        let state = ThreadLocalState.current
        guard state.discoveryDepth == 0 else { return }
        let info = state.classInfo(for: type(of: self))
        let count = info.schema.properties.count
        guard state.pendingCells.count >= count else { return }
        let made = state.pendingCells.suffix(count)
        defer { state.pendingCells.removeLast(count) }   // claimed or not, they are this object's: do not pile up
        guard let order = info.constructionOrder else { return }
        var cells = Array(made)
        // In schema order (subclass properties are made before superclass ones); each knows its index.
        for (position, cell) in made.enumerated() {
            let index = Int(order[position])
            cells[index] = cell
            cell.propertyIndex = index
        }
        _cells = cells
    }

    /// The name the class is stored under: `_realmObjectName()` when a class overrides it, else the Swift class
    /// name without its module.
    public class func className() -> String { SchemaDiscovery.info(for: self).schema.className }

    /// Override to store the class under another name than its Swift name (two Swift classes with the same stored
    /// name describe the same table, for instance an old and a new version of a model).
    open class func _realmObjectName() -> String? { nil }

    /// The stored class name, found without schema discovery (safe while discovering a class that links here).
    static var storedClassName: String { _realmObjectName() ?? String(describing: self) }

    /// Whether the object is managed by a Realm.
    var isManaged: Bool { _location != nil }

    /// Creates an unmanaged object from a dictionary of property values, an array of values in property order, or
    /// another object of the same class. A property missing from a dictionary keeps its default value.
    public convenience init(value: Any) {
        self.init()
        ObjectValueAssignment.assign(value, to: self)
    }

    /// The Realm managing the object, or nil for an unmanaged object.
    public var realm: Realm? { _location.map { Realm(core: $0.core) } }

    /// The schema of the object's class (for a DynamicObject, that of the class it is an object of).
    public var objectSchema: ObjectSchema {
        _location?.binding.schema ?? SchemaDiscovery.info(for: type(of: self)).schema
    }

    /// Whether the object can no longer be used: it was deleted (directly, or with the parent that owned it), or
    /// its Realm was invalidated.
    public var isInvalidated: Bool {
        guard let location = _location else { return false }
        return !location.core.objectExists(location)
    }

    open var description: String {
        let schema = SchemaDiscovery.info(for: type(of: self)).schema
        if !schema.properties.isEmpty, let location = _location, !(location.core.objectExists(location)) {
            return "[invalid object]"
        }
        let cells = _location == nil ? SchemaDiscovery.cells(of: self) : []   // a managed object may have none
        var lines: [String] = []
        for (index, property) in schema.properties.enumerated() {
            let value: Any
            if let location = _location {
                value = location.core.readAny(self, propertyIndex: index)
            } else {
                value = cells[index].unmanagedValue
            }
            lines.append("\t\(property.name) = \(Self.describeProperty(value));")
        }
        return "\(schema.className) {\n" + lines.joined(separator: "\n") + "\n}"
    }

    /// How many more levels of linked objects a description may show (RealmSwift's RLMDescriptionMaxDepth, 5):
    /// links can form cycles (an object's linking objects lead back to it).
    @TaskLocal static var remainingDescriptionDepth = 5

    /// A property's value in an object's description, as RealmSwift prints it (Objective-C's descriptions):
    /// strings without quotes, Bool as 1 or 0, data as its first 24 bytes in hexadecimal and its length
    /// (`<61626364 65 — 5 total bytes>`), nil as `(null)`; objects and collections as their own descriptions.
    static func describeProperty(_ value: Any) -> String {
        switch ObjectValueAssignment.unwrapped(value) {
        case let string as String: return string
        case let flag as Bool: return flag ? "1" : "0"
        case let data as Data: return describe(data: data)
        default: return describe(value)
        }
    }

    private static func describe(data: Data) -> String {
        let shown = data.prefix(24)
        var hex = ""
        for (index, byte) in shown.enumerated() {
            if index > 0 && index % 4 == 0 { hex += " " }
            hex += String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }
        return "<\(hex) — \(data.count) total bytes>"
    }

    static func describe(_ value: Any) -> String {
        let value = ObjectValueAssignment.unwrapped(value)   // an Optional's value as itself, nil as nil
        if let object = value as? ObjectBase {
            guard remainingDescriptionDepth > 0 else { return "<Maximum depth exceeded>" }
            return $remainingDescriptionDepth.withValue(remainingDescriptionDepth - 1) { object.description }
                .replacingOccurrences(of: "\n", with: "\n\t")
        }
        if let optional = value as? OptionalProtocol, optional.isNone { return "(null)" }
        if let string = value as? String { return "\"\(string)\"" }
        return "\(value)"
    }

    // MARK: Access by property name (Object's and EmbeddedObject's subscript(key:))

    func _propertyIndex(_ key: String) -> Int {
        let info = SchemaDiscovery.info(for: type(of: self))
        guard let index = info.schema.properties.firstIndex(where: { $0.name == key }) else {
            fatalError("Invalid property name '\(key)' for class '\(info.schema.className)'.")
        }
        return index
    }

    func _value(forProperty key: String) -> Any? {
        let index = _propertyIndex(key)
        if let location = _location { return location.core.readAny(self, propertyIndex: index) }
        return SchemaDiscovery.cells(of: self)[index].unmanagedValue
    }

    /// Whether both are the same object: identical, or managed rows with the same key in the same table of the
    /// same file.
    func _isSameObject(as object: ObjectBase) -> Bool {
        if self === object { return true }
        guard let mine = _location, let theirs = object._location else { return false }
        return mine.key == theirs.key && mine.binding.table == theirs.binding.table
            && mine.core.file === theirs.core.file
    }

    func _setValue(_ value: Any?, forProperty key: String) {
        ObjectValueAssignment.set(value, propertyIndex: _propertyIndex(key), of: self)
    }

    // MARK: Managed access (the Persisted wrapper's subscript lands here)

    /// The column of the property whose wrapper holds `cell`, by the cell's schema index.
    func _column(of cell: PersistedCellBase) -> columnar_col_id {
        let binding = _location!.binding
        if cell.propertyIndex < 0 {
            // Claimed cells learn their indexes when their object claims them (init above); this is for cells
            // found with Mirror: the object's cells in schema order, all numbered at once.
            let cells = SchemaDiscovery.cells(of: self)
            for (index, each) in cells.enumerated() { each.propertyIndex = index }
            guard cell.propertyIndex >= 0 else {
                fatalError("Columnar: a @Persisted property of \(binding.schema.className) is not among its persisted "
                           + "properties")
            }
        }
        return binding.columns[cell.propertyIndex]
    }

    func _managedRead<Value: _Persistable>(_ type: Value.Type, column: columnar_col_id) -> Value {
        let location = _location!
        return location.core.read(type, location, column: column)
    }

    func _managedSet<Value: _Persistable>(_ value: Value, column: columnar_col_id) {
        let location = _location!
        location.core.requireWriteTransaction()
        do {
            try _managedWrite(value, column: column)
        } catch {
            fatalError("Columnar: cannot set \(location.binding.schema.className) property: \(error)")
        }
    }

    func _managedWrite<Value: _Persistable>(_ value: Value, column: columnar_col_id) throws {
        // Int, Double and Bool without copying the location (reference counts on the core and binding).
        if var scalar = RealmCore.scalarValue(value), let location = _unmanagedLocation {
            return try location.core._withUnsafeGuaranteedRef { core in
                try location.binding._withUnsafeGuaranteedRef { binding in
                    try core.writeScalar(&scalar, binding: binding, key: location.key, generation: location.generation,
                                         column: column)
                }
            }
        }
        let location = _location!
        try location.core.write(value, location, column: column)
    }
}

/// The base class of model classes.
open class Object: ObjectBase {
    public required init() {
        super.init()
    }

    /// The name of the primary key property (prefer `@Persisted(primaryKey: true)`).
    open class func primaryKey() -> String? { nil }
    /// Properties not to persist (only meaningful for properties without `@Persisted`, which are never persisted).
    open class func ignoredProperties() -> [String] { [] }
    /// Properties to index (prefer `@Persisted(indexed: true)`).
    open class func indexedProperties() -> [String] { [] }
    /// Swift property name -> column name in the file, for properties stored under another name.
    open class func propertiesMapping() -> [String: String] { [:] }

    /// Reads or writes a property by name. Writing a managed object needs a write transaction.
    open subscript(key: String) -> Any? {
        get { _value(forProperty: key) }
        set { _setValue(newValue, forProperty: key) }
    }

    /// Whether both are the same managed object (same Realm file, same row); false for unmanaged objects unless
    /// identical.
    public func isSameObject(as object: Object?) -> Bool {
        guard let object else { return false }
        return _isSameObject(as: object)
    }
}

/// Objects are stored in optional link properties.
extension ObjectBase: _PersistableInsideOptional {
    public static var _storage: _StorageType {
        _StorageType(type: COLUMNAR_TYPE_LINK, nullable: true, objectType: self)
    }

    public static func _rlmDefaultValue() -> Self {
        fatalError("A link to \(self) must be optional: declare it as '\(self)?'")
    }

    /// A dictionary or array makes a new unmanaged object of the linked class (`Person(value: ["dog": [...]])`),
    /// embedded objects included (`["address": ["city": "Oslo"]]`).
    public static func _convert(fromAny value: Any) -> Self? {
        guard value is [String: Any] || value is [Any], self is Object.Type || self is EmbeddedObject.Type else {
            return nil
        }
        let object = self.init()
        ObjectValueAssignment.assign(value, to: object)
        return object
    }

    public static func _read(_ value: columnar_value, from realm: Realm) -> Self {
        realm.core.materialize(self, key: value.as.link)
    }

    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        let key = try realm.core.managedKey(of: self)
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_LINK
        value.as.link = key
        return try body(&value)
    }
}
