// Inspector.swift — the Swift face of the engine's read-only inspector (columnar.h, "Inspection").
//
// Every call into CColumnar's inspection API goes through this type and its extensions; the commands never call
// C themselves. The inspector maps the file read-only and never touches the lock file, so nothing here can change
// the database (columnar_inspector_open).

import CColumnar
import Foundation

/// A failure reported by the engine, with the details columnar_last_error() gave for it.
struct EngineFailure: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    /// File offset involved (corruption), or 0.
    let offset: UInt64

    /// Reads the calling thread's last-error details for `code`.
    init(code: Int32) {
        self.code = code
        let info = columnar_last_error().pointee
        if info.code == code, let text = info.message.map({ String(cString: $0) }), !text.isEmpty {
            message = text
            offset = info.ref
        } else {
            message = String(cString: columnar_strerror(code))
            offset = 0
        }
    }

    init(code: Int32, message: String, offset: UInt64) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    var description: String { message }

    /// Whether the failure says the file is damaged (rather than missing, unreadable, or not a database).
    var isCorruption: Bool { code == COLUMNAR_ECORRUPT }
}

/// Throws EngineFailure unless `code` is COLUMNAR_OK.
func check(_ code: Int32) throws {
    if code != COLUMNAR_OK { throw EngineFailure(code: code) }
}

/// One open file (columnar_inspector). Not shared between threads.
final class Inspector {
    let path: String
    let handle: OpaquePointer
    /// The key the file was opened with, for the advice a key mismatch comes with (keyAdvice).
    private let key: EncryptionKey?
    /// Table and column names, read once (nil while the schema cannot be read).
    private var tableNameCache: [UInt32: String] = [:]
    private var columnNameCache: [UInt64: String] = [:]

    /// columnar_inspector_open_with_key. Fails when the file cannot be opened or mapped, or when `key` is given and
    /// the file is not encrypted with it (COLUMNAR_EKEY); a damaged file opens, and so does an encrypted one
    /// without a key (its status is then COLUMNAR_EKEY and only its header can be inspected).
    init(path: String, key: EncryptionKey? = nil) throws {
        self.path = path
        self.key = key
        var opened: OpaquePointer?
        try key.withUnsafeKeyBytes { bytes in try check(columnar_inspector_open_with_key(path, bytes, &opened)) }
        handle = opened!
    }

    deinit { columnar_inspector_close(handle) }

    /// The header's sector size (format.h, CF_SECTOR_BYTES): the identity and each commit slot fill one sector.
    static let sectorBytes: UInt64 = 512
    /// The header's size (format.h, CF_HEADER_BYTES): the identity sector and one sector per commit slot.
    static let headerBytes: UInt64 = sectorBytes * UInt64(1 + COLUMNAR_HEADER_SLOTS)

    /// columnar_inspector_header: the header decoded field by field.
    var header: columnar_header_info { columnar_inspector_header(handle).pointee }

    /// The header's commit slots, in slot order (slot i is sector i + 1).
    var slots: [columnar_slot_info] {
        var header = self.header
        return withUnsafeBytes(of: &header.slots) { Array($0.bindMemory(to: columnar_slot_info.self)) }
    }

    /// Whether the file is encrypted, as its identity sector says (when that sector is sound: the bytes of a file
    /// that is not a database say nothing).
    var isEncrypted: Bool {
        let header = self.header
        return header.magic_valid && header.identity_checksum_valid && header.encryption != 0
    }

    /// Whether the file is encrypted and no key was given: only its header, which is not encrypted, can be read.
    var isEncryptedWithoutKey: Bool { key == nil && isEncrypted }

    /// columnar_inspector_status: 0, or why the engine would refuse the file (for an encrypted file without its
    /// key, with how to give it).
    var status: EngineFailure? {
        var message: UnsafePointer<CChar>?
        var offset: UInt64 = 0
        let code = columnar_inspector_status(handle, &message, &offset)
        let text = message.map { String(cString: $0) } ?? ""
        if code == COLUMNAR_OK { return nil }
        return EngineFailure(code: code, message: text + keyAdvice(code, key: key), offset: offset)
    }

    /// columnar_inspector_select_slot.
    func selectSlot(_ slot: Int) throws {
        try check(columnar_inspector_select_slot(handle, Int32(slot)))
        tableNameCache = [:]
        columnNameCache = [:]
    }

    /// columnar_inspect_version_get: the version's description, and what could not be read of it.
    func version() -> (version: columnar_inspect_version, failure: EngineFailure?) {
        var version = columnar_inspect_version()
        let code = columnar_inspect_version_get(handle, &version)
        return (version, code == COLUMNAR_OK ? nil : EngineFailure(code: code))
    }

    /// Whether a version can be inspected (a usable header slot is selected).
    var hasVersion: Bool { version().version.slot >= 0 }
}

/// A C char array imported as a tuple, as a Swift string (up to the first NUL; invalid UTF-8 repaired).
func fixedString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { buffer in
        String(decoding: buffer.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}

