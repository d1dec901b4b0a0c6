// SchemaCommand.swift — `schema FILE`: every table and its properties as the file's SCHEMA node records them.

import ArgumentParser
import CColumnar

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show every table (class) and its properties: type, nullability, index, primary key, links.",
        discussion: """
            The schema is decoded from the version's SCHEMA node. For each table: its id, name, object count \
            and primary key; for each property (column): its id, name, value type, collection kind (list, set, \
            dictionary), whether it is nullable and indexed, whether it is the primary key, and for links the \
            target table.

            Columns the Swift API never shows are listed too, marked: hidden backlink columns (one per link \
            property pointing at the table, holding the keys of the objects that link here, with the origin \
            table and property named) and removed columns and tables (their ids stay reserved).

            Names are the persisted names, the ones stored in the file. A Swift model may map a property to a \
            different persisted name; that mapping lives in the model code, not in the file, so the public name \
            cannot be shown here.

            EXIT STATUS
              0 schema decoded, 1 damage met (the schema or a table node unreadable; listed with offsets), \
            2 unreadable.

            EXAMPLES
              columnar-inspect schema data.columnar
              columnar-inspect schema --json data.columnar | jq '.tables[].name'
            """)

    @OptionGroup var options: FileOptions
    @OptionGroup var slotOption: SlotOption

    struct Column: Encodable {
        let id: UInt32
        let name: String
        let type: String
        let collection: String?
        let nullable: Bool
        let indexed: Bool
        let primaryKey: Bool
        let linkTarget: String?
        let hidden: Bool
        let removed: Bool
        let backlinkOrigin: String?
    }

    struct Table: Encodable {
        let id: UInt32
        let name: String
        let removed: Bool
        let objectCount: Int64?
        let primaryKey: String?
        /// Every object's key equals its primary key value, so lookups by it read the table alone.
        let keysArePrimaryKeys: Bool
        let columns: [Column]
    }

    struct Report: Encodable {
        let file: String
        let version: UInt64
        let tables: [Table]
        let namesNote: String
        let findings: [Finding]
    }

    static let namesNote = "names are the persisted names stored in the file; a Swift model's public names, where "
        + "they differ, are not recorded in the file"

    func run() throws {
        let inspector = try Opening.inspector(options, slot: slotOption.slot)
        var findings = inspector.headerFindings()
        var records: [TableRecord] = []
        do {
            records = try inspector.tables()
        } catch let failure as EngineFailure {
            findings.append(Finding(offset: failure.offset, what: failure.message))
        }
        let names = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        let tables = records.map { record -> Table in
            if !record.removed && record.tableRef == 0 {
                findings.append(Finding(offset: inspector.version().version.top_ref,
                                        what: "table \(record.name) has no table node"))
            } else if !record.removed && record.objectCount == nil {
                findings.append(Finding(offset: record.tableRef,
                                        what: "table \(record.name): its table node or META at \(record.tableRef) "
                                              + "cannot be read"))
            }
            let columns = record.columns.map { column in
                Column(
                    id: column.id, name: column.name, type: Names.type(column.type),
                    collection: Names.collection(column.collection), nullable: column.nullable,
                    indexed: column.indexed, primaryKey: column.isPrimaryKey,
                    linkTarget: column.type == COLUMNAR_TYPE_LINK && !column.isBacklink
                        ? names[column.targetTable]?.name ?? "table#\(column.targetTable)" : nil,
                    hidden: column.isBacklink, removed: column.removed,
                    backlinkOrigin: column.isBacklink ? origin(column, names) : nil)
            }
            return Table(id: record.id, name: record.name, removed: record.removed, objectCount: record.objectCount,
                         primaryKey: record.primaryKey.map { record.columns[Int($0)].name },
                         keysArePrimaryKeys: record.keysArePrimaryKeys, columns: columns)
        }
        let report = Report(file: options.file, version: inspector.version().version.version, tables: tables,
                            namesNote: SchemaCommand.namesNote, findings: findings.deduplicated())
        try Output.report(report, json: options.json) { render(report) }
        throw ExitStatus.forFindings(report.findings)
    }

    private func origin(_ column: ColumnRecord, _ tables: [UInt32: TableRecord]) -> String {
        guard let table = tables[column.originTable] else { return "table#\(column.originTable)" }
        let name = Int(column.originColumn) < table.columns.count ? table.columns[Int(column.originColumn)].name
            : "column#\(column.originColumn)"
        return "\(table.name).\(name)"
    }

    private func render(_ report: Report) -> String {
        var blocks: [String] = ["Schema of \(report.file), version \(report.version) (\(report.namesNote))"]
        for table in report.tables {
            var title = "TABLE \(table.name) (id \(table.id)"
            if table.removed {
                title += ", removed)"
                blocks.append(title)
                continue
            }
            title += ", \(table.objectCount.map { Format.grouped($0) } ?? "?") objects"
            title += table.primaryKey.map { ", primary key \($0))" } ?? ")"
            var rows = TextTable(["id", "property", "type", "nullable", "indexed", "primary key", "notes"],
                                 rightAligned: [0])
            for column in table.columns {
                var notes: [String] = []
                if let target = column.linkTarget { notes.append("links to \(target)") }
                if let origin = column.backlinkOrigin { notes.append("hidden: backlinks of \(origin)") }
                if column.removed { notes.append("removed") }
                if column.primaryKey && table.keysArePrimaryKeys { notes.append("every object's key is its value") }
                let type = column.collection.map { "\($0)<\(column.type)>" } ?? column.type
                rows.append(["\(column.id)", column.name, type, column.nullable ? "yes" : "no",
                             column.indexed ? "yes" : "no", column.primaryKey ? "yes" : "",
                             notes.joined(separator: "; ")])
            }
            blocks.append(title + "\n" + rows.render(indent: "  "))
        }
        if !report.findings.isEmpty { blocks.append("Findings:\n" + Output.findingLines(report.findings)) }
        return blocks.joined(separator: "\n\n")
    }
}
