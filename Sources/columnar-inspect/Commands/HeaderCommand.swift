// HeaderCommand.swift — `header FILE`: the file header, both version slots and which one is current.

import ArgumentParser
import CColumnar

struct HeaderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "header",
        abstract: "Show the file header: magic, format version, both version slots, the current slot, file size.",
        discussion: """
            The first 4096 bytes of a Columnar file are its header; only the first 128 are used. It holds the \
            magic number "CLMNRDB1", the format version, a selector byte, and two 48-byte slots, each describing \
            one committed version: its top ref (the file offset of its TOP node), version number, used size \
            (the end of its last node), free-list byte count, and a CRC-32C of the slot. A commit writes the \
            inactive slot and flips the selector in one write, so the other slot still describes the previous \
            version.

            The header is decoded field by field from the raw bytes even when the engine would refuse the file, \
            so this works on a file with a bad magic number, another format version or two damaged slots. For \
            each slot the output says whether its checksum holds and whether the engine could open it (its \
            rules: checksum valid, version not 0, top ref between the header and the used size, used size \
            within the file). The current slot is the one the engine would open.

            FINDINGS
              The reason the engine would refuse the file; a reserved header byte that is not zero; a selector \
            other than 0 and 1, or one that picks an unusable slot or the older version; a written slot that \
            fails its checksum. A slot that was never written (all zero) is normal for a file with one version.

            EXIT STATUS
              0 header sound, 1 findings, 2 unreadable (no usable slot, not a Columnar file, or cannot be opened).

            EXAMPLES
              columnar-inspect header data.columnar
              columnar-inspect header --json data.columnar | jq .slots
            """)

    @OptionGroup var options: FileOptions

    struct Slot: Encodable {
        let slot: Int
        let offset: Int
        let topRef: UInt64
        let version: UInt64
        let usedSizeBytes: UInt64
        let freeBytes: UInt64
        let storedChecksum: String
        let computedChecksum: String
        let checksumValid: Bool
        let neverWritten: Bool
        let usable: Bool
        let current: Bool
    }

    struct Report: Encodable {
        let file: String
        let fileSizeBytes: UInt64
        let magic: String
        let magicValid: Bool
        let formatVersion: UInt32
        let headerBytes: UInt32
        let selector: UInt8
        let currentSlot: Int?
        let slots: [Slot]
        let findings: [Finding]
    }

    func run() throws {
        let inspector = try Opening.inspector(options, slot: nil, needsVersion: false)
        let header = inspector.header
        let current = header.current_slot >= 0 ? Int(header.current_slot) : nil
        let slots = [header.slots.0, header.slots.1].enumerated().map { index, slot in
            Slot(slot: index, offset: 32 + 48 * index, topRef: slot.top_ref, version: slot.version,
                 usedSizeBytes: slot.used_size_bytes, freeBytes: slot.free_bytes,
                 storedChecksum: hex32(slot.stored_checksum), computedChecksum: hex32(slot.computed_checksum),
                 checksumValid: slot.checksum_valid, neverWritten: slot.is_zero, usable: slot.usable,
                 current: index == current)
        }
        let magicBytes = withUnsafeBytes(of: header.magic) { Array($0) }
        let report = Report(
            file: options.file, fileSizeBytes: header.file_size_bytes,
            magic: String(decoding: magicBytes.map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: ".") }, as: UTF8.self),
            magicValid: header.magic_valid, formatVersion: header.format_version, headerBytes: header.header_bytes,
            selector: header.selector, currentSlot: current, slots: slots, findings: inspector.headerFindings())
        try Output.report(report, json: options.json) { render(report) }
        if current == nil { throw ExitStatus.unreadable }
        throw ExitStatus.forFindings(report.findings)
    }

    private func render(_ report: Report) -> String {
        var fields = FieldList()
        fields.append("File", report.file)
        fields.append("File size", Format.bytes(report.fileSizeBytes))
        fields.append("Magic", "\(report.magic) (\(report.magicValid ? "valid" : "NOT a Columnar magic number"))")
        fields.append("Format version", "\(report.formatVersion)"
                      + (report.formatVersion == 1 ? "" : " (this tool reads version 1)"))
        fields.append("Header size", "\(report.headerBytes) bytes")
        fields.append("Selector", "\(report.selector) (byte 16)")
        if let current = report.currentSlot {
            fields.append("Current slot", "\(current) (version \(report.slots[current].version))")
        } else {
            fields.append("Current slot", "none: no slot is usable")
        }
        var table = TextTable(["slot", "offset", "version", "top ref", "used size", "free bytes", "checksum", "state"],
                              rightAligned: [0, 1, 2, 3, 4, 5])
        for slot in report.slots {
            let checksum = slot.checksumValid ? "\(slot.storedChecksum) ok"
                : "\(slot.storedChecksum) FAILS (computed \(slot.computedChecksum))"
            var state = slot.neverWritten ? "never written" : slot.usable ? "usable" : "not usable"
            if slot.current { state += ", current" }
            table.append(["\(slot.slot)", "\(slot.offset)", Format.grouped(slot.version), Format.grouped(slot.topRef),
                          Format.grouped(slot.usedSizeBytes), Format.grouped(slot.freeBytes),
                          slot.neverWritten ? "-" : checksum, state])
        }
        var text = fields.render() + "\n\n" + table.render()
        if !report.findings.isEmpty {
            text += "\n\nFindings:\n" + Output.findingLines(report.findings)
        }
        return text
    }
}
