// Engine.swift — a thin, throwing Swift face of the C engine, used only by tests.
//
// Every call into CColumnar from a test goes through here (hot loops that must not pay for Swift values call the
// C functions directly and still pass their codes to `check`). A failing call throws `EngineError`, which
// carries the code and the engine's own explanation from columnar_last_error(). Transactions are closure-scoped
// as in the Swift layer: `write { txn in … }` commits when the closure returns and rolls back when it throws.

import CColumnar
import Foundation

public typealias TableID = columnar_table_id
public typealias ColumnID = columnar_col_id
public typealias ObjectKey = columnar_key

// MARK: - Errors

/// A failure code from the engine with the details columnar_last_error() gave for it.
public struct EngineError: Error, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    /// "file.c:line" of the engine check that found the problem, or "".
    public let source: String
    /// File offset involved (corruption), or 0.
    public let ref: UInt64
    /// What the test was doing.
    public let context: String

    /// Builds the error for `code`, reading the calling thread's last-error details.
    public init(code: Int32, context: String = "") {
        self.code = code
        self.context = context
        let info = columnar_last_error().pointee
        // The details belong to this failure only if the engine recorded them for this code; a -errno passed
        // through without a message leaves an older failure's details behind.
        if info.code == code {
            message = info.message.map { String(cString: $0) } ?? ""
            source = info.source.map { String(cString: $0) } ?? ""
            ref = info.ref
        } else {
            message = ""
            source = ""
            ref = 0
        }
    }

    /// columnar_strerror's name for the code.
    public var name: String { errorName(code) }

    public var description: String {
        var text = "\(name) (\(code))"
        if !message.isEmpty { text += ": \(message)" }
        if ref != 0 { text += " [ref \(ref)]" }
        if !source.isEmpty { text += " [\(source)]" }
        if !context.isEmpty { text = "\(context): " + text }
        return text
    }

    /// Errors are equal when their codes are: the message and context describe the occasion, not the error.
    public static func == (lhs: EngineError, rhs: EngineError) -> Bool { lhs.code == rhs.code }
}

/// A failed expectation found inside a helper that cannot use XCTest assertions (for instance on a thread).
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// columnar_strerror(code) as a Swift string.
public func errorName(_ code: Int32) -> String {
    columnar_strerror(code).map { String(cString: $0) } ?? "code \(code)"
}

/// Throws `EngineError` unless `rc` is COLUMNAR_OK.
@inline(__always)
public func check(_ rc: Int32, _ context: @autoclosure () -> String = "") throws {
    if rc != COLUMNAR_OK { throw EngineError(code: rc, context: context()) }
}

// MARK: - Open options

/// columnar_open_flags as a Swift option set.
public struct OpenFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let create = OpenFlags(rawValue: COLUMNAR_OPEN_CREATE.rawValue)
    public static let readOnly = OpenFlags(rawValue: COLUMNAR_OPEN_READ_ONLY.rawValue)
    public static let inMemory = OpenFlags(rawValue: COLUMNAR_OPEN_IN_MEMORY.rawValue)
    public static let noLock = OpenFlags(rawValue: COLUMNAR_OPEN_NO_LOCK.rawValue)
    public static let noIOUring = OpenFlags(rawValue: COLUMNAR_OPEN_NO_IO_URING.rawValue)
    public static let paranoid = OpenFlags(rawValue: COLUMNAR_OPEN_PARANOID.rawValue)
}

// MARK: - Database

/// One open database handle (columnar_db). The handle may be shared by threads (caveat 1 of the header), hence
/// Sendable; transactions may not.
public final class TestDatabase: @unchecked Sendable {
    public let path: String
    private var db: OpaquePointer?

    /// Opens (with `.create`, creates) the database at `path`. `io` is a testing hook (columnar_faultio_io).
    /// `encryptionKey` (64 bytes) opens or creates an encrypted file.
    public init(path: String, flags: OpenFlags = .create,
                durability: columnar_durability = COLUMNAR_DURABILITY_FULL,
                maxVersions: UInt64 = 0, clusterSize: UInt32 = 0,
                io: UnsafePointer<columnar_io>? = nil, encryptionKey: [UInt8]? = nil) throws {
        self.path = path
        var options = columnar_open_options()
        options.flags = flags.rawValue
        options.durability = durability
        options.max_active_versions = maxVersions
        options.cluster_size = clusterSize
        options.io = io
        var handle: OpaquePointer?
        if let encryptionKey {
            try encryptionKey.withUnsafeBufferPointer { key in
                options.encryption_key = key.baseAddress
                try check(columnar_open(path, &options, &handle), "columnar_open \(path)")
            }
        } else {
            try check(columnar_open(path, &options, &handle), "columnar_open \(path)")
        }
        db = handle
    }

    /// Same as `init`; reads better at call sites that reopen.
    public static func open(path: String, flags: OpenFlags = .create,
                            durability: columnar_durability = COLUMNAR_DURABILITY_FULL,
                            maxVersions: UInt64 = 0, clusterSize: UInt32 = 0,
                            io: UnsafePointer<columnar_io>? = nil,
                            encryptionKey: [UInt8]? = nil) throws -> TestDatabase {
        try TestDatabase(path: path, flags: flags, durability: durability, maxVersions: maxVersions,
                         clusterSize: clusterSize, io: io, encryptionKey: encryptionKey)
    }

    /// columnar_db_sync: every commit so far made durable.
    public func sync() throws { try check(columnar_db_sync(handle), "columnar_db_sync") }

    /// The columnar_db pointer. Calling it after `close()` is a test bug.
    public var handle: OpaquePointer {
        guard let db else { preconditionFailure("TestDatabase used after close()") }
        return db
    }

    public var isOpen: Bool { db != nil }

    /// columnar_close. Every transaction of this handle must have ended. Safe to call twice.
    public func close() {
        if let db { columnar_close(db) }
        db = nil
    }

    deinit { close() }

    /// columnar_txn_begin_read.
    public func beginRead() throws -> Transaction {
        var txn: OpaquePointer?
        try check(columnar_txn_begin_read(handle, &txn), "columnar_txn_begin_read")
        return Transaction(txn!)
    }

    /// columnar_txn_begin_write.
    public func beginWrite() throws -> Transaction {
        var txn: OpaquePointer?
        try check(columnar_txn_begin_write(handle, &txn), "columnar_txn_begin_write")
        return Transaction(txn!)
    }

    /// Runs `body` in a read transaction that ends when it returns or throws.
    @discardableResult
    public func read<R>(_ body: (Transaction) throws -> R) throws -> R {
        let txn = try beginRead()
        defer { txn.rollback() }
        return try body(txn)
    }

    /// Runs `body` in a write transaction: commits when it returns, rolls back when it throws.
    @discardableResult
    public func write<R>(_ body: (Transaction) throws -> R) throws -> R {
        let txn = try beginWrite()
        let result: R
        do {
            result = try body(txn)
        } catch {
            txn.rollback()
            throw error
        }
        try txn.commit()
        return result
    }

    /// columnar_db_stats_get.
    public func stats() throws -> columnar_db_stats {
        var stats = columnar_db_stats()
        try check(columnar_db_stats_get(handle, &stats), "columnar_db_stats_get")
        return stats
    }

    /// columnar_db_commit_path.
    public var commitPath: columnar_commit_path { columnar_db_commit_path(handle) }

    /// columnar_db_commit_path_description.
    public var commitPathDescription: String {
        columnar_db_commit_path_description(handle).map { String(cString: $0) } ?? ""
    }
}

// MARK: - Transactions

/// The outcome of columnar_verify.
public struct VerifyReport: CustomStringConvertible {
    public let code: Int32
    public let findingCount: UInt64
    /// The findings reported through the callback (ref, what).
    public let findings: [(ref: UInt64, what: String)]

    public var isSound: Bool { code == COLUMNAR_OK && findingCount == 0 && findings.isEmpty }

    public var description: String {
        var text = "columnar_verify: \(errorName(code)), \(findingCount) finding(s)"
        for finding in findings.prefix(20) { text += "\n  ref \(finding.ref): \(finding.what)" }
        if findings.count > 20 { text += "\n  … \(findings.count - 20) more" }
        return text
    }
}

/// One transaction (columnar_txn). Use it from one thread; end it on the thread that began it.
public final class Transaction {
    public let handle: OpaquePointer
    public private(set) var isOpen = true

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { if isOpen { columnar_txn_rollback(handle) } }

    /// columnar_txn_commit. The transaction is freed whether or not the commit succeeds.
    public func commit() throws {
        precondition(isOpen, "transaction already ended")
        isOpen = false
        try check(columnar_txn_commit(handle), "columnar_txn_commit")
    }

    /// columnar_txn_begin_read_at: another read transaction at this one's version.
    public func beginReadAlongside() throws -> Transaction {
        var txn: OpaquePointer?
        try check(columnar_txn_begin_read_at(handle, &txn), "columnar_txn_begin_read_at")
        return Transaction(txn!)
    }

    /// columnar_txn_rollback. Safe to call on an ended transaction (does nothing).
    public func rollback() {
        guard isOpen else { return }
        isOpen = false
        columnar_txn_rollback(handle)
    }

    /// columnar_txn_advance.
    public func advance() throws { try check(columnar_txn_advance(handle), "columnar_txn_advance") }

    /// columnar_txn_version.
    public var version: UInt64 { columnar_txn_version(handle) }

    /// columnar_txn_is_write.
    public var isWrite: Bool { columnar_txn_is_write(handle) }

    // MARK: Schema

    /// columnar_table_count.
    public func tableCount() throws -> UInt32 {
        var count: UInt32 = 0
        try check(columnar_table_count(handle, &count), "columnar_table_count")
        return count
    }

    /// columnar_table_add.
    public func addTable(_ name: String) throws -> TableID {
        var table: TableID = 0
        try check(columnar_table_add(handle, name, &table), "columnar_table_add \(name)")
        return table
    }

    /// columnar_table_find.
    public func findTable(_ name: String) throws -> TableID {
        var table: TableID = 0
        try check(columnar_table_find(handle, name, &table), "columnar_table_find \(name)")
        return table
    }

    /// columnar_table_find, nil for COLUMNAR_ENOTFOUND.
    public func tableIfPresent(_ name: String) throws -> TableID? {
        var table: TableID = 0
        let rc = columnar_table_find(handle, name, &table)
        if rc == COLUMNAR_ENOTFOUND { return nil }
        try check(rc, "columnar_table_find \(name)")
        return table
    }

    /// columnar_table_info_get.
    public func tableInfo(_ table: TableID) throws -> columnar_table_info {
        var info = columnar_table_info()
        try check(columnar_table_info_get(handle, table, &info), "columnar_table_info_get \(table)")
        return info
    }

    /// The table's name (columnar_table_info_get).
    public func tableName(_ table: TableID) throws -> String {
        var info = try tableInfo(table)
        return fixedString(&info.name)
    }

    /// columnar_table_rename.
    public func renameTable(_ table: TableID, to name: String) throws {
        try check(columnar_table_rename(handle, table, name), "columnar_table_rename \(table) \(name)")
    }

    /// columnar_table_remove.
    public func removeTable(_ table: TableID) throws {
        try check(columnar_table_remove(handle, table), "columnar_table_remove \(table)")
    }

    /// columnar_table_set_primary_key (COLUMNAR_NO_COLUMN clears it).
    public func setPrimaryKey(_ table: TableID, column: ColumnID) throws {
        try check(columnar_table_set_primary_key(handle, table, column), "columnar_table_set_primary_key")
    }

    /// columnar_column_add.
    public func addColumn(_ table: TableID, _ name: String, _ type: columnar_type,
                          collection: columnar_collection_kind = COLUMNAR_COLLECTION_NONE,
                          nullable: Bool = false, indexed: Bool = false,
                          target: TableID = 0) throws -> ColumnID {
        var column: ColumnID = 0
        let rc = name.withCString { namePointer -> Int32 in
            var spec = columnar_column_spec()
            spec.name = namePointer
            spec.type = type
            spec.collection = collection
            spec.nullable = nullable
            spec.indexed = indexed
            spec.target_table = target
            return columnar_column_add(handle, table, &spec, &column)
        }
        try check(rc, "columnar_column_add \(name)")
        return column
    }

    /// columnar_column_find.
    public func findColumn(_ table: TableID, _ name: String) throws -> ColumnID {
        var column: ColumnID = 0
        try check(columnar_column_find(handle, table, name, &column), "columnar_column_find \(name)")
        return column
    }

    /// columnar_column_find, nil for COLUMNAR_ENOTFOUND.
    public func columnIfPresent(_ table: TableID, _ name: String) throws -> ColumnID? {
        var column: ColumnID = 0
        let rc = columnar_column_find(handle, table, name, &column)
        if rc == COLUMNAR_ENOTFOUND { return nil }
        try check(rc, "columnar_column_find \(name)")
        return column
    }

    /// columnar_column_info_get.
    public func columnInfo(_ table: TableID, _ column: ColumnID) throws -> columnar_column_info {
        var info = columnar_column_info()
        try check(columnar_column_info_get(handle, table, column, &info), "columnar_column_info_get \(column)")
        return info
    }

    /// The column's name (columnar_column_info_get).
    public func columnName(_ table: TableID, _ column: ColumnID) throws -> String {
        var info = try columnInfo(table, column)
        return fixedString(&info.name)
    }

    /// columnar_column_rename.
    public func renameColumn(_ table: TableID, _ column: ColumnID, to name: String) throws {
        try check(columnar_column_rename(handle, table, column, name), "columnar_column_rename \(name)")
    }

    /// columnar_column_remove.
    public func removeColumn(_ table: TableID, _ column: ColumnID) throws {
        try check(columnar_column_remove(handle, table, column), "columnar_column_remove \(column)")
    }

    /// columnar_column_set_indexed.
    public func setIndexed(_ table: TableID, _ column: ColumnID, _ indexed: Bool) throws {
        try check(columnar_column_set_indexed(handle, table, column, indexed), "columnar_column_set_indexed")
    }

    // MARK: Objects

    /// columnar_obj_create.
    public func createObject(_ table: TableID) throws -> ObjectKey {
        var key: ObjectKey = 0
        try check(columnar_obj_create(handle, table, &key), "columnar_obj_create in table \(table)")
        return key
    }

    /// columnar_obj_create_with_key.
    public func createObject(_ table: TableID, key: ObjectKey) throws {
        try check(columnar_obj_create_with_key(handle, table, key), "columnar_obj_create_with_key \(key)")
    }

    /// columnar_obj_create_with_primary_key.
    public func createObject(_ table: TableID, primaryKey: Value) throws -> ObjectKey {
        let type = try primaryKey.type ?? primaryKeyType(table)
        var key: ObjectKey = 0
        try primaryKey.withCValue(type: type) { value in
            try check(columnar_obj_create_with_primary_key(handle, table, value, &key),
                      "columnar_obj_create_with_primary_key \(primaryKey)")
        }
        return key
    }

    /// columnar_obj_delete.
    public func deleteObject(_ table: TableID, _ key: ObjectKey) throws {
        try check(columnar_obj_delete(handle, table, key), "columnar_obj_delete \(key)")
    }

    /// columnar_obj_exists.
    public func exists(_ table: TableID, _ key: ObjectKey) throws -> Bool {
        var exists = false
        try check(columnar_obj_exists(handle, table, key, &exists), "columnar_obj_exists \(key)")
        return exists
    }

    /// columnar_obj_count.
    public func count(_ table: TableID) throws -> UInt64 {
        var count: UInt64 = 0
        try check(columnar_obj_count(handle, table, &count), "columnar_obj_count \(table)")
        return count
    }

    /// columnar_obj_get, copied into a Swift value.
    public func get(_ table: TableID, _ key: ObjectKey, _ column: ColumnID) throws -> Value {
        var value = columnar_value()
        try check(columnar_obj_get(handle, table, key, column, &value), "columnar_obj_get \(key).\(column)")
        return Value(value)
    }

    /// columnar_obj_set. A `.null` takes the column's type.
    public func set(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ newValue: Value) throws {
        let type = try newValue.type ?? columnInfo(table, column).type
        try newValue.withCValue(type: type) { value in
            try check(columnar_obj_set(handle, table, key, column, value), "columnar_obj_set \(key).\(column)")
        }
    }

    /// columnar_obj_get_int: the value, or nil when null.
    public func getInt(_ table: TableID, _ key: ObjectKey, _ column: ColumnID) throws -> Int64? {
        var value: Int64 = 0
        var isNull = false
        try check(columnar_obj_get_int(handle, table, key, column, &value, &isNull),
                  "columnar_obj_get_int \(key).\(column)")
        return isNull ? nil : value
    }

    /// columnar_obj_get_many, copied into Swift values. A missing object throws; `failedIndex` (when given)
    /// receives the position the engine reported.
    public func getMany(_ table: TableID, _ keys: [ObjectKey], _ column: ColumnID,
                        failedIndex: UnsafeMutablePointer<UInt64>? = nil) throws -> [Value] {
        var values = [columnar_value](repeating: columnar_value(), count: keys.count)
        try check(columnar_obj_get_many(handle, table, column, keys, UInt64(keys.count), &values, failedIndex),
                  "columnar_obj_get_many \(keys.count) objects .\(column)")
        return values.map(Value.init)
    }

    /// columnar_obj_get_many_int: the values, nil where null.
    public func getManyInt(_ table: TableID, _ keys: [ObjectKey], _ column: ColumnID,
                           failedIndex: UnsafeMutablePointer<UInt64>? = nil) throws -> [Int64?] {
        var values = [Int64](repeating: -1, count: keys.count)
        var nulls = [Bool](repeating: false, count: keys.count)
        try check(columnar_obj_get_many_int(handle, table, column, keys, UInt64(keys.count), &values, &nulls,
                                            failedIndex),
                  "columnar_obj_get_many_int \(keys.count) objects .\(column)")
        return zip(values, nulls).map { $1 ? nil : $0 }
    }

    /// columnar_obj_find_first: nil for COLUMNAR_ENOTFOUND.
    public func findFirst(_ table: TableID, _ column: ColumnID, _ target: Value) throws -> ObjectKey? {
        let type = try target.type ?? columnInfo(table, column).type
        var key: ObjectKey = 0
        let rc = target.withCValue(type: type) { columnar_obj_find_first(handle, table, column, $0, &key) }
        if rc == COLUMNAR_ENOTFOUND { return nil }
        try check(rc, "columnar_obj_find_first \(target)")
        return key
    }

    /// columnar_obj_find_primary_key: nil for COLUMNAR_ENOTFOUND.
    public func findPrimaryKey(_ table: TableID, _ target: Value) throws -> ObjectKey? {
        let type = try target.type ?? primaryKeyType(table)
        var key: ObjectKey = 0
        let rc = target.withCValue(type: type) { columnar_obj_find_primary_key(handle, table, $0, &key) }
        if rc == COLUMNAR_ENOTFOUND { return nil }
        try check(rc, "columnar_obj_find_primary_key \(target)")
        return key
    }

    private func primaryKeyType(_ table: TableID) throws -> columnar_type {
        let info = try tableInfo(table)
        guard info.primary_key != COLUMNAR_NO_COLUMN else { return COLUMNAR_TYPE_INT }
        return try columnInfo(table, info.primary_key).type
    }

    private func elementType(_ table: TableID, _ column: ColumnID, for value: Value) throws -> columnar_type {
        try value.type ?? columnInfo(table, column).type
    }

    // MARK: Collections

    /// columnar_coll_size.
    public func size(_ table: TableID, _ key: ObjectKey, _ column: ColumnID) throws -> UInt64 {
        var size: UInt64 = 0
        try check(columnar_coll_size(handle, table, key, column, &size), "columnar_coll_size \(key).\(column)")
        return size
    }

    /// columnar_coll_get.
    public func element(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, at index: UInt64) throws -> Value {
        var value = columnar_value()
        try check(columnar_coll_get(handle, table, key, column, index, &value),
                  "columnar_coll_get \(key).\(column)[\(index)]")
        return Value(value)
    }

    /// Every element, in the collection's order (columnar_coll_size + columnar_coll_get).
    public func elements(_ table: TableID, _ key: ObjectKey, _ column: ColumnID) throws -> [Value] {
        let count = try size(table, key, column)
        return try (0..<count).map { try element(table, key, column, at: $0) }
    }

    /// columnar_coll_clear.
    public func clear(_ table: TableID, _ key: ObjectKey, _ column: ColumnID) throws {
        try check(columnar_coll_clear(handle, table, key, column), "columnar_coll_clear \(key).\(column)")
    }

    /// columnar_list_insert.
    public func listInsert(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, at index: UInt64,
                           _ element: Value) throws {
        try element.withCValue(type: elementType(table, column, for: element)) { value in
            try check(columnar_list_insert(handle, table, key, column, index, value),
                      "columnar_list_insert \(key).\(column)[\(index)]")
        }
    }

    /// Appends (columnar_list_insert at the end).
    public func listAppend(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ element: Value) throws {
        try listInsert(table, key, column, at: size(table, key, column), element)
    }

    /// columnar_list_set.
    public func listSet(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, at index: UInt64,
                        _ element: Value) throws {
        try element.withCValue(type: elementType(table, column, for: element)) { value in
            try check(columnar_list_set(handle, table, key, column, index, value),
                      "columnar_list_set \(key).\(column)[\(index)]")
        }
    }

    /// columnar_list_remove.
    public func listRemove(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, at index: UInt64) throws {
        try check(columnar_list_remove(handle, table, key, column, index),
                  "columnar_list_remove \(key).\(column)[\(index)]")
    }

    /// columnar_list_move.
    public func listMove(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, from: UInt64, to: UInt64) throws {
        try check(columnar_list_move(handle, table, key, column, from, to),
                  "columnar_list_move \(key).\(column) \(from)->\(to)")
    }

    /// columnar_set_insert: whether the value was added.
    @discardableResult
    public func setInsert(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ element: Value) throws -> Bool {
        var inserted = false
        try element.withCValue(type: elementType(table, column, for: element)) { value in
            try check(columnar_set_insert(handle, table, key, column, value, &inserted),
                      "columnar_set_insert \(key).\(column) \(element)")
        }
        return inserted
    }

    /// columnar_set_remove: whether the value was present.
    @discardableResult
    public func setRemove(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ element: Value) throws -> Bool {
        var removed = false
        try element.withCValue(type: elementType(table, column, for: element)) { value in
            try check(columnar_set_remove(handle, table, key, column, value, &removed),
                      "columnar_set_remove \(key).\(column) \(element)")
        }
        return removed
    }

    /// columnar_coll_contains.
    public func contains(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ element: Value) throws -> Bool {
        var contains = false
        try element.withCValue(type: elementType(table, column, for: element)) { value in
            try check(columnar_coll_contains(handle, table, key, column, value, &contains),
                      "columnar_coll_contains \(key).\(column) \(element)")
        }
        return contains
    }

    /// columnar_dict_set.
    public func dictSet(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ dictKey: [UInt8],
                        _ element: Value) throws {
        let type = try elementType(table, column, for: element)
        try withNonNullBytes(dictKey) { keyPointer, keySize in
            try element.withCValue(type: type) { value in
                try check(columnar_dict_set(handle, table, key, column, keyPointer, keySize, value),
                          "columnar_dict_set \(key).\(column)[\(hex(dictKey))]")
            }
        }
    }

    /// columnar_dict_get: nil when the key is absent.
    public func dictGet(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ dictKey: [UInt8]) throws -> Value? {
        var value = columnar_value()
        var found = false
        try withNonNullBytes(dictKey) { keyPointer, keySize in
            try check(columnar_dict_get(handle, table, key, column, keyPointer, keySize, &value, &found),
                      "columnar_dict_get \(key).\(column)[\(hex(dictKey))]")
        }
        return found ? Value(value) : nil
    }

    /// columnar_dict_remove: whether the key was present.
    @discardableResult
    public func dictRemove(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ dictKey: [UInt8]) throws -> Bool {
        var removed = false
        try withNonNullBytes(dictKey) { keyPointer, keySize in
            try check(columnar_dict_remove(handle, table, key, column, keyPointer, keySize, &removed),
                      "columnar_dict_remove \(key).\(column)[\(hex(dictKey))]")
        }
        return removed
    }

    /// columnar_dict_key_at, copied.
    public func dictKey(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, at index: UInt64) throws -> [UInt8] {
        var pointer: UnsafeRawPointer?
        var size = 0
        try check(columnar_dict_key_at(handle, table, key, column, index, &pointer, &size),
                  "columnar_dict_key_at \(key).\(column)[\(index)]")
        return Array(rawBytes(pointer, size))
    }

    /// columnar_backlink_count.
    public func backlinkCount(_ table: TableID, _ key: ObjectKey, from originTable: TableID,
                              _ originColumn: ColumnID) throws -> UInt64 {
        var count: UInt64 = 0
        try check(columnar_backlink_count(handle, table, key, originTable, originColumn, &count),
                  "columnar_backlink_count \(key)")
        return count
    }

    /// Every origin key (columnar_backlink_count + columnar_backlink_get), in the engine's order.
    public func backlinks(_ table: TableID, _ key: ObjectKey, from originTable: TableID,
                          _ originColumn: ColumnID) throws -> [ObjectKey] {
        let count = try backlinkCount(table, key, from: originTable, originColumn)
        return try (0..<count).map { index in
            var origin: ObjectKey = 0
            try check(columnar_backlink_get(handle, table, key, originTable, originColumn, index, &origin),
                      "columnar_backlink_get \(key)[\(index)]")
            return origin
        }
    }

    // MARK: Iteration and integrity

    /// Calls `body` with each cluster of `table` in key order (columnar_cluster_iter_*).
    public func forEachCluster(_ table: TableID, _ body: (columnar_cluster) throws -> Void) throws {
        var iterator = columnar_cluster_iter()
        try check(columnar_cluster_iter_init(handle, table, &iterator), "columnar_cluster_iter_init \(table)")
        while true {
            var cluster = columnar_cluster()
            let rc = columnar_cluster_iter_next(&iterator, &cluster)
            if rc == COLUMNAR_ENOTFOUND { return }
            try check(rc, "columnar_cluster_iter_next \(table)")
            try body(cluster)
        }
    }

    /// Every object key of `table` in iteration order.
    public func keys(_ table: TableID) throws -> [ObjectKey] {
        var keys: [ObjectKey] = []
        try forEachCluster(table) { cluster in
            var keyArray = cluster.keys
            for row in 0..<cluster.row_count {
                keys.append(columnar_array_get_int(&keyArray, row))
            }
        }
        return keys
    }

    /// columnar_verify, collecting the findings.
    public func verify() -> VerifyReport {
        final class Findings { var items: [(ref: UInt64, what: String)] = [] }
        let findings = Findings()
        var count: UInt64 = 0
        let context = Unmanaged.passRetained(findings)
        defer { context.release() }
        let rc = columnar_verify(handle, { context, ref, what in
            guard let context else { return }
            let findings = Unmanaged<Findings>.fromOpaque(context).takeUnretainedValue()
            findings.items.append((ref, what.map { String(cString: $0) } ?? ""))
        }, context.toOpaque(), &count)
        return VerifyReport(code: rc, findingCount: count, findings: findings.items)
    }
}

/// A NUL-terminated C char array (imported as a tuple) as a Swift string.
public func fixedString<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { buffer in
        let bytes = buffer.prefix(while: { $0 != 0 })
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Transaction {
    /// A scan of `table`'s clusters: calls `body` with the open scan, the cluster and its keys, in key order.
    public func forEachScannedCluster(_ table: TableID,
                                      _ body: (OpaquePointer, columnar_cluster, [ObjectKey]) throws -> Void) throws {
        var scan: OpaquePointer?
        try check(columnar_scan_open(handle, table, &scan), "columnar_scan_open")
        defer { columnar_scan_close(scan) }
        while true {
            var cluster = columnar_cluster()
            let rc = columnar_scan_next(scan, &cluster)
            if rc == COLUMNAR_ENOTFOUND { break }
            try check(rc, "columnar_scan_next")
            var keyArray = cluster.keys
            let keys = (0..<cluster.row_count).map { columnar_array_get_int(&keyArray, $0) }
            try body(scan!, cluster, keys)
        }
    }
}

/// A 64-byte key for tests of encrypted files (any fixed bytes do; the worker process uses the same).
public let testEncryptionKey: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

/// The object count of every table of the file at `path`, by table name (opened read-only; with `encryptionKey` for
/// an encrypted file).
public func objectCountsByTable(_ path: String, encryptionKey: [UInt8]? = nil) throws -> [String: UInt64] {
    let db = try TestDatabase(path: path, flags: [], encryptionKey: encryptionKey)
    defer { db.close() }
    return try db.read { txn in
        var counts: [String: UInt64] = [:]
        for table in 0..<(try txn.tableCount()) {
            guard let info = try? txn.tableInfo(table) else { continue }
            counts[try txn.tableName(table)] = info.object_count
        }
        return counts
    }
}
