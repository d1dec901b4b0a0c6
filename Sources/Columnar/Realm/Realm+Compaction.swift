// Realm+Compaction: dense copies of a Realm's file — `writeCopy` while the Realm is in use, and compaction of a
// file nobody has open (`shouldCompactOnLaunch` at open, `Realm.compact` when asked). Both rebuild the file
// through the engine's object API (columnar_write_copy, columnar_compact): full clusters, collections and indexes
// written in order, removed classes and properties gone.

import CColumnar
import Foundation
import QueryVM

extension Realm {
    /// Writes a compacted copy of this Realm, as this Realm sees it now, to a new file at `fileURL`.
    ///
    /// Other threads and processes go on reading and writing meanwhile. The copy is written under a temporary
    /// name beside `fileURL`, made durable, and then put in place, so a crash leaves no file at `fileURL` or a
    /// complete one. As in RealmSwift, the copy is encrypted with `encryptionKey` (64 bytes), whatever this
    /// Realm's own key, and is a plain file when it is nil: this is how a file is encrypted, decrypted or given
    /// another key. Throws `Realm.Error` with code `.fileExists` when a file is already there, and refuses a key of
    /// another length or a call inside a write transaction (its changes are not committed yet).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        guard !isInWriteTransaction else {
            throw Realm.Error(code: .fail, message: "Cannot write a copy of a Realm inside a write transaction: "
                                  + "commit or cancel it first", fileURL: fileURL)
        }
        do {
            try EncryptionKey.withOptions(columnar_open_options(), key: encryptionKey) { options in
                try Engine.check(columnar_write_copy(core.currentTransaction, fileURL.path, options))
            }
        } catch {
            throw Realm.Error.converting(error, fileURL: fileURL)
        }
    }

    /// Writes a compacted copy of this Realm to the file of `configuration`, encrypted with its key (as
    /// `writeCopy(toFile:encryptionKey:)`).
    public func writeCopy(configuration: Realm.Configuration) throws {
        guard configuration.inMemoryIdentifier == nil, let fileURL = configuration.fileURL else {
            throw Realm.Error(code: .fail, message: "Cannot write a copy of a Realm to an in-memory configuration: "
                                  + "give it a fileURL", fileURL: nil)
        }
        try writeCopy(toFile: fileURL, encryptionKey: configuration.encryptionKey)
    }

    /// Compacts the file of `configuration` now, when no Realm in any thread or process has it open: the file is
    /// replaced by a dense copy of itself (the old file or the new one is in place at every moment, complete).
    /// An encrypted file is read with `configuration.encryptionKey` and stays encrypted with it.
    ///
    /// Columnar's own addition; RealmSwift compacts only at open (`Configuration.shouldCompactOnLaunch`).
    /// - Returns: whether the file was compacted: false when it is open somewhere, or when
    ///   `configuration.shouldCompactOnLaunch` is set and declines.
    /// - Throws: `Realm.Error` (`.fileNotFound` without a file, `.fileAccess` when the key does not match the
    ///   file, or the failure that stopped it, the file then unchanged).
    @discardableResult
    public static func compact(configuration: Configuration = .defaultConfiguration) throws -> Bool {
        guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else { return false }
        return try RealmCompaction.run(path: url.path, encryptionKey: configuration.encryptionKey,
                                       decide: configuration.shouldCompactOnLaunch)
    }
}

/// The call into columnar_compact, with a Swift closure as its decision.
enum RealmCompaction {
    private final class Decision {
        let decide: (Int, Int) -> Bool
        init(_ decide: @escaping (Int, Int) -> Bool) { self.decide = decide }
    }

    /// Compacts the file at `path`, encrypted with `encryptionKey` (nil: a plain file), unless it is open (false)
    /// or `decide` declines (false).
    static func run(path: String, encryptionKey: Data?, decide: ((Int, Int) -> Bool)?) throws -> Bool {
        FileChangeWatcher.ifActive?.waitForPass()
        var result = columnar_compact_result()
        let rc: Int32
        do {
            rc = try EncryptionKey.withOptions(columnar_open_options(), key: encryptionKey) { options in
                guard let decide else { return columnar_compact(path, options, nil, nil, &result) }
                let decision = Decision(decide)
                return withExtendedLifetime(decision) {
                    columnar_compact(path, options, { size, used, context in
                        let decision = Unmanaged<Decision>.fromOpaque(context!).takeUnretainedValue()
                        return decision.decide(Int(clamping: size), Int(clamping: used))
                    }, Unmanaged.passUnretained(decision).toOpaque(), &result)
                }
            }
        } catch {
            throw Realm.Error.converting(error, fileURL: URL(fileURLWithPath: path))
        }
        if rc == -EBUSY { return false }
        guard rc == COLUMNAR_OK else {
            throw Realm.Error.converting(ColumnarError.fromLastError(rc), fileURL: URL(fileURLWithPath: path))
        }
        return result.compacted
    }

    /// `shouldCompactOnLaunch` at open: before the Realm's first handle of the file in this process, when the file
    /// exists. Skipped, as in RealmSwift, when another process (or thread) has the file open.
    static func onLaunch(_ configuration: Realm.Configuration) throws {
        guard let decide = configuration.shouldCompactOnLaunch, configuration.inMemoryIdentifier == nil,
              let url = configuration.fileURL, FileManager.default.fileExists(atPath: url.path) else { return }
        _ = try run(path: url.path, encryptionKey: configuration.encryptionKey, decide: decide)
    }
}
