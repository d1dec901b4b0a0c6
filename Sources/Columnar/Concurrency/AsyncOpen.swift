// AsyncOpen: opening a Realm without blocking the caller: `try await Realm.open(configuration:)` (a Realm
// isolated to the calling actor), `try await Realm(configuration:)` on the main actor, and the callback form
// `Realm.asyncOpen(configuration:callbackQueue:callback:)`.
//
// Opening may create the file, run a migration and check the schema. The async forms do that isolated to the
// actor the Realm will belong to; the callback form does it on the callback queue, whose Realm it delivers.

import Foundation

extension Realm {
    /// Opens a Realm isolated to the calling actor (the main actor included): usable by code isolated to it,
    /// across suspensions. Called from code that is not isolated to an actor, it does not compile (such code
    /// resumes on varying threads, where a confined Realm could not be used); use `Realm(configuration:actor:)`
    /// or `Realm(configuration:queue:)` there.
    public static func open(configuration: Configuration = .defaultConfiguration,
                            _isolation actor: isolated any Actor = #isolation) async throws -> Realm {
        try await Realm(configuration: configuration, actor: actor)
    }

    /// Opens a Realm isolated to the main actor (RealmSwift's `@MainActor` async initializer).
    @MainActor
    public init(configuration: Configuration = .defaultConfiguration) async throws {
        try await self.init(configuration: configuration, actor: MainActor.shared)
    }

    /// Opens the Realm on `callbackQueue` (a serial queue: the main queue by default) and calls `callback` there
    /// with a Realm confined to that queue, or with the error that prevented opening. The returned task can cancel
    /// the callback before it is called.
    @discardableResult
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration,
                                 callbackQueue: DispatchQueue = .main,
                                 callback: @escaping (Result<Realm, Swift.Error>) -> Void) -> AsyncOpenTask {
        let task = AsyncOpenTask()
        // Separate boxes, not one of a tuple (see QueueHandOver).
        let configurationHandOver = QueueHandOver(value: configuration)
        let callbackHandOver = QueueHandOver(value: callback)
        callbackQueue.async {
            guard !task.isCancelled else { return }
            let result = Result { try Realm(configuration: configurationHandOver.value, queue: callbackQueue) }
            guard !task.isCancelled else { return }
            callbackHandOver.value(result)
        }
        return task
    }
}

/// The opening started by `Realm.asyncOpen`; `cancel()` stops its callback from being called if it has not been
/// yet. (RealmSwift's progress notifications report sync downloads, which Columnar does not have.)
public final class AsyncOpenTask: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    init() {}

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Cancels the callback (a callback already running finishes).
    public func cancel() { lock.withLock { cancelled = true } }
}
