// HeaderCommand.swift — `header FILE`: the file's identity, its fifteen commit slots, and which version is current.

import ArgumentParser
import CColumnar

struct HeaderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "header",
        abstract: "Show the file header: identity, format version, the 15 commit slots, the current version.",
        discussion: """
            The first 8192 bytes of a Columnar file are its header: sixteen 512-byte sectors, each with its own \
            CRC-32C, since a disk writes a sector whole or not at all. Sector 0 is the file's identity, written \
            once when the file is created: the magic number "CLMNRDB1", the format version (4), the header size, \
            sector size and slot count, and a random file id. Sectors 1 to 15 are the commit slots 0 to 14; \
            version v lives in slot v % 15, so the slots hold the last 15 versions. A slot names its version's \
            top node, used size and free bytes, its base (the latest version known durable when it was written: \
            the version's commit record lists every range the versions after the base wrote), its flags \
            (NODES_SYNCED: its nodes were made durable before the slot was written) and the file id.

            There is no selector. A version is whole when its slot is usable (checksum, file id, sector, version, \
            refs and sizes fit) and its top node, version meta, commit record and every range the record lists \
            pass their checksums; the engine opens the highest whole version, the current one. A commit that a \
            crash or a failed sync cut short leaves a slot that is usable but not whole, and the engine opens the \
            version before it, as if the commit had never happened; the next writer's repair clears that slot. An \
            older version may stop being whole once later commits reuse the space it freed; that is normal.

            An encrypted file (format version 5: version 4's content in encrypted sectors) keeps its header in the \
            clear, so the identity and the slots are shown without its key; whether a version is whole can only \
            be told with the key (--key-file or COLUMNAR_ENCRYPTION_KEY).

            The header is decoded field by field from the raw bytes even when the engine would refuse the file, \
            so this works on a file with a bad magic number, another format version or damaged slots. For each \
            slot the output says whether its checksum holds and whether it is empty, not usable, usable but not \
            whole, or whole, and names the reason a written slot is not whole. --slot (in the other subcommands) \
            selects any usable slot, whole or not.

            FINDINGS
              The reason the engine would refuse the file; a reserved header byte that is not zero; a written slot \
            that fails its checksum or is not usable; a slot above the current version that is not whole. An \
            empty slot (all zero) is normal.

            EXIT STATUS
              0 header sound, 1 findings, 2 unreadable (no whole version, not a Columnar file, or cannot be opened).

            EXAMPLES
              columnar-inspect header data.columnar
              columnar-inspect header --json data.columnar | jq '.slots[] | select(.whole) | .version'
            """)

    @OptionGroup var options: FileOptions

    struct Slot: Encodable {
        let slot: Int
        let offset: UInt64
        let version: UInt64
        let baseVersion: UInt64
        let topRef: UInt64
        let usedSizeBytes: UInt64
        let freeBytes: UInt64
        let flags: UInt32
        let nodesSynced: Bool
        let storedChecksum: String
        let computedChecksum: String
        let checksumValid: Bool
        let empty: Bool
        let usable: Bool
        let whole: Bool
        /// Why a written slot is not usable or not whole; nil for a whole or empty slot.
        let problem: String?
        let current: Bool
    }

    struct Report: Encodable {
        let file: String
        let fileSizeBytes: UInt64
        let magic: String
        let magicValid: Bool
        let formatVersion: UInt32
        /// Whether the file is encrypted (columnar_header_info.encryption, of a sound identity sector).
        let encrypted: Bool
        /// Encrypted and inspected without its key: whether a slot's version is whole is unknown.
        let keyMissing: Bool
        let headerBytes: UInt32
        let sectorBytes: UInt32
        let slotCount: UInt32
        let fileId: String
        let identityStoredChecksum: String
        let identityComputedChecksum: String
        let identityChecksumValid: Bool
        let currentSlot: Int?
        let currentVersion: UInt64?
        let slots: [Slot]
        let findings: [Finding]
    }

    func run() throws {
        let inspector = try Opening.inspector(options, slot: nil, needsVersion: false)
        let header = inspector.header
        let current = header.current_slot >= 0 ? Int(header.current_slot) : nil
        let slots = inspector.slots.enumerated().map { index, slot in
            let problem = fixedString(slot.problem)
            return Slot(slot: index, offset: slot.offset, version: slot.version, baseVersion: slot.base_version,
                        topRef: slot.top_ref, usedSizeBytes: slot.used_size_bytes, freeBytes: slot.free_bytes,
                        flags: slot.flags, nodesSynced: slot.flags & 1 != 0,
                        storedChecksum: hex32(slot.stored_checksum), computedChecksum: hex32(slot.computed_checksum),
                        checksumValid: slot.checksum_valid, empty: slot.is_zero, usable: slot.usable,
                        whole: slot.whole, problem: problem.isEmpty || slot.is_zero ? nil : problem,
                        current: index == current)
        }
        let magicBytes = withUnsafeBytes(of: header.magic) { Array($0) }
        let report = Report(
            file: options.file, fileSizeBytes: header.file_size_bytes,
            magic: String(decoding: magicBytes.map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: ".") }, as: UTF8.self),
            magicValid: header.magic_valid, formatVersion: header.format_version, encrypted: inspector.isEncrypted,
            keyMissing: inspector.isEncryptedWithoutKey, headerBytes: header.header_bytes,
            sectorBytes: header.sector_bytes, slotCount: header.slot_count,
            fileId: withUnsafeBytes(of: header.file_id) { Format.hex($0) },
            identityStoredChecksum: hex32(header.stored_checksum),
            identityComputedChecksum: hex32(header.computed_checksum),
            identityChecksumValid: header.identity_checksum_valid, currentSlot: current,
            currentVersion: current.map { slots[$0].version }, slots: slots, findings: inspector.headerFindings())
        try Output.report(report, json: options.json) { render(report) }
        if current == nil { throw ExitStatus.unreadable }
        throw ExitStatus.forFindings(report.findings)
    }

    private func render(_ report: Report) -> String {
        var fields = FieldList()
        fields.append("File", report.file)
        fields.append("File size", Format.bytes(report.fileSizeBytes))
        fields.append("Magic", "\(report.magic) (\(report.magicValid ? "valid" : "NOT a Columnar magic number"))")
        let readable = [2, 4].contains(report.formatVersion)
            || ([3, 5].contains(report.formatVersion) && report.encrypted)
        fields.append("Format version", "\(report.formatVersion)"
                      + (readable ? "" : " (this tool reads versions 2 and 4, and 3 and 5 for an encrypted file)"))
        fields.append("Encryption", !report.encrypted ? "none"
                      : "encrypted" + (report.keyMissing ? " (no key given: only the header can be read)" : ""))
        let geometry = "\(report.headerBytes) bytes: an identity sector and \(report.slotCount) commit slots of "
            + "\(report.sectorBytes) bytes"
        let expected = report.headerBytes == Inspector.headerBytes && report.sectorBytes == Inspector.sectorBytes
            && report.slotCount == COLUMNAR_HEADER_SLOTS
        fields.append("Header size", geometry + (expected ? "" : " (NOT this format's 8192 = 512 + 15 x 512)"))
        fields.append("File id", report.fileId)
        fields.append("Identity", "checksum \(report.identityStoredChecksum) "
                      + (report.identityChecksumValid ? "ok" : "FAILS (computed \(report.identityComputedChecksum))"))
        if let current = report.currentSlot {
            fields.append("Current", "version \(report.slots[current].version) (slot \(current)), the highest "
                          + "whole version")
        } else if report.keyMissing {
            fields.append("Current", "unknown without the key")
        } else {
            fields.append("Current", "none: no slot holds a whole version")
        }
        var table = TextTable(["slot", "offset", "version", "base", "top ref", "used size", "free bytes", "checksum",
                               "state"], rightAligned: [0, 1, 2, 3, 4, 5, 6])
        for slot in report.slots {
            let checksum = slot.checksumValid ? "\(slot.storedChecksum) ok"
                : "\(slot.storedChecksum) FAILS (computed \(slot.computedChecksum))"
            var state = slot.empty ? "empty" : slot.whole ? "whole" : !slot.usable ? "NOT usable"
                : report.keyMissing ? "usable, whole unknown without the key" : "usable, NOT whole"
            if slot.nodesSynced && slot.usable { state += ", nodes synced first" }
            if slot.current { state += ", current" }
            // A slot that fails its checksum may hold anything: its fields are shown raw all the same.
            let shown = !slot.empty
            let numbers = [slot.version, slot.baseVersion, slot.topRef, slot.usedSizeBytes, slot.freeBytes]
            table.append(["\(slot.slot)", "\(slot.offset)"] + numbers.map { shown ? Format.grouped($0) : "-" }
                         + [shown ? checksum : "-", state])
        }
        var text = fields.render() + "\n\n" + table.render()
        let currentVersion = report.currentVersion ?? 0
        let notWhole = report.slots.filter { !$0.empty && !$0.whole && !(report.keyMissing && $0.usable) }
        if !notWhole.isEmpty {
            text += "\n\nWhy not whole:\n" + notWhole.map { slot in
                let older = slot.usable && slot.version < currentVersion
                    ? " (older than the current version: later commits may have reused its space)" : ""
                let why = slot.usable ? slot.problem ?? "" : "not usable: it \(slot.problem ?? "")"
                return "  slot \(slot.slot), version \(Format.grouped(slot.version))\(older): \(why)"
            }.joined(separator: "\n")
        }
        if !report.findings.isEmpty {
            text += "\n\nFindings:\n" + Output.findingLines(report.findings)
        }
        return text
    }
}
