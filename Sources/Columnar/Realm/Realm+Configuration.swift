// Realm.Configuration: where a Realm lives and how it is opened (RealmSwift's names and semantics).

import Foundation

extension Realm {
    public struct Configuration: @unchecked Sendable {
        /// The configuration `Realm()` uses. Its default file is `default.realm` in the current directory.
        nonisolated(unsafe) public static var defaultConfiguration = Configuration()

        private var storedFileURL: URL?
        private var storedInMemoryIdentifier: String?

        /// The file of the Realm. Setting it clears `inMemoryIdentifier`.
        public var fileURL: URL? {
            get { storedFileURL }
            set {
                storedFileURL = newValue
                if newValue != nil { storedInMemoryIdentifier = nil }
            }
        }

        /// Names an in-memory Realm (nothing on disk; shared by Realms with the same identifier in the process
        /// while any is open). Setting it clears `fileURL`.
        public var inMemoryIdentifier: String? {
            get { storedInMemoryIdentifier }
            set {
                storedInMemoryIdentifier = newValue
                if newValue != nil { storedFileURL = nil }
            }
        }

        /// The 64-byte key the file is encrypted with (docs/Encryption.md); nil for a plain file. A new file is
        /// created encrypted with it. Opening an encrypted file without its key or with another one, or a plain
        /// file with a key, throws `Realm.Error` `.fileAccess` ("Realm file decryption failed") and changes
        /// nothing; a key of another length, or a key for an in-memory Realm, is refused before anything is done.
        /// Every Realm of a file in a process must use the same key.
        public var encryptionKey: Data?
        /// Open the file read-only: writing is refused.
        public var readOnly: Bool = false
        /// The version of the model classes' schema. It is stored in the file; opening a file with a lower version
        /// than the stored one throws, and opening it with a higher one runs a migration (see `migrationBlock`).
        public var schemaVersion: UInt64 = 0
        /// Called inside the migration's write transaction when the file's schema version is lower than
        /// `schemaVersion`, with the stored version (see the "Schema Versions and Migrations" article).
        public var migrationBlock: MigrationBlock?
        /// Delete the file and start again, empty, instead of migrating: when the stored schema version differs
        /// from `schemaVersion`, or a class of `objectTypes` is stored with properties of other types.
        public var deleteRealmIfMigrationNeeded: Bool = false
        /// RealmSwift's compaction at first open: asked with the file's total and used bytes before the file's
        /// first Realm in the process opens it, when no other process has it open; true replaces the file by a
        /// dense copy of itself (encrypted with `encryptionKey` when the file is). Not with `readOnly`.
        public var shouldCompactOnLaunch: ((Int, Int) -> Bool)?
        /// The model classes of this Realm. nil: classes are added to the file as they are first used.
        public var objectTypes: [ObjectBase.Type]?
        /// The most versions that may be live at once (pinned by readers, frozen objects, plus the latest) before
        /// beginning a write fails. nil: no limit.
        public var maximumNumberOfActiveVersions: UInt?
        /// A Realm file copied to `fileURL` when the Realm is first opened and no file exists there yet.
        public var seedFilePath: URL?

        public init(fileURL: URL? = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                        .appendingPathComponent("default.realm"),
                    inMemoryIdentifier: String? = nil,
                    encryptionKey: Data? = nil,
                    readOnly: Bool = false,
                    schemaVersion: UInt64 = 0,
                    migrationBlock: MigrationBlock? = nil,
                    deleteRealmIfMigrationNeeded: Bool = false,
                    shouldCompactOnLaunch: ((Int, Int) -> Bool)? = nil,
                    objectTypes: [ObjectBase.Type]? = nil,
                    seedFilePath: URL? = nil,
                    maximumNumberOfActiveVersions: UInt? = nil) {
            self.storedFileURL = inMemoryIdentifier == nil ? fileURL : nil
            self.storedInMemoryIdentifier = inMemoryIdentifier
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.seedFilePath = seedFilePath
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
        }

        /// The path (or in-memory identifier) that identifies the Realm, and whether it is in memory.
        var storageIdentity: (path: String, inMemory: Bool) {
            if let storedInMemoryIdentifier { return (storedInMemoryIdentifier, true) }
            guard let url = storedFileURL else {
                fatalError("A Realm configuration needs a fileURL or an inMemoryIdentifier")
            }
            return (url.path, false)
        }
    }
}

// RealmSwift's Configuration is Equatable and CustomStringConvertible, and programs compare configurations (to tell
// whether a Realm was opened with a given one) and print them; both are declared here so that such code compiles.

extension Realm.Configuration: Equatable {
    /// Whether both configurations open the same Realm the same way: the same file or in-memory identifier,
    /// encryption key, read-only flag and schema version (the settings RealmSwift compares; blocks cannot be
    /// compared, and the other settings only matter when a file is first opened or migrated).
    public static func == (lhs: Realm.Configuration, rhs: Realm.Configuration) -> Bool {
        lhs.fileURL == rhs.fileURL && lhs.inMemoryIdentifier == rhs.inMemoryIdentifier
            && lhs.encryptionKey == rhs.encryptionKey && lhs.readOnly == rhs.readOnly
            && lhs.schemaVersion == rhs.schemaVersion
    }
}

extension Realm.Configuration: CustomStringConvertible {
    /// Every setting on a line of its own, in the layout RealmSwift prints (`Realm.Configuration { … }`).
    public var description: String {
        func show(_ value: Any?) -> String { value.map { "\($0)" } ?? "nil" }
        let settings: [(String, String)] = [
            ("fileURL", show(fileURL)),
            ("inMemoryIdentifier", show(inMemoryIdentifier)),
            ("encryptionKey", encryptionKey == nil ? "nil" : "<\(encryptionKey!.count) bytes>"),
            ("readOnly", "\(readOnly)"),
            ("schemaVersion", "\(schemaVersion)"),
            ("migrationBlock", migrationBlock == nil ? "nil" : "<block>"),
            ("deleteRealmIfMigrationNeeded", "\(deleteRealmIfMigrationNeeded)"),
            ("objectTypes", show(objectTypes.map { types in "[" + types.map { "\($0)" }.joined(separator: ", ") + "]" })),
            ("seedFilePath", show(seedFilePath)),
            ("maximumNumberOfActiveVersions", show(maximumNumberOfActiveVersions)),
        ]
        return "Realm.Configuration {\n" + settings.map { "\t\($0) = \($1);\n" }.joined() + "}"
    }
}
