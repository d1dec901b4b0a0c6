// FileHeader.swift — what a database file's header says, for tests that damage or inspect a file's bytes: the
// version the engine would open and its top node, as the engine's own inspector decodes them (so tests follow the
// format's rules instead of hard-coding offsets).

import CColumnar

public enum FileHeader {
    /// The slot the engine would open in the file at `path` (its whole version of the highest number) and that
    /// slot's decoded fields.
    public static func current(path: String) throws -> columnar_slot_info {
        var inspector: OpaquePointer?
        try check(columnar_inspector_open(path, &inspector), "columnar_inspector_open \(path)")
        defer { columnar_inspector_close(inspector) }
        var header = columnar_inspector_header(inspector).pointee
        guard header.current_slot >= 0 else { throw TestFailure("\(path) has no whole version") }
        let slots = withUnsafeBytes(of: &header.slots) { Array($0.bindMemory(to: columnar_slot_info.self)) }
        return slots[Int(header.current_slot)]
    }

    /// The file offset of the current version's top node.
    public static func currentTopRef(path: String) throws -> UInt64 { try current(path: path).top_ref }

    /// The file offset of the header slot that holds `version` (format.h: sector 1 + version % 15).
    public static func slotOffset(version: UInt64) -> UInt64 {
        512 * (1 + version % UInt64(COLUMNAR_HEADER_SLOTS))
    }

    /// Bytes the header occupies (format.h, CF_HEADER_BYTES).
    public static let headerBytes = 512 * (Int(COLUMNAR_HEADER_SLOTS) + 1)
}
