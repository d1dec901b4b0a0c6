// SpaceCommand.swift — `space FILE [--svg OUT]`: the map of the file, which regions hold which table and column,
// the free list with versions, and optionally a picture of it.

import ArgumentParser
import CColumnar
import Foundation

struct SpaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "space",
        abstract: "Map the file's space: regions per table and column, the free list with versions; --svg draws it.",
        discussion: """
            Every byte of the file is assigned to one of: the header (the first 8192 bytes: the identity sector \
            and the 15 commit slots); a live node of the inspected version, by owner (a table's column, a column's \
            search index, a table's own structure, or the file's structure: top node, version meta, schema, table \
            list, free-list arrays, commit record); a free-list entry with the version whose commit freed it \
            (version 0: space past an earlier used size that no version ever used; `info` says which entries a \
            writer may reuse now); \
            unaccounted space (neither live nor free: leaked space, or nodes below damage the walk could not \
            pass; a sound file has none); and the preallocated tail past the version's used size (the file \
            grows in large steps).

            The text output sums the bytes per owner, lists the free list (position, size, version that freed \
            it) and prints the map: runs of adjacent nodes of one owner as one region. --limit bounds the \
            free-list entries and regions printed; --json has them all.

            --svg OUT writes the map as an SVG picture drawn to scale: rows of equal byte ranges with x the \
            file offset, each region in its owner's colour, free space light grey, preallocated space near white, \
            unaccounted space red, and a legend with each owner's bytes and share of the file. Runs narrower \
            than half a pixel take the colour of the owner holding most of their bytes.

            EXIT STATUS
              0 nothing wrong, 1 damage met (listed with offsets), 2 unreadable.

            EXAMPLES
              columnar-inspect space data.columnar
              columnar-inspect space --svg data.svg data.columnar && rsvg-convert data.svg -o data.png
            """)

    @OptionGroup var options: FileOptions

    @Option(help: ArgumentHelp("Write the map as an SVG picture to this path.", valueName: "out"))
    var svg: String?

    @Option(help: "Free-list entries and map regions to print at most (text output; --json has all).")
    var limit = 100

    @OptionGroup var slotOption: SlotOption

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    struct Owner: Encodable {
        let label: String
        let table: UInt32?
        let column: UInt32?
        let inIndex: Bool
        let sizeBytes: UInt64
        let nodeCount: Int
        let color: String
    }

    struct FreeEntry: Encodable {
        let pos: UInt64
        let sizeBytes: UInt64
        let version: UInt64
    }

    struct Region: Encodable {
        let start: UInt64
        let end: UInt64
        let sizeBytes: UInt64
        let kind: SpaceMap.Kind
        let owner: String?
        let nodeCount: Int
        let freedByVersion: UInt64?
    }

    struct Report: Encodable {
        let file: String
        let version: UInt64
        let fileSizeBytes: UInt64
        let usedSizeBytes: UInt64
        let headerBytes: UInt64
        let liveBytes: UInt64
        let liveNodeCount: Int
        let freeBytes: UInt64
        let unaccountedBytes: UInt64
        let preallocatedBytes: UInt64
        let overlapBytes: UInt64
        let owners: [Owner]
        let freeList: [FreeEntry]
        let regions: [Region]
        let svg: String?
        let findings: [Finding]
    }

    func run() throws {
        let inspector = try Opening.inspector(options, slot: slotOption.slot)
        let map = try SpaceMap(inspector: inspector)
        let names = inspector.ownerNames()
        var findings = inspector.headerFindings() + map.findings
        if let svg {
            let title = "Space of \(URL(fileURLWithPath: options.file).lastPathComponent)"
            do {
                try map.svg(title: title, names: names).write(toFile: svg, atomically: true, encoding: .utf8)
            } catch {
                Output.error("cannot write \(svg): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        if map.overlapBytes > 0 {
            findings.append(Finding(offset: 0, what: "\(map.overlapBytes) bytes are claimed twice (overlapping nodes "
                                    + "or free entries); `verify` names them"))
        }
        let report = Report(
            file: options.file, version: map.version, fileSizeBytes: map.fileSizeBytes,
            usedSizeBytes: map.usedSizeBytes, headerBytes: min(SpaceMap.headerBytes, map.fileSizeBytes),
            liveBytes: map.liveBytes,
            liveNodeCount: map.liveNodeCount, freeBytes: map.freeBytes, unaccountedBytes: map.unaccountedBytes,
            preallocatedBytes: map.preallocatedBytes, overlapBytes: map.overlapBytes,
            owners: map.owners.map { total in
                Owner(label: names.label(table: total.owner.table, column: total.owner.column,
                                         inIndex: total.owner.inIndex),
                      table: total.owner.table == COLUMNAR_NO_TABLE ? nil : total.owner.table,
                      column: total.owner.column == COLUMNAR_NO_COLUMN ? nil : total.owner.column,
                      inIndex: total.owner.inIndex, sizeBytes: total.sizeBytes, nodeCount: total.nodeCount,
                      color: SpacePalette.color(of: total.owner))
            },
            freeList: map.freeList.map { FreeEntry(pos: $0.pos, sizeBytes: $0.size_bytes, version: $0.version) },
            regions: map.regions.map { region in
                Region(start: region.start, end: region.end, sizeBytes: region.sizeBytes, kind: region.kind,
                       owner: region.owner.map { names.label(table: $0.table, column: $0.column, inIndex: $0.inIndex) },
                       nodeCount: region.nodeCount, freedByVersion: region.freedByVersion)
            },
            svg: svg, findings: findings.deduplicated())
        try Output.report(report, json: options.json) { render(report) }
        throw ExitStatus.forFindings(report.findings)
    }

    private func render(_ report: Report) -> String {
        var blocks = ["Space of \(report.file), version \(report.version): \(Format.bytes(report.fileSizeBytes)), "
                      + "used \(Format.bytes(report.usedSizeBytes))"]
        var owners = TextTable(["holds", "bytes", "share", "nodes"], rightAligned: [1, 2, 3])
        let total = report.fileSizeBytes
        owners.append(["header", Format.grouped(report.headerBytes), Format.percent(report.headerBytes, of: total), ""])
        for owner in report.owners {
            owners.append([owner.label, Format.grouped(owner.sizeBytes), Format.percent(owner.sizeBytes, of: total),
                           Format.grouped(owner.nodeCount)])
        }
        owners.append(["free list (\(report.freeList.count) entries)", Format.grouped(report.freeBytes),
                       Format.percent(report.freeBytes, of: total), ""])
        if report.unaccountedBytes > 0 {
            owners.append(["UNACCOUNTED (neither live nor free)", Format.grouped(report.unaccountedBytes),
                           Format.percent(report.unaccountedBytes, of: total), ""])
        }
        owners.append(["preallocated (past the used size)", Format.grouped(report.preallocatedBytes),
                       Format.percent(report.preallocatedBytes, of: total), ""])
        blocks.append(owners.render())
        if !report.freeList.isEmpty {
            var free = TextTable(["position", "bytes", "freed by version"], rightAligned: [0, 1, 2])
            for entry in report.freeList.prefix(limit) {
                free.append([Format.grouped(entry.pos), Format.grouped(entry.sizeBytes), "\(entry.version)"])
            }
            var text = "Free list (\(report.freeList.count) entries, \(Format.grouped(report.freeBytes)) bytes):\n"
                + free.render(indent: "  ")
            if report.freeList.count > limit {
                text += "\n  … \(report.freeList.count - limit) more (--limit, --json)"
            }
            blocks.append(text)
        }
        var map = TextTable(["start", "end", "bytes", "holds"], rightAligned: [0, 1, 2])
        for region in report.regions.prefix(limit) {
            var holds: String
            switch region.kind {
            case .node: holds = "\(region.owner ?? "?") (\(region.nodeCount) node\(region.nodeCount == 1 ? "" : "s"))"
            case .free:
                holds = region.freedByVersion == 0 ? "free, never used (version 0)"
                    : "free, freed by version \(region.freedByVersion.map(String.init) ?? "?")"
            case .header: holds = "header"
            case .unaccounted: holds = "UNACCOUNTED"
            case .preallocated: holds = "preallocated"
            }
            map.append([Format.grouped(region.start), Format.grouped(region.end), Format.grouped(region.sizeBytes),
                        holds])
        }
        var text = "Map (\(report.regions.count) regions; adjacent nodes of one owner merged):\n"
            + map.render(indent: "  ")
        if report.regions.count > limit { text += "\n  … \(report.regions.count - limit) more (--limit, --json)" }
        blocks.append(text)
        if let svg = report.svg { blocks.append("Picture written to \(svg).") }
        if !report.findings.isEmpty { blocks.append("Findings:\n" + Output.findingLines(report.findings)) }
        return blocks.joined(separator: "\n\n")
    }
}
