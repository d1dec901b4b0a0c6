// Realm+Files: RealmSwift's file management — whether a configuration's file exists, deleting a Realm's files, and
// running a configuration's migration without keeping the Realm open.

import CColumnar
import Foundation
import QueryVM

extension Realm {
    /// Whether the file of `config` exists. A configuration of an in-memory Realm has no file.
    public static func fileExists(for config: Configuration) -> Bool {
        guard config.inMemoryIdentifier == nil, let url = config.fileURL else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// Deletes the file of `config` (the file its path resolves to) and the lock file Columnar keeps beside it.
    ///
    /// Refused with `Realm.Error.alreadyOpen` while any Realm, thread or process has the file open: every handle
    /// of the file holds a lock that the deletion must take alone, and an open that reached the file just before
    /// the deletion starts over and finds it gone (so it never goes on with a deleted file). A configuration of an
    /// in-memory Realm has no files.
    ///
    /// - Returns: whether the file existed and was deleted.
    @discardableResult
    public static func deleteFiles(for config: Configuration) throws -> Bool {
        guard config.inMemoryIdentifier == nil, let url = config.fileURL else { return false }
        var deleted = false
        FileChangeWatcher.ifActive?.waitForPass()
        let rc = columnar_delete_files(url.path, &deleted)
        guard rc == COLUMNAR_OK else {
            throw Realm.Error.converting(ColumnarError.fromLastError(rc), fileURL: url)
        }
        return deleted
    }

    /// Runs the migration of `configuration` now (opening the Realm runs it too): the Realm is opened, migrated
    /// to the configuration's schema version, and closed again unless it is open elsewhere in the process.
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        _ = try Realm(configuration: configuration)
    }
}
