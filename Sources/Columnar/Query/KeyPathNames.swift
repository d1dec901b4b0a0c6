// KeyPathNames: the property names behind Swift key paths (`\Person.name` is "name", `\Person.dog?.owner.name`
// is "dog.owner.name"), found without the Objective-C runtime.
//
// RealmSwift asks the Objective-C runtime; Linux has none, and a Swift key path does not tell its components'
// names. What does work is reading the key path: a `@Persisted` property's accessor goes through the wrapper's
// static subscript, which knows the cell it reads. So a *probe* — an unmanaged instance of the root class whose
// cells are marked as probe cells — is read through the key path while this thread records accesses; the
// wrapper's subscript (Persisted.swift) reports each probe cell it reads and answers with a value that lets the
// key path go on: a fresh probe for a link, a List or MutableSet holding one probe element (so `\.dogs[0].name`
// and `\.dogs.first?.name` work), the declared or default value otherwise. Nothing is written to any cell, the
// probes are never managed, and each probe claims its own pending cells when it is constructed (ObjectBase.init),
// so no cells are left on the thread's pending stack.
//
// The first read of each (root class, key path) pays for a probe; the answer is cached. Who uses it: the typed
// query builder (Query.swift) for every dynamic member, and — the internal API below — whatever else needs names
// for key paths: `sorted(by:)`-style key path APIs and the translation of Foundation's `#Predicate`.
//
// Limits: a key path must read persisted properties only, one after the other along links and collections.
// A get-only computed property (even one that just returns a persisted property), a settable one that converts
// what it reads, an ignored (non-`@Persisted`) property, or a path that ends inside a collection (`\.dogs[0]`,
// `\.dogs.count`) has no name and yields nil. A settable alias (`get { name } set { name = newValue }`) is taken
// for the property it reads and writes: the wrapper's subscript does not receive the property's own key path to
// compare (see `names(from:keyPath:exact:result:)`).
// Key paths through a Map subscript stop there (a probe cannot guess a key: `\.dogsByName["rex"]?.name` is
// nil), and LinkingObjects cannot hold a probe element, so `\.owners[0].name` stops with an index out of range,
// as it would on any unmanaged object.

import CColumnar
import Foundation

/// Property names for key paths of model classes.
enum KeyPathNames {
    /// The name of the persisted property `keyPath` reads (`\Person.name` -> "name"), or nil when the key path is
    /// not exactly one persisted property of `Root` (a computed or ignored property, or a longer path).
    static func propertyName<Root: ObjectBase>(for keyPath: PartialKeyPath<Root>) -> String? {
        guard let names = propertyNames(for: keyPath, rootType: Root.self), names.count == 1 else { return nil }
        return names[0]
    }

    /// The names of the persisted properties `keyPath` reads, in order, from `Root` through links and collections
    /// (`\Person.dogs[0].name` -> ["dogs", "name"]), or nil when it reads something else.
    static func propertyNames<Root: ObjectBase>(for keyPath: PartialKeyPath<Root>) -> [String]? {
        propertyNames(for: keyPath, rootType: Root.self)
    }

    /// As `propertyNames(for:)`, for a key path whose root class is only known at run time: `rootType` must be the
    /// key path's root or a subclass of it.
    static func propertyNames(for keyPath: AnyKeyPath, rootType: ObjectBase.Type) -> [String]? {
        let key = CacheKey(rootType: ObjectIdentifier(rootType), keyPath: keyPath)
        cacheLock.lock()
        let cached = cache[key]
        cacheLock.unlock()
        if let cached { return cached }
        // Schema discovery's prototypes cannot be probes (their cells are not claimed); a lookup made during
        // discovery answers nil without remembering it.
        guard ThreadLocalState.current.discoveryDepth == 0 else { return nil }
        let names = KeyPathProbe.names(for: keyPath, rootType: rootType)
        cacheLock.lock()
        cache[key] = names
        cacheLock.unlock()
        return names
    }

    /// The name a typed query uses for a dynamic member: exactly one persisted property, or a programmer error.
    static func queryName<Root: ObjectBase, Value>(_ keyPath: KeyPath<Root, Value>) -> String {
        guard let name = propertyName(for: keyPath) else {
            fatalError("Columnar: \(keyPath) does not name a @Persisted property of \(Root.self); queries can only "
                       + "use persisted properties")
        }
        return name
    }

    private struct CacheKey: Hashable {
        let rootType: ObjectIdentifier
        let keyPath: AnyKeyPath
    }

    private static let cacheLock = NSLock()
    /// nil entries remember key paths without names, so that a failing lookup does not probe again.
    nonisolated(unsafe) private static var cache: [CacheKey: [String]?] = [:]
}

/// The joined names of a key path's properties (`\Person.dogs[0].name` -> "dogs.name"): RealmSwift's function of
/// the same name, for code that builds key path strings for `sorted(byKeyPath:)` or `filter`.
public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
    guard let names = KeyPathNames.propertyNames(for: keyPath) else {
        fatalError("Columnar: \(keyPath) does not name @Persisted properties of \(T.self)")
    }
    return names.joined(separator: ".")
}

/// One recording of the properties a key path reads (kept in ThreadLocalState while the key path is read).
final class KeyPathProbe {
    /// One read of a probe cell.
    struct Access {
        let object: ObjectBase
        let cell: PersistedCellBase
        /// The property's declared type.
        let valueType: Any.Type
        /// The value the read answered with.
        let answer: Any
        /// The probe the read answered with, which a longer key path reads next (a link's object, a list's
        /// element); nil when the value has no properties to read.
        let next: ObjectBase?
    }

    private(set) var accesses: [Access] = []

    /// Reads `keyPath` on a fresh probe of `rootType` and names the properties read, or nil.
    static func names(for keyPath: AnyKeyPath, rootType: ObjectBase.Type) -> [String]? {
        guard let root = makeProbe(rootType) else { return nil }
        // A key path whose root is not this class (a caller's mistake) reads nothing: `root[keyPath:]` is nil.
        var result: Any?
        let recorded = recording { result = root[keyPath: keyPath] }
        return recorded.names(from: root, keyPath: keyPath, exact: true, result: result)
    }

    /// The persisted properties `keyPath` reads from a probe of `rootType` before it goes on to something else
    /// (`\Person.lastName.localizedUppercase` -> ["lastName"], `\Person.friends.projectTo.name` -> ["friends"]):
    /// what a projected property depends on. Nil when it reads none.
    static func namesRead(by keyPath: AnyKeyPath, rootType: ObjectBase.Type) -> [String]? {
        guard let root = makeProbe(rootType) else { return nil }
        return recording { _ = root[keyPath: keyPath] }.names(from: root, keyPath: keyPath, exact: false)
    }

    /// As `namesRead(by:rootType:)`, for a key path read on `start`, a value (a projection) that reads `root`.
    static func namesRead<Start>(by keyPath: AnyKeyPath, on start: Start, root: ObjectBase) -> [String]? {
        recording { _ = start[keyPath: keyPath] }.names(from: root, keyPath: keyPath, exact: false)
    }

    /// The reads of probe cells `read` makes.
    private static func recording(_ read: () -> Void) -> KeyPathProbe {
        let state = ThreadLocalState.current
        let recording = KeyPathProbe()
        let outer = state.keyPathProbe
        state.keyPathProbe = recording
        read()
        state.keyPathProbe = outer
        return recording
    }

    /// The names of a chain of reads that starts at `root` and goes on from each read's answer. `exact`: the key
    /// path must be that chain and nothing more; otherwise the chain as far as it goes (a computed property that
    /// reads several properties depends on the first, as RealmSwift's projections take it).
    private func names(from root: ObjectBase, keyPath: AnyKeyPath, exact: Bool, result: Any? = nil) -> [String]? {
        guard !accesses.isEmpty else { return nil }
        var names: [String] = []
        var expected: ObjectBase? = root
        for access in accesses {
            // A read of anything but the last answer is a computed property reading several properties.
            guard let current = expected, access.object === current else {
                if exact || names.isEmpty { return nil }
                break
            }
            let cells = SchemaDiscovery.cells(of: access.object)
            guard let index = cells.firstIndex(where: { $0 === access.cell }) else { return nil }
            names.append(SchemaDiscovery.info(for: type(of: access.object)).schema.properties[index].name)
            expected = access.next
        }
        // One read is one property only if it is the property itself, not a computed property that reads one
        // persisted property. The wrapper's subscript does not receive the property's key path to compare (a key
        // path it used would be made at every access of every property), so a computed property is told by what
        // it is not: of the property's declared type, settable (a persisted property's key path is reference-
        // writable; a get-only computed property's is not), and giving back exactly what the probe answered (the
        // answer is a value a conversion is unlikely to keep, Persisted+ProbeAnswer below).
        if exact && accesses.count == 1 {
            let access = accesses[0]
            guard type(of: keyPath).valueType == access.valueType, Self.isReferenceWritable(keyPath),
                  Self.isSameAnswer(result, access.answer) else { return nil }
        }
        return names
    }

    private static func isReferenceWritable(_ keyPath: AnyKeyPath) -> Bool {
        func withRoot<Root>(_: Root.Type) -> Bool {
            func withValue<Value>(_: Value.Type) -> Bool { keyPath is ReferenceWritableKeyPath<Root, Value> }
            return _openExistential(type(of: keyPath).valueType, do: withValue)
        }
        return _openExistential(type(of: keyPath).rootType, do: withRoot)
    }

    /// Whether a key path's result is the probe's answer: equal values, or the same object. Values that can be
    /// compared neither way are taken as the same.
    private static func isSameAnswer(_ result: Any?, _ answer: Any) -> Bool {
        guard let result else { return false }
        if let result = result as? AnyHashable, let answer = answer as? AnyHashable { return result == answer }
        if type(of: result) is AnyClass, type(of: answer) is AnyClass {
            return (result as AnyObject) === (answer as AnyObject)
        }
        return true
    }

    /// An unmanaged instance of `type` whose cells answer reads as probes.
    static func makeProbe(_ type: ObjectBase.Type) -> ObjectBase? {
        // Schema discovery builds prototypes without claiming their cells; a probe is an ordinary object.
        guard ThreadLocalState.current.discoveryDepth == 0 else { return nil }
        let probe = type.init()
        for cell in SchemaDiscovery.cells(of: probe) { cell.isKeyPathProbe = true }
        return probe
    }

    /// The wrapper's read of a probe cell (called from `Persisted`'s static subscript): records the read and
    /// answers with a value the key path can go on from, leaving the cell as it is.
    static func read<Value: _Persistable>(_ cell: PersistedCell<Value>, of object: ObjectBase) -> Value {
        var value = (Value.self as? ProbeAnswer.Type)?.probeAnswer as? Value ?? cell.value ?? Value._rlmDefaultValue()
        var next: ObjectBase?
        let storage = Value._storage
        if storage.type == COLUMNAR_TYPE_LINK, storage.collection == COLUMNAR_COLLECTION_NONE,
           cell.originProperty == nil, let objectType = storage.objectType,
           let probe = makeProbe(objectType), let linked = probe as? Value {
            value = linked
            next = probe
        } else if let container = value as? KeyPathProbeContainer {
            next = container.insertKeyPathProbeElement()
        }
        ThreadLocalState.current.keyPathProbe?.accesses.append(
            Access(object: object, cell: cell, valueType: Value.self, answer: value, next: next))
        return value
    }
}

/// Values a probe answers with for scalar properties instead of the declared default: small (a computed property
/// may use one as a count) but unlikely to come back unchanged from a conversion (`x * 2`, `x + 1`, `uppercased()`,
/// trimming), so that an exact key path can tell a persisted property from a settable computed one.
protocol ProbeAnswer {
    static var probeAnswer: Any { get }
}

extension Int: ProbeAnswer { static var probeAnswer: Any { 7 as Int } }
extension Int8: ProbeAnswer { static var probeAnswer: Any { 7 as Int8 } }
extension Int16: ProbeAnswer { static var probeAnswer: Any { 7 as Int16 } }
extension Int32: ProbeAnswer { static var probeAnswer: Any { 7 as Int32 } }
extension Int64: ProbeAnswer { static var probeAnswer: Any { 7 as Int64 } }
extension Double: ProbeAnswer { static var probeAnswer: Any { 7.25 as Double } }
extension Float: ProbeAnswer { static var probeAnswer: Any { 7.25 as Float } }
extension String: ProbeAnswer { static var probeAnswer: Any { " Pq " } }
extension Date: ProbeAnswer { static var probeAnswer: Any { Date(timeIntervalSince1970: 7.25) } }
extension Optional: ProbeAnswer where Wrapped: ProbeAnswer {
    static var probeAnswer: Any { Wrapped.probeAnswer as? Wrapped as Any }
}

/// Collections a probe's read answers with one element in, so that key paths through an element go on.
protocol KeyPathProbeContainer {
    /// Adds an element (a probe for collections of objects, a default value otherwise) to this unmanaged
    /// collection; returns the probe, or nil for values.
    func insertKeyPathProbeElement() -> ObjectBase?
}

extension List: KeyPathProbeContainer {
    func insertKeyPathProbeElement() -> ObjectBase? {
        guard let (element, probe) = KeyPathProbe.probeElement(Element.self) else { return nil }
        append(element)
        return probe
    }
}

extension MutableSet: KeyPathProbeContainer {
    func insertKeyPathProbeElement() -> ObjectBase? {
        guard let (element, probe) = KeyPathProbe.probeElement(Element.self) else { return nil }
        insert(element)
        return probe
    }
}

extension KeyPathProbe {
    /// An element for a probe collection: a probe object for object elements, the default value for values.
    static func probeElement<Element>(_ type: Element.Type) -> (Element, ObjectBase?)? {
        if let objectType = type as? ObjectBase.Type {
            guard let probe = makeProbe(objectType), let element = probe as? Element else { return nil }
            return (element, probe)
        }
        if let persistable = type as? any _Persistable.Type, let element = persistable._rlmDefaultValue() as? Element {
            return (element, nil)
        }
        return nil
    }
}
