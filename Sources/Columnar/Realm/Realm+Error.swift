// Realm+Error: `Realm.Error`, what RealmSwift's throwing calls throw, with RealmSwift's codes.
//
// Ported code catches `Realm.Error` and tests its code (`catch let error as Realm.Error where error.code ==
// .fileNotFound`, `catch Realm.Error.schemaMismatch`). The calls RealmSwift declares `throws` (opening a Realm,
// `write`, `commitWrite`, `schemaVersionAtURL`) therefore throw this type here; the engine's `ColumnarError`, which
// says more (the errno, the offset of a damaged node), rides along as `underlyingError`. Columnar's own throwing
// calls (`filter(checking:)`, `ObjectId(string:)`, the C-level API) keep throwing `ColumnarError`, as an error
// from the user's own closure passed to `write` is rethrown unchanged.

import Foundation
import QueryVM

extension Realm {
    /// An error thrown by opening a Realm, writing to it, or reading a file's schema version, as RealmSwift's
    /// `Realm.Error` (`RLMError`).
    public struct Error: Swift.Error, CustomStringConvertible, LocalizedError, Equatable {
        /// RealmSwift's error codes, with their raw values.
        public enum Code: Int, Sendable, CustomStringConvertible {
            /// A failure that has no more specific code.
            case fail = 1
            /// The file could not be read or written, or (RealmSwift's "Realm file decryption failed") its
            /// encryption and the key given do not match.
            case fileAccess = 2
            /// The process lacks permission to open or create the file in the asked mode.
            case filePermissionDenied = 3
            /// A file that was to be written exists already.
            case fileExists = 4
            /// The file, or the directory it was to be made in, does not exist.
            case fileNotFound = 5
            /// The file needs a format upgrade that cannot be made (RealmSwift: upgrades disabled or read-only).
            case fileFormatUpgradeRequired = 6
            /// The lock file beside the database cannot be shared with this process.
            case incompatibleLockFile = 8
            /// The file cannot be mapped: the address space reserved for it is exhausted.
            case addressSpaceExhausted = 9
            /// The models differ from the file's schema and the schema version does not allow a migration.
            case schemaMismatch = 10
            /// The operation cannot be done on a file that is open.
            case alreadyOpen = 12
            /// An argument was invalid.
            case invalidInput = 13
            /// A write failed for lack of disk space.
            case outOfDiskSpace = 14
            /// Another process has the file open in a way that cannot be shared.
            case incompatibleSession = 15
            /// The file's format version is not one this library reads.
            case unsupportedFileFormatVersion = 16
            /// A file operation failed in a way no other code describes (here: the storage failed a write or
            /// sync and the file refuses writes until every handle has closed it).
            case fileOperationFailed = 19
            /// The file is not a database, or it is damaged.
            case invalidDatabase = 20

            public var description: String {
                switch self {
                case .fail: "fail"
                case .fileAccess: "fileAccess"
                case .filePermissionDenied: "filePermissionDenied"
                case .fileExists: "fileExists"
                case .fileNotFound: "fileNotFound"
                case .fileFormatUpgradeRequired: "fileFormatUpgradeRequired"
                case .incompatibleLockFile: "incompatibleLockFile"
                case .addressSpaceExhausted: "addressSpaceExhausted"
                case .schemaMismatch: "schemaMismatch"
                case .alreadyOpen: "alreadyOpen"
                case .invalidInput: "invalidInput"
                case .outOfDiskSpace: "outOfDiskSpace"
                case .incompatibleSession: "incompatibleSession"
                case .unsupportedFileFormatVersion: "unsupportedFileFormatVersion"
                case .fileOperationFailed: "fileOperationFailed"
                case .invalidDatabase: "invalidDatabase"
                }
            }

            /// `catch Realm.Error.fileNotFound { … }`: whether `error` is a `Realm.Error` with this code.
            public static func ~= (code: Code, error: Swift.Error) -> Bool {
                (error as? Realm.Error)?.code == code
            }
        }

        public let code: Code
        /// What went wrong, in a sentence or, for a schema mismatch, RealmSwift's list of differences.
        public let message: String
        /// The file concerned, when there is one.
        public let fileURL: URL?
        /// The engine's error beneath, when the failure came from it (its errno, the offset of a damaged node).
        public let underlyingError: ColumnarError?

        public init(code: Code, message: String, fileURL: URL? = nil, underlyingError: ColumnarError? = nil) {
            self.code = code
            self.message = message
            self.fileURL = fileURL
            self.underlyingError = underlyingError
        }

        public var description: String { message }
        public var errorDescription: String? { message }
        public var localizedDescription: String { message }

        public static func == (lhs: Error, rhs: Error) -> Bool {
            lhs.code == rhs.code && lhs.message == rhs.message && lhs.fileURL == rhs.fileURL
        }

        // RealmSwift spells the codes as static members of the error type too (`Realm.Error.fileNotFound`).
        public static var fail: Code { .fail }
        public static var fileAccess: Code { .fileAccess }
        public static var filePermissionDenied: Code { .filePermissionDenied }
        public static var fileExists: Code { .fileExists }
        public static var fileNotFound: Code { .fileNotFound }
        public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
        public static var incompatibleLockFile: Code { .incompatibleLockFile }
        public static var addressSpaceExhausted: Code { .addressSpaceExhausted }
        public static var schemaMismatch: Code { .schemaMismatch }
        public static var alreadyOpen: Code { .alreadyOpen }
        public static var invalidInput: Code { .invalidInput }
        public static var outOfDiskSpace: Code { .outOfDiskSpace }
        public static var incompatibleSession: Code { .incompatibleSession }
        public static var unsupportedFileFormatVersion: Code { .unsupportedFileFormatVersion }
        public static var fileOperationFailed: Code { .fileOperationFailed }
        public static var invalidDatabase: Code { .invalidDatabase }

        /// The Realm.Error for an error of Columnar's own layers, so a throwing RealmSwift call throws one type.
        static func converting(_ error: Swift.Error, fileURL: URL?) -> Swift.Error {
            switch error {
            case let error as Realm.Error:
                return error
            case let mismatch as SchemaMismatch:
                return Realm.Error(code: .schemaMismatch, message: mismatch.description, fileURL: fileURL)
            case let older as OlderSchemaVersion:
                return Realm.Error(code: .schemaMismatch, message: older.description, fileURL: fileURL)
            case let error as ColumnarError:
                // A key that does not match the file is told in RealmSwift's words too, which ported code may
                // look for.
                let message = error.code == .encryptionKeyMismatch
                    ? "Realm file decryption failed: \(error.description)" : error.description
                return Realm.Error(code: code(for: error), message: message, fileURL: fileURL, underlyingError: error)
            default:
                return error
            }
        }

        private static func code(for error: ColumnarError) -> Code {
            switch error.code {
            case .io(let errno):
                switch errno {
                case ENOENT, ENOTDIR: return .fileNotFound
                case EACCES, EPERM, EROFS: return .filePermissionDenied
                case EEXIST: return .fileExists
                case EBUSY: return .alreadyOpen
                case ENOSPC, EDQUOT: return .outOfDiskSpace
                default: return .fileAccess
                }
            case .notADatabase, .corrupt: return .invalidDatabase
            case .unsupportedFormat: return .unsupportedFileFormatVersion
            case .lockFile: return .incompatibleLockFile
            case .mapFull: return .addressSpaceExhausted
            case .storageFailed, .poisoned: return .fileOperationFailed
            case .encryptionKeyMismatch: return .fileAccess
            default: return .fail
            }
        }
    }
}
