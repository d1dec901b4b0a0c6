// RealmCore+Notifications: registering observations on a core and delivering their change notifications.
//
// Every observation's state (a collection's element keys, an object's existence) describes one version, the
// notifications' base, which the core keeps alive as a ReadVersion. Whenever the core reads a newer version
// (after its own commit, in `refresh()`, when a write is cancelled, and when another thread or process commits and
// the core refreshes itself: FileChangeWatcher.swift), it compares the base with the new version once
// (VersionComparison) and hands the comparison to each observation, which calls back when what it observes
// changed; the new version becomes the base. Observations added since the last delivery get their initial state
// (and collections their `.initial` callback) in the next one, so a write made right after `observe` shows in
// the initial callback, as the reference's example has it.
//
// Deliveries do not nest: a callback that refreshes or commits moves the core on, and the running delivery
// repeats for the newer version once every observation has had this one.

import CColumnar
import Foundation

final class NotificationState {
    /// The observations in registration order (held weakly: their tokens own them).
    private(set) var registrations: [WeakRegistration] = []
    /// The version the observations' state describes.
    var base: ReadVersion?
    var isDelivering = false
    /// Set by the watcher thread when another thread or process committed and a wake-up is on its way to the core.
    private let lock = NSLock()
    private var wakeScheduled = false
    /// The version `.refreshRequired` was last sent for (autorefresh off), so it is sent once per version.
    var refreshRequiredVersion: UInt64 = 0
    /// How many deliveries patched a Results' keys instead of evaluating them again (Results+Patch.swift).
    var patchedResultsCount = 0

    final class WeakRegistration {
        weak var registration: NotificationRegistration?
        init(_ registration: NotificationRegistration) { self.registration = registration }
    }

    var hasRegistrations: Bool {
        registrations.contains { $0.registration.map { !$0.isInvalidated } ?? false }
    }

    func add(_ registration: NotificationRegistration) {
        registrations.append(WeakRegistration(registration))
    }

    /// The live observations, dropping released and invalidated ones.
    func live() -> [NotificationRegistration] {
        registrations.removeAll { $0.registration.map(\.isInvalidated) ?? true }
        return registrations.compactMap(\.registration)
    }

    /// Claims the pending wake-up (watcher side): false when one is already on its way.
    func scheduleWake() -> Bool {
        lock.withLock {
            if wakeScheduled { return false }
            wakeScheduled = true
            return true
        }
    }

    func wakeDone() { lock.withLock { wakeScheduled = false } }
}

/// A core held weakly (a wake-up must not keep a released core alive).
struct WeakCoreReference {
    weak var core: RealmCore?
}

extension RealmCore {
    /// Stops, with RealmSwift's messages, where an observation cannot be made: a frozen or read-only Realm, inside a
    /// write transaction, another thread.
    func requireObservable() {
        precondition(frozen == nil, "Frozen Realms do not change and do not have change notifications.")
        checkThread()
        precondition(!isInWriteTransaction, "Cannot register notification blocks from within write transactions.")
        precondition(!configuration.readOnly, "Read-only Realms do not change and do not have change notifications.")
    }

    /// Registers an observation (outside a write transaction, on a writable Realm), to be delivered from the next
    /// delivery on. Cores with observations are watched for other threads' and processes' commits.
    func register(_ registration: NotificationRegistration, allowedInWrite: Bool = false) {
        precondition(frozen == nil, "Frozen Realms do not change and do not have change notifications.")
        checkThread()
        precondition(allowedInWrite || !isInWriteTransaction,
                     "Cannot register notification blocks from within write transactions.")
        precondition(allowedInWrite || !configuration.readOnly,
                     "Read-only Realms do not change and do not have change notifications.")
        if !isInWriteTransaction {
            _ = currentTransaction
            if notifications.base == nil || !notifications.hasRegistrations {
                notifications.base = readVersion
            } else if notifications.base !== readVersion {
                // The others' state is older than what this observation starts from: bring them up to date first.
                deliverNotifications()
            }
        }
        notifications.add(registration)
        file.writeLog.markObserved()
        FileChangeWatcher.shared.watch(self)
        // Observations without a queue get their first delivery from the thread's run loop, or at the next
        // refresh or commit.
        scheduleDeliveryOnOwnContext()
    }

    /// Delivers what changed since the notifications' base to every observation (see the file comment).
    func deliverNotifications(skipping: [NotificationToken] = [], localCommit: Bool = false) {
        guard !notifications.isDelivering else { return }
        let registrations = notifications.live()
        guard !registrations.isEmpty else {
            notifications.base = nil   // nothing to pin
            return
        }
        notifications.isDelivering = true
        defer { notifications.isDelivering = false }
        var skipped = Set(skipping.compactMap { $0.currentRegistration.map(ObjectIdentifier.init) })
        var isLocal = localCommit
        while let new = readVersion {
            let pending = notifications.live()
            let comparison = VersionComparison(core: self, old: notifications.base, new: new, isLocalCommit: isLocal)
            if !comparison.versionChanged && !pending.contains(where: \.needsInitial) { break }
            // Object observations first decide whether they fire, so that tokens on one object fire together.
            var fired: [ObjectIdentityKey: Bool] = [:]
            var objects: [ObjectIdentifier: ObjectIdentityKey] = [:]
            for registration in pending {
                guard let (object, didFire) = registration.prepare(comparison) else { continue }
                objects[ObjectIdentifier(registration)] = object
                fired[object] = (fired[object] ?? false) || didFire
            }
            for registration in pending where !registration.isInvalidated {
                let object = objects[ObjectIdentifier(registration)]
                registration.deliver(comparison, notify: !skipped.contains(ObjectIdentifier(registration)),
                                     siblingFired: object.flatMap { fired[$0] } ?? false)
            }
            notifications.base = new
            skipped = []
            isLocal = false
            if readVersion === new { break }
        }
    }

    /// Arranges a delivery on the core's own thread (its run loop) or queue, for the initial callbacks of new
    /// observations and for commits made elsewhere.
    func scheduleDeliveryOnOwnContext() {
        guard notifications.scheduleWake() else { return }
        let target = QueueHandOver(value: WeakCoreReference(core: self))
        let wake: @Sendable () -> Void = {
            guard let core = target.value.core else { return }
            core.notifications.wakeDone()
            core.handleWake()
        }
        if !performOnOwnContext(wake) { notifications.wakeDone() }
    }

    /// Runs `body` later on the core's own context: its queue, its actor, or its thread's run loop. False (and
    /// nothing runs) for a core without one (a frozen core).
    @discardableResult
    func performOnOwnContext(_ body: @escaping () -> Void) -> Bool {
        let handOver = QueueHandOver(value: body)
        if let context = confinementContext {
            context.perform { handOver.value() }
        } else if let runLoop = ownRunLoop {
            // A timer is the one run-loop source another thread can add that also wakes the loop.
            runLoop.add(Timer(timeInterval: 0, repeats: false) { _ in handOver.value() }, forMode: .default)
        } else {
            return false
        }
        return true
    }

    /// On the core's thread or queue: refresh (autorefresh) and deliver, or tell Realm observers a refresh is
    /// needed.
    private func handleWake() {
        guard !isInWriteTransaction, !notifications.isDelivering else { return }
        if autorefresh || confinementContext != nil {
            _ = refresh()
        } else {
            deliverNotifications()   // initial callbacks need no new version
            let latest = FileChangeWatcher.latestVersion(of: file)
            if latest > version && latest != notifications.refreshRequiredVersion {
                notifications.refreshRequiredVersion = latest
                for case let registration as RealmRegistration in notifications.live() {
                    registration.refreshRequired()
                }
            }
        }
    }
}
