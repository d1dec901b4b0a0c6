// NotificationToken and NotificationRegistration: what an `observe` call returns, and what the observed Realm's
// core keeps of it.
//
// The token owns the registration; the core holds registrations weakly, so dropping the token (or calling
// `invalidate()`) ends the observation. The registration owns the callback, and the callback may hold the observed
// collection or object without a cycle: nothing the collection holds points back at the registration. A token is
// invalidated from any thread; the core drops invalidated registrations on its own thread at its next delivery.

import Foundation

/// Keeps an observation alive: notifications are delivered until `invalidate()` is called or the token is released.
open class NotificationToken: @unchecked Sendable {
    private let lock = NSLock()
    private var registration: NotificationRegistration?
    private var isInvalidated = false
    /// For an observation delivered on an actor: the task that registers it there (ConfinedObservation).
    private var registering: Task<Void, Never>?

    public init() {}

    init(_ registration: NotificationRegistration) {
        self.registration = registration
    }

    /// Attaches a registration made later (an observation delivered on a queue registers there); if the token was
    /// invalidated meanwhile, the registration is invalidated at once.
    func attach(_ registration: NotificationRegistration) {
        let invalidated = lock.withLock {
            if !isInvalidated { self.registration = registration }
            return isInvalidated
        }
        if invalidated { registration.invalidate() }
    }

    var currentRegistration: NotificationRegistration? { lock.withLock { registration } }

    /// Notes the task that registers the observation on an actor.
    func noteRegistering(_ task: Task<Void, Never>) { lock.withLock { registering = task } }

    /// Returns once an observation made on an actor is registered there. The `observe(on: actor)` forms await it
    /// before they return, so a write committed after they return is always reported as a change (registered
    /// later, the observation would take that write into its initial state).
    func registered() async {
        let task = lock.withLock { registering }
        await task?.value
    }

    /// Stops the notifications. Callbacks already running finish; none starts afterwards on the observing thread
    /// or queue.
    open func invalidate() {
        let registration = lock.withLock {
            isInvalidated = true
            defer { self.registration = nil }
            return self.registration
        }
        registration?.invalidate()
    }

    deinit {
        registration?.invalidate()
    }
}

/// One observation as its core sees it: the callback and the state its change sets are computed from.
class NotificationRegistration {
    private let lock = NSLock()
    private var invalidated = false
    /// Whether the observation still needs its first callback (collections get `.initial`, objects and Realms
    /// record their starting state silently).
    var needsInitial = true

    var isInvalidated: Bool { lock.withLock { invalidated } }

    func invalidate() { lock.withLock { invalidated = true } }

    /// Computes what changed between the comparison's versions and calls back if anything observed did (and
    /// `notify` is true; a `write(withoutNotifying:)` token only moves its state forward). Runs on the core's
    /// thread or queue.
    /// `siblingFired` is true when another observation of the same object fired (object observations only).
    func deliver(_ comparison: VersionComparison, notify: Bool, siblingFired: Bool) {}

    /// For object observations: the object, and whether it changed as this observation's key paths see it, before
    /// any callback runs (several tokens on one object do not filter each other: when one fires, all fire).
    /// nil for other observations.
    func prepare(_ comparison: VersionComparison) -> (object: ObjectIdentityKey, fired: Bool)? { nil }
}

/// An object of one table, for grouping the observations of one object.
struct ObjectIdentityKey: Hashable {
    let table: UInt32
    let key: Int64
}
