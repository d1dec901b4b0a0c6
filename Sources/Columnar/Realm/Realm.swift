// Realm: a database as the application sees it — open it, write in transactions, add, query and delete objects.
// A `Realm` value is a handle on the per-thread `RealmCore` for its file.

import CColumnar
import Foundation
import QueryVM

public struct Realm: Equatable {
    let core: RealmCore

    init(core: RealmCore) {
        self.core = core
    }

    /// What to do when adding an object whose primary key exists already.
    public enum UpdatePolicy: Int, Sendable {
        /// Stop with an error: the primary key must be new.
        case error = 1
        /// Update the existing object's properties whose values differ.
        case modified = 3
        /// Update every property of the existing object.
        case all = 2
    }

    // MARK: Opening

    /// Opens the Realm of `configuration` (by default `Configuration.defaultConfiguration`).
    /// Throws a `Realm.Error` when the file cannot be opened, is damaged, or does not match the model classes
    /// (`.schemaMismatch`, listing each difference); its `underlyingError` holds the engine's detail.
    public init(configuration: Configuration = .defaultConfiguration) throws {
        do { core = try RealmRegistry.core(for: configuration) } catch {
            throw Realm.Error.converting(error, fileURL: configuration.fileURL)
        }
    }

    /// Opens the Realm stored at `fileURL` with the default configuration's other settings.
    public init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    public var configuration: Configuration { core.configuration }

    /// The model classes this Realm uses (configured `objectTypes`, or those used so far).
    public var schema: Schema { Schema(objectSchema: core.boundSchema) }

    /// Whether the Realm holds no objects at all.
    public var isEmpty: Bool {
        do {
            return try SchemaVersionRecord.modelTables(core.currentTransaction).allSatisfy { $0.info.object_count == 0 }
        } catch {
            fatalError("Columnar: listing the tables failed: \(error)")
        }
    }

    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.core === rhs.core }

    // MARK: Transactions

    public var isInWriteTransaction: Bool { core.isInWriteTransaction }

    /// Runs `block` in a write transaction and commits it, returning the block's result; if the block throws,
    /// the transaction is rolled back and the error rethrown. The observations of `tokens` (on this thread) are
    /// not told about this write.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [],
                              _ block: () throws -> Result) throws -> Result {
        try beginWriteThrowing()
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Begins a write transaction (blocking while another thread or process writes).
    public func beginWrite() {
        do { try beginWriteThrowing() } catch { fatalError("Columnar: cannot begin a write transaction: \(error)") }
    }

    private func beginWriteThrowing() throws {
        precondition(!configuration.readOnly, "Can't perform transactions on read-only Realms.")
        do { try core.beginWrite() } catch { throw Realm.Error.converting(error, fileURL: configuration.fileURL) }
    }

    /// Commits the write transaction and delivers this thread's notifications (except to the observations of
    /// `tokens`); throws a `Realm.Error` when the commit cannot be made durable (the changes are then lost).
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        do { try core.commitWrite(skipping: tokens) } catch { throw Realm.Error.converting(error, fileURL: configuration.fileURL) }
    }

    /// Discards the write transaction's changes.
    public func cancelWrite() { core.cancelWrite() }

    /// Moves this Realm to the latest version. Returns whether anything changed.
    @discardableResult
    public func refresh() -> Bool { core.refresh() }

    /// Ends the read transaction; objects and results read so far become invalid.
    public func invalidate() { core.invalidate() }

    // MARK: Adding, creating, deleting

    /// Adds an unmanaged object (and the unmanaged objects it links to) to the Realm. With a primary key that
    /// exists already: `.error` stops, `.modified` and `.all` update the existing object.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        do { try core.add(object, update: update) } catch { fatalError("Columnar: cannot add object: \(error)") }
    }

    /// Adds every object of a sequence.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Iterator.Element: Object {
        for object in objects { add(object, update: update) }
    }

    /// Creates a managed object from a value (dictionary, array in property order, or object) and returns it.
    /// With `.modified` or `.all` and an existing object of the same primary key, the existing object is updated
    /// and returned: only the properties the value names (a dictionary's keys, an array's first positions; every
    /// property for an object), as in RealmSwift, so `create(Dog.self, value: ["id": 1, "age": 4], update:
    /// .modified)` changes the age and leaves the rest.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        let object = T()
        ObjectValueAssignment.assign(value, to: object)
        let named = update == .error ? nil : ObjectValueAssignment.namedProperties(of: value, for: T.self)
        do { try core.add(object, update: update, namedProperties: named) } catch {
            fatalError("Columnar: cannot add object: \(error)")
        }
        return object
    }

    /// Deletes a managed object.
    public func delete(_ object: ObjectBase) { core.delete(object) }

    /// Deletes every object of a sequence (results are read first, so deleting from them is safe).
    public func delete<S: Sequence>(_ objects: S) where S.Iterator.Element: ObjectBase {
        for object in Array(objects) { core.delete(object) }
    }

    /// Deletes the objects a map holds (nil values are skipped, and an object held under several keys is deleted
    /// once); the map's entries then hold nil.
    public func delete<Key: _MapKey, Value: ObjectBase>(_ map: Map<Key, Value?>) {
        for case let object? in map.values where !object.isInvalidated { core.delete(object) }
    }

    /// Deletes every object in the Realm.
    public func deleteAll() {
        do { try core.deleteAll() } catch { fatalError("Columnar: cannot delete all objects: \(error)") }
    }

    // MARK: Reading

    /// Every object of a class, or a projection of every object of its root class, as live results.
    public func objects<Element: RealmFetchable>(_ type: Element.Type) -> Results<Element> {
        // RealmFetchable is RealmSwift's constraint: model classes and projections conform. The class test comes
        // first: it is a walk up the superclasses, where the projection test looks a conformance up in the runtime.
        if let objectType = type as? ObjectBase.Type {
            return Results(core: core, binding: core.bindingIfStored(for: objectType))
        }
        guard let projection = type as? any ProjectionKind.Type else {
            fatalError("Columnar: \(type) is not a model class or a projection; objects(_:) lists only those")
        }
        return Results(core: core, binding: core.bindingIfStored(for: projection.rootObjectType))
    }

    /// The object of a class with the given primary key, or nil.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        guard let binding = core.bindingIfStored(for: type) else { return nil }
        guard let pkIndex = binding.primaryKeyIndex else {
            fatalError("'\(binding.schema.className)' does not have a primary key and can not be queried by one")
        }
        let txn = core.currentTransaction
        var found: columnar_key = 0
        let rc: Int32
        if KeyType.self == Int.self, binding.primaryKeyIsInt {
            // The common case without boxing the key as `Any` and casting it back.
            var value = columnar_value()
            value.type = COLUMNAR_TYPE_INT
            value.as.i = Int64(unsafeBitCast(key, to: Int.self))
            rc = columnar_obj_find_primary_key(txn, binding.table, &value, &found)
        } else {
            let property = binding.schema.properties[pkIndex]
            guard let persistable = EngineValue.persistable(key, for: property) else {
                fatalError("Invalid value '\(key)' of type '\(KeyType.self)' for "
                           + "'\(binding.schema.className).\(property.name)' primary key (\(property.type))")
            }
            rc = (try? persistable._withValue(in: self) { value in
                columnar_obj_find_primary_key(txn, binding.table, &value, &found)
            }) ?? COLUMNAR_ENOTFOUND
        }
        if rc == COLUMNAR_ENOTFOUND { return nil }
        Engine.mustSucceed(rc, "finding by primary key")
        return core.materialize(type, binding: binding, key: found)
    }
}

/// Realm cores per thread and file; open files per process.
enum RealmRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var files: [String: WeakFile] = [:]
    private static let threadKey = "org.columnar.realm-cores"

    private final class WeakFile {
        weak var file: StorageFile?
        init(_ file: StorageFile) { self.file = file }
    }

    /// Weak: a core lives as long as some Realm value or managed object of the thread holds it.
    private final class WeakCore {
        weak var core: RealmCore?
        init(_ core: RealmCore) { self.core = core }
    }

    private final class CoreTable {
        var cores: [String: WeakCore] = [:]
        /// How many entries were left by the last sweep of released cores.
        var swept = 0
    }

    /// Entries whose core or file has been released are swept out as a table grows (doubling since the last
    /// sweep), so that opening many short-lived Realms (in-memory ones with fresh identifiers, say) does not
    /// grow the tables without bound.
    nonisolated(unsafe) private static var sweptFiles = 0

    /// How many entries the process's file table and this thread's core table hold (released ones included until
    /// a sweep), for tests.
    static var entryCounts: (files: Int, cores: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (files.count, (Thread.current.threadDictionary[threadKey] as? CoreTable)?.cores.count ?? 0)
    }

    /// Cores confined to serial queues and actors, by queue or actor and file (weakly: the Realms and observations
    /// of the context hold them).
    nonisolated(unsafe) private static var confinedCores: [ConfinedCoreKey: WeakCore] = [:]

    private struct ConfinedCoreKey: Hashable {
        let owner: ObjectIdentifier
        let file: String
    }

    /// The core of a file for blocks of a serial queue (made on first use, from a block of that queue).
    static func core(for configuration: Realm.Configuration, queue: DispatchQueue) throws -> RealmCore {
        try confinedCore(for: configuration, owner: queue) { file in
            try RealmCore(file: file, configuration: configuration, queue: queue)
        }
    }

    /// The core of a file for code isolated to an actor (made on first use, from that actor's code).
    static func core(for configuration: Realm.Configuration, actor: any Actor) throws -> RealmCore {
        try confinedCore(for: configuration, owner: actor as AnyObject) { file in
            try RealmCore(file: file, configuration: configuration, actor: actor)
        }
    }

    private static func confinedCore(for configuration: Realm.Configuration, owner: AnyObject,
                                     make: (StorageFile) throws -> RealmCore) throws -> RealmCore {
        try RealmOpening.checkEncryption(configuration)
        let identity = configuration.storageIdentity
        let key = ConfinedCoreKey(owner: ObjectIdentifier(owner),
                                  file: (identity.inMemory ? "memory:" : "file:") + identity.path)
        lock.lock()
        let existing = confinedCores[key]?.core
        lock.unlock()
        if let existing {
            try RealmOpening.checkKey(configuration, sharing: existing.file)
            return existing
        }
        try RealmOpening.prepare(configuration)
        let core = try make(try openFile(key: key.file, identity: identity, configuration: configuration))
        lock.lock()
        confinedCores = confinedCores.filter { $0.value.core != nil }
        confinedCores[key] = WeakCore(core)
        lock.unlock()
        return core
    }

    static func core(for configuration: Realm.Configuration) throws -> RealmCore {
        try RealmOpening.checkEncryption(configuration)
        let identity = configuration.storageIdentity
        let key = (identity.inMemory ? "memory:" : "file:") + identity.path
        let table: CoreTable
        if let existing = Thread.current.threadDictionary[threadKey] as? CoreTable {
            table = existing
        } else {
            table = CoreTable()
            Thread.current.threadDictionary[threadKey] = table
        }
        if let core = table.cores[key]?.core {
            try RealmOpening.checkKey(configuration, sharing: core.file)
            guard core.configuration.schemaVersion == configuration.schemaVersion else {
                throw ColumnarError(code: .misuse, message: "The Realm at '\(identity.path)' is already open on this "
                                        + "thread with schema version \(core.configuration.schemaVersion), not "
                                        + "\(configuration.schemaVersion)")
            }
            return core
        }
        try RealmOpening.prepare(configuration)
        let file = try openFile(key: key, identity: identity, configuration: configuration)
        let core = try RealmCore(file: file, configuration: configuration)
        if table.cores.count >= max(16, 2 * table.swept) {
            table.cores = table.cores.filter { $0.value.core != nil }
            table.swept = table.cores.count
        }
        table.cores[key] = WeakCore(core)
        return core
    }

    private static func openFile(key: String, identity: (path: String, inMemory: Bool),
                                 configuration: Realm.Configuration) throws -> StorageFile {
        lock.lock()
        defer { lock.unlock() }
        if let file = files[key]?.file {
            try RealmOpening.checkKey(configuration, sharing: file)
            return file
        }
        var flags: UInt32 = identity.inMemory ? COLUMNAR_OPEN_IN_MEMORY.rawValue : COLUMNAR_OPEN_CREATE.rawValue
        if configuration.readOnly && !identity.inMemory { flags = COLUMNAR_OPEN_READ_ONLY.rawValue }
        let file = try StorageFile(path: identity.path, flags: flags,
                                   maximumVersions: UInt64(configuration.maximumNumberOfActiveVersions ?? 0),
                                   encryptionKey: configuration.encryptionKey)
        if files.count >= max(16, 2 * sweptFiles) {
            files = files.filter { $0.value.file != nil }
            sweptFiles = files.count
        }
        files[key] = WeakFile(file)
        return file
    }
}
