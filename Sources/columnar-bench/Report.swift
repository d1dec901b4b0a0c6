// Report: turns the results into the tables people read, or into JSON for programs.
//
// The main table has one row per workload and engine of the storage, object and query suites: throughput, latency
// percentiles, size on disk, peak memory, and on Columnar's rows the ratio of its throughput to SQLite's (above 1:
// Columnar is faster), and, where the query suite ran the plain C loop, to the C loop's. The commit suite's rows
// carry their own ratios and make two tables of their own (Report+Commit.swift). In JSON every row is in `results`;
// a commit-suite row says its table and ratios.

import Foundation

struct Report: Codable {
    var machine: MachineInfo
    var configuration: BenchConfiguration
    /// One line per engine on how it was set up (durability, commit path).
    var engineSetups: [String]
    var results: [WorkloadResult]
    /// Whether peak memory was reset before each run (see PeakMemory); otherwise it is the process's maximum.
    var peakMemoryIsPerRun: Bool

    static let comparedEngine = "Columnar"
    static let baselineEngine = "SQLite"
    /// The query suite's plain C loop (PlainLoopBaseline): a second ratio column when it ran.
    static let loopEngine = "C loop"
    /// The object suite's raw column read (ColumnarColumnReads): a ratio column of its own when it ran.
    static let columnReadEngine = "C API"
    /// The object suite's key-value peer (LMDBEngine): a ratio column of its own when it ran.
    static let keyValueEngine = "LMDB"

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    func text() -> String {
        var lines: [String] = []
        lines.append(machine.line)
        var sizes: [String] = []
        if configuration.suite.includesStorage {
            sizes.append("\(Self.grouped(configuration.objectCount)) objects (bulk insert, read back, point reads), "
                + "\(Self.grouped(configuration.commitCount)) single-object commits on a "
                + "\(Self.grouped(configuration.updateTableObjectCount))-object table")
        }
        if configuration.suite.includesObjects {
            sizes.append("object API: \(Self.grouped(configuration.objectCount)) objects (insert, read 1 int prop, "
                + "read it of held objects), "
                + "\(Self.grouped(configuration.lookupCount)) primary-key lookups, "
                + "\(Self.grouped(min(configuration.commitCount, configuration.objectCount))) single-object durable commits")
        }
        if configuration.suite.includesQuery {
            sizes.append("queries: \(Self.grouped(configuration.scanObjectCount)) objects (counts, aggregates), "
                + "\(Self.grouped(configuration.objectCount)) objects (prefix count, sorts), "
                + "\(Self.grouped(configuration.lookupCount)) indexed lookups, each query timed "
                + configuration.queryRepetitions.description + " after one untimed run")
        }
        if configuration.suite.includesCommit {
            sizes.append("commits: \(Self.grouped(configuration.commitCount)) per committer and probe, "
                + "\(configuration.commitThreadCount) threads, \(configuration.commitProcessCount) processes, on a "
                + "\(Self.grouped(configuration.updateTableObjectCount))-object table")
        }
        lines.append("suite \(configuration.suite.rawValue); sizes: " + sizes.joined(separator: "; ")
            + "; seed \(configuration.seed)")
        lines += engineSetups

        let mainResults = results.filter { $0.table == nil }
        if !mainResults.isEmpty {
            lines.append("")
            lines += mainTableLines(mainResults)
        }
        lines += commitTableLines()
        if !mainResults.isEmpty {
            lines.append(peakMemoryIsPerRun
                ? "peak RSS: VmHWM, reset before each run (both engines share one process)."
                : "peak RSS: the process's maximum so far (the kernel refused a reset): later rows include earlier "
                    + "ones.")
        }
        lines.append("file size: bytes on disk after the run (SQLite: database + WAL; Columnar: the data file, "
            + "which grows in preallocated steps; LMDB: the data file; lock files not counted).")
        return lines.joined(separator: "\n")
    }

    /// The main table (storage, object and query suites) and the notes under it.
    private func mainTableLines(_ results: [WorkloadResult]) -> [String] {
        var lines: [String] = []
        let hasLoop = results.contains { $0.engine == Self.loopEngine }
        let hasColumnReads = results.contains { $0.engine == Self.columnReadEngine }
        let hasKeyValue = results.contains { $0.engine == Self.keyValueEngine }
        let hasEncrypted = results.contains { $0.engine == BenchEncryption.engineName }
        let header = ["workload", "engine", "ops/s", "p50 µs", "p99 µs", "max µs", "file size", "peak RSS",
                      "\(Self.comparedEngine)/\(Self.baselineEngine)"]
            + (hasLoop ? ["\(Self.comparedEngine)/\(Self.loopEngine)"] : [])
            + (hasColumnReads ? ["\(Self.comparedEngine)/\(Self.columnReadEngine)"] : [])
            + (hasKeyValue ? ["\(Self.comparedEngine)/\(Self.keyValueEngine)"] : [])
            + (hasEncrypted ? ["encrypted time"] : [])
        var rows: [[String]] = [header]
        // Three decimals below 0.1, so a ratio of 0.004 does not print as 0.00.
        func ratioText(_ ratio: Double?) -> String {
            ratio.map { Self.format($0, decimals: $0 < 0.1 ? 3 : 2) + "×" } ?? ""
        }
        for result in results {
            let latency = result.latency
            rows.append([
                result.workload,
                result.engine,
                Self.throughput(result.operationsPerSecond),
                latency.map { Self.microseconds($0.p50Microseconds) } ?? "-",
                latency.map { Self.microseconds($0.p99Microseconds) } ?? "-",
                latency.map { Self.microseconds($0.maxMicroseconds) } ?? "-",
                Self.mebibytes(result.fileSizeBytes),
                Self.mebibytes(result.peakMemoryBytes),
                ratioText(ratio(for: result, against: Self.baselineEngine, in: results)),
            ] + (hasLoop ? [ratioText(ratio(for: result, against: Self.loopEngine, in: results))] : [])
                + (hasColumnReads ? [ratioText(ratio(for: result, against: Self.columnReadEngine, in: results))] : [])
                + (hasKeyValue ? [ratioText(ratio(for: result, against: Self.keyValueEngine, in: results))] : [])
                + (hasEncrypted ? [ratioText(encryptedTimeRatio(for: result, in: results))] : []))
        }
        lines += Self.tableLines(rows, leftAligned: [0, 1])

        lines.append("")
        let batched = results.filter { ($0.latency?.operationsPerSample ?? 1) > 1 }
        for result in batched where result.engine == results.first?.engine {
            lines.append("\(result.workload): operations timed in batches of \(result.latency!.operationsPerSample); "
                + "latencies are batch means.")
        }
        for result in results {
            for note in result.notes { lines.append("\(result.workload), \(result.engine): \(note)") }
        }
        lines.append("\(Self.comparedEngine)/\(Self.baselineEngine): \(Self.comparedEngine)'s throughput divided by "
            + "\(Self.baselineEngine)'s on the same workload (above 1: \(Self.comparedEngine) is faster).")
        if configuration.suite.includesQuery {
            lines.append("query rows: ops/s are queries a second (lookups a second on the lookup row), each query "
                + "over all the objects named in the workload; latencies are per query.")
        }
        if hasColumnReads {
            lines.append("\(Self.comparedEngine)/\(Self.columnReadEngine): a managed property read of objects already "
                + "made against the C API's read of the same column (columnar_obj_get_int), same file and keys "
                + "(1: the object API adds nothing; 0.5: it doubles the cost of the column read); on the lookup "
                + "row, realm.object(ofType:forPrimaryKey:) and the read against columnar_obj_find_primary_key and "
                + "columnar_obj_get_int.")
        }
        if hasKeyValue {
            lines.append("\(Self.comparedEngine)/\(Self.keyValueEngine): the same against LMDB, on the object suite's "
                + "insert, read and lookup (above 1: \(Self.comparedEngine) is faster).")
        }
        if hasEncrypted {
            lines.append("encrypted time: on the rows of \(BenchEncryption.engineName), the time of the workload "
                + "over its time on \(Self.comparedEngine)'s plain file in the same run (1.25: encryption adds 25 %).")
        }
        if hasLoop {
            lines.append("\(Self.comparedEngine)/\(Self.loopEngine): the same against a plain C loop over an int64_t "
                + "array of the same values (1: as fast as the loop; 0.33: three times slower).")
        }
        return lines
    }

    /// A header row and data rows as aligned text columns, the header underlined; columns in `leftAligned` are
    /// padded on the right, the others (numbers) on the left.
    static func tableLines(_ rows: [[String]], leftAligned: Set<Int>) -> [String] {
        guard let header = rows.first else { return [] }
        var lines: [String] = []
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for (rowIndex, row) in rows.enumerated() {
            let cells = row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return leftAligned.contains(column) ? cell + padding : padding + cell
            }
            lines.append(String(cells.joined(separator: "  ").reversed().drop { $0 == " " }.reversed()))
            if rowIndex == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        return lines
    }

    /// On an encrypted engine's row: the plain engine's throughput over the encrypted one's (its time over the
    /// plain time) for the same workload.
    private func encryptedTimeRatio(for result: WorkloadResult, in results: [WorkloadResult]) -> Double? {
        guard result.engine == BenchEncryption.engineName, result.operationsPerSecond > 0,
              let plain = results.first(where: { $0.workload == result.workload && $0.engine == Self.comparedEngine })
        else { return nil }
        return plain.operationsPerSecond / result.operationsPerSecond
    }

    /// Columnar's throughput over another engine's (`baselineEngine`) for the same workload, on Columnar's row.
    private func ratio(for result: WorkloadResult, against baselineEngine: String, in results: [WorkloadResult])
        -> Double?
    {
        guard result.engine == Self.comparedEngine,
              let baseline = results.first(where: {
                  $0.workload == result.workload && $0.engine == baselineEngine
              }),
              baseline.operationsPerSecond > 0
        else { return nil }
        return result.operationsPerSecond / baseline.operationsPerSecond
    }

    // MARK: Number formatting (locale-independent, so reports compare across machines)

    static func format(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0 ..< decimals { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let whole = scaled / Int64(scale)
        var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let fraction = String(scaled % Int64(scale))
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start ..< end], at: 0)
            end = start
        }
        return (value < 0 ? "-" : "") + groups.joined(separator: ",")
    }

    /// Operations per second: whole numbers, with decimals below 100 so that a slow query (a fraction of a
    /// query a second) does not print as 0.
    static func throughput(_ value: Double) -> String {
        value >= 100 ? grouped(Int(value.rounded())) : format(value, decimals: value >= 10 ? 1 : 2)
    }

    /// A count for a workload's name: 10M, 200k, 1,500.
    static func shortCount(_ value: Int) -> String {
        if value >= 1_000_000 && value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1_000 && value % 1_000 == 0 { return "\(value / 1_000)k" }
        return grouped(value)
    }

    static func microseconds(_ value: Double) -> String {
        format(value, decimals: value < 10 ? 2 : value < 1000 ? 1 : 0)
    }

    static func mebibytes(_ bytes: UInt64) -> String {
        format(Double(bytes) / Double(1 << 20), decimals: 1) + " MiB"
    }
}
