// ConfinedObservation: an observation registered in the Realm core of a serial queue or an actor rather than the
// observing thread's. The value observed is rebuilt there (by the `make` closure, in that core) from a block run in
// that context, and the token returned at once is attached to the registration when the block runs; a token
// invalidated before then cancels it. Collections, objects, maps and sectioned results observed `on:` a queue or an
// actor all come through here, and a confined core's own wake-ups use the same hop (RealmCore+Notifications.swift).

import Foundation

/// A value handed to a serial queue or an actor that only that context uses (the checks that matter are the
/// cores' own). Hand values over in separate boxes: destructuring a tuple of them inside a `@Sendable` closure
/// passed to a function with an `isolated any Actor` parameter miscompiles in Swift 6.3 (an over-release).
struct QueueHandOver<Value>: @unchecked Sendable {
    let value: Value
}

/// A context with a Realm core of its own: a serial dispatch queue, or an actor.
enum ConfinementContext {
    case queue(DispatchQueue)
    case actor(any Actor)

    /// The context's core of the file of `configuration` (made on first use; call from inside the context).
    func core(for configuration: Realm.Configuration) throws -> RealmCore {
        switch self {
        case .queue(let queue): return try RealmRegistry.core(for: configuration, queue: queue)
        case .actor(let actor): return try RealmRegistry.core(for: configuration, actor: actor)
        }
    }

    /// Runs `body` in the context, later; on an actor, returns the task that runs it.
    @discardableResult
    func perform(_ body: @escaping @Sendable () -> Void) -> Task<Void, Never>? {
        switch self {
        case .queue(let queue):
            queue.async(execute: body)
            return nil
        case .actor(let actor): return Task { await runIsolated(to: actor, body) }
        }
    }
}

enum ConfinedObservation {
    /// Registers, in `context`'s core of the file, the registration `make` builds there (nil when the observed
    /// value no longer exists there).
    static func start(in context: ConfinementContext, configuration: Realm.Configuration,
                      _ make: @escaping (RealmCore) -> NotificationRegistration?) -> NotificationToken {
        let token = NotificationToken()
        let tokenHandOver = QueueHandOver(value: token)
        let makeHandOver = QueueHandOver(value: make)
        let configurationHandOver = QueueHandOver(value: configuration)
        let contextHandOver = QueueHandOver(value: context)
        let registering = context.perform {
            let core: RealmCore
            do { core = try contextHandOver.value.core(for: configurationHandOver.value) } catch {
                fatalError("Columnar: cannot open the Realm where the notifications are delivered: \(error)")
            }
            guard let registration = makeHandOver.value(core) else { return }
            tokenHandOver.value.attach(registration)
            guard !registration.isInvalidated else { return }
            core.register(registration)
        }
        if let registering { token.noteRegistering(registering) }
        return token
    }
}
