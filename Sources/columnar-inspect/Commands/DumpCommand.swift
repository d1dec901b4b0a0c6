// DumpCommand.swift — `dump FILE TABLE`: a table's objects as rows, as JSON, CSV or an aligned table.

import ArgumentParser
import CColumnar
import Foundation
import QueryVM

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print a table's objects as rows: JSON, CSV or an aligned table.",
        discussion: """
            Reads the objects of TABLE (a table name, or a table id) in key order through the engine's ordinary \
            read API, the file opened with COLUMNAR_OPEN_READ_ONLY | COLUMNAR_OPEN_NO_LOCK (nothing written, no \
            lock file opened), one read transaction on the version the engine opens: the highest whole one, \
            the same as the other subcommands' current version. Each row is the object's key and \
            the value of every visible property; hidden backlink columns are left out (`schema` lists them).

            Values: integers and bools as themselves; links as the target object's key; floats and doubles in \
            shortest round-trip form; strings as text; binary data, object ids and decimal128 bit patterns in \
            lower-case hex; UUIDs as 8-4-4-4-12; timestamps as ISO 8601 UTC with nanoseconds; lists and sets as \
            JSON arrays, dictionaries as JSON objects; null as null (an empty CSV cell).

            --format json prints {"table": ..., "columns": [...], "rows": [{"key": ..., "values": {...}}]} \
            (--json is the same); csv prints RFC 4180 CSV with a header row (collections as JSON text); table \
            prints aligned columns with long cells cut at --width characters.

            --where PREDICATE keeps the rows that satisfy a predicate in RealmSwift's predicate-format syntax \
            (docs/QueryVM.md), e.g. "age > 3 AND name BEGINSWITH[c] 'r'", run by Columnar's query engine. \
            Properties are named by their stored column names, as `schema` lists them; links, lists, sets and \
            dictionaries can be followed (owner.name, ANY toys.brand == 'x', tags.@count > 2). A malformed \
            query, an unknown property or a type mismatch is reported with its offset in the query, and exits 2 \
            before any row is printed.

            Unlike the other subcommands, dump reads through the engine's ordinary open, which refuses a file \
            with no whole version or whose current version's schema or table list is damaged, and takes no \
            --slot; use `verify` on such a file. When the header has a slot above the current version that is not \
            whole (the latest commit did not reach the disk whole, or what it wrote is damaged), the rows are \
            those of the version before it, as the engine reads them; dump says so on standard error (in the \
            JSON document, "findings") and exits 1.

            EXIT STATUS
              0 every row read, 1 a read failed part way (the rows before it are printed), or the header has \
            findings (the rows are the current version's), 2 unreadable.

            EXAMPLES
              columnar-inspect dump data.columnar Person --limit 10
              columnar-inspect dump data.columnar Dog --where "age >= 3 AND owner.name == 'Ann'"
              columnar-inspect dump --format csv data.columnar Person > person.csv
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, csv, table
    }

    @OptionGroup var options: FileOptions

    @Argument(help: ArgumentHelp("The table's name (or its id).", valueName: "table"))
    var table: String

    @Option(help: "Rows to print at most (default: all).")
    var limit: Int?

    @Option(name: .customLong("where"), help: ArgumentHelp(
        "Only the objects satisfying this predicate (predicate-format syntax, stored property names).",
        valueName: "predicate"))
    var predicate: String?

    @Option(help: "Output format: json, csv or table (default table; json with --json).")
    var format: Format?

    @Option(help: "Characters per cell at most in the table format.")
    var width = 40

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if options.json, let format, format != .json {
            throw ValidationError("--json conflicts with --format \(format)")
        }
        if width < 4 { throw ValidationError("--width must be at least 4") }
    }

    func run() throws {
        let key = try options.encryptionKey()
        let database: ReadOnlyDatabase
        do {
            database = try ReadOnlyDatabase(path: options.file, key: key)
        } catch let failure as EngineFailure {
            let findings = failure.isCorruption ? [Finding(offset: failure.offset, what: failure.message)] : []
            try Opening.unreadable(options, "the engine cannot open the file: \(failure.message)"
                                       + keyAdvice(failure.code, key: key), findings: findings)
        }
        // The engine opens the highest whole version; when a slot above it is not whole, the rows come from an
        // older version than the latest written one, and the user must be told.
        let headerFindings = (try? Inspector(path: options.file, key: key))?.headerFindings() ?? []
        let tableID: UInt32
        do {
            tableID = try database.findTable(table)
        } catch {
            if let id = UInt32(table), (try? database.tableInfo(id)) != nil {
                tableID = id
            } else {
                let names = database.tableNames().sorted { $0.key < $1.key }.map(\.value)
                let message = "no table \"\(table)\"; the tables are: \(names.joined(separator: ", "))"
                guard !headerFindings.isEmpty else { throw ValidationError(message) }
                Output.error("\(options.file): \(message) (in version \(database.version), the one the engine opens)")
                Output.error("Findings:\n" + Output.findingLines(headerFindings))
                throw ExitStatus.findings
            }
        }
        let columns = try database.visibleColumns(tableID)
        let name = fixedString(try database.tableInfo(tableID).name)
        let format = self.format ?? (options.json ? .json : .table)
        var rows: [(key: Int64, values: [DumpValue])] = []
        var failure: EngineFailure?
        var printedRows = 0
        // JSON and CSV rows are written as they are read, so a large table needs no memory for its rows; the
        // aligned table needs every row first to size its columns.
        var writer = RowWriter(format: format, table: name, columns: columns.map { fixedString($0.info.name) })
        let visit = { (key: Int64) throws -> Bool in
            if let limit, printedRows >= limit { return false }
            let values = try columns.map { try database.value(tableID, key, $0.id, $0.info) }
            if format == .table { rows.append((key, values)) } else { writer.row(key: key, values: values) }
            printedRows += 1
            return true
        }
        if let predicate {
            // Check the query before anything is printed, so that a mistake leaves no partial output.
            var matching: [Int64] = []
            do {
                try database.forEachMatchingKey(tableID, predicate: predicate) { matching.append($0); return true }
            } catch let error as ColumnarError {
                try Opening.unreadable(options, "--where: \(error.message)", findings: [])
            }
            writer.begin()
            do {
                for key in matching where try !visit(key) { break }
            } catch let error as EngineFailure {
                failure = error
            }
        } else {
            writer.begin()
            do {
                try database.forEachKey(tableID, visit)
            } catch let error as EngineFailure {
                failure = error
            }
        }
        if format == .table {
            var text = TextTable(["key"] + columns.map { fixedString($0.info.name) }, rightAligned: [0])
            for row in rows {
                text.append([String(row.key)] + row.values.map { cut($0.text) })
            }
            Output.text("TABLE \(name): \(printedRows) row\(printedRows == 1 ? "" : "s")\n" + text.render())
        }
        writer.end(error: failure, findings: headerFindings)
        if let failure {
            Output.error("\(options.file): reading table \(name) failed after \(printedRows) rows at offset "
                         + "\(failure.offset): \(failure.message)")
            throw ExitStatus.findings
        }
        if !headerFindings.isEmpty {
            Output.error("\(options.file): the rows are those of version \(database.version), the one the engine "
                         + "opens; findings:\n" + Output.findingLines(headerFindings))
            throw ExitStatus.findings
        }
    }

    private func cut(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "\\n")
        return flat.count <= width ? flat : String(flat.prefix(width - 1)) + "…"
    }
}

/// Streams rows as JSON or CSV.
struct RowWriter {
    let format: DumpCommand.Format
    let table: String
    let columns: [String]
    private var rowCount = 0

    init(format: DumpCommand.Format, table: String, columns: [String]) {
        self.format = format
        self.table = table
        self.columns = columns
    }

    func begin() {
        switch format {
        case .json:
            write("{\n  \"table\": \(DumpValue.quoted(table)),\n  \"columns\": ["
                  + columns.map(DumpValue.quoted).joined(separator: ", ") + "],\n  \"rows\": [")
        case .csv:
            write((["key"] + columns).map(csvCell).joined(separator: ",") + "\r\n")
        case .table:
            break
        }
    }

    mutating func row(key: Int64, values: [DumpValue]) {
        switch format {
        case .json:
            let fields = zip(columns, values).map { DumpValue.quoted($0) + ": " + $1.json }.joined(separator: ", ")
            write((rowCount == 0 ? "\n" : ",\n") + "    {\"key\": \(key), \"values\": {\(fields)}}")
        case .csv:
            write(([String(key)] + values.map { value -> String in
                if case .null = value { return "" }
                return csvCell(value.text)
            }).joined(separator: ",") + "\r\n")
        case .table:
            break
        }
        rowCount += 1
    }

    func end(error: EngineFailure?, findings: [Finding]) {
        guard format == .json else { return }
        var tail = (rowCount == 0 ? "" : "\n  ") + "],\n  \"rowCount\": \(rowCount)"
        if let error {
            tail += ",\n  \"error\": {\"offset\": \(error.offset), \"what\": \(DumpValue.quoted(error.message))}"
        }
        if !findings.isEmpty {
            tail += ",\n  \"findings\": [" + findings.map {
                "{\"offset\": \($0.offset), \"what\": \(DumpValue.quoted($0.what))}"
            }.joined(separator: ", ") + "]"
        }
        write(tail + "\n}\n")
    }

    private func csvCell(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
