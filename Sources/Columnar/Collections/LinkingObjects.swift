// LinkingObjects: the read-only, inverse side of a link (`@Persisted(originProperty: "dogs") var owners:
// LinkingObjects<Person>`), RealmSwift's LinkingObjects.
//
// A linking-objects property has no column: the engine keeps, for every link column, a hidden backlink column in
// the target table, and a managed object's LinkingObjects reads it (`columnar_backlink_*`): the objects of the
// origin class whose origin property links to this object, once per link, in the order the links were made. It is
// live: links made or removed later show up. An unmanaged object's LinkingObjects is empty.

import CColumnar
import Foundation

/// Types that can be declared with `@Persisted(originProperty:)` (RealmSwift's `LinkingObjectsProtocol`).
public protocol LinkingObjectsProtocol {
    associatedtype Element: ObjectBase
    /// The unmanaged (empty) linking objects of the origin class's property `propertyName`.
    init(fromType: Element.Type, property propertyName: String)
}

/// Reads the linking objects of a managed object, given the origin property's name.
protocol ManagedLinkingObjectsReader {
    static func managed(for object: ObjectBase, originProperty: String) -> Any
}

public struct LinkingObjects<Element: ObjectBase & RealmCollectionValue>: LinkingObjectsProtocol, Equatable,
    CustomStringConvertible {
    /// The name of the origin class's property that links to the objects holding these linking objects.
    let propertyName: String
    private let target: Target?

    /// A managed object and the origin link column that points at it.
    private struct Target {
        let location: ObjectLocation
        let originTable: columnar_table_id
        let originColumn: columnar_col_id
        let generation: UInt64
    }

    /// Empty linking objects of `type`'s property `propertyName` (what an unmanaged object holds).
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        self.target = nil
    }

    /// The live linking objects of a managed object.
    init(location: ObjectLocation, originProperty: String) {
        let core = location.core
        let origin = core.requireBinding(for: Element.self)
        let targetClass = location.binding.schema.className
        guard let index = origin.schema.properties.firstIndex(where: { $0.name == originProperty }) else {
            fatalError("Property '\(origin.schema.className).\(originProperty)' declared as origin of linking "
                       + "objects property of '\(targetClass)' does not exist")
        }
        let property = origin.schema.properties[index]
        guard property.storage.type == COLUMNAR_TYPE_LINK, property.type != .linkingObjects else {
            fatalError("Property '\(origin.schema.className).\(originProperty)' declared as origin of linking "
                       + "objects property of '\(targetClass)' is not a link")
        }
        guard property.objectClassName == targetClass else {
            fatalError("Property '\(origin.schema.className).\(originProperty)' declared as origin of linking "
                       + "objects property of '\(targetClass)' links to type '\(property.objectClassName ?? "?")'")
        }
        self.propertyName = originProperty
        self.target = Target(location: location, originTable: origin.table, originColumn: origin.columns[index],
                             generation: core.generation)
    }

    /// Where a query over these objects gets them: the backlinks of the target object (nil when unmanaged).
    var resultsSource: (core: RealmCore, source: ResultsSource)? {
        target.map { ($0.location.core, .backlinks($0.location, originTable: $0.originTable, originColumn: $0.originColumn)) }
    }

    // MARK: Properties

    /// The Realm managing the objects, or nil for an unmanaged object's linking objects.
    public var realm: Realm? { target.map { Realm(core: $0.location.core) } }

    /// Whether the linking objects can no longer be used (their object was deleted or their Realm invalidated).
    public var isInvalidated: Bool {
        guard let target else { return false }
        return target.generation != target.location.core.generation
            || !target.location.core.objectExists(target.location)
    }

    /// The name of the origin class.
    public var objectClassName: String { Element.storedClassName }

    /// The number of links to the object (`columnar_backlink_count`).
    public var count: Int {
        guard let target else { return 0 }
        var size: UInt64 = 0
        check(columnar_backlink_count(transaction(target), target.location.binding.table, target.location.key,
                                      target.originTable, target.originColumn, &size))
        return Int(size)
    }

    public var isEmpty: Bool { count == 0 }
    public var first: Element? { isEmpty ? nil : self[0] }
    public var last: Element? {
        let size = count
        return size == 0 ? nil : self[size - 1]
    }

    // MARK: Reading

    /// The origin object of the position-th link (`columnar_backlink_get`).
    public subscript(position: Int) -> Element {
        let size = count
        precondition(position >= 0 && position < size,
                     "Index \(position) is out of bounds (must be less than \(size)).")
        let target = target!
        var originKey: columnar_key = 0
        check(columnar_backlink_get(transaction(target), target.location.binding.table, target.location.key,
                                    target.originTable, target.originColumn, UInt64(position), &originKey))
        return target.location.core.materialize(Element.self, key: originKey)
    }

    /// The position of the first link from `object`, or nil.
    public func index(of object: Element) -> Int? {
        ElementPosition.first(of: object, in: self)
    }

    /// The objects at the given positions, in ascending order of position; a position out of range stops with a
    /// message, as the subscript does.
    public func objects(at indexes: IndexSet) -> [Element] { elements(at: indexes) }

    // MARK: Key-value coding

    /// Each object's value of a property, in order.
    public func value(forKey key: String) -> Any? { value(forKeyPath: key) }

    /// Each object's value at a key path (properties through to-one links, as in `owner.name`), in order.
    public func value(forKeyPath keyPath: String) -> Any? {
        CollectionKeyValueCoding.value(of: self, keyPath: keyPath)
    }

    /// Sets a property of every object (inside a write transaction).
    public func setValue(_ value: Any?, forKey key: String) {
        CollectionKeyValueCoding.setValue(value, forKey: key, in: self)
    }

    /// Whether both are the links to the same object through the same property (or both unmanaged and empty).
    public static func == (lhs: LinkingObjects<Element>, rhs: LinkingObjects<Element>) -> Bool {
        switch (lhs.target, rhs.target) {
        case (nil, nil):
            return lhs.propertyName == rhs.propertyName
        case let (left?, right?):
            return left.location.key == right.location.key
                && left.location.binding.table == right.location.binding.table
                && left.location.core.file === right.location.core.file
                && left.originTable == right.originTable && left.originColumn == right.originColumn
        default:
            return false
        }
    }

    public var description: String {
        let items = enumerated().map { "\t[\($0.offset)] " + ObjectBase.describe($0.element) }
        return "LinkingObjects<\(Element.self)> <\(count) elements> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Engine access

    private func transaction(_ target: Target) -> OpaquePointer {
        precondition(target.generation == target.location.core.generation,
                     "LinkingObjects is no longer valid: its Realm was invalidated.")
        return target.location.core.currentTransaction
    }

    private func check(_ rc: Int32) {
        if rc == COLUMNAR_ENOTFOUND {
            fatalError("LinkingObjects is no longer valid: its object has been deleted or invalidated.")
        }
        Engine.mustSucceed(rc, "reading linking objects")
    }
}

extension LinkingObjects: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// Iterates the origin objects linking here when iteration began (kept as keys, made as the loop reaches them).
    public func makeIterator() -> RLMIterator<Element> {
        guard let target, let (core, source) = resultsSource else { return RLMIterator(snapshot: []) }
        // Stops, as every read does, when the Realm was invalidated or the object deleted.
        _ = transaction(target)
        check(core.objectExists(target.location) ? COLUMNAR_OK : COLUMNAR_ENOTFOUND)
        do {
            let keys = try source.candidateKeys(in: core) ?? []
            return RLMIterator(snapshotKeys: keys, of: core.requireBinding(for: Element.self), core: core)
        } catch {
            fatalError("Columnar: cannot read linking objects: \(error)")
        }
    }
}

extension LinkingObjects: _Persistable, ManagedCollectionProperty, ManagedLinkingObjectsReader {
    public static var _isCollection: Bool { true }
    /// No column is made for linking objects; the origin class is named so that binding the class binds it too.
    public static var _storage: _StorageType {
        _StorageType(type: COLUMNAR_TYPE_LINK, nullable: false, collection: COLUMNAR_COLLECTION_NONE,
                     objectType: Element.self)
    }
    public static func _rlmDefaultValue() -> LinkingObjects<Element> {
        LinkingObjects(fromType: Element.self, property: "")
    }
    public static func _read(_ value: columnar_value, from realm: Realm) -> LinkingObjects<Element> {
        fatalError("linking objects are read from backlinks, not from a value")
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        fatalError("linking objects are read-only")
    }

    /// Reached only through RealmCore.read, which knows the object but not which linking-objects property is read
    /// (the Persisted wrapper reads linking objects through `managed(for:originProperty:)` with the cell's origin
    /// property): the origin property is the one the class declares for this origin class, when there is exactly
    /// one.
    static func managed(in core: RealmCore, location: ObjectLocation, column: columnar_col_id) -> Any {
        let originClass = Element.storedClassName
        let candidates = location.binding.schema.properties.filter {
            $0.type == .linkingObjects && $0.objectClassName == originClass
        }
        guard candidates.count == 1, let origin = candidates[0].linkOriginPropertyName else {
            fatalError("\(location.binding.schema.className) has \(candidates.count) linking-objects properties of "
                       + "\(originClass): read them through their properties")
        }
        return LinkingObjects(location: location, originProperty: origin)
    }

    static func managed(for object: ObjectBase, originProperty: String) -> Any {
        let location = object._location!
        precondition(location.generation == location.core.generation, "Object has been deleted or invalidated.")
        return LinkingObjects(location: location, originProperty: originProperty)
    }

    func assign(to core: RealmCore, location: ObjectLocation, column: columnar_col_id) throws {
        preconditionFailure("Cannot modify a LinkingObjects property: linking objects are read-only")
    }
}

extension Persisted where Value: LinkingObjectsProtocol {
    /// A linking-objects property: the objects of class `Value.Element` whose property `originProperty` links
    /// to this object (`@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`).
    public init(originProperty: String) {
        self.init(wrappedValue: Value(fromType: Value.Element.self, property: originProperty))
        cell?.originProperty = originProperty   // a cell-free accessor takes it from its class's prototype
    }
}
