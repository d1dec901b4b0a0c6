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
    /// Table and column names, read once (nil while the schema cannot be read).
    private var tableNameCache: [UInt32: String] = [:]
    private var columnNameCache: [UInt64: String] = [:]

    /// columnar_inspector_open. Fails only when the file cannot be opened or mapped (a damaged file opens).
    init(path: String) throws {
        self.path = path
        var opened: OpaquePointer?
        try check(columnar_inspector_open(path, &opened))
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

    /// columnar_inspector_status: 0, or why the engine would refuse the file.
    var status: EngineFailure? {
        var message: UnsafePointer<CChar>?
        var offset: UInt64 = 0
        let code = columnar_inspector_status(handle, &message, &offset)
        if code == COLUMNAR_OK { return nil }
        return EngineFailure(code: code, message: message.map { String(cString: $0) } ?? "", offset: offset)
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

