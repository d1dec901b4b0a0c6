// TextTable.swift — columns aligned for people: a header row, then rows; numeric columns right-aligned.

struct TextTable {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns (by index) whose cells are right-aligned.
    var rightAligned: Set<Int> = []

    init(_ headers: [String], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    /// The table as lines joined by newlines, each prefixed with `indent`; no trailing spaces.
    func render(indent: String = "") -> String {
        let all = [headers] + rows
        let columnCount = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columnCount)
        for row in all {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        var lines: [String] = []
        for row in all {
            var cells: [String] = []
            for index in 0..<columnCount {
                let cell = index < row.count ? row[index] : ""
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                cells.append(rightAligned.contains(index) ? padding + cell : cell + padding)
            }
            var line = indent + cells.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// Label-value lines with the values aligned ("Version      7").
struct FieldList {
    private var fields: [(String, String)] = []

    mutating func append(_ label: String, _ value: String) { fields.append((label, value)) }

    func render(indent: String = "") -> String {
        let width = fields.map(\.0.count).max() ?? 0
        return fields.map { label, value in
            indent + label + String(repeating: " ", count: width - label.count + 2) + value
        }.joined(separator: "\n")
    }
}
