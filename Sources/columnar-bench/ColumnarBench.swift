// columnar-bench: runs the same workloads on Columnar and on SQLite in one process and prints one table.
//
// Each engine gets fresh files and the same seeded data; every answer is checked, so a wrong engine fails the
// run instead of winning it. See Workload.swift for the workloads and Report.swift for the table.

import ArgumentParser
import CColumnar
import CSQLite
import Foundation

@main
struct ColumnarBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "columnar-bench",
        abstract: "Runs the same workloads on Columnar and SQLite and prints one comparison table.",
        discussion: """
            Workloads: (a) bulk insert of --objects objects (five columns) in one durable write transaction, \
            then every value read back and checked; (c) point reads of one int column of every object; \
            (b) --commits single-object durable commits on a 10,000-object table. Both engines commit durably \
            (Columnar: durability FULL; SQLite: WAL with synchronous=FULL).
            """)

    static let defaultObjectCount = 1_000_000
    static let defaultCommitCount = 2_000
    static let quickObjectCount = 50_000
    static let quickCommitCount = 300

    @Option(help: "Objects in the bulk-insert table (default 1,000,000; 50,000 with --quick).")
    var objects: Int?

    @Option(help: "Single-object durable commits (default 2,000; 300 with --quick).")
    var commits: Int?

    @Flag(help: "Small sizes, for a run of well under a minute.")
    var quick = false

    @Option(help: """
        Directory for the database files, created if needed; the files are kept there afterwards. \
        Default: a fresh temporary directory, removed afterwards.
        """)
    var dir: String?

    @Flag(help: "Print the report as JSON instead of a table.")
    var json = false

    @Option(help: "Seed of the generated data.")
    var seed: UInt64 = 20_240_601

    @Option(help: "Objects per cluster Columnar writes (default: the engine's default, 256).")
    var clusterSize: UInt32?

    mutating func validate() throws {
        if let objects, objects < 1 { throw ValidationError("--objects must be at least 1") }
        if let commits, commits < 1 { throw ValidationError("--commits must be at least 1") }
        if let clusterSize, clusterSize < 1 || clusterSize > 65_536 {
            throw ValidationError("--cluster-size must be 1 to 65,536")
        }
    }

    mutating func run() throws {
        let configuration = BenchConfiguration(
            objectCount: objects ?? (quick ? Self.quickObjectCount : Self.defaultObjectCount),
            commitCount: commits ?? (quick ? Self.quickCommitCount : Self.defaultCommitCount),
            updateTableObjectCount: 10_000,
            seed: seed)

        let directory = try dir.map(Self.prepareDirectory) ?? Self.makeTemporaryDirectory()
        defer { if dir == nil { try? FileManager.default.removeItem(atPath: directory) } }

        let columnar = ColumnarEngine(clusterSize: clusterSize)
        let engines: [any BenchmarkEngine] = [columnar, SQLiteEngine()]
        let machine = MachineInfo.current(databaseDirectory: directory,
                                          sqliteVersion: String(cString: sqlite3_libversion()))
        Self.log(machine.line)
        var runner = WorkloadRunner(configuration: configuration, engines: engines, directory: directory,
                                    keepFiles: dir != nil, progress: { Self.log("  " + $0) })
        let results = try runner.runAll()
        Self.log("Columnar commit path: \(columnar.commitPathDescription)")

        let report = Report(
            machine: machine,
            configuration: configuration,
            engineSetups: engines.map(\.setupDescription),
            results: results,
            peakMemoryIsPerRun: runner.peakMemoryIsPerRun)
        print(json ? try report.json() : "\n" + report.text())
    }

    /// Progress goes to standard error, so standard output holds only the report (and stays valid JSON).
    static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    private static func prepareDirectory(_ path: String) throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func makeTemporaryDirectory() throws -> String {
        // Foundation's temporary directory honours TMPDIR.
        var base = FileManager.default.temporaryDirectory.path
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array("\(base)/columnar-bench.XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError.setup("cannot create a temporary directory under \(base): "
                + String(cString: strerror(errno)))
        }
        return String(cString: created)
    }
}
