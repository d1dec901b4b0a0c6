// ObjectObservation: `Object.observe`, which reports the changed properties of one object, or its deletion.
//
// There is no initial callback: the registration's state is the object as it is at the notifications' base
// version. Without key paths the observation is shallow (the object's own properties: a link's target, a
// collection's membership); key paths through links (`siblings.name`) look at the linked objects too. Several
// tokens on one object do not filter each other: if one fires for a write, all fire (RealmCore+Notifications.swift
// groups them). Each change names the property, its value at the previous version, and its value now.

import CColumnar
import Foundation

/// Runs a read as of the version before the change being delivered (valid only during that delivery): what a
/// projection's observation uses to read its projected values' old state.
typealias PreviousVersionReader = (() -> Any?) -> Any?

final class ObjectRegistration<T: ObjectBase>: NotificationRegistration {
    private let object: T
    private let node: ObservedNode
    private let block: (ObjectChange<T>, PreviousVersionReader) -> Void
    private let identity: ObjectIdentityKey
    private var isDeleted = false

    init(object: T, keyPaths: [String]?, block: @escaping (ObjectChange<T>, PreviousVersionReader) -> Void) {
        let location = object._location!
        self.object = object
        self.block = block
        self.node = keyPaths.map { ObservedNode.keyPaths($0, of: location.binding, in: location.core) }
            ?? ObservedNode.shallow(location.binding)
        self.identity = ObjectIdentityKey(table: location.binding.table, key: location.key)
        super.init()
        needsInitial = false
    }

    private func existsInNewVersion(_ comparison: VersionComparison) -> Bool {
        var exists = false
        let location = object._location!
        return columnar_obj_exists(comparison.new.transaction, location.binding.table, location.key, &exists)
            == COLUMNAR_OK && exists
    }

    override func prepare(_ comparison: VersionComparison) -> (object: ObjectIdentityKey, fired: Bool)? {
        guard !isDeleted, comparison.versionChanged else { return (identity, false) }
        if !existsInNewVersion(comparison) { return (identity, true) }
        return (identity, comparison.modifiedKeys(node, among: [identity.key]).contains(identity.key))
    }

    override func deliver(_ comparison: VersionComparison, notify: Bool, siblingFired: Bool) {
        guard !isDeleted, comparison.versionChanged, let old = comparison.old else { return }
        if !existsInNewVersion(comparison) {
            isDeleted = true
            if notify { block(.deleted, { $0() }) }
            return
        }
        guard siblingFired, notify else { return }
        let core = object._location!.core
        block(.change(object, propertyChanges(comparison, old: old)), { read in core.reading(old) { read() } })
    }

    /// The observed properties whose value changed (or, through a link, whose linked objects changed); when
    /// another token on the object fired and none of these did, every own property that changed.
    private func propertyChanges(_ comparison: VersionComparison, old: ReadVersion) -> [PropertyChange] {
        let location = object._location!
        let core = location.core
        var changed: [Int] = []
        var columns = node.columns
        for column in columns where comparison.columnDiffers(location.binding.table, location.key, column,
                                                            old: old.transaction)
            || comparison.wasWritten(location.binding.table, location.key, column.column) {
            changed.append(column.propertyIndex)
        }
        for link in node.links where !changed.contains(link.column.propertyIndex) {
            let targets = comparison.linkTargets(location.binding.table, location.key, link.column)
            let changedTargets = comparison.modifiedKeys(link.child, among: targets)
            if targets.contains(where: changedTargets.contains) { changed.append(link.column.propertyIndex) }
        }
        if changed.isEmpty {
            columns = ObservedNode.shallow(location.binding).columns
            for column in columns where comparison.columnDiffers(location.binding.table, location.key, column,
                                                                old: old.transaction) {
                changed.append(column.propertyIndex)
            }
        }
        let properties = location.binding.schema.properties
        return changed.sorted().map { index in
            let oldValue = core.reading(old) { core.readAny(object, propertyIndex: index) }
            return PropertyChange(name: properties[index].name, oldValue: oldValue,
                                  newValue: core.readAny(object, propertyIndex: index))
        }
    }
}

extension ObjectBase {
    /// Registers a block called after each write that changes this managed object's observed properties (by
    /// default its own properties; `keyPaths` select properties, and through links those of linked objects) or
    /// deletes it. No initial callback. Delivered on `queue` (a serial queue), or, without one, on this thread
    /// from its run loop and in `refresh()` and after this thread's commits. Keep the token as long as the
    /// notifications are wanted. Not inside a write transaction, nor on a read-only Realm.
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        ObjectObservation.start(self, in: queue.map(ConfinementContext.queue), keyPaths: keyPaths, block: block)
    }

    /// `observe(keyPaths:on:_:)` with Swift key paths.
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }
}

enum ObjectObservation {
    /// Registers an observation of `object` on the observing thread, or in `context` (a serial queue or an
    /// actor), where the object is rebuilt with its hand-over recipe (nothing is registered if it was deleted
    /// meanwhile).
    static func start<T: ObjectBase>(_ object: ObjectBase, in context: ConfinementContext?, keyPaths: [String]?,
                                     block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        start(object, in: context, keyPaths: keyPaths) { (change: ObjectChange<T>, _) in block(change) }
    }

    /// As `start(_:in:keyPaths:block:)`, with a reader of the previous version for each change.
    static func start<T: ObjectBase>(_ object: ObjectBase, in context: ConfinementContext?, keyPaths: [String]?,
                                     block: @escaping (ObjectChange<T>, PreviousVersionReader) -> Void)
        -> NotificationToken {
        guard let location = object._location else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        let core = location.core
        core.requireObservable()
        guard let typed = object as? T else {
            fatalError("Columnar: observing a \(type(of: object)) with a block for ObjectChange<\(T.self)>")
        }
        guard let context else {
            let registration = ObjectRegistration(object: typed, keyPaths: keyPaths, block: block)
            core.register(registration)
            return NotificationToken(registration)
        }
        if let keyPaths { _ = ObservedNode.keyPaths(keyPaths, of: location.binding, in: core) }
        let recipe = object._handOverRecipe()
        return ConfinedObservation.start(in: context, configuration: core.configuration) { confinedCore in
            guard let rebuilt = recipe.rebuild(confinedCore) as? T else { return nil }
            return ObjectRegistration(object: rebuilt, keyPaths: keyPaths, block: block)
        }
    }
}
