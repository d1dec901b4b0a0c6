// TablesCommand.swift — `tables FILE`: objects, bytes per table and per column, the encodings and bit widths in
// use, and the compression ratio against a plain fixed-width layout.

import ArgumentParser
import CColumnar

struct TablesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tables",
        abstract: "Show objects and bytes per table and column, the encodings and widths in use, compression ratios.",
        discussion: """
            Every live node of the version is attributed to an owner: a column of a table (its leaves in the \
            clusters, and the lists, sets and dictionaries its objects hold), the search index of a column, a \
            table's own structure (its TABLE and META nodes, the tree's inner nodes, clusters and key arrays), or \
            the file's structure (top node, version meta, schema, table list, free-list arrays, commit record). \
            For each owner the output gives the number of nodes, the bytes they occupy (16-byte node headers and padding included), the \
            values in its cluster leaves (one per object), the elements in its collections, and each \
            (role, encoding, width) combination in use with its node count: integers, bools, links and \
            timestamps are bit-packed at 0, 1, 2, 4, 8, 16, 32 or 64 bits per value (written \
            "packed int/8"), strings under 32 bytes sit in fixed slots ("short strings/16", slot bytes) and \
            longer ones as end offsets plus a blob, ids are fixed-width.

            The compression ratio is the size of the same data in a plain fixed-width layout divided by the \
            bytes stored: 8 bytes per integer, link, key, ref and string offset, 1 per bool and null flag, 4 \
            per float and per timestamp nanosecond field, 12 or 16 per id, strings' bytes as they are. Above \
            1.00x the column takes less than the plain layout; node headers count against it, so small columns \
            score low.

            EXIT STATUS
              0 nothing wrong, 1 damage met while walking (listed with offsets), 2 unreadable.

            EXAMPLES
              columnar-inspect tables data.columnar
              columnar-inspect tables --json data.columnar | jq '.tables[] | {name, sizeBytes}'
            """)

    @OptionGroup var options: FileOptions
    @OptionGroup var slotOption: SlotOption

    struct Encoding: Encodable {
        let role: String
        let encoding: String
        let width: UInt32
        let nodeCount: UInt64
        let sizeBytes: UInt64
    }

    struct Part: Encodable {
        let nodeCount: UInt64
        let sizeBytes: UInt64
        let payloadBytes: UInt64
        let plainBytes: UInt64
        let compressionRatio: Double?
        let valueCount: UInt64
        let elementCount: UInt64
        let encodings: [Encoding]

        init(_ usage: columnar_inspect_usage) {
            nodeCount = usage.node_count
            sizeBytes = usage.size_bytes
            payloadBytes = usage.payload_bytes
            plainBytes = usage.plain_bytes
            compressionRatio = Format.ratioValue(usage.plain_bytes, usage.size_bytes)
            valueCount = usage.value_count
            elementCount = usage.element_count
            encodings = usage.encodingUses.map {
                Encoding(role: Names.role($0.role), encoding: Names.encoding($0.encoding), width: $0.width,
                         nodeCount: $0.node_count, sizeBytes: $0.size_bytes)
            }
        }
    }

    struct Column: Encodable {
        let id: UInt32
        let name: String
        let type: String
        let hidden: Bool
        let removed: Bool
        let storage: Part?
        let index: Part?
    }

    struct Table: Encodable {
        let id: UInt32
        let name: String
        let removed: Bool
        let objectCount: Int64?
        let nodeCount: UInt64
        let sizeBytes: UInt64
        let plainBytes: UInt64
        let compressionRatio: Double?
        let structure: Part?
        let columns: [Column]
    }

    struct Report: Encodable {
        let file: String
        let version: UInt64
        let usedSizeBytes: UInt64
        let liveBytes: UInt64
        let fileStructure: Part?
        let tables: [Table]
        let findings: [Finding]
    }

    func run() throws {
        let inspector = try Opening.inspector(options, slot: slotOption.slot)
        let version = inspector.version().version
        var findings = inspector.headerFindings()
        let (usage, damage) = try inspector.usage()
        findings += damage
        var records: [TableRecord] = []
        do {
            records = try inspector.tables()
        } catch let failure as EngineFailure {
            findings.append(Finding(offset: failure.offset, what: failure.message))
        }
        var byOwner: [SpaceMap.Owner: columnar_inspect_usage] = [:]
        for item in usage {
            byOwner[SpaceMap.Owner(table: item.table, column: item.column, inIndex: item.in_index)] = item
        }
        // Tables the walk found but the schema does not name (a damaged schema) are shown by id.
        var tableIDs = Set(records.map(\.id))
        for item in usage where item.table != COLUMNAR_NO_TABLE { tableIDs.insert(item.table) }
        let recordsByID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        let tables = tableIDs.sorted().map { id -> Table in
            let record = recordsByID[id]
            var columnIDs = Set((record?.columns ?? []).map(\.id))
            for item in usage where item.table == id && item.column != COLUMNAR_NO_COLUMN {
                columnIDs.insert(item.column)
            }
            let columns = columnIDs.sorted().map { columnID -> Column in
                let column = record.flatMap { Int(columnID) < $0.columns.count ? $0.columns[Int(columnID)] : nil }
                return Column(
                    id: columnID, name: column?.name ?? "column#\(columnID)",
                    type: column?.typeDescription ?? "?", hidden: column?.isBacklink ?? false,
                    removed: column?.removed ?? false,
                    storage: byOwner[SpaceMap.Owner(table: id, column: columnID, inIndex: false)].map(Part.init),
                    index: byOwner[SpaceMap.Owner(table: id, column: columnID, inIndex: true)].map(Part.init))
            }
            let parts = usage.filter { $0.table == id }
            let size = parts.reduce(0) { $0 + $1.size_bytes }
            let plain = parts.reduce(0) { $0 + $1.plain_bytes }
            return Table(
                id: id, name: record?.name ?? "table#\(id)", removed: record?.removed ?? false,
                objectCount: record?.objectCount, nodeCount: parts.reduce(0) { $0 + $1.node_count }, sizeBytes: size,
                plainBytes: plain, compressionRatio: Format.ratioValue(plain, size),
                structure: byOwner[SpaceMap.Owner(table: id, column: COLUMNAR_NO_COLUMN, inIndex: false)]
                    .map(Part.init),
                columns: columns)
        }
        let report = Report(
            file: options.file, version: version.version, usedSizeBytes: version.used_size_bytes,
            liveBytes: usage.reduce(0) { $0 + $1.size_bytes },
            fileStructure: byOwner[SpaceMap.Owner.file].map(Part.init), tables: tables,
            findings: findings.deduplicated())
        try Output.report(report, json: options.json) { render(report) }
        throw ExitStatus.forFindings(report.findings)
    }

    /// "VALUES packed int/8 ×3, packed int/16 ×1; NULLS packed int/1 ×4".
    private func encodings(_ part: Part) -> String {
        var byRole: [(String, [String])] = []
        for use in part.encodings {
            let width = ["packed int", "fixed", "short strings"].contains(use.encoding) ? "/\(use.width)" : ""
            let text = "\(use.encoding)\(width) ×\(use.nodeCount)"
            if let index = byRole.firstIndex(where: { $0.0 == use.role }) {
                byRole[index].1.append(text)
            } else {
                byRole.append((use.role, [text]))
            }
        }
        return byRole.map { "\($0.0) \($0.1.joined(separator: ", "))" }.joined(separator: "; ")
    }

    private func row(_ name: String, _ type: String, _ part: Part, tableBytes: UInt64) -> [String] {
        [name, type, Format.grouped(part.nodeCount), Format.grouped(part.sizeBytes),
         Format.percent(part.sizeBytes, of: tableBytes),
         part.valueCount > 0 ? Format.grouped(part.valueCount) : "-",
         part.elementCount > 0 ? Format.grouped(part.elementCount) : "-", Format.grouped(part.plainBytes),
         Format.ratio(part.plainBytes, part.sizeBytes), encodings(part)]
    }

    private func render(_ report: Report) -> String {
        var blocks = ["Tables of \(report.file), version \(report.version): \(Format.bytes(report.liveBytes)) in live "
                      + "nodes of \(Format.bytes(report.usedSizeBytes)) used"]
        let headers = ["column", "type", "nodes", "bytes", "share", "values", "elements", "plain", "ratio", "encodings"]
        if let file = report.fileStructure {
            var table = TextTable(headers, rightAligned: [2, 3, 4, 5, 6, 7, 8])
            table.append(row("(file structure)", "-", file, tableBytes: file.sizeBytes))
            blocks.append("FILE: top node, version meta, schema, table list, free list, commit record\n"
                          + table.render(indent: "  "))
        }
        for table in report.tables {
            var title = "TABLE \(table.name) (id \(table.id))"
            if table.removed {
                blocks.append(title + ": removed")
                continue
            }
            title += ": \(table.objectCount.map { Format.grouped($0) } ?? "?") objects, "
                + "\(Format.bytes(table.sizeBytes)) in \(Format.grouped(table.nodeCount)) nodes "
                + "(\(Format.percent(table.sizeBytes, of: report.liveBytes)) of live bytes), "
                + "ratio \(Format.ratio(table.plainBytes, table.sizeBytes))"
            var rows = TextTable(headers, rightAligned: [2, 3, 4, 5, 6, 7, 8])
            if let structure = table.structure {
                rows.append(row("(structure)", "tree", structure, tableBytes: table.sizeBytes))
            }
            for column in table.columns where !column.removed || column.storage != nil {
                let name = column.hidden ? "(\(column.name))" : column.name
                if let storage = column.storage {
                    rows.append(row(name, column.type, storage, tableBytes: table.sizeBytes))
                } else {
                    rows.append([name, column.type, "0", "0", "-", "-", "-", "0", "-", "every value default"])
                }
                if let index = column.index {
                    rows.append(row("  index", "search index", index, tableBytes: table.sizeBytes))
                }
            }
            blocks.append(title + "\n" + rows.render(indent: "  "))
        }
        if report.tables.contains(where: { $0.columns.contains(where: \.hidden) }) {
            blocks.append("(name): a hidden backlink column.")
        }
        if !report.findings.isEmpty { blocks.append("Findings:\n" + Output.findingLines(report.findings)) }
        return blocks.joined(separator: "\n\n")
    }
}
