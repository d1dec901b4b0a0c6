// ThreadLocalState: per-thread bookkeeping of object construction, kept with a pthread key because it is read
// for every property of every object made (Thread.current.threadDictionary costs far more per access).

#if canImport(Glibc)
import Glibc
#endif

final class ThreadLocalState {
    /// Cells of `@Persisted` properties created and not yet claimed by their object: Swift initialises a class's
    /// stored properties before its superclass's `init`, so `ObjectBase.init` finds its own cells on top.
    var pendingCells: [PersistedCellBase] = []
    /// Above 0 while schema discovery constructs a prototype (its cells are not claimed).
    var discoveryDepth = 0
    /// While `RealmCore.materialize` constructs a cell-free accessor object (Persisted.swift): the schema index of
    /// each `@Persisted` wrapper in the order Swift initialises them, how many have been initialised, and the class.
    /// ObjectBase.init clears them.
    var cellFreeOrder: [Int32]?
    var cellFreeCount = 0
    var cellFreeClass: ObjectIdentifier?
    /// Set when a wrapper of a cell-free object is read or written before the object is managed: schema discovery
    /// constructs each class once this way, and a class whose initializer uses its properties keeps its cells.
    var cellFreeObjectWasAccessed = false
    /// The recording of the probe cells a key path reads, while KeyPathNames reads one (Query/KeyPathNames.swift).
    var keyPathProbe: KeyPathProbe?

    /// The schema index the next wrapper of a cell-free accessor object takes, or nil when none is being made.
    @inline(__always)
    func takeCellFreeIndex() -> Int32? {
        guard let order = cellFreeOrder else { return nil }
        let position = cellFreeCount
        precondition(position < order.count, "Columnar: an accessor object's construction made other objects")
        cellFreeCount = position + 1
        return order[position]
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
