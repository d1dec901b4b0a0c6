// ColumnarError: the one error type that every layer above the C engine throws.
//
// The engine returns 0 or a negative code (a COLUMNAR_E* constant from columnar.h, or -errno where an operating
// system call was the cause) and keeps the details of the failure in a thread-local record,
// columnar_last_error(). This file turns the two into one Swift value, so code above the engine never handles raw
// integers. It lives in QueryVM, the lowest Swift layer, so that QueryVM and Columnar share one type; Columnar
// re-exports it under the same name.

import CColumnar

/// An error reported by the Columnar storage engine, with the context the engine recorded where it was detected.
///
/// Errors that a correct program can meet at run time (I/O failures, a damaged file, a file locked by another
/// program, a missing table) are thrown as `ColumnarError`. ``code`` says which kind of failure it is;
/// ``message`` says what went wrong in a sentence; for a damaged file ``fileOffset`` names the place in the file
/// and ``sourceLocation`` the check in the engine that found it.
public struct ColumnarError: Error, CustomStringConvertible, Equatable {
    /// The kinds of failure, one per error code of the C engine (columnar.h), plus operating-system errors.
    public enum Code: Hashable, Sendable, CustomStringConvertible {
        /// The file, or a node in it, is damaged: a structure read from disk failed validation
        /// (`COLUMNAR_ECORRUPT`).
        case corrupt
        /// The file is not a Columnar database: its magic number is wrong (`COLUMNAR_ENOTDB`).
        case notADatabase
        /// The file was written in a format version this library cannot read (`COLUMNAR_EFORMAT`).
        case unsupportedFormat
        /// The API was used wrongly: wrong transaction kind, a bad argument, or an operation not valid in the
        /// current state (`COLUMNAR_EMISUSE`).
        case misuse
        /// No such table, column or object (`COLUMNAR_ENOTFOUND`).
        case notFound
        /// A table or column of that name, an object with that key, or that primary key value exists already
        /// (`COLUMNAR_EEXISTS`).
        case alreadyExists
        /// A value of the wrong type for the column (`COLUMNAR_ETYPE`).
        case wrongType
        /// A null value for a column that is not nullable (`COLUMNAR_ENULL`).
        case nullNotAllowed
        /// An index outside a collection's bounds (`COLUMNAR_ERANGE`).
        case outOfRange
        /// The transaction failed earlier (an I/O or fsync error); it can only be rolled back
        /// (`COLUMNAR_EPOISONED`).
        case poisoned
        /// Beginning a write would exceed the configured maximum number of live versions
        /// (`COLUMNAR_EVERSIONS`).
        case tooManyVersions
        /// The database was opened read-only (`COLUMNAR_EREADONLY`).
        case readOnly
        /// The lock file's reader table is full: too many concurrent read transactions (`COLUMNAR_EREADERS`).
        case readerTableFull
        /// A value, name or collection is larger than the format allows (`COLUMNAR_ETOOBIG`).
        case tooBig
        /// The database would grow past the address space reserved for its mapping (`COLUMNAR_EMAPFULL`).
        case mapFull
        /// The lock file is damaged or of another version, or the file is open through another path whose lock file
        /// differs (`COLUMNAR_ELOCKFILE`).
        case lockFile
        /// The storage failed a write or sync and the file could not be brought back to a known durable state: it
        /// refuses writes until every handle has closed it (`COLUMNAR_ESTORAGE`).
        case storageFailed
        /// The file's encryption and the key given do not match: an encrypted file opened without a key or with
        /// another key, or a plain file opened with a key. Nothing was changed (`COLUMNAR_EKEY`).
        case encryptionKeyMismatch
        /// An operating-system call failed with `errno` (the engine returned `-errno`).
        case io(errno: Int32)
        /// A code this version of the Swift layer does not know. The engine's error list is closed, so meeting
        /// this means the engine and this file disagree: a bug, reported rather than hidden.
        case unknown(rawValue: Int32)

        /// Every engine-specific kind, in the order of their codes in columnar.h (operating-system errors and
        /// unknown codes are open-ended and so not listed).
        public static let engineCodes: [Code] = [
            .corrupt, .notADatabase, .unsupportedFormat, .misuse, .notFound, .alreadyExists, .wrongType,
            .nullNotAllowed, .outOfRange, .poisoned, .tooManyVersions, .readOnly, .readerTableFull, .tooBig,
            .mapFull, .lockFile, .storageFailed, .encryptionKeyMismatch,
        ]

        /// The kind of failure for a code returned by the engine. `rawValue` must not be `COLUMNAR_OK`.
        public init(rawValue: Int32) {
            switch rawValue {
            case COLUMNAR_ECORRUPT: self = .corrupt
            case COLUMNAR_ENOTDB: self = .notADatabase
            case COLUMNAR_EFORMAT: self = .unsupportedFormat
            case COLUMNAR_EMISUSE: self = .misuse
            case COLUMNAR_ENOTFOUND: self = .notFound
            case COLUMNAR_EEXISTS: self = .alreadyExists
            case COLUMNAR_ETYPE: self = .wrongType
            case COLUMNAR_ENULL: self = .nullNotAllowed
            case COLUMNAR_ERANGE: self = .outOfRange
            case COLUMNAR_EPOISONED: self = .poisoned
            case COLUMNAR_EVERSIONS: self = .tooManyVersions
            case COLUMNAR_EREADONLY: self = .readOnly
            case COLUMNAR_EREADERS: self = .readerTableFull
            case COLUMNAR_ETOOBIG: self = .tooBig
            case COLUMNAR_EMAPFULL: self = .mapFull
            case COLUMNAR_ELOCKFILE: self = .lockFile
            case COLUMNAR_ESTORAGE: self = .storageFailed
            case COLUMNAR_EKEY: self = .encryptionKeyMismatch
            // columnar_strerror() treats -1 ... -4095 as -errno; the same range is used here.
            case -4095 ... -1: self = .io(errno: -rawValue)
            default: self = .unknown(rawValue: rawValue)
            }
        }

        /// The code the engine uses for this kind (`-errno` for ``io(errno:)``).
        public var rawValue: Int32 {
            switch self {
            case .corrupt: return COLUMNAR_ECORRUPT
            case .notADatabase: return COLUMNAR_ENOTDB
            case .unsupportedFormat: return COLUMNAR_EFORMAT
            case .misuse: return COLUMNAR_EMISUSE
            case .notFound: return COLUMNAR_ENOTFOUND
            case .alreadyExists: return COLUMNAR_EEXISTS
            case .wrongType: return COLUMNAR_ETYPE
            case .nullNotAllowed: return COLUMNAR_ENULL
            case .outOfRange: return COLUMNAR_ERANGE
            case .poisoned: return COLUMNAR_EPOISONED
            case .tooManyVersions: return COLUMNAR_EVERSIONS
            case .readOnly: return COLUMNAR_EREADONLY
            case .readerTableFull: return COLUMNAR_EREADERS
            case .tooBig: return COLUMNAR_ETOOBIG
            case .mapFull: return COLUMNAR_EMAPFULL
            case .lockFile: return COLUMNAR_ELOCKFILE
            case .storageFailed: return COLUMNAR_ESTORAGE
            case .encryptionKeyMismatch: return COLUMNAR_EKEY
            case .io(let errno): return -errno
            case .unknown(let rawValue): return rawValue
            }
        }

        /// The engine's name for this kind (columnar_strerror), e.g. "the database file is damaged".
        public var description: String {
            String(cString: columnar_strerror(rawValue))
        }
    }

    /// Which kind of failure this is.
    public var code: Code
    /// What went wrong, in a sentence, naming the table, column or object when the engine knew it.
    public var message: String
    /// The file offset involved (for a damaged file: the node that failed validation), when there is one.
    public var fileOffset: UInt64?
    /// The engine's source location ("file.c:line") of the check that found a corruption or misuse, when known.
    public var sourceLocation: String?

    public init(code: Code, message: String, fileOffset: UInt64? = nil, sourceLocation: String? = nil) {
        self.code = code
        self.message = message
        self.fileOffset = fileOffset
        self.sourceLocation = sourceLocation
    }

    /// For example: "the database file is damaged: node checksum mismatch (file offset 0x2a10, found by
    /// array.c:112)".
    public var description: String {
        var text = "\(code): \(message)"
        var context: [String] = []
        if let fileOffset { context.append("file offset 0x" + String(fileOffset, radix: 16)) }
        if let sourceLocation { context.append("found by \(sourceLocation)") }
        if !context.isEmpty { text += " (" + context.joined(separator: ", ") + ")" }
        return text
    }

    /// Builds the error for the code `rc` that an engine call on this thread has just returned, taking the
    /// details from columnar_last_error(). Call it before any other engine call on the same thread.
    ///
    /// Not every failure records details (an `-errno` may pass straight through); when the recorded details are
    /// of another code, they are stale and the engine's name for `rc` (columnar_strerror) is used as the message.
    package static func fromLastError(_ rc: Int32) -> ColumnarError {
        precondition(rc != COLUMNAR_OK, "ColumnarError.fromLastError called with COLUMNAR_OK")
        let code = Code(rawValue: rc)
        let info = columnar_last_error().pointee
        guard info.code == rc, let messagePointer = info.message, messagePointer.pointee != 0 else {
            return ColumnarError(code: code, message: String(cString: columnar_strerror(rc)))
        }
        let source = info.source.map { String(cString: $0) } ?? ""
        return ColumnarError(
            code: code,
            message: String(cString: messagePointer),
            fileOffset: info.ref == 0 ? nil : info.ref,
            sourceLocation: source.isEmpty ? nil : source)
    }
}
