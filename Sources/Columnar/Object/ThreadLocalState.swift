// ThreadLocalState: per-thread bookkeeping of object construction, kept with a pthread key because it is read
// for every property of every object made (Thread.current.threadDictionary costs far more per access).

#if canImport(Glibc)
import Glibc
#endif

final class ThreadLocalState {
    /// Cells of `@Persisted` properties created and not yet claimed by their object: Swift initialises a class's
    /// stored properties before its superclass's `init`, so `ObjectBase.init` finds its own cells on top.
    /// Unchecked for exclusivity: appended to and trimmed by plain calls that never call out (every cell made).
    @exclusivity(unchecked) var pendingCells: [PersistedCellBase] = []
    /// Above 0 while schema discovery constructs a prototype (its cells are not claimed).
    var discoveryDepth = 0
    /// Set when a wrapper of a cell-free object is read or written before the object is managed: schema discovery
    /// constructs each class once this way, and a class whose initializer uses its properties keeps its cells.
    var cellFreeObjectWasAccessed = false
    /// The recording of the probe cells a key path reads, while KeyPathNames reads one (Query/KeyPathNames.swift).
    var keyPathProbe: KeyPathProbe?
    /// Projection classes whose schema this thread is reading (Object/Projection.swift).
    var projectionSchemasBeingRead: Set<ObjectIdentifier> = []
    /// This thread's transactions at frozen versions (Concurrency/FrozenVersion.swift).
    var frozenTransactions: [ObjectIdentifier: FrozenThreadEntry] = [:]
    /// The class whose info this thread asked for last, and that info (see classInfo(for:)).
    private var lastInfo: (type: ObjectIdentifier, info: ClassInfo)?

    /// SchemaDiscovery.info(for:), remembering the last answer: objects of one class are usually made in a row,
    /// and the shared table is behind a lock. A class's info never changes once discovered.
    func classInfo(for type: ObjectBase.Type) -> ClassInfo {
        let id = ObjectIdentifier(type)
        if let lastInfo, lastInfo.type == id { return lastInfo.info }
        let info = SchemaDiscovery.info(for: type)
        lastInfo = (id, info)
        return info
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ThreadLocalState>.fromOpaque(pointer).release() }
        }
        precondition(status == 0, "Columnar: cannot create a thread-local key (\(status))")
        return key
    }()

    /// This thread's state.
    static var current: ThreadLocalState {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadLocalState>.fromOpaque(pointer).takeUnretainedValue()
        }
        let state = ThreadLocalState()
        pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
        return state
    }
}

/// The construction of a cell-free accessor object in progress on this thread (Persisted.swift): while
/// `RealmCore.materialize` constructs one, the schema index of each `@Persisted` wrapper in the order Swift
/// initialises them, how many have been initialised, and the class. ObjectBase.init clears it.
///
/// A plain struct behind its own pthread key rather than part of ThreadLocalState: every wrapper's initializer
/// reads it, and reaching a class instance costs two atomic reference-count operations each time.
struct CellFreeConstruction {
    /// The indexes (a buffer owned by the class's ClassInfo, which outlives every construction); nil when no
    /// cell-free object is being constructed.
    var order: UnsafeBufferPointer<Int32>?
    var position = 0
    var objectClass: ObjectIdentifier?

    /// Starts constructing a cell-free object of `objectClass` whose wrappers take the indexes of `order`.
    @inline(__always)
    static func begin(_ order: UnsafeBufferPointer<Int32>, of objectClass: ObjectBase.Type) {
        let construction = current
        construction.pointee.order = order
        construction.pointee.position = 0
        construction.pointee.objectClass = ObjectIdentifier(objectClass)
    }

    /// The schema index the next wrapper of a cell-free accessor object takes, or nil when none is being made.
    @inline(__always)
    static func takeIndex() -> Int32? {
        let construction = current
        guard let order = construction.pointee.order else { return nil }
        let position = construction.pointee.position
        precondition(position < order.count, "Columnar: an accessor object's construction made other objects")
        construction.pointee.position = position + 1
        return order[position]
    }

    /// Whether a cell-free object is being constructed.
    static var isActive: Bool { current.pointee.order != nil }

    /// Ends the construction of a cell-free object of `objectClass` (ObjectBase.init), checking that every
    /// wrapper took its index and no other object was made meanwhile.
    static func finish(_ objectClass: ObjectBase.Type) {
        let construction = current
        precondition(construction.pointee.objectClass == ObjectIdentifier(objectClass)
                         && construction.pointee.position == construction.pointee.order?.count,
                     "Columnar: an accessor object's construction made other objects")
        construction.pointee = CellFreeConstruction()
    }

    /// Abandons a construction (schema discovery's trial, when the initializer did not reach ObjectBase.init).
    static func reset() { current.pointee = CellFreeConstruction() }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let construction = pointer.assumingMemoryBound(to: CellFreeConstruction.self)
            construction.deinitialize(count: 1)
            construction.deallocate()
        }
        precondition(status == 0, "Columnar: cannot create a thread-local key (\(status))")
        return key
    }()

    /// This thread's construction state.
    @inline(__always)
    static var current: UnsafeMutablePointer<CellFreeConstruction> {
        if let pointer = pthread_getspecific(key) { return pointer.assumingMemoryBound(to: CellFreeConstruction.self) }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> UnsafeMutablePointer<CellFreeConstruction> {
        let construction = UnsafeMutablePointer<CellFreeConstruction>.allocate(capacity: 1)
        construction.initialize(to: CellFreeConstruction())
        pthread_setspecific(key, construction)
        return construction
    }
}
