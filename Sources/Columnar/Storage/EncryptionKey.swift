// EncryptionKey: the key of an encrypted file as the engine takes it (columnar_open_options.encryption_key, exactly
// COLUMNAR_ENCRYPTION_KEY_BYTES bytes; docs/Encryption.md).
//
// Every call that hands the engine a key (columnar_open, columnar_write_copy, columnar_compact) builds its options
// here, so the length is checked in one place, before any file is touched, and the key's bytes stay alive for
// exactly the C call that reads them (the engine keeps no pointer to them afterwards).

import CColumnar
import Foundation
import QueryVM

enum EncryptionKey {
    /// The one key length the engine accepts, as RealmSwift: 64 bytes.
    static let sizeBytes = Int(COLUMNAR_ENCRYPTION_KEY_BYTES)

    /// Throws `ColumnarError` `.misuse` unless `key` is nil or exactly `sizeBytes` long.
    static func validate(_ key: Data?) throws {
        guard let key, key.count != sizeBytes else { return }
        throw ColumnarError(code: .misuse, message: "Encryption key must be exactly \(sizeBytes) bytes long, "
                                + "not \(key.count)")
    }

    /// Calls `body` with a copy of `options` whose `encryption_key` points at `key`'s bytes (NULL when `key` is
    /// nil: a plain file). The pointer is valid only inside `body`. Throws, without calling `body`, when `key`
    /// has the wrong length.
    static func withOptions<Result>(_ options: columnar_open_options, key: Data?,
                                    _ body: (UnsafePointer<columnar_open_options>) throws -> Result) throws -> Result {
        try validate(key)
        var options = options
        guard let key else { return try withUnsafePointer(to: options, body) }
        return try key.withUnsafeBytes { bytes in
            options.encryption_key = bytes.bindMemory(to: UInt8.self).baseAddress
            return try withUnsafePointer(to: options, body)
        }
    }
}
