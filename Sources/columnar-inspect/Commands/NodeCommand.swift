// NodeCommand.swift — `node FILE REF`: one node decoded: header fields, checksum, owner, elements or children,
// and a hex view.

import ArgumentParser
import CColumnar
import Foundation

/// A file offset given on the command line in decimal or as 0x-prefixed hexadecimal.
struct FileOffset: ExpressibleByArgument {
    let value: UInt64

    init?(argument: String) {
        let text = argument.replacingOccurrences(of: "_", with: "").replacingOccurrences(of: ",", with: "")
        if text.lowercased().hasPrefix("0x") {
            guard let value = UInt64(text.dropFirst(2), radix: 16) else { return nil }
            self.value = value
        } else {
            guard let value = UInt64(text) else { return nil }
            self.value = value
        }
    }
}

struct NodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node",
        abstract: "Decode one node: header fields, checksum, owner, elements or children, and a hex view.",
        discussion: """
            REF is the node's file offset, in decimal or as 0x-prefixed hexadecimal (refs are printed by \
            `space`, `tables --json`, `verify` findings and by this command's list of children).

            The 16-byte node header is shown field by field from the raw bytes: CRC-32C (stored and computed), \
            encoding, width, role, role detail (the value type of column nodes), count and base (a packed-int \
            node's frame of reference, added to every stored element; the elements are shown with it added). \
            The node is validated as the engine validates it, but against the file size rather than a \
            version's used size, so nodes of older versions and nodes in free space can be decoded too; an \
            invalid header is shown with the reason. When the node is live in the inspected version, its owner \
            (table, column, index) and what it is (cluster keys, column leaf, null bitmap, ...) are found by a \
            walk of that version.

            Then the payload: for a refs node its children with their roles; for a packed-int node its values; \
            floats and doubles; bytes as text and hex; fixed-width ids in hex; short strings decoded. A commit \
            record (role COMMIT_RECORD, the top node's last child) is shown as the ranges it lists: position, \
            size, CRC-32C and the version that wrote each, and whether the range's bytes still match; recovery \
            opens a version only when all of them do. Finally a hex view of the node's bytes.

            EXIT STATUS
              0 a valid node whose checksum holds, 1 an invalid node or a failing checksum, 2 unreadable file.

            EXAMPLES
              columnar-inspect node data.columnar 8192
              columnar-inspect node --limit 1000 --hex-bytes 0 data.columnar 0x2040
            """)

    @OptionGroup var options: FileOptions

    @Argument(help: ArgumentHelp("The node's file offset (decimal or 0x hexadecimal).", valueName: "ref"))
    var ref: FileOffset

    @Option(help: "Elements or children to show at most.")
    var limit = 64

    @Option(help: "Bytes of the hex view at most (0: none).")
    var hexBytes = 256

    @OptionGroup var slotOption: SlotOption

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit must not be negative") }
        if hexBytes < 0 { throw ValidationError("--hex-bytes must not be negative") }
    }

    struct Owner: Encodable {
        let table: String?
        let column: String?
        let inIndex: Bool
        let what: String
        let parentRef: UInt64
        let position: UInt32
    }

    struct Child: Encodable {
        let position: Int
        let ref: UInt64
        let role: String?
        let count: UInt32?
        let problem: String?
    }

    /// One range a commit record lists.
    struct RecordRange: Encodable {
        let pos: UInt64
        let sizeBytes: UInt64
        let crc32c: String
        let version: UInt64
        /// The range's bytes match the CRC (nil when the range is not inside the file).
        let checksumValid: Bool?
    }

    struct Report: Encodable {
        let file: String
        let ref: UInt64
        let valid: Bool
        let problem: String?
        let headerPresent: Bool
        let storedChecksum: String
        let computedChecksum: String?
        let checksumValid: Bool
        let encoding: UInt8
        let encodingName: String
        let width: UInt8
        let role: UInt8
        let roleName: String
        let roleDetail: UInt8
        let roleDetailName: String
        let count: UInt32
        let base: Int32
        let payloadBytes: UInt64
        let sizeBytes: UInt64
        let version: UInt64?
        /// The header slot of the inspected version.
        let slot: Int?
        let insideUsedSize: Bool
        let live: Bool
        let owner: Owner?
        let elements: [String]
        let children: [Child]
        /// For a commit record: the ranges it lists.
        let commitRecord: [RecordRange]?
        let hexOffset: UInt64
        let hex: String
        let findings: [Finding]
    }

    func run() throws {
        let inspector = try Opening.inspector(options, slot: slotOption.slot, needsVersion: false)
        let (detail, valid) = inspector.decodeNode(ref.value)
        var owner: Owner?
        var walkDamage: [Finding] = []
        if inspector.hasVersion {
            let names = inspector.ownerNames()
            walkDamage = (try? inspector.walk { node in
                guard node.ref == ref.value else { return true }
                owner = Owner(
                    table: node.table == COLUMNAR_NO_TABLE ? nil : names.table(node.table),
                    column: node.column == COLUMNAR_NO_COLUMN ? nil : names.column(node.table, node.column),
                    inIndex: node.inIndex, what: node.what, parentRef: node.parentRef, position: node.position)
                return false
            }) ?? []
        }
        var elements: [String] = []
        var children: [Child] = []
        var record: [RecordRange]?
        if valid && detail.role == NodeCommand.commitRecordRole && detail.array.encoding == COLUMNAR_ENCODING_PACKED_INT
            && detail.width == 64 && detail.count % 4 == 0 {
            record = NodeCommand.recordRanges(detail.array, limit: limit, inspector: inspector)
        } else if valid {
            let array = detail.array
            let shown = Int(min(UInt64(limit), array.count))
            if array.encoding == COLUMNAR_ENCODING_REFS {
                children = (0..<shown).map { index in
                    let childRef = array.data.load(fromByteOffset: index * 8, as: UInt64.self)
                    if childRef == 0 { return Child(position: index, ref: 0, role: nil, count: nil, problem: nil) }
                    let (child, childValid) = inspector.decodeNode(childRef)
                    return Child(position: index, ref: childRef, role: childValid ? child.roleText : nil,
                                 count: childValid ? child.count : nil,
                                 problem: childValid ? nil : child.problemText)
                }
            } else {
                elements = NodeCommand.elements(array, roleDetail: detail.role_detail, limit: shown)
            }
        }
        let hexStart = ref.value
        let hexCount = min(UInt64(hexBytes), detail.header_present ? max(detail.size_bytes, 16) : 0,
                           inspector.fileSizeBytes > hexStart ? inspector.fileSizeBytes - hexStart : 0)
        let hexData = inspector.bytes(at: hexStart, count: hexCount) ?? []
        var findings: [Finding] = []
        if !valid { findings.append(Finding(offset: ref.value, what: detail.problemText)) }
        if valid && !detail.checksum_valid {
            findings.append(Finding(offset: ref.value, what: "node at \(ref.value) fails its checksum (stored "
                                    + "\(hex32(detail.stored_checksum)), computed \(hex32(detail.computed_checksum)))"))
        }
        let inspected = inspector.hasVersion ? inspector.version().version : nil
        let report = Report(
            file: options.file, ref: ref.value, valid: valid, problem: valid ? nil : detail.problemText,
            headerPresent: detail.header_present, storedChecksum: hex32(detail.stored_checksum),
            computedChecksum: valid ? hex32(detail.computed_checksum) : nil, checksumValid: detail.checksum_valid,
            encoding: detail.encoding, encodingName: Names.encoding(UInt32(detail.encoding)), width: detail.width,
            role: detail.role, roleName: detail.roleText, roleDetail: detail.role_detail,
            roleDetailName: Names.type(detail: detail.role_detail), count: detail.count, base: detail.base,
            payloadBytes: detail.payload_bytes, sizeBytes: detail.size_bytes, version: inspected?.version,
            slot: inspected.map { Int($0.slot) },
            insideUsedSize: detail.inside_used_size, live: owner != nil, owner: owner, elements: elements,
            children: children, commitRecord: record, hexOffset: hexStart, hex: Format.hex(hexData), findings: findings)
        try Output.report(report, json: options.json) { render(report, hexData: hexData, walkDamage: walkDamage) }
        throw ExitStatus.forFindings(findings)
    }

    /// The role of a commit record node (format.h, CF_ROLE_COMMIT_RECORD).
    static let commitRecordRole: UInt8 = 19

    /// The first `limit` ranges of a commit record's payload (four 64-bit values per range: position, size,
    /// CRC-32C, version), each checked against the bytes the file holds there now.
    static func recordRanges(_ array: columnar_array, limit: Int, inspector: Inspector) -> [RecordRange] {
        var array = array
        let count = min(Int(array.count / 4), limit)
        return (0..<count).map { index in
            let field = { (offset: Int) in
                UInt64(bitPattern: columnar_array_get_int(&array, UInt64(index * 4 + offset)))
            }
            let (pos, size, crc, version) = (field(0), field(1), field(2), field(3))
            let matches = inspector.bytes(at: pos, count: size, haveChecksum: crc)
            return RecordRange(pos: pos, sizeBytes: size, crc32c: hex32(UInt32(truncatingIfNeeded: crc)),
                               version: version, checksumValid: matches)
        }
    }

    /// The first `limit` elements of a non-refs payload, as text.
    static func elements(_ array: columnar_array, roleDetail: UInt8, limit: Int) -> [String] {
        var array = array
        let data = array.data!
        switch array.encoding {
        case COLUMNAR_ENCODING_PACKED_INT:
            return (0..<limit).map { String(columnar_array_get_int(&array, UInt64($0))) }
        case COLUMNAR_ENCODING_FLOAT:
            return (0..<limit).map { "\(data.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self))" }
        case COLUMNAR_ENCODING_DOUBLE:
            return (0..<limit).map { "\(data.loadUnaligned(fromByteOffset: $0 * 8, as: Double.self))" }
        case COLUMNAR_ENCODING_BYTES:
            let bytes = UnsafeRawBufferPointer(start: data, count: Int(array.count))
            let shown = bytes.prefix(limit)
            return [Format.hex(shown) + (bytes.count > limit ? "…" : "")]
        case COLUMNAR_ENCODING_FIXED:
            let width = Int(array.width)
            return (0..<limit).map { Format.hex(UnsafeRawBufferPointer(start: data + $0 * width, count: width)) }
        case COLUMNAR_ENCODING_SHORT_STRINGS:
            let width = Int(array.width)
            return (0..<limit).map { index in
                let slot = UnsafeRawBufferPointer(start: data + index * width, count: width)
                let unused = Int(slot[width - 1])
                let length = unused < width ? width - 1 - unused : 0
                let bytes = Array(slot.prefix(length))
                return roleDetail == UInt8(COLUMNAR_TYPE_BINARY.rawValue) ? Format.hex(bytes)
                    : "\"" + String(decoding: bytes, as: UTF8.self) + "\""
            }
        default:
            return []
        }
    }

    private func render(_ report: Report, hexData: [UInt8], walkDamage: [Finding]) -> String {
        var fields = FieldList()
        fields.append("Node", "at \(Format.offset(report.ref)) in \(report.file)")
        if !report.headerPresent {
            return fields.render() + "\n\nNo node header: \(report.problem ?? "")"
        }
        let verdict = report.checksumValid ? "(valid)" : "FAILS (computed \(report.computedChecksum ?? ""))"
        fields.append("Checksum", report.valid ? "\(report.storedChecksum) \(verdict)"
                      : "\(report.storedChecksum) (not checked: the header is invalid)")
        fields.append("Encoding", "\(report.encoding) (\(report.encodingName))")
        fields.append("Width", "\(report.width)")
        fields.append("Role", "\(report.role) (\(report.roleName))")
        fields.append("Role detail", "\(report.roleDetail) (\(report.roleDetailName))")
        fields.append("Count", Format.grouped(report.count))
        fields.append("Base", "\(report.base)")
        fields.append("Size", "\(Format.grouped(report.payloadBytes)) payload bytes; the node occupies "
                      + "\(Format.grouped(report.sizeBytes)) bytes")
        if !report.valid { fields.append("INVALID", report.problem ?? "") }
        if let owner = report.owner {
            var whose = owner.table.map { "table \($0)" } ?? "the file"
            if let column = owner.column { whose += ", column \(column)" + (owner.inIndex ? " (search index)" : "") }
            let place = owner.parentRef == 0 ? "the top ref of header slot \(report.slot ?? -1)"
                : "slot \(owner.position) of the node at \(owner.parentRef)"
            fields.append("Live in", "version \(report.version ?? 0): \(owner.what) of \(whose); \(place)")
        } else if let version = report.version {
            fields.append("Live in", "not reachable from version \(version) (free space, an older version, the "
                          + "middle of a node, or below damage)")
        }
        var text = fields.render()
        if !report.children.isEmpty {
            var table = TextTable(["slot", "ref", "role", "count"], rightAligned: [0, 1, 3])
            for child in report.children {
                table.append(["\(child.position)", child.ref == 0 ? "0 (none)" : "\(child.ref)",
                              child.role ?? (child.ref == 0 ? "" : "INVALID: \(child.problem ?? "")"),
                              child.count.map { "\($0)" } ?? ""])
            }
            text += "\n\nChildren (\(report.children.count) of \(report.count)):\n" + table.render(indent: "  ")
        } else if let record = report.commitRecord {
            let total = report.count / 4
            var table = TextTable(["position", "end", "bytes", "crc32c", "version", "bytes now"],
                                  rightAligned: [0, 1, 2, 4])
            for range in record {
                let now = range.checksumValid.map { $0 ? "match" : "DO NOT MATCH" } ?? "OUTSIDE THE FILE"
                table.append([Format.grouped(range.pos), Format.grouped(range.pos &+ range.sizeBytes),
                              Format.grouped(range.sizeBytes), range.crc32c, "\(range.version)", now])
            }
            let summary = total == 0 ? "no ranges (the version's nodes were made durable before its slot was written)"
                : record.count == total ? "\(total) range\(total == 1 ? "" : "s")"
                : "the first \(record.count) of \(total) ranges (--limit)"
            text += "\n\nCommit record: " + summary
            if !record.isEmpty { text += "\n" + table.render(indent: "  ") }
        } else if !report.elements.isEmpty {
            let shown = report.encoding == COLUMNAR_ENCODING_BYTES.rawValue ? "\(report.count) bytes"
                : "\(report.elements.count) of \(report.count)"
            text += "\n\nElements (\(shown)):\n"
            text += report.elements.enumerated().map { "  [\($0.offset)] \($0.element)" }.joined(separator: "\n")
        }
        if !hexData.isEmpty {
            text += "\n\nHex (\(hexData.count) bytes from \(report.hexOffset)):\n" + NodeCommand.hexDump(hexData,
                                                                                                   at: report.hexOffset)
        }
        if !report.findings.isEmpty { text += "\n\nFindings:\n" + Output.findingLines(report.findings) }
        return text
    }

    /// Classic 16-bytes-per-line hex view with offsets and printable characters.
    static func hexDump(_ bytes: [UInt8], at start: UInt64) -> String {
        var lines: [String] = []
        var index = 0
        while index < bytes.count {
            let line = bytes[index..<min(index + 16, bytes.count)]
            var hexPart = ""
            for (column, byte) in line.enumerated() {
                hexPart += (column == 8 ? "  " : column == 0 ? "" : " ") + Format.hex([byte])
            }
            hexPart += String(repeating: " ", count: max(0, 49 - hexPart.count))
            let ascii = String(decoding: line.map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
            let offset = String(start + UInt64(index), radix: 16)
            lines.append("  " + String(repeating: "0", count: max(0, 8 - offset.count)) + offset + "  " + hexPart
                         + " |" + ascii + "|")
            index += 16
        }
        return lines.joined(separator: "\n")
    }
}
