// RealmCore: the state behind `Realm` values for one file on one thread — the open file, the current
// transaction (a read transaction pinned at a version, or the write transaction), and each model class's binding
// to its table and columns. Realm instances for the same file on the same thread share one core, as RealmSwift's
// do; live objects are confined to the thread that made them.

import CColumnar
import Foundation
import QueryVM

/// A model class bound to its table in one file: the table id and each property's column id.
final class ClassBinding {
    let info: ClassInfo
    let schema: ObjectSchema
    let table: columnar_table_id
    /// Per property (schema order); `COLUMNAR_NO_COLUMN` for linking objects, which have no column.
    let columns: [columnar_col_id]
    let primaryKeyIndex: Int?
    /// Whether a property links to embedded objects (writing such a link may delete the object it held).
    let hasEmbeddedLinks: Bool
    /// Whether the primary key is a non-optional Int (lookups by an `Int` key then build the engine value directly).
    let primaryKeyIsInt: Bool
    /// For a binding of `DynamicObject`s (RealmCore+DynamicBindings.swift): per property, the table a link or a
    /// collection of links points to (nil for other properties). nil for a model class's binding.
    let dynamicLinkTargets: [columnar_table_id?]?
    /// The model class the dynamic binding's schema was taken from, when Columnar knows one of its name.
    let dynamicModelClass: ObjectBase.Type?

    /// Whether the binding is one of `DynamicObject`s, whose class is known by name only.
    var isDynamic: Bool { dynamicLinkTargets != nil }

    init(info: ClassInfo, table: columnar_table_id, columns: [columnar_col_id],
         dynamicLinkTargets: [columnar_table_id?]? = nil, dynamicModelClass: ObjectBase.Type? = nil) {
        self.dynamicLinkTargets = dynamicLinkTargets
        self.dynamicModelClass = dynamicModelClass
        self.info = info
        self.schema = info.schema
        self.table = table
        self.columns = columns
        self.primaryKeyIndex = schema.properties.firstIndex(where: \.isPrimary)
        let properties = info.schema.properties
        self.hasEmbeddedLinks = properties.contains { $0.storage.objectType is EmbeddedObject.Type }
        let primaryKeyStorage = primaryKeyIndex.map { properties[$0].storage }
        self.primaryKeyIsInt = primaryKeyStorage?.type == COLUMNAR_TYPE_INT && primaryKeyStorage?.nullable == false
    }
}

final class RealmCore {
    let file: StorageFile
    let configuration: Realm.Configuration
    /// Where the core may be used: the thread that made it, or (for a core made for a serial queue, which runs its
    /// blocks on varying threads) whichever thread is running that queue's block.
    private let thread: pthread_t?
    let queue: DispatchQueue?
    private let queueMarker: QueueMarker?
    /// For a core isolated to an actor (`Realm(configuration:actor:)`): the actor, whose code alone may use it.
    let actor: (any Actor)?
    /// The properties the write transaction has set, recorded while the file has observers (CommitWriteLog.swift).
    private var writesOfTransaction: Set<CommitWriteLog.Write>?
    /// The serial queue or actor the core is confined to (nil for a thread's core and a frozen one).
    var confinementContext: ConfinementContext? {
        if let queue { return .queue(queue) }
        if let actor { return .actor(actor) }
        return nil
    }
    /// Async writes of an actor's core (ActorIsolatedRealm.swift): whether one is between taking the writer lock
    /// and reading the version it committed, and the ones waiting for it, in order.
    var asyncWriteInProgress = false
    var asyncWriteWaiters: [CheckedContinuation<Void, Never>] = []
    /// RealmSwift's callback-based asynchronous writes (AsyncWriteTransactions.swift).
    let asyncWrites = AsyncWriteQueue()
    /// The run loop of the core's thread (nil for a queue's core), where notifications are delivered from.
    let ownRunLoop: RunLoop?
    /// For a frozen core (one version, readable from any thread at once): the pinned version and each thread's
    /// transaction at it (FrozenVersion.swift); nil for a live core.
    let frozen: FrozenVersion?
    var isFrozen: Bool { frozen != nil }
    /// The frozen core of the version this (live) core reads, while some frozen value of it exists.
    var frozenCache: WeakCoreReference?
    /// The current transaction: a read transaction, or the write transaction while `isInWriteTransaction`.
    private(set) var transaction: OpaquePointer?
    /// The read transaction, owned so that change notifications can keep the version they last reported while
    /// the core moves on (RealmCore+Notifications.swift); nil during a write transaction and after `invalidate()`.
    private(set) var readVersion: ReadVersion?
    /// The registered change observers and the delivery state (RealmCore+Notifications.swift).
    let notifications = NotificationState()
    /// Whether the core moves to new versions by itself when another thread or process commits
    /// (`Realm.autorefresh`).
    var autorefresh = true
    private(set) var isInWriteTransaction = false
    /// Bumped by every change this core makes and by every version change: lets results cache their keys.
    private(set) var changeCounter: UInt64 = 0
    /// Bumped when objects may have been added or removed (or the version changed): unfiltered results cache their
    /// keys until it moves.
    private(set) var structureCounter: UInt64 = 0
    /// Bumped by `invalidate()`: objects and results from before it are invalid.
    private(set) var generation: UInt64 = 0
    private var bindings: [ObjectIdentifier: ClassBinding] = [:] {
        didSet {
            bindingGeneration &+= 1
            // Dynamic bindings take their names from the bound model classes (RealmCore+DynamicBindings.swift).
            if !dynamicBindings.isEmpty { dynamicBindings.removeAll() }
        }
    }
    /// The bindings of `DynamicObject`s by class name, made as `Realm.dynamicObjects(_:)` and the other dynamic
    /// calls need them (RealmCore+DynamicBindings.swift). They are part of the query model too.
    var dynamicBindings: [String: ClassBinding] = [:] {
        didSet { bindingGeneration &+= 1 }
    }
    /// Bumped whenever a class is bound or the bindings are dropped: what was derived from the bindings (the query
    /// model, resolved key paths) is valid while it stays the same. (A count of bindings would not do: a cancelled
    /// write drops them, and binding the same number of classes again can give other tables and columns.)
    private(set) var bindingGeneration: UInt64 = 0
    /// The binding bindingUnlocked(for:) found last, for the binding generation it was found in: adding or reading
    /// objects of one class in a row then skips hashing the class.
    private var lastBinding: (bindingGeneration: UInt64, type: ObjectIdentifier, binding: ClassBinding)?
    /// The query model of the bindings, and the binding generation it describes (see RealmCore+QueryModel.swift).
    var queryModelCache: QueryModelCache?
    /// Key paths of aggregates resolved against that model, by table, text and use (RealmCore+QueryModel.swift).
    var resolvedKeyPaths: (bindingGeneration: UInt64, paths: [ResolvedKeyPathKey: CheckedPath]) = (0, [:])
    /// The key path resolved last, looked at before `resolvedKeyPaths`.
    var lastResolvedKeyPath: (bindingGeneration: UInt64, key: ResolvedKeyPathKey, path: CheckedPath)?
    /// Checked predicates by parse template and table, reused to check later predicates of the same template
    /// (RealmCore+QueryModel.swift).
    var checkedTemplates: (bindingGeneration: UInt64, predicates: [CheckedTemplateKey: CheckedPredicate]) = (0, [:])
    /// Seek plans of repeated `filter("indexedProperty == %@", v)` calls (PreparedSeek.swift). Unchecked for
    /// exclusivity: every such call modifies it (most recent first), and nothing it runs meanwhile reaches the core.
    @exclusivity(unchecked) var seekPlans = SeekPlanMemo()
    private var managedClassesCache: Set<ObjectIdentifier>?
    /// The update policy of the `add` in progress, applied to objects reached through links.
    @exclusivity(unchecked) var addPolicy: Realm.UpdatePolicy = .error

    /// A core for the calling thread, or, with `queue`, for blocks running on that serial queue.
    init(file: StorageFile, configuration: Realm.Configuration, queue: DispatchQueue? = nil,
         actor: (any Actor)? = nil) throws {
        self.file = file
        self.configuration = configuration
        self.queue = queue
        self.actor = actor
        if actor != nil {
            self.thread = nil
            self.queueMarker = nil
            self.ownRunLoop = nil
        } else if let queue {
            self.thread = nil
            self.queueMarker = QueueMarker.marker(of: queue)
            self.ownRunLoop = nil
        } else {
            self.thread = pthread_self()
            self.queueMarker = nil
            self.ownRunLoop = RunLoop.current
        }
        self.frozen = nil
        try beginRead()
        try SchemaMigration.run(self)
        try SchemaMigration.verifyKnownClasses(self)
        if let types = configuration.objectTypes {
            for type in types { _ = try binding(for: type) }
        }
        // Autorefresh, as RealmSwift has it: a Realm on a thread moves to the newest version from the thread's run
        // loop when another thread or process commits, whether or not anything observes it.
        if ownRunLoop != nil && !configuration.readOnly { FileChangeWatcher.shared.watch(self) }
    }

    /// A frozen core at the version `live` reads (outside a write transaction), sharing its bindings.
    init(freezing live: RealmCore) throws {
        precondition(!live.isInWriteTransaction, "Cannot freeze a Realm, object or collection inside a write "
                         + "transaction: commit or cancel it first")
        _ = live.currentTransaction
        self.file = live.file
        self.configuration = live.configuration
        self.queue = nil
        self.actor = nil
        self.thread = nil
        self.queueMarker = nil
        self.ownRunLoop = nil
        self.frozen = try FrozenVersion(readingAlongside: live.readVersion!)
        self.bindings = live.bindings
        self.managedClassesCache = live.managedClassesCache
        self.autorefresh = false
    }

    deinit {
        // The read transaction belongs to `readVersion`; a write transaction is the core's own.
        if isInWriteTransaction, let transaction { columnar_txn_rollback(transaction) }
        FileChangeWatcher.ifActive?.forget(self)
    }

    // MARK: Threads and transactions

    @inline(__always)
    func checkThread() {
        if let thread, pthread_equal(thread, pthread_self()) != 0 { return }
        checkConfinementSlowly()
    }

    @inline(never)
    private func checkConfinementSlowly() {
        if frozen != nil { return }   // readable from any thread
        if let actor {
            actor.preconditionIsolated("Realm accessed from incorrect thread: this Realm is isolated to an actor, and "
                                           + "only that actor's code may use it and its objects")
            return
        }
        if let queueMarker, DispatchQueue.getSpecific(key: QueueMarker.key) === queueMarker { return }
        let place = queue == nil ? "thread that opened them" : "queue they were made for"
        fatalError("Realm accessed from incorrect thread: live Realms, objects and results are confined to the "
                   + "\(place) (use freeze() or open a Realm on each thread).")
    }


    func requireWriteTransaction() {
        if frozen != nil {
            fatalError("Attempting to modify a frozen object - call thaw on the Object instance first.")
        }
        checkThread()
        precondition(isInWriteTransaction,
                     "Attempting to modify object outside of a write transaction - call beginWriteTransaction on "
                         + "an RLMRealm instance first.")
    }

    /// The current transaction, starting a read transaction if there is none (after `invalidate()`).
    var currentTransaction: OpaquePointer {
        if let frozen { return frozen.transactionForCurrentThread() }
        checkThread()
        if transaction == nil {
            do { try beginRead() } catch { fatalError("Columnar: cannot begin a read transaction: \(error)") }
        }
        return transaction!
    }

    private func beginRead() throws {
        let read = try ReadVersion(file: file)
        readVersion = read
        transaction = read.transaction
        noteStructuralChange()
    }

    func beginWrite() throws {
        precondition(frozen == nil, "Can't perform transactions on a frozen Realm")
        checkThread()
        precondition(!asyncWriteInProgress, "Cannot begin a synchronous write transaction while an asynchronous write "
                         + "of this Realm is in progress: await it (asyncWrite) first")
        precondition(!isInWriteTransaction, "The Realm is already in a write transaction")
        var txn: OpaquePointer?
        if let pending = takePendingAsyncLock() {
            // An asynchronous begin was taking the writer lock: this transaction uses it (waiting for it here
            // rather than on the lock itself, which that begin holds or is about to).
            try Engine.check(pending.rc)
            txn = pending.txn
        } else {
            try Engine.check(columnar_txn_begin_write(file.handle, &txn))
        }
        // The read version stays alive while observers still have to be told about it (notifications' base).
        readVersion = nil
        transaction = txn
        isInWriteTransaction = true
        writesOfTransaction = file.writeLog.isObserved ? [] : nil
        noteStructuralChange()
    }

    /// Commits the write transaction, then tells this core's observers what changed (except `skipping` ones).
    func commitWrite(skipping: [NotificationToken] = []) throws {
        checkThread()
        precondition(isInWriteTransaction, "Can't commit a non-existing write transaction")
        let rc = columnar_txn_commit(takeWriteTransaction())
        try finishCommit(rc, skipping: skipping)
    }

    /// Ends the write transaction on the core's side and hands the transaction over to be committed (possibly on
    /// another thread: the writer lock belongs to the open file, not to a thread).
    func takeWriteTransaction() -> OpaquePointer {
        precondition(isInWriteTransaction, "Can't commit a non-existing write transaction")
        let txn = transaction!
        transaction = nil
        isInWriteTransaction = false
        asyncWrites.transactionIsAsync = false
        if let writes = writesOfTransaction {
            // Filed before the commit, under the version it will make: a delivery can only see that version after
            // the commit, and the next commit of the version a failed commit named supersedes its entry.
            file.writeLog.record(writes, transaction: txn)
            writesOfTransaction = nil
        }
        return txn
    }

    /// Records that the write transaction set a property (for notifications of self-assignment).
    @inline(__always)
    func noteWrite(_ table: columnar_table_id, _ key: columnar_key, _ column: columnar_col_id) {
        if writesOfTransaction != nil { writesOfTransaction!.insert(CommitWriteLog.Write(table: table, key: key, column: column)) }
    }

    /// After the commit of a taken write transaction returned `rc`: reads the latest version and notifies.
    func finishCommit(_ rc: Int32, skipping: [NotificationToken] = []) throws {
        // Whatever happened, go on reading the latest version (the failed commit left the old one).
        try beginRead()
        if rc != COLUMNAR_OK {
            bindings.removeAll()   // tables created by the failed transaction do not exist
            throw ColumnarError.fromLastError(rc)
        }
        FileChangeWatcher.ifActive?.noteCommit(file)
        deliverNotifications(skipping: skipping, localCommit: true)
        startNextAsyncBegin()
    }

    /// Makes a write transaction begun elsewhere (an async write took the writer lock off the actor) this core's.
    func adoptWriteTransaction(_ txn: OpaquePointer) {
        checkThread()
        precondition(!isInWriteTransaction, "The Realm is already in a write transaction")
        readVersion = nil
        transaction = txn
        isInWriteTransaction = true
        writesOfTransaction = file.writeLog.isObserved ? [] : nil
        noteStructuralChange()
    }

    func cancelWrite() {
        checkThread()
        precondition(isInWriteTransaction, "Can't cancel a non-existing write transaction")
        columnar_txn_rollback(transaction!)
        transaction = nil
        isInWriteTransaction = false
        writesOfTransaction = nil
        bindings.removeAll()   // tables or columns created in the transaction are gone
        do { try beginRead() } catch { fatalError("Columnar: cannot begin a read transaction: \(error)") }
        deliverNotifications()
        asyncWrites.transactionIsAsync = false
        startNextAsyncBegin()
    }

    /// Moves the read transaction to the latest version and delivers this core's pending notifications. Returns
    /// whether the version changed.
    func refresh() -> Bool {
        checkThread()
        if isInWriteTransaction || frozen != nil { return false }
        let before = version
        if readVersion != nil, notifications.base === readVersion {
            // The notifications' base shares the read transaction: give the base a transaction of its own at this
            // version (it reads only the rows that changed) and advance this one in place, whose caches of the
            // unchanged clusters stay warm for re-evaluating the observed collections.
            // (Without a free reader slot for it, the base keeps sharing and this core reads anew below.)
            if let own = try? ReadVersion(readingAlongside: readVersion!) { notifications.base = own }
        }
        if readVersion != nil, isKnownUniquelyReferenced(&readVersion!) {
            Engine.mustSucceed(columnar_txn_advance(readVersion!.transaction), "advancing the read transaction")
        } else {
            // Something else (a ThreadSafeReference) holds the current version: read anew.
            do { try beginRead() } catch { fatalError("Columnar: cannot begin a read transaction: \(error)") }
        }
        noteStructuralChange()
        let changed = version != before
        deliverNotifications()
        return changed
    }

    func invalidate() {
        checkThread()
        if frozen != nil { return }   // a frozen Realm's version stays until its values are gone
        if isInWriteTransaction { cancelWrite() }
        readVersion = nil
        transaction = nil
        generation &+= 1
        noteStructuralChange()
    }

    var version: UInt64 { columnar_txn_version(currentTransaction) }

    /// Runs `body` with `transaction` reading another version (a notification's base, to read old values).
    func reading<T>(_ other: ReadVersion, _ body: () throws -> T) rethrows -> T {
        let saved = transaction
        transaction = other.transaction
        defer { transaction = saved }
        return try body()
    }

    func noteLocalChange() { changeCounter &+= 1 }

    func noteStructuralChange() {
        changeCounter &+= 1
        structureCounter &+= 1
    }

    // MARK: Schema binding

    /// The binding of a model class, creating its table and columns (and those of every class it links to)
    /// when they do not exist yet. Returns nil when the file lacks the table and the Realm is read-only.
    func binding(for type: ObjectBase.Type) throws -> ClassBinding? {
        // Threads share a frozen core: its bindings change under its lock only.
        if let frozen { return try frozen.lock.withLock { try bindingUnlocked(for: type) } }
        return try bindingUnlocked(for: type)
    }

    private func bindingUnlocked(for type: ObjectBase.Type) throws -> ClassBinding? {
        let id = ObjectIdentifier(type)
        if let last = lastBinding, last.type == id, last.bindingGeneration == bindingGeneration { return last.binding }
        if let known = bindings[id] {
            lastBinding = (bindingGeneration, id, known)
            return known
        }
        requireManagedClass(type)
        // Every class reachable through links, so that link columns can name their target tables.
        var pending: [ObjectBase.Type] = [type]
        var reachable: [ObjectBase.Type] = []
        var seen: Set<ObjectIdentifier> = []
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            reachable.append(next)
            for property in SchemaDiscovery.info(for: next).schema.properties {
                if let target = property.storage.objectType { pending.append(target) }
            }
        }
        let check = try SchemaCheck(reachable, currentTransaction)
        let mustChange = try needsSchemaChange(reachable) || check.mustAdapt
        let readOnly = configuration.readOnly || frozen != nil
        if mustChange || (check.mayStamp && !readOnly) {
            if readOnly {
                if check.mustAdapt { throw check.readOnlyMismatch }
                return nil
            }
            func change() throws {
                try createSchema(reachable)
                try check.adapt(currentTransaction)
            }
            if isInWriteTransaction {
                try change()
            } else {
                try beginWrite()
                do {
                    try change()
                    try commitWrite()
                } catch {
                    if isInWriteTransaction { cancelWrite() }
                    throw error
                }
            }
        }
        let txn = currentTransaction
        for candidate in reachable where bindings[ObjectIdentifier(candidate)] == nil {
            let info = SchemaDiscovery.info(for: candidate)
            let schema = info.schema
            var table: columnar_table_id = 0
            try Engine.check(columnar_table_find(txn, schema.className, &table))
            var columns: [columnar_col_id] = []
            for property in schema.properties {
                if property.type == .linkingObjects {
                    columns.append(COLUMNAR_NO_COLUMN)
                    continue
                }
                // SchemaCheck refused every difference of an existing column, and createSchema made missing
                // ones with the model's shape.
                var column: columnar_col_id = 0
                try Engine.check(columnar_column_find(txn, table, property.columnName, &column))
                columns.append(column)
            }
            bindings[ObjectIdentifier(candidate)] = ClassBinding(info: info, table: table, columns: columns)
        }
        return bindings[ObjectIdentifier(type)]
    }

    /// Stops, with RealmSwift's message, for a class this Realm cannot manage: a base class (`Object`,
    /// `EmbeddedObject`), or, when the configuration lists `objectTypes`, a class neither listed nor reached from
    /// a listed one through links or linking objects.
    private func requireManagedClass(_ type: ObjectBase.Type) {
        let baseNames: [ObjectIdentifier: String] = [
            ObjectIdentifier(Object.self): "RealmSwiftObject", ObjectIdentifier(EmbeddedObject.self): "RealmSwiftEmbeddedObject",
            ObjectIdentifier(ObjectBase.self): "RealmSwiftObject",
        ]
        // A DynamicObject's class is known by name only: its objects come from the dynamic calls, which bind
        // that name (RealmCore+DynamicBindings.swift), never from the DynamicObject class itself.
        if type == DynamicObject.self {
            fatalError("DynamicObject is not a model class: a DynamicObject cannot be added to a Realm or listed with "
                       + "objects(_:); use Realm.dynamicCreate(_:value:update:) and Realm.dynamicObjects(_:) with the "
                       + "class name")
        }
        var name = baseNames[ObjectIdentifier(type)]
        if name == nil, let allowed = managedClasses, !allowed.contains(ObjectIdentifier(type)) {
            name = SchemaDiscovery.info(for: type).schema.className
        }
        guard let name else { return }
        fatalError(Self.notManagedMessage(name))
    }

    /// RealmSwift's message for a class the Realm does not manage.
    static func notManagedMessage(_ name: String) -> String {
        "Object type '\(name)' is not managed by the Realm. If using a custom `objectClasses` / `objectTypes` array "
            + "in your configuration, add `\(name)` to the list of `objectClasses` / `objectTypes`."
    }

    /// The model classes `objectTypes` lists and those they reach through links and linking objects; nil without
    /// a list.
    var managedClassTypes: [ObjectBase.Type]? {
        guard let types = configuration.objectTypes else { return nil }
        var seen = Set<ObjectIdentifier>()
        var reached: [ObjectBase.Type] = []
        var pending = types
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            reached.append(next)
            for property in SchemaDiscovery.info(for: next).schema.properties {
                if let target = property.storage.objectType { pending.append(target) }
            }
        }
        return reached
    }

    /// The classes of `managedClassTypes`, as a set (kept: every binding asks).
    private var managedClasses: Set<ObjectIdentifier>? {
        guard configuration.objectTypes != nil else { return nil }
        if let cached = managedClassesCache { return cached }
        let reached = Set((managedClassTypes ?? []).map(ObjectIdentifier.init))
        managedClassesCache = reached
        return reached
    }

    /// How many classes are bound, and their bindings (for the query model).
    var bindingCount: Int { bindings.count }
    func allBindings() -> [ClassBinding] { Array(bindings.values) }

    /// The binding of a class, or nil when the file lacks its table and the Realm is read-only. Any other failure
    /// (a schema mismatch, a damaged file) stops with its message: the calls that get here cannot throw, and
    /// answering "no objects" instead would hide it.
    func bindingIfStored(for type: ObjectBase.Type) -> ClassBinding? {
        do { return try binding(for: type) } catch {
            fatalError("Columnar: cannot use object type '\(type)': \(error)")
        }
    }

    func requireBinding(for type: ObjectBase.Type) -> ClassBinding {
        do {
            guard let binding = try binding(for: type) else {
                fatalError("Object type '\(type)' is not in this read-only Realm's file")
            }
            return binding
        } catch {
            fatalError("Columnar: cannot use object type '\(type)': \(error)")
        }
    }

    private func needsSchemaChange(_ types: [ObjectBase.Type]) throws -> Bool {
        let txn = currentTransaction
        for type in types {
            let schema = SchemaDiscovery.info(for: type).schema
            var table: columnar_table_id = 0
            guard columnar_table_find(txn, schema.className, &table) == COLUMNAR_OK else { return true }
            for property in schema.properties where property.type != .linkingObjects {
                var column: columnar_col_id = 0
                if columnar_column_find(txn, table, property.columnName, &column) != COLUMNAR_OK { return true }
            }
        }
        return false
    }

    /// Creates missing tables (all first, so links can name them), then missing columns. A migration sets primary
    /// keys itself, after its block has run (`primaryKeys: false`).
    func createSchema(_ types: [ObjectBase.Type], primaryKeys: Bool = true) throws {
        let txn = currentTransaction
        var tables: [ObjectIdentifier: columnar_table_id] = [:]
        var fileVersion: UInt64?
        for type in types {
            let name = SchemaDiscovery.info(for: type).schema.className
            var table: columnar_table_id = 0
            if columnar_table_find(txn, name, &table) != COLUMNAR_OK {
                try Engine.check(columnar_table_add(txn, name, &table))
                // A table made now has its model's shape at the file's schema version (ClassVersionRecord.swift).
                if fileVersion == nil { fileVersion = try SchemaVersionRecord.read(txn) }
                try ClassVersionRecord.stamp(name, fileVersion!, txn)
            }
            tables[ObjectIdentifier(type)] = table
        }
        for type in types {
            let schema = SchemaDiscovery.info(for: type).schema
            let table = tables[ObjectIdentifier(type)]!
            for property in schema.properties where property.type != .linkingObjects {
                var column: columnar_col_id = 0
                if columnar_column_find(txn, table, property.columnName, &column) == COLUMNAR_OK { continue }
                var spec = columnar_column_spec()
                spec.type = property.storage.type
                spec.collection = property.storage.collection
                spec.nullable = property.storage.nullable
                spec.indexed = property.isIndexed
                if let target = property.storage.objectType { spec.target_table = tables[ObjectIdentifier(target)]! }
                try property.columnName.withCString { name in
                    spec.name = name
                    try Engine.check(columnar_column_add(txn, table, &spec, &column))
                }
                if property.isPrimary && primaryKeys {
                    try Engine.check(columnar_table_set_primary_key(txn, table, column))
                }
            }
        }
        noteLocalChange()
    }

    /// How a stored column differs from what the property needs (type, collection kind, optionality), or nil when
    /// the column can hold it.
    static func shapeDifference(_ info: columnar_column_info, _ property: Property) -> String? {
        let storage = property.storage
        let nullableMatches = info.nullable == storage.nullable
            || (storage.type == COLUMNAR_TYPE_LINK && storage.collection == COLUMNAR_COLLECTION_NONE)
        if info.type == storage.type && info.collection == storage.collection && nullableMatches { return nil }
        return "is stored as \(PropertyType(info.type))\(info.nullable ? "?" : "") (collection kind "
            + "\(info.collection.rawValue)) in the file but declared as \(property.type)\(storage.nullable ? "?" : "") "
            + "(collection kind \(storage.collection.rawValue)) in the model"
    }

    /// The schema of every class bound so far (the classes this Realm has used or was configured with).
    var boundSchema: [ObjectSchema] { bindings.values.map(\.schema).sorted { $0.className < $1.className } }

    // MARK: Objects

    func objectExists(_ location: ObjectLocation) -> Bool {
        guard location.core === self, location.generation == generation else { return false }
        var exists = false
        Engine.mustSucceed(columnar_obj_exists(currentTransaction, location.binding.table, location.key, &exists),
                           "checking an object")
        return exists
    }

    private func requireValid(_ location: ObjectLocation) {
        precondition(location.generation == generation, "Object has been deleted or invalidated.")
    }

    func read<Value: _Persistable>(_ type: Value.Type, _ location: ObjectLocation, column: columnar_col_id) -> Value {
        requireValid(location)
        if Value._isCollection, let collection = type as? ManagedCollectionProperty.Type {
            return collection.managed(in: self, location: location, column: column) as! Value
        }
        if Value.self == AnyRealmValue.self {
            // A nested collection in the value stays live at this property.
            precondition(location.generation == generation, "Object has been deleted or invalidated.")
            var value = columnar_value()
            let rc = columnar_obj_get(currentTransaction, location.binding.table, location.key, column, &value)
            if rc != COLUMNAR_OK { readFailed(rc, className: location.binding.schema.className) }
            return AnyRealmValue.read(value, root: .property(location, column), in: self) as! Value
        }
        return readValue(type, binding: location.binding, key: location.key, generation: location.generation,
                         column: column)
    }

    /// Reads a column that does not hold a collection (`Value._isCollection` is false) of the object `key` of
    /// `binding`'s table, bound at `generation`.
    func readValue<Value: _Persistable>(_ type: Value.Type, binding: ClassBinding, key: columnar_key,
                                        generation: UInt64, column: columnar_col_id) -> Value {
        if Value.self == Int.self {
            return unsafeBitCast(readInt(binding: binding, key: key, generation: generation, column: column),
                                 to: Value.self)
        }
        precondition(generation == self.generation, "Object has been deleted or invalidated.")
        var value = columnar_value()
        let rc = columnar_obj_get(currentTransaction, binding.table, key, column, &value)
        if rc != COLUMNAR_OK { readFailed(rc, className: binding.schema.className) }
        // The common scalar types directly: no protocol witness, no `Realm` value (a reference count on the core).
        // The column's type matches the property's (checked when the class was bound), and these are not nullable.
        if Value.self == Double.self { return unsafeBitCast(value.as.d, to: Value.self) }
        if Value.self == Bool.self { return unsafeBitCast(value.as.b, to: Value.self) }
        if Value.self == String.self {
            let bytes = UnsafeRawBufferPointer(start: value.as.bytes.data, count: value.as.bytes.size)
            return unsafeBitCast(String(decoding: bytes, as: UTF8.self), to: Value.self)
        }
        return Value._read(value, from: Realm(core: self))
    }

    /// `readValue` of an `Int` column (not nullable), through the engine's integer read: every read of an `Int`
    /// property comes here, generic (`readValue`) or not (`CellFreeIntRead`).
    func readInt(binding: ClassBinding, key: columnar_key, generation: UInt64, column: columnar_col_id) -> Int {
        precondition(generation == self.generation, "Object has been deleted or invalidated.")
        var value: Int64 = 0
        let rc = columnar_obj_get_int(currentTransaction, binding.table, key, column, &value, nil)
        if rc != COLUMNAR_OK { readFailed(rc, className: binding.schema.className) }
        return Int(value)
    }

    @inline(never)
    private func readFailed(_ rc: Int32, className: String) -> Never {
        if rc == COLUMNAR_ENOTFOUND { fatalError("Object has been deleted or invalidated.") }
        fatalError("Columnar: reading \(className) failed: \(ColumnarError.fromLastError(rc))")
    }

    /// Reads a property type-erased (description, subscript(key:), change notifications' values).
    func readAny(_ object: ObjectBase, propertyIndex: Int) -> Any {
        let location = object._location!
        let binding = location.binding
        // A DynamicObject's binding has no prototype: its values are read as its subscript reads them.
        if binding.isDynamic {
            return DynamicProperties.read(location, propertyIndex: propertyIndex) ?? (Optional<Any>.none as Any)
        }
        // The prototype's cell knows the value type and the origin of linking objects; the object may have no cells.
        return binding.info.prototypeCells[propertyIndex].readManaged(from: object,
                                                                      column: binding.columns[propertyIndex])
    }

    func write<Value: _Persistable>(_ value: Value, _ location: ObjectLocation, column: columnar_col_id) throws {
        requireValid(location)
        if Value._isCollection, let collection = value as? ManagedCollectionProperty {
            try collection.assign(to: self, location: location, column: column)
            noteLocalChange()
            return
        }
        if var scalar = Self.scalarValue(value) {
            return try writeScalar(&scalar, binding: location.binding, key: location.key,
                                   generation: location.generation, column: column)
        }
        if let pk = location.binding.primaryKeyIndex, location.binding.columns[pk] == column,
           try primaryKeyDiffers(value, location, column: column) {
            fatalError("Primary key can't be changed after an object is inserted.")
        }
        let txn = currentTransaction
        // Replacing the object of an embedded link deletes the object it held.
        var replacedEmbedded: [Any] = []
        if location.binding.hasEmbeddedLinks, let index = location.binding.columns.firstIndex(of: column),
           let target = location.binding.schema.properties[index].storage.objectType as? EmbeddedObject.Type {
            var current = columnar_value()
            try Engine.check(columnar_obj_get(txn, location.binding.table, location.key, column, &current))
            let replacement = value as? EmbeddedObject
            if let replacement, let replacementLocation = replacement._location {
                guard !current.is_null, replacementLocation.key == current.as.link else {
                    requireUnowned(replacement)
                    return
                }
                return   // assigning the object it already holds
            }
            if !current.is_null { replacedEmbedded.append(materialize(target, key: current.as.link)) }
        }
        try value._withValue(in: Realm(core: self)) { engineValue in
            try Engine.check(columnar_obj_set(txn, location.binding.table, location.key, column, &engineValue))
        }
        noteWrite(location.binding.table, location.key, column)
        noteLocalChange()
        deleteOrphans(replacedEmbedded)
    }

    /// The engine value of an Int, Double or Bool, which `writeScalar` writes without a closure or a `Realm` value
    /// (a reference count on the core); nil for every other type.
    @inline(__always)
    static func scalarValue<Value: _Persistable>(_ value: Value) -> columnar_value? {
        var scalar = columnar_value()
        if Value.self == Int.self {
            scalar.type = COLUMNAR_TYPE_INT
            scalar.as.i = Int64(unsafeBitCast(value, to: Int.self))
        } else if Value.self == Double.self {
            scalar.type = COLUMNAR_TYPE_DOUBLE
            scalar.as.d = unsafeBitCast(value, to: Double.self)
        } else if Value.self == Bool.self {
            scalar.type = COLUMNAR_TYPE_BOOL
            scalar.as.b = unsafeBitCast(value, to: Bool.self)
        } else {
            return nil
        }
        return scalar
    }

    /// Writes a `scalarValue` into a column of the object `key` of `binding`'s table, bound at `generation`.
    func writeScalar(_ scalar: inout columnar_value, binding: ClassBinding, key: columnar_key, generation: UInt64,
                     column: columnar_col_id) throws {
        precondition(generation == self.generation, "Object has been deleted or invalidated.")
        let txn = currentTransaction
        if let pk = binding.primaryKeyIndex, binding.columns[pk] == column,
           try primaryKeyDiffers(scalar, binding: binding, key: key, column: column) {
            fatalError("Primary key can't be changed after an object is inserted.")
        }
        try Engine.check(columnar_obj_set(txn, binding.table, key, column, &scalar))
        noteWrite(binding.table, key, column)
        noteLocalChange()
    }

    private func primaryKeyDiffers<Value: _Persistable>(_ value: Value, _ location: ObjectLocation,
                                                        column: columnar_col_id) throws -> Bool {
        try value._withValue(in: Realm(core: self)) { candidate in
            try primaryKeyDiffers(candidate, binding: location.binding, key: location.key, column: column)
        }
    }

    /// Whether `candidate` differs from the primary key the object `key` holds in `column`.
    private func primaryKeyDiffers(_ candidate: columnar_value, binding: ClassBinding, key: columnar_key,
                                   column: columnar_col_id) throws -> Bool {
        var current = columnar_value()
        try Engine.check(columnar_obj_get(currentTransaction, binding.table, key, column, &current))
        return !EngineValue.equal(candidate, current)
    }

    /// An accessor object for the row `key` of `type`'s table.
    func materialize<T: ObjectBase>(_ type: T.Type, key: columnar_key) -> T {
        materialize(type, binding: requireBinding(for: type), key: key)
    }

    /// An accessor object for the row `key` of the table of `binding`, which is `type`'s binding in this core
    /// (callers that make many objects of one class look the binding up once).
    func materialize<T: ObjectBase>(_ type: T.Type, binding: ClassBinding, key: columnar_key) -> T {
        let object: T
        if let order = binding.info.cellFreeOrder {
            // Without cells (Persisted.swift): the wrappers take their schema indexes, ObjectBase.init checks them.
            CellFreeConstruction.begin(order, of: type)
            object = type.init()
        } else {
            object = type.init()
            for cell in object._cells ?? [] { cell.owner = object }
        }
        object._location = ObjectLocation(core: self, binding: binding, key: key, generation: generation)
        return object
    }

    /// The key of a managed object of this Realm; an unmanaged object is added first (links to new objects).
    func managedKey(of object: ObjectBase) throws -> columnar_key {
        if let location = object._location {
            precondition(location.core.file === file, "Cannot link to an object managed by another Realm")
            return location.key
        }
        requireWriteTransaction()
        try add(object, update: addPolicy)
        return object._location!.key
    }

    /// Adds an unmanaged object (and, through links, the unmanaged objects it refers to).
    /// Adds an unmanaged object. With `.modified` or `.all` and an existing object of the same primary key, the
    /// existing one is updated: every property, or only those of `namedProperties` (schema indexes) when given,
    /// which is how `create(_:value:update:)` leaves the properties its value does not name unchanged.
    func add(_ object: ObjectBase, update: Realm.UpdatePolicy, namedProperties: Set<Int>? = nil) throws {
        requireWriteTransaction()
        if let location = object._location {
            precondition(location.core.file === file,
                         "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
            precondition(location.core.objectExists(location),
                         "Adding a deleted or invalidated object to a Realm is not permitted")
            return
        }
        let binding = requireBinding(for: type(of: object))
        let cells = SchemaDiscovery.cells(of: object)
        let txn = currentTransaction
        var key: columnar_key = 0
        var existed = false
        if let pkIndex = binding.primaryKeyIndex {
            // With `.error` the engine's own duplicate check decides (one index lookup instead of two).
            let found = update == .error ? nil : try cells[pkIndex].withUnmanagedEngineValue(in: self) { pk in
                var existing: columnar_key = 0
                let rc = columnar_obj_find_primary_key(txn, binding.table, &pk, &existing)
                if rc == COLUMNAR_ENOTFOUND { return columnar_key?.none }
                try Engine.check(rc)
                return existing
            }
            if let found {
                key = found
                existed = true
            } else {
                let rc = try cells[pkIndex].withUnmanagedEngineValue(in: self) { pk in
                    columnar_obj_create_with_primary_key(txn, binding.table, &pk, &key)
                }
                if rc == COLUMNAR_EEXISTS && update == .error {
                    let value = cells[pkIndex].unmanagedValue
                    fatalError("Attempting to create an object of type '\(binding.schema.className)' with an existing "
                               + "primary key value '\(value)'.")
                }
                try Engine.check(rc)
            }
        } else {
            try Engine.check(columnar_obj_create(txn, binding.table, &key))
        }
        object._location = ObjectLocation(core: self, binding: binding, key: key, generation: generation)
        let previousPolicy = addPolicy
        addPolicy = update
        defer { addPolicy = previousPolicy }
        do {
            for (index, cell) in cells.enumerated() {
                cell.propertyIndex = index
                cell.owner = object
                let column = binding.columns[index]
                if column == COLUMNAR_NO_COLUMN || index == binding.primaryKeyIndex { continue }
                if existed, let namedProperties, !namedProperties.contains(index) { continue }
                if existed && update == .modified, try cell.unmanagedEqualsManaged(object, column: column) { continue }
                try cell.copyUnmanagedValue(to: object, column: column)
            }
        } catch {
            object._location = nil
            throw error
        }
        noteStructuralChange()
    }

    func delete(_ object: ObjectBase) {
        requireWriteTransaction()
        guard let location = object._location else {
            fatalError("Can only delete an object from the Realm it belongs to.")
        }
        precondition(location.core.file === file, "Can only delete an object from the Realm it belongs to.")
        requireValid(location)
        let children = embeddedChildren(location)
        let rc = columnar_obj_delete(currentTransaction, location.binding.table, location.key)
        if rc == COLUMNAR_ENOTFOUND { fatalError("Object has been deleted or invalidated.") }
        Engine.mustSucceed(rc, "deleting a \(location.binding.schema.className)")
        noteStructuralChange()
        // Embedded objects are deleted with their parent.
        deleteOrphans(children)
    }

    // MARK: Embedded objects

    /// The embedded objects a row owns through its links and lists.
    func embeddedChildren(_ location: ObjectLocation) -> [ObjectBase] {
        var children: [ObjectBase] = []
        let txn = currentTransaction
        let binding = location.binding
        for (index, property) in binding.schema.properties.enumerated() where property.type != .linkingObjects {
            guard let target = property.storage.objectType as? EmbeddedObject.Type else { continue }
            let column = binding.columns[index]
            var value = columnar_value()
            if property.storage.collection == COLUMNAR_COLLECTION_NONE {
                Engine.mustSucceed(columnar_obj_get(txn, binding.table, location.key, column, &value),
                                   "reading an embedded link")
                if !value.is_null { children.append(materialize(target, key: value.as.link)) }
                continue
            }
            var size: UInt64 = 0
            Engine.mustSucceed(columnar_coll_size(txn, binding.table, location.key, column, &size),
                               "reading a list of embedded objects")
            for position in 0..<size {
                Engine.mustSucceed(columnar_coll_get(txn, binding.table, location.key, column, position, &value),
                                   "reading a list of embedded objects")
                if !value.is_null { children.append(materialize(target, key: value.as.link)) }
            }
        }
        return children
    }

    /// Deletes embedded objects their parent no longer holds (each takes its own embedded objects along).
    func deleteOrphans(_ objects: [Any]) {
        for case let object as ObjectBase in objects where Self.isEmbedded(object) {
            guard let location = object._location, objectExists(location) else { continue }
            delete(object)
        }
    }

    /// Whether an object is of an embedded class: an EmbeddedObject, or a DynamicObject of an embedded class.
    static func isEmbedded(_ object: ObjectBase) -> Bool {
        object is EmbeddedObject || (object is DynamicObject && object._location?.binding.schema.isEmbedded == true)
    }

    /// Stops when a managed embedded object would get a second parent.
    func requireUnowned(_ value: Any) {
        if let embedded = value as? ObjectBase, embedded._location != nil, Self.isEmbedded(embedded) {
            fatalError("Cannot set a link to an existing managed embedded object: an embedded object belongs to "
                       + "exactly one parent (assign a new unmanaged object instead)")
        }
    }

    /// Deletes every object of every table in the file.
    func deleteAll() throws {
        requireWriteTransaction()
        let txn = currentTransaction
        for (table, _) in try SchemaVersionRecord.modelTables(txn) {
            for key in try keys(of: table) { try Engine.check(columnar_obj_delete(txn, table, key)) }
        }
        noteStructuralChange()
    }

    /// Every object key of a table, in key order.
    func keys(of table: columnar_table_id) throws -> [columnar_key] {
        let txn = currentTransaction
        var iterator = columnar_cluster_iter()
        try Engine.check(columnar_cluster_iter_init(txn, table, &iterator))
        var cluster = columnar_cluster()
        var keys: [columnar_key] = []
        while true {
            let rc = columnar_cluster_iter_next(&iterator, &cluster)
            if rc == COLUMNAR_ENOTFOUND { break }
            try Engine.check(rc)
            for row in 0..<cluster.row_count { keys.append(columnar_array_get_int(&cluster.keys, row)) }
        }
        return keys
    }

    func objectCount(of table: columnar_table_id) -> Int {
        var count: UInt64 = 0
        Engine.mustSucceed(columnar_obj_count(currentTransaction, table, &count), "counting objects")
        return Int(count)
    }
}
