// FileSurgery.swift — reading a database file's structure in process (through the engine's inspection API) and
// changing single bytes, values and checksums in it, for the tests that damage files on purpose (the inspection
// tool's damaged variants, the engine's fuzz regressions).
//
// Where damage lands decides what it looks like. Recovery checks the ranges the current version's commit record
// lists (what the commits since the last durable version wrote): damage there makes that version not whole, and
// the engine and the tool open the version before it, as after a crash. Damage anywhere else is found by the
// integrity walk. FileStructure.isRecorded tells the two apart.
//
// The damage is made realistic where a test wants a logical fault rather than a checksum failure: after changing
// a node's payload the node's CRC-32C is recomputed (columnar_inspect_node_decode computes it), so that only the
// logical check the test is about can find the fault.

import CColumnar
import Foundation

/// One live node of a version (columnar_inspect_node, strings copied).
public struct LiveNode {
    public let ref: UInt64
    public let sizeBytes: UInt64
    public let payloadBytes: UInt64
    public let parentRef: UInt64
    public let parentRole: UInt8
    public let position: UInt32
    public let depth: UInt32
    public let role: UInt8
    public let roleName: String
    public let roleDetail: UInt8
    public let encoding: columnar_encoding
    public let width: UInt32
    public let count: UInt64
    public let table: UInt32
    public let column: UInt32
    public let inIndex: Bool
    public let inCollection: Bool
    public let what: String

    public var end: UInt64 { ref + sizeBytes }
}

/// One range a commit record lists: `sizeBytes` at `pos`, written by the commit of `version`.
public struct RecordedRange {
    public let pos: UInt64
    public let sizeBytes: UInt64
    public let version: UInt64

    public func contains(_ node: LiveNode) -> Bool { node.ref < pos + sizeBytes && node.end > pos }
}

/// The structure of a file as the inspector sees it.
public struct FileStructure {
    public let nodes: [LiveNode]
    public let freeList: [columnar_free_entry]
    public let damage: [(ref: UInt64, what: String)]
    public let version: columnar_inspect_version
    public let header: columnar_header_info
    /// The ranges the inspected version's commit record lists: what recovery checks before it opens the version.
    public let record: [RecordedRange]

    /// The header's commit slots, in slot order.
    public var slots: [columnar_slot_info] {
        var header = self.header
        return withUnsafeBytes(of: &header.slots) { Array($0.bindMemory(to: columnar_slot_info.self)) }
    }

    /// Whether a commit the inspected version's record lists wrote any byte of `node` (damage there makes the
    /// version not whole, so the engine and the tool fall back to the version before it).
    public func isRecorded(_ node: LiveNode) -> Bool {
        node.role == FileStructure.roleTop || node.role == FileStructure.roleCommitRecord
            || record.contains { $0.contains(node) }
    }

    public static let roleTop: UInt8 = 1
    public static let roleCommitRecord: UInt8 = 19

    /// Reads the current version of the file at `path`, or the version of header slot `slot`.
    public static func read(_ path: String, slot: Int? = nil) throws -> FileStructure {
        var opened: OpaquePointer?
        try check(columnar_inspector_open(path, &opened), "columnar_inspector_open \(path)")
        let inspector = opened!
        defer { columnar_inspector_close(inspector) }
        if let slot { try check(columnar_inspector_select_slot(inspector, Int32(slot)), "select slot \(slot)") }
        final class Collector {
            var nodes: [LiveNode] = []
            var damage: [(UInt64, String)] = []
            var free: [columnar_free_entry] = []
        }
        let collector = Collector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        try check(columnar_inspect_walk(inspector, { context, node in
            let n = node!.pointee
            Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue().nodes.append(LiveNode(
                ref: n.ref, sizeBytes: n.size_bytes, payloadBytes: n.payload_bytes, parentRef: n.parent_ref,
                parentRole: n.parent_role, position: n.position, depth: n.depth, role: n.role,
                roleName: String(cString: n.role_name),
                roleDetail: n.role_detail, encoding: n.encoding, width: n.width, count: n.count, table: n.table,
                column: n.column, inIndex: n.in_index, inCollection: n.in_collection, what: String(cString: n.what)))
            return 0
        }, { context, ref, what in
            Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue().damage.append(
                (ref, what.map { String(cString: $0) } ?? ""))
        }, context), "columnar_inspect_walk")
        _ = columnar_inspect_free_list(inspector, { context, entry in
            Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue().free.append(entry!.pointee)
            return 0
        }, context)
        var version = columnar_inspect_version()
        _ = columnar_inspect_version_get(inspector, &version)
        var record: [RecordedRange] = []
        if let node = collector.nodes.first(where: { $0.role == roleCommitRecord && $0.parentRef == version.top_ref }) {
            var detail = columnar_inspect_node_detail()
            try check(columnar_inspect_node_decode(inspector, node.ref, &detail), "decode the commit record")
            var array = detail.array
            let field = { (index: UInt64) in UInt64(bitPattern: columnar_array_get_int(&array, index)) }
            record = stride(from: 0, to: array.count, by: 4).map {
                RecordedRange(pos: field($0), sizeBytes: field($0 + 1), version: field($0 + 3))
            }
        }
        return FileStructure(nodes: collector.nodes, freeList: collector.free, damage: collector.damage,
                             version: version, header: columnar_inspector_header(inspector).pointee, record: record)
    }

    public func node(at ref: UInt64) -> LiveNode? { nodes.first { $0.ref == ref } }

    /// The live nodes of table `table`'s column `column` (not its index) with `role`.
    public func nodes(table: TableID, column: ColumnID, role: UInt8, inIndex: Bool = false) -> [LiveNode] {
        nodes.filter { $0.table == table && $0.column == column && $0.role == role && $0.inIndex == inIndex }
    }
}

/// Byte-level changes to a file.
public enum FileSurgery {
    public static let roleCluster: UInt8 = 11
    public static let roleColumn: UInt8 = 13
    public static let roleValues: UInt8 = 14
    public static let roleNulls: UInt8 = 16
    public static let roleBlob: UInt8 = 15
    public static let roleFreePos: UInt8 = 5
    public static let roleFreeSize: UInt8 = 6

    /// The header (format.h): an identity sector and 15 commit slots, one 512-byte sector each.
    public static let headerBytes = UInt64(FileHeader.headerBytes)

    /// The file offset of header slot `slot` (0 ... 14): sector 1 + slot.
    public static func slotOffset(_ slot: Int) -> UInt64 { 512 * UInt64(1 + slot) }
    /// The header slot that holds `version`.
    public static func slot(of version: UInt64) -> Int { Int(version % UInt64(COLUMNAR_HEADER_SLOTS)) }

    public static func read(_ path: String, at offset: UInt64, count: Int) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        return Array(try handle.read(upToCount: count) ?? Data())
    }

    public static func write(_ path: String, at offset: UInt64, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(bytes))
    }

    public static func readUInt64(_ path: String, at offset: UInt64) throws -> UInt64 {
        try read(path, at: offset, count: 8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
    }

    public static func writeUInt64(_ path: String, at offset: UInt64, _ value: UInt64) throws {
        try write(path, at: offset, (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    /// Recomputes and stores the CRC-32C of the node at `ref` (after its payload was changed).
    public static func fixChecksum(_ path: String, ref: UInt64) throws {
        var opened: OpaquePointer?
        try check(columnar_inspector_open(path, &opened))
        defer { columnar_inspector_close(opened) }
        var detail = columnar_inspect_node_detail()
        try check(columnar_inspect_node_decode(opened, ref, &detail), "decode \(ref)")
        let crc = detail.computed_checksum
        try write(path, at: ref, (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) })
    }

    /// Element `index` of the packed-int payload of the node at `ref` with `width` bits.
    public static func packedGet(_ path: String, ref: UInt64, width: UInt32, index: UInt64) throws -> Int64 {
        let payload = ref + 16
        switch width {
        case 0: return 0
        case 1, 2, 4:
            let perByte = UInt64(8 / width)
            let byte = try read(path, at: payload + index / perByte, count: 1)[0]
            return Int64((byte >> (UInt8(index % perByte) * UInt8(width))) & UInt8((1 << width) - 1))
        default:
            let bytes = try read(path, at: payload + index * UInt64(width / 8), count: Int(width / 8))
            var value: UInt64 = 0
            for (shift, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * shift) }
            let unused = 64 - UInt64(width)
            return Int64(bitPattern: value << unused) >> Int64(unused)
        }
    }

    /// Stores `value` (which must fit) as element `index` of the packed-int payload at `ref`.
    public static func packedSet(_ path: String, ref: UInt64, width: UInt32, index: UInt64, _ value: Int64) throws {
        let payload = ref + 16
        switch width {
        case 1, 2, 4:
            let perByte = UInt64(8 / width)
            let at = payload + index / perByte
            var byte = try read(path, at: at, count: 1)[0]
            let shift = UInt8(index % perByte) * UInt8(width)
            let mask = UInt8((1 << width) - 1) << shift
            byte = (byte & ~mask) | ((UInt8(truncatingIfNeeded: value) << shift) & mask)
            try write(path, at: at, [byte])
        default:
            let count = Int(width / 8)
            try write(path, at: payload + index * UInt64(count),
                      (0..<count).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (8 * $0)) })
        }
    }
}

/// What a file looked like: its bytes and modification time (to nanoseconds).
public struct FileSnapshot: Equatable {
    public let exists: Bool
    public let bytes: Data
    public let modificationSeconds: Int
    public let modificationNanoseconds: Int

    public init(_ path: String) {
        var status = stat()
        if stat(path, &status) != 0 {
            exists = false
            bytes = Data()
            modificationSeconds = 0
            modificationNanoseconds = 0
            return
        }
        exists = true
        bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        modificationSeconds = status.st_mtim.tv_sec
        modificationNanoseconds = status.st_mtim.tv_nsec
    }
}

extension FileSurgery {
    /// Overwrites the width and count fields of the node header at `ref` (format.h: width at byte 5, count at byte
    /// 8). The checksum is left as it is: it is checked by columnar_verify and PARANOID reads only, and a node whose
    /// new header is invalid could not have it recomputed by the inspector anyway.
    public static func setWidthAndCount(_ path: String, ref: UInt64, width: UInt8, count: UInt32) throws {
        try write(path, at: ref + 5, [width])
        try write(path, at: ref + 8, (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) })
    }
}

/// Where the fields of a SCHEMA node lie in the file (format.h "SCHEMA"): each field's file offset, so a test can
/// change one flag, type or primary key.
public struct SchemaLayout {
    public struct Column {
        public let name: String
        public let typeOffset: UInt64
        public let collectionOffset: UInt64
        public let flagsOffset: UInt64
        public let targetTableOffset: UInt64
        public let originTableOffset: UInt64
        public let originColumnOffset: UInt64
    }

    public struct Table {
        public let name: String
        public let flagsOffset: UInt64
        public let primaryKeyOffset: UInt64
        public let columns: [Column]
    }

    public let ref: UInt64
    public let tables: [Table]

    /// Decodes the schema of the file's current version.
    public static func read(_ path: String) throws -> SchemaLayout {
        let structure = try FileStructure.read(path)
        guard let node = structure.nodes.first(where: { $0.role == 3 }) else {
            throw TestFailure("\(path) has no SCHEMA node")
        }
        let bytes = try FileSurgery.read(path, at: node.ref + 16, count: Int(node.payloadBytes))
        var at = 0
        func take(_ count: Int) -> [UInt8] {
            defer { at += count }
            return Array(bytes[at..<(at + count)])
        }
        func u32() -> UInt32 { take(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) } }
        func name() -> String { String(decoding: take(Int(take(1)[0])), as: UTF8.self) }
        func offset() -> UInt64 { node.ref + 16 + UInt64(at) }
        var tables: [Table] = []
        for _ in 0..<u32() {
            let tableName = name()
            let flags = offset()
            at += 1
            let primaryKey = offset()
            at += 4
            var columns: [Column] = []
            for _ in 0..<u32() {
                let columnName = name()
                let start = offset()
                at += 3 + 12
                columns.append(Column(name: columnName, typeOffset: start, collectionOffset: start + 1,
                                      flagsOffset: start + 2, targetTableOffset: start + 3,
                                      originTableOffset: start + 7, originColumnOffset: start + 11))
            }
            tables.append(Table(name: tableName, flagsOffset: flags, primaryKeyOffset: primaryKey, columns: columns))
        }
        return SchemaLayout(ref: node.ref, tables: tables)
    }
}
