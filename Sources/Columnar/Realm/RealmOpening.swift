// RealmOpening: what happens before a Realm's file is opened — checking the encryption key, copying a seed file,
// compacting the file when the configuration asks for it.

import Foundation
import QueryVM

enum RealmOpening {
    /// Checks the configuration's encryption key before anything is looked up or touched: nil or exactly 64
    /// bytes, and none for an in-memory Realm (the engine encrypts files only).
    static func checkEncryption(_ configuration: Realm.Configuration) throws {
        guard let key = configuration.encryptionKey else { return }
        try EncryptionKey.validate(key)
        if let identifier = configuration.inMemoryIdentifier {
            throw ColumnarError(code: .misuse, message: "The in-memory Realm '\(identifier)' cannot be encrypted: "
                                    + "only files are; set encryptionKey to nil")
        }
    }

    /// Checks that `configuration` may use `file`, which this process opened for an earlier configuration: the
    /// engine checked the key only then, so a configuration with another key (or with a key for a plain file,
    /// or none for an encrypted one) is refused here, as the engine would refuse it.
    static func checkKey(_ configuration: Realm.Configuration, sharing file: StorageFile) throws {
        guard configuration.encryptionKey != file.encryptionKey else { return }
        let what = file.encryptionKey == nil ? "is not encrypted, but an encryption key was given"
            : configuration.encryptionKey == nil ? "is open encrypted in this process: open it with its encryption key"
            : "is open in this process with another encryption key than the one given"
        throw ColumnarError(code: .encryptionKeyMismatch, message: "The Realm at '\(file.path)' \(what)")
    }

    /// Checks the configuration, copies the seed file when the Realm has no file yet, and compacts the file when
    /// `shouldCompactOnLaunch` asks for it. (The registry has run checkEncryption already, before looking for an
    /// open Realm of the file.)
    static func prepare(_ configuration: Realm.Configuration) throws {
        if configuration.shouldCompactOnLaunch != nil && configuration.readOnly {
            // As RealmSwift: a read-only Realm cannot replace its file.
            throw ColumnarError(code: .misuse, message: "Cannot set `shouldCompactOnLaunch` when `readOnly` is set.")
        }
        try copySeed(configuration)
        try RealmCompaction.onLaunch(configuration)
    }

    private static func copySeed(_ configuration: Realm.Configuration) throws {
        guard let seed = configuration.seedFilePath, let destination = configuration.fileURL,
              configuration.inMemoryIdentifier == nil else { return }
        let manager = FileManager.default
        if manager.fileExists(atPath: destination.path) { return }
        guard manager.fileExists(atPath: seed.path) else {
            throw ColumnarError(code: .io(errno: ENOENT), message: "The seed file '\(seed.path)' does not exist")
        }
        // Copied beside the destination and synced, then renamed into place: a crash leaves no half-copied file
        // where the Realm would open it.
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).seed-\(getpid())")
        try? manager.removeItem(at: temporary)
        do {
            try manager.copyItem(at: seed, to: temporary)
            try sync(temporary.path)
            if rename(temporary.path, destination.path) != 0 {
                throw ColumnarError(code: .io(errno: errno), message: "Cannot move the copied seed file to "
                                        + "'\(destination.path)': \(String(cString: strerror(errno)))")
            }
            try sync(destination.deletingLastPathComponent().path)
        } catch let error as ColumnarError {
            try? manager.removeItem(at: temporary)
            throw error
        } catch {
            try? manager.removeItem(at: temporary)
            throw ColumnarError(code: .io(errno: EIO), message: "Cannot copy the seed file '\(seed.path)' to "
                                    + "'\(destination.path)': \(error)")
        }
    }

    private static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw ColumnarError(code: .io(errno: errno), message: "Cannot open '\(path)' to sync it")
        }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 {
            throw ColumnarError(code: .io(errno: errno), message: "Cannot sync '\(path)': "
                                    + String(cString: strerror(errno)))
        }
    }
}
