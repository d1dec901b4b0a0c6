// Projection: a view model over one stored object, RealmSwift's projections.
//
//     class PersonProjection: Projection<Person> {
//         @Projected(\Person.firstName) var firstName
//         @Projected(\Person.address.city) var homeCity
//         @Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>
//     }
//     let people: Results<PersonProjection> = realm.objects(PersonProjection.self)
//
// A projection holds its root object and nothing else: each `@Projected` property reads (and, where its key path is
// writable, writes) the root through its key path, so a projection of a live object is live and a projection of a
// frozen one is frozen. Results of projections are the root class's results, each object wrapped as it is read
// (Results.swift); their string predicates and sort key paths name the root's properties, as in RealmSwift, and
// their Swift key paths are mapped to the root's properties (ProjectionSchema.rootPath(of:)). Observation maps the
// root's property changes to the projection's properties (ProjectionObservation.swift).

import Foundation

/// A projection's property, whatever its types (what the projection's schema reads with `Mirror`).
protocol AnyProjected {
    /// The key path from the root class the property reads.
    var projectedKeyPath: AnyKeyPath { get }
}

/// A property of a `Projection`: reads and writes the root object at a key path.
@propertyWrapper
public struct Projected<T: ObjectBase, Value>: AnyProjected {
    fileprivate let keyPath: KeyPath<T, Value>
    var projectedKeyPath: AnyKeyPath { keyPath }

    /// Projected properties are read through the projection (the static subscript below), never on their own.
    @available(*, unavailable, message: "@Projected can only be used as a property of a Projection")
    public var wrappedValue: Value {
        get { fatalError("@Projected can only be used as a property of a Projection") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("@Projected can only be used as a property of a Projection") }
    }

    /// The wrapped property of a projection: the root object's value at the key path. Setting it sets the root's
    /// property (in a write transaction, for a managed root); a key path that is not writable stops the program.
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get { projection.rootObject[keyPath: projection[keyPath: storageKeyPath].keyPath] }
        set {
            let keyPath = projection[keyPath: storageKeyPath].keyPath
            guard let writable = keyPath as? ReferenceWritableKeyPath<T, Value> else {
                fatalError("Columnar: \(keyPath) of \(EnclosingSelf.self) is not writable")
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }

    /// A projected property reading `projectedKeyPath` of the root object.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        keyPath = projectedKeyPath
    }
}

/// What a projection is to code generic over projections: its root object (RealmSwift's protocol of the same name,
/// under which projections are observed).
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the projected object (an `Object` or `EmbeddedObject` subclass).
    associatedtype Root: ObjectBase
    /// The projected object.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

/// A light view model of an `Object` or `EmbeddedObject`: subclass it and declare `@Projected` properties. List
/// its projections with `realm.objects(MyProjection.self)` or make one with `init(projecting:)`.
open class Projection<Root: ObjectBase & RealmCollectionValue & ThreadConfined>: RealmCollectionValue,
    ProjectionObservable {
    /// The type a projection stands for, as RealmSwift names it.
    public typealias PersistedType = Root

    /// The projected object.
    public let rootObject: Root

    /// A projection of `object`. The projection's properties are checked the first time a projection of the class
    /// is made: a `@Projected` key path that reads no persisted property of the root stops the program.
    public required init(projecting object: Root) {
        rootObject = object
        _ = ProjectionSchema.of(Self.self)
    }

    /// Projections are equal when their root objects are (`Object`'s `==`).
    public static func == (lhs: Projection, rhs: Projection) -> Bool { lhs.rootObject == rhs.rootObject }

    public func hash(into hasher: inout Hasher) { hasher.combine(rootObject) }

    open var description: String {
        let lines = ProjectionSchema.of(Self.self).properties.map { property in
            "\t\(property.label)(\\.\(property.rootPath)) = "
                + ObjectBase.describeProperty(rootObject[keyPath: property.keyPath] as Any) + ";"
        }
        return "\(type(of: self))<\(type(of: rootObject))> {\n" + lines.joined(separator: "\n") + "\n}"
    }
}

extension Projection: RealmFetchable {
    /// The stored name of the root class (what `realm.objects(_:)` lists).
    public static func className() -> String { Root.className() }
}

extension Projection {
    /// The Realm managing the root object, or nil when it is unmanaged.
    public var realm: Realm? { rootObject.realm }

    /// Whether the root object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// Whether the root object is a frozen snapshot.
    public var isFrozen: Bool { rootObject.isFrozen }

    /// A projection of the root object's frozen snapshot.
    public func freeze() -> Self { Self(projecting: rootObject.freeze()) }

    /// A projection of the live root object, or nil when it was deleted.
    public func thaw() -> Self? { rootObject.thaw().map { Self(projecting: $0) } }

    public func _handOverRecipe() -> _HandOverRecipe {
        guard let core = rootObject._location?.core else {
            fatalError("Cannot construct reference to unmanaged object")
        }
        let root = rootObject._handOverRecipe()
        return _HandOverRecipe(core: core) { core in (root.rebuild(core) as? Root).map { Self(projecting: $0) } }
    }
}

// MARK: Schema

/// The projections' type-erased face, for the results of projections and the key path names.
protocol ProjectionKind: AnyObject {
    static var rootObjectType: ObjectBase.Type { get }
    /// A projection of `root`, which must be of `rootObjectType`.
    static func projecting(_ root: ObjectBase) -> Self
    var projectedRoot: ObjectBase { get }
}

extension Projection: ProjectionKind {
    static var rootObjectType: ObjectBase.Type { Root.self }
    static func projecting(_ root: ObjectBase) -> Self { Self(projecting: root as! Root) }
    var projectedRoot: ObjectBase { rootObject }
}

/// A projection class's properties, found once per class.
struct ProjectionSchema {
    struct Property {
        /// The projection's property name (`homeCity`).
        let label: String
        /// The root's key path it reads (`\Person.address.city`).
        let keyPath: AnyKeyPath
        /// The root's properties that key path reads (`["address", "city"]`): what a change of the root must touch
        /// to change this property.
        let rootNames: [String]
        var rootPath: String { rootNames.joined(separator: ".") }
    }

    let properties: [Property]

    private static let lock = NSLock()
    nonisolated(unsafe) private static var schemas: [ObjectIdentifier: ProjectionSchema] = [:]

    static func of(_ type: any ProjectionKind.Type) -> ProjectionSchema {
        let id = ObjectIdentifier(type)
        if let schema = lock.withLock({ schemas[id] }) { return schema }
        // Reading the properties needs an instance: a projection of a probe root. Its own init asks for the schema
        // being read, and gets an empty one.
        let state = ThreadLocalState.current
        guard !state.projectionSchemasBeingRead.contains(id) else { return ProjectionSchema(properties: []) }
        guard let probe = KeyPathProbe.makeProbe(type.rootObjectType) else {
            fatalError("Columnar: \(type) cannot be used while its root class's schema is being discovered")
        }
        state.projectionSchemasBeingRead.insert(id)
        let instance = type.projecting(probe)
        state.projectionSchemasBeingRead.remove(id)
        var properties: [Property] = []
        var mirror: Mirror? = Mirror(reflecting: instance)
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, label.hasPrefix("_"), let projected = child.value as? AnyProjected
                else { continue }
                let name = String(label.dropFirst())
                guard let names = KeyPathProbe.namesRead(by: projected.projectedKeyPath, rootType: type.rootObjectType),
                      !names.isEmpty else {
                    fatalError("@Projected property '\(name)' must be a part of Realm object")
                }
                properties.append(Property(label: name, keyPath: projected.projectedKeyPath, rootNames: names))
            }
            mirror = current.superclassMirror
        }
        let schema = ProjectionSchema(properties: properties)
        lock.withLock { schemas[id] = schema }
        return schema
    }

    /// The root's property path a key path of a projection reads (`\PersonProjection.homeCity` ->
    /// "address.city", `\PersonProjection.friends[0].name` -> "friends.name"): what string predicates, sorts and
    /// observations of projections name. Stops the program when the key path reads no persisted property.
    static func rootPath(of keyPath: AnyKeyPath, in type: any ProjectionKind.Type) -> String {
        if let path = lock.withLock({ rootPaths[keyPath] }) { return path }
        guard let probe = KeyPathProbe.makeProbe(type.rootObjectType),
              let names = KeyPathProbe.namesRead(by: keyPath, on: type.projecting(probe), root: probe),
              !names.isEmpty else {
            fatalError("Columnar: \(keyPath) does not read @Persisted properties of \(type.rootObjectType)")
        }
        let path = names.joined(separator: ".")
        lock.withLock { rootPaths[keyPath] = path }
        return path
    }

    /// Key paths of projections -> the root's property paths they read (a key path knows its root type).
    nonisolated(unsafe) private static var rootPaths: [AnyKeyPath: String] = [:]
}

/// The root's property path a key path of a projection reads (`\PersonProjection.friends[0].name` ->
/// "friends.name"), RealmSwift's function of the same name.
public func _name<O: ObjectBase, T>(for keyPath: PartialKeyPath<T>) -> String where T: Projection<O> {
    ProjectionSchema.rootPath(of: keyPath, in: T.self)
}
