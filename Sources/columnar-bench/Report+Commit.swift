// Report+Commit: the commit suite's two tables — the durable commits (reference line, single commits, threads,
// processes), each row with the ratios it is judged by, and the io options probe, one row per method and node
// count with its p50 against the reference line's.

extension Report {
    /// The commit suite's tables and notes; nothing when the suite did not run.
    func commitTableLines() -> [String] {
        let commitRows = results.filter { $0.table == .commit }
        let probeRows = results.filter { $0.table == .ioProbe }
        guard !commitRows.isEmpty || !probeRows.isEmpty else { return [] }
        var lines: [String] = []

        if !commitRows.isEmpty {
            lines.append("")
            lines.append("Commit suite: durable commits (Columnar: durability FULL; SQLite: WAL, synchronous=FULL)")
            var rows = [["workload", "engine", "ops/s", "p50 µs", "p99 µs", "max µs", "file size", "ratios"]]
            for result in commitRows {
                rows.append(Self.figureCells(result) + [
                    Self.mebibytes(result.fileSizeBytes),
                    (result.ratios ?? []).map(Self.ratioText).joined(separator: "; "),
                ])
            }
            lines += Self.tableLines(rows, leftAligned: [0, 1, 7])
            lines.append("")
            lines += Self.noteLines(commitRows)
            lines.append("ratios: \"p50 N× reference\" is the row's median latency over the reference line's (lower "
                + "is faster); \"commits/s N× X\" is the row's throughput over X's in this run (higher is faster); "
                + "\"1 committer\" is the same engine's single-object commits.")
            lines.append("threads and processes rows: ops/s counts the commits of every committer; a commit's "
                + "latency includes its wait for the writer lock.")
        }

        if !probeRows.isEmpty {
            lines.append("")
            lines.append("io options probe: k node pages of 4 KiB + a 512-byte header sector + one data sync, "
                + "in the reference line's file")
            var rows = [["k", "method", "ops/s", "p50 µs", "p99 µs", "max µs", "p50/reference"]]
            for result in probeRows {
                let referenceRatio = result.ratios?.first { $0.peer == "reference" }
                rows.append(Self.figureCells(result)
                    + [referenceRatio.map { Self.format($0.value, decimals: 2) + "×" } ?? ""])
            }
            lines += Self.tableLines(rows, leftAligned: [0, 1])
            let notes = Self.noteLines(probeRows)
            if !notes.isEmpty {
                lines.append("")
                lines += notes
            }
        }
        return lines
    }

    /// Workload, engine, throughput and latency percentiles of a row.
    private static func figureCells(_ result: WorkloadResult) -> [String] {
        let latency = result.latency
        return [
            result.workload,
            result.engine,
            result.operationsPerSecond > 0 ? throughput(result.operationsPerSecond) : "-",
            latency.map { microseconds($0.p50Microseconds) } ?? "-",
            latency.map { microseconds($0.p99Microseconds) } ?? "-",
            latency.map { microseconds($0.maxMicroseconds) } ?? "-",
        ]
    }

    private static func noteLines(_ results: [WorkloadResult]) -> [String] {
        results.flatMap { result in result.notes.map { "\(result.workload), \(result.engine): \($0)" } }
    }

    /// "p50 2.91× reference (target ≤ 1.5×: missed)", "commits/s 0.48× SQLite".
    static func ratioText(_ ratio: PeerRatio) -> String {
        var text = "\(ratio.measure) \(format(ratio.value, decimals: ratio.value < 0.1 ? 3 : 2))× \(ratio.peer)"
        if let meetsTarget = ratio.meetsTarget {
            let bound = ratio.targetAtMost.map { "≤ \(format($0, decimals: 1))×" }
                ?? ratio.targetAtLeast.map { "≥ \(format($0, decimals: 1))×" } ?? ""
            text += " (target \(bound): \(meetsTarget ? "met" : "missed"))"
        }
        return text
    }
}
