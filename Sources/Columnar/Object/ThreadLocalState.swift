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
    /// The recording of the probe cells a key path reads, while KeyPathNames reads one (Query/KeyPathNames.swift).
    var keyPathProbe: KeyPathProbe?

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
