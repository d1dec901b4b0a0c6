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

        /// Open the file read-only: writing is refused.
        public var readOnly: Bool = false
        /// The version of the schema; recorded for migrations.
        public var schemaVersion: UInt64 = 0
        /// The model classes of this Realm. nil: classes are added to the file as they are first used.
        public var objectTypes: [ObjectBase.Type]?
        /// The most versions that may be live at once (pinned by readers, frozen objects, plus the latest) before
        /// beginning a write fails. nil: no limit.
        public var maximumNumberOfActiveVersions: UInt?

        public init(fileURL: URL? = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                        .appendingPathComponent("default.realm"),
                    inMemoryIdentifier: String? = nil,
                    readOnly: Bool = false,
                    schemaVersion: UInt64 = 0,
                    objectTypes: [ObjectBase.Type]? = nil,
                    maximumNumberOfActiveVersions: UInt? = nil) {
            self.storedFileURL = inMemoryIdentifier == nil ? fileURL : nil
            self.storedInMemoryIdentifier = inMemoryIdentifier
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.objectTypes = objectTypes
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
