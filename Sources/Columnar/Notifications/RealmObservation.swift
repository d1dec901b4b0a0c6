// RealmObservation: `Realm.observe`, told after every change of the version the Realm reads (`.didChange`: its
// own commits, refreshes, other threads' and processes' commits picked up by autorefresh), or, with autorefresh
// off, that a newer version is waiting (`.refreshRequired`, once per version).

import Foundation

final class RealmRegistration: NotificationRegistration {
    private let core: RealmCore
    private let block: Realm.NotificationBlock

    init(core: RealmCore, block: @escaping Realm.NotificationBlock) {
        self.core = core
        self.block = block
        super.init()
        needsInitial = false
    }

    override func deliver(_ comparison: VersionComparison, notify: Bool, siblingFired: Bool) {
        guard comparison.versionChanged, notify else { return }
        block(.didChange, Realm(core: core))
    }

    func refreshRequired() {
        guard !isInvalidated else { return }
        block(.refreshRequired, Realm(core: core))
    }
}

extension Realm {
    /// What a Realm notification reports.
    public enum Notification: String {
        /// The Realm moved to a new version (a commit on this thread, a refresh, autorefresh).
        case didChange = "RLMRealmDidChangeNotification"
        /// Another thread or process committed and autorefresh is off: `refresh()` to see it.
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    public typealias NotificationBlock = (_ notification: Notification, _ realm: Realm) -> Void

    /// Registers a block called whenever this Realm changes version (see `Notification`). Keep the token as long
    /// as the notifications are wanted.
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        let registration = RealmRegistration(core: core, block: block)
        core.register(registration, allowedInWrite: true)
        return NotificationToken(registration)
    }

    /// Whether the Realm moves to the latest version by itself when another thread or process commits (from this
    /// thread's run loop), delivering notifications. On by default.
    public var autorefresh: Bool {
        get { core.autorefresh }
        nonmutating set {
            core.checkThread()
            core.autorefresh = newValue
            if newValue {
                if core.ownRunLoop != nil && !core.configuration.readOnly { FileChangeWatcher.shared.watch(core) }
                core.scheduleDeliveryOnOwnContext()
            }
        }
    }
}
