// SpaceMap+SVG.swift — the file drawn to scale: rows of equal byte ranges, x = file offset within the row, each
// region filled with its owner's colour, and a legend with each owner's bytes.
//
// A row is 1,000 pixels wide and holds up to a few million bytes, so a region can be far narrower than a pixel.
// Rather than emit one rectangle per node (millions for a large file, most invisible), each row is cut into
// half-pixel buckets, each bucket takes the colour that covers most of its bytes, and runs of one colour become
// one rectangle: the picture stays to scale at half-pixel resolution and its size stays bounded by the number of
// buckets, whatever the file's size.

import Foundation

extension SpaceMap {
    static let plotWidthPixels = 1000
    static let rowHeightPixels = 16
    static let rowGapPixels = 8
    static let leftMarginPixels = 120
    static let maximumRowCount = 32

    /// Bytes per row: the file in at most 32 rows of at least 64 KiB (fewer rows for small files).
    var bytesPerRow: UInt64 {
        let rows = UInt64(max(1, min(SpaceMap.maximumRowCount, Int((fileSizeBytes + 65_535) / 65_536))))
        let perRow = (fileSizeBytes + rows - 1) / rows
        return max(8, (perRow + 7) / 8 * 8)
    }

    /// One entry of the legend.
    struct LegendEntry {
        let color: String
        let label: String
        let kind: Kind
        let sizeBytes: UInt64
    }

    func legend(names: OwnerNames) -> [LegendEntry] {
        var entries = [LegendEntry(color: SpacePalette.header, label: "header", kind: .header,
                                   sizeBytes: min(SpaceMap.headerBytes, fileSizeBytes))]
        for total in owners {
            entries.append(LegendEntry(
                color: SpacePalette.color(of: total.owner),
                label: names.label(table: total.owner.table, column: total.owner.column, inIndex: total.owner.inIndex),
                kind: .node, sizeBytes: total.sizeBytes))
        }
        entries.append(LegendEntry(color: SpacePalette.free, label: "free (on the free list)", kind: .free,
                                   sizeBytes: freeBytes))
        if unaccountedBytes > 0 {
            entries.append(LegendEntry(color: SpacePalette.unaccounted, label: "unaccounted (neither live nor free)",
                                       kind: .unaccounted, sizeBytes: unaccountedBytes))
        }
        if preallocatedBytes > 0 {
            entries.append(LegendEntry(color: SpacePalette.preallocated, label: "preallocated (past the used size)",
                                       kind: .preallocated, sizeBytes: preallocatedBytes))
        }
        return entries
    }

    /// The picture as an SVG document.
    func svg(title: String, names: OwnerNames) -> String {
        let rowBytes = bytesPerRow
        let rowCount = max(1, Int((fileSizeBytes + rowBytes - 1) / rowBytes))
        let plotTop = 56
        let rowPitch = SpaceMap.rowHeightPixels + SpaceMap.rowGapPixels
        let legendTop = plotTop + rowCount * rowPitch + 16
        let entries = legend(names: names)
        let legendRowPixels = 18
        let width = SpaceMap.leftMarginPixels + SpaceMap.plotWidthPixels + 20
        let height = legendTop + entries.count * legendRowPixels + 16
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
            <title>\(escape(title))</title>
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="#ffffff"/>
            <text x="10" y="20" font-size="15" font-weight="bold">\(escape(title))</text>
            <text x="10" y="40">To scale: each row is \(Format.grouped(rowBytes)) bytes of the file, x = file offset \
            (\(Format.grouped(fileSizeBytes)) bytes in all, version \(version), used size \
            \(Format.grouped(usedSizeBytes))).</text>

            """
        let colors = regions.map { SpacePalette.color($0.kind, owner: $0.owner) }
        let buckets = SpaceMap.plotWidthPixels * 2
        var regionIndex = 0
        for row in 0..<rowCount {
            let rowStart = UInt64(row) * rowBytes
            let rowEnd = min(fileSizeBytes, rowStart + rowBytes)
            let y = plotTop + row * rowPitch
            svg += "<text x=\"\(SpaceMap.leftMarginPixels - 8)\" y=\"\(y + 12)\" text-anchor=\"end\">"
                + "\(Format.grouped(rowStart))</text>\n"
            var runColor: String?
            var runStart = 0
            func flush(_ end: Int) {
                guard let color = runColor, end > runStart else { return }
                let x = Double(SpaceMap.leftMarginPixels) + Double(runStart) / 2
                svg += "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(Double(end - runStart) / 2)\" "
                    + "height=\"\(SpaceMap.rowHeightPixels)\" fill=\"\(color)\"/>\n"
            }
            for bucket in 0..<buckets {
                let start = rowStart + UInt64(Double(rowBytes) * Double(bucket) / Double(buckets))
                let end = min(rowEnd, rowStart + UInt64(Double(rowBytes) * Double(bucket + 1) / Double(buckets)))
                var color: String?
                if start < end {
                    while regionIndex < regions.count && regions[regionIndex].end <= start { regionIndex += 1 }
                    var best: (bytes: UInt64, color: String)?
                    var index = regionIndex
                    var coverage: [String: UInt64] = [:]
                    while index < regions.count && regions[index].start < end {
                        let covered = min(end, regions[index].end) - max(start, regions[index].start)
                        coverage[colors[index], default: 0] += covered
                        index += 1
                    }
                    for (candidate, bytes) in coverage where best == nil || bytes > best!.bytes
                        || (bytes == best!.bytes && candidate < best!.color) {
                        best = (bytes, candidate)
                    }
                    color = best?.color
                }
                if color != runColor {
                    flush(bucket)
                    runColor = color
                    runStart = bucket
                }
            }
            flush(buckets)
            let rowPixels = Double(rowEnd - rowStart) / Double(rowBytes) * Double(SpaceMap.plotWidthPixels)
            svg += "<rect x=\"\(SpaceMap.leftMarginPixels)\" y=\"\(y)\" width=\"\(rowPixels)\" "
                + "height=\"\(SpaceMap.rowHeightPixels)\" fill=\"none\" stroke=\"#606060\" stroke-width=\"0.5\"/>\n"
        }
        let total = max(fileSizeBytes, 1)
        for (index, entry) in entries.enumerated() {
            let y = legendTop + index * legendRowPixels
            svg += "<rect class=\"swatch\" data-kind=\"\(entry.kind.rawValue)\" x=\"10\" y=\"\(y)\" width=\"28\" "
                + "height=\"12\" fill=\"\(entry.color)\" stroke=\"#606060\" stroke-width=\"0.5\"/>\n"
            svg += "<text x=\"46\" y=\"\(y + 10)\">\(escape(entry.label)): \(Format.grouped(entry.sizeBytes)) bytes "
                + "(\(Format.percent(entry.sizeBytes, of: total)))</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
