// ProjectionObservation: `projection.observe`, RealmSwift's notifications for projections.
//
// A projection is observed through its root object: the root is observed at the root key paths of the projected
// properties (all of them, or those `keyPaths` names), and each changed root property is reported as every projected
// property that reads it, under the projection's name for it, with its projected value before and after (the old
// value is the projected key path read at the version before the change, through links too).

import Foundation

extension ProjectionObservable {
    /// Registers a block called after each write that changes a projected property of the root object (all of them,
    /// or those whose root key paths `keyPaths` names, such as "address.city"), or deletes it. Changes name the
    /// projection's properties. Delivered on `queue`, or on this thread; keep the token as long as notifications are
    /// wanted. A key path that names no projected property stops the program.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        ProjectionObservation.start(self, in: queue.map(ConfinementContext.queue), keyPaths: keyPaths, block: block)
    }

    /// `observe(keyPaths:on:_:)` with key paths of the projection (`\PersonProjection.homeCity`).
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        guard let kind = Self.self as? any ProjectionKind.Type else {
            fatalError("Columnar: \(Self.self) is not a Projection")
        }
        return observe(keyPaths: keyPaths.map { ProjectionSchema.rootPath(of: $0, in: kind) }, on: queue, block)
    }

    /// Registers a block called, isolated to `actor`, after each write that changes a projected property of the
    /// root object or deletes it (see `observe(keyPaths:on:_:)`); the projection it receives belongs to `actor`'s
    /// Realm of the same file.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void)
        async -> NotificationToken {
        let token = ProjectionObservation.start(self, in: .actor(actor), keyPaths: keyPaths) { change in
            nonisolated(unsafe) let change = change
            actor.assumeIsolated { isolatedActor in block(isolatedActor, change) }
        }
        return await registered(token)
    }

    /// The actor form of `observe(keyPaths:on:_:)` with key paths of the projection.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void)
        async -> NotificationToken {
        guard let kind = Self.self as? any ProjectionKind.Type else {
            fatalError("Columnar: \(Self.self) is not a Projection")
        }
        return await observe(keyPaths: keyPaths.map { ProjectionSchema.rootPath(of: $0, in: kind) }, on: actor, block)
    }
}

enum ProjectionObservation {
    /// Observes `projection`'s root object at the root key paths of its projected properties (those `keyPaths`
    /// selects), on this thread or in `context`, and reports each change as the projected properties it touches.
    static func start<P: ProjectionObservable>(_ projection: P, in context: ConfinementContext?, keyPaths: [String]?,
                                               block: @escaping (ObjectChange<P>) -> Void) -> NotificationToken {
        guard let kind = P.self as? any ProjectionKind.Type else {
            fatalError("Columnar: \(P.self) is not a Projection")
        }
        var observed = ProjectionSchema.of(kind).properties
        if let keyPaths, !keyPaths.isEmpty {
            for path in keyPaths where !observed.contains(where: { $0.rootPath == path }) {
                fatalError("Columnar: '\(path)' is not the key path of a projected property of \(P.self) "
                           + "(those are \(observed.map { "'\($0.rootPath)'" }.joined(separator: ", ")))")
            }
            observed = observed.filter { keyPaths.contains($0.rootPath) }
        }
        var rootKeyPaths: [String] = []
        for property in observed where !rootKeyPaths.contains(property.rootPath) { rootKeyPaths.append(property.rootPath) }
        // On this thread the observing projection is reported; elsewhere, a projection of the object rebuilt there.
        let onThisThread: P? = context == nil ? projection : nil
        return ObjectObservation.start(projection.rootObject, in: context,
                                       keyPaths: rootKeyPaths.isEmpty ? nil : rootKeyPaths) {
            (change: ObjectChange<P.Root>, readPrevious: PreviousVersionReader) in
            switch change {
            case .error(let error): block(.error(error))
            case .deleted: block(.deleted)
            case .change(let object, let changes):
                var projected: [PropertyChange] = []
                for change in changes {
                    for property in observed where property.rootNames.first == change.name {
                        projected.append(PropertyChange(name: property.label,
                                                        oldValue: readPrevious { object[keyPath: property.keyPath] },
                                                        newValue: object[keyPath: property.keyPath]))
                    }
                }
                guard !projected.isEmpty else { return }
                block(.change(onThisThread ?? P(projecting: object), projected))
            }
        }
    }
}
