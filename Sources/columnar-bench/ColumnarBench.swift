// columnar-bench: runs the same workloads on Columnar and on SQLite in one process and prints one table.
// Four suites: storage (each engine's C API; Workload.swift), objects (Columnar's Swift object API against
// SQLite's C API; ObjectWorkload.swift), query (Results' filter, count, aggregates and sorts against SQLite with
// indexes and a plain C loop; QueryWorkload.swift) and commit (durable commits against a raw write + sync, from
// threads and processes; CommitWorkload.swift, with two tables of its own), selected with --suite. The commit
// suite's other processes are this program again, run as `columnar-bench commit-worker ...` (CommitWorker.swift).
// The `notifications` subcommand measures change notifications on their own (NotificationWorkload.swift); its
// writer process is this program again too, run as `columnar-bench notification-writer ...`. The `maintenance`
// subcommand measures compaction and copies against SQLite's VACUUM (MaintenanceBench.swift), and `mixed` a scan of an
// AnyRealmValue column against the same scan of an Int column (MixedScanBench.swift).
//
// Each engine gets fresh files and the same seeded data; every answer is checked, so a wrong engine fails the
// run instead of winning it. See Workload.swift for the workloads and Report.swift for the table.

import ArgumentParser
import CColumnar
import CSQLite
import Foundation

extension BenchSuite: ExpressibleByArgument {}

@main
struct ColumnarBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "columnar-bench",
        abstract: "Runs the same workloads on Columnar and SQLite and prints one comparison table.",
        discussion: """
            Storage suite (each engine's C API): (a) bulk insert of --objects objects (five columns) in one \
            durable write transaction, then every value read back and checked; (c) point reads of one int column \
            of every object; (b) --commits single-object durable commits on a 10,000-object table. \
            Object suite (Columnar through its Swift object API: Realm, Object, @Persisted; SQLite through its C \
            API): --objects objects of five properties added in one durable write transaction; one Int property \
            of every object read; the same property of objects already made, against the C API's read of that \
            column (columnar_obj_get_int); --lookups objects found by primary key. Both engines commit durably \
            (Columnar: durability FULL; SQLite: WAL with synchronous=FULL). \
            Query suite (Columnar through Results; SQLite with an index on every filtered or sorted column; a plain \
            C loop over an int64_t array for the scans): count of intCol > x (50 % and 1 % match), sum, min, max and \
            average over --scan-objects objects; count of stringCol BEGINSWITH 'ab', sort by an Int and by a \
            String reading every id, over --objects objects; --lookups lookups of an indexed String. \
            Commit suite (durable commits: Columnar with durability FULL, SQLite with WAL and synchronous=FULL; \
            --commits commits per committer): a reference line, one 4 KiB pwrite + fdatasync in a preallocated, \
            zero-filled file beside the databases; an io options probe, a commit's write pattern (k = 1 and 4 \
            node pages, a 512-byte header sector, one data sync) through pwritev, io_uring (linked, with and \
            without SINGLE_ISSUER|DEFER_TASKRUN, registered file and buffers), O_DIRECT and RWF_DSYNC, in a table \
            of its own; single-object commits on a 10,000-object table on Columnar through io_uring and through \
            pwrite and on SQLite, with p50 against the reference (Columnar's target: at most 1.5x) and commits/s \
            against SQLite; 8 threads each making the reference line's write + sync on their own at once (the \
            disk's figure for 8 writers); 8 threads each incrementing an object of their own, on Columnar with one \
            shared handle and with a handle each and on SQLite with a connection each, against one committer \
            (target: at least 4x) and against the 8 raw writers; 2 processes doing the same on one file. After \
            the threads and the processes, each counter is checked against the commits its committer saw \
            acknowledged ("lost: 0"). \
            Change notifications are measured by the notifications subcommand (see its --help).
            """,
        subcommands: [NotificationBench.self, MaintenanceBench.self, MixedScanBench.self])

    static let defaultObjectCount = 1_000_000
    static let defaultCommitCount = 2_000
    static let defaultLookupCount = 100_000
    static let quickObjectCount = 50_000
    static let quickCommitCount = 300
    static let quickLookupCount = 10_000
    static let defaultScanObjectCount = 10_000_000
    static let quickScanObjectCount = 200_000
    /// Threads and processes of the commit suite's concurrent workloads.
    static let commitThreadCount = 8
    static let commitProcessCount = 2
    /// Each query is timed at least 5 times, and again while its timed runs took under 0.2 s in all (at most
    /// 100,000 times): a scan of tens of milliseconds is timed 5 times, an index read of a microsecond thousands
    /// of times, so neither a cold first run nor the clock's resolution decides its figure.
    static let queryRepetitions = QueryRepetitions(minimum: 5, maximum: 100_000, minimumNanoseconds: 200_000_000)

    @Option(help: """
        Workloads to run: storage (C API), objects (Swift object API), query (Results queries), commit (durable \
        commits against a raw write + sync, threads, processes) or all.
        """)
    var suite: BenchSuite = .all

    @Option(help: "Objects in the bulk-insert and object tables (default 1,000,000; 50,000 with --quick).")
    var objects: Int?

    @Option(help: """
        Single-object durable commits (default 2,000; 300 with --quick); in the commit suite, the commits of each \
        committer (thread or process) and the steps of each probe.
        """)
    var commits: Int?

    @Option(help: """
        Primary-key lookups of the object suite and indexed-string lookups of the query suite \
        (default 100,000; 10,000 with --quick).
        """)
    var lookups: Int?

    @Option(help: """
        Objects of the query suite's scan table, for counts and aggregates (default 10,000,000; 200,000 with \
        --quick). Its sorts and prefix count use --objects objects.
        """)
    var scanObjects: Int?

    @Flag(help: "Small sizes, for a run of well under a minute per suite.")
    var quick = false

    @Flag(help: """
        Also run the storage, object and query suites' Columnar workloads on encrypted files ("Columnar \
        (encrypted)"), beside the plain ones in the same run; the report adds the time of each encrypted row over \
        the plain row (docs/Encryption.md).
        """)
    var encrypted = false

    @Option(help: """
        Directory for the database files, created if needed; the files are kept there afterwards. \
        Default: a fresh temporary directory, removed afterwards.
        """)
    var dir: String?

    @Flag(help: "Print the report as JSON instead of a table.")
    var json = false

    @Option(help: "Seed of the generated data.")
    var seed: UInt64 = 20_240_601

    @Option(help: """
        Objects per cluster Columnar writes in the storage suite, the query suite's tables and the commit suite \
        (default: the engine's default, 256); the object suite's Realm and the commit suite's worker processes \
        always use the default.
        """)
    var clusterSize: UInt32?

    /// The entry point: `commit-worker` as the first argument runs a worker of the commit suite (CommitWorker.swift),
    /// `notification-writer` the writer process of the notifications subcommand (NotificationWriter.swift), anything
    /// else the harness. The workers are not subcommands of the harness so that the harness's usage line and --help
    /// stay about the harness alone.
    ///
    /// `notifications` is listed as a subcommand but run here, before the harness parses anything: a parent's
    /// options may also be given after a subcommand's name, so the harness's own --commits, --objects, --dir and
    /// --seed would take the values meant for the subcommand's options of the same names.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == CommitWorker.configuration.commandName {
            CommitWorker.main(Array(arguments.dropFirst()))
        } else if arguments.first == NotificationWriter.configuration.commandName {
            NotificationWriter.main(Array(arguments.dropFirst()))
        } else if arguments.first == NotificationBench.configuration.commandName {
            NotificationBench.main(Array(arguments.dropFirst()))
        } else if arguments.first == MaintenanceBench.configuration.commandName {
            MaintenanceBench.main(Array(arguments.dropFirst()))
        } else if arguments.first == MixedScanBench.configuration.commandName {
            MixedScanBench.main(Array(arguments.dropFirst()))
        } else {
            main(arguments)
        }
    }

    mutating func validate() throws {
        if let objects, objects < 1 { throw ValidationError("--objects must be at least 1") }
        if let commits, commits < 1 { throw ValidationError("--commits must be at least 1") }
        if let lookups, lookups < 1 { throw ValidationError("--lookups must be at least 1") }
        if let scanObjects, scanObjects < 1 { throw ValidationError("--scan-objects must be at least 1") }
        if let clusterSize, clusterSize < 1 || clusterSize > 65_536 {
            throw ValidationError("--cluster-size must be 1 to 65,536")
        }
    }

    mutating func run() throws {
        let configuration = BenchConfiguration(
            suite: suite,
            objectCount: objects ?? (quick ? Self.quickObjectCount : Self.defaultObjectCount),
            commitCount: commits ?? (quick ? Self.quickCommitCount : Self.defaultCommitCount),
            updateTableObjectCount: 10_000,
            commitThreadCount: Self.commitThreadCount,
            commitProcessCount: Self.commitProcessCount,
            lookupCount: lookups ?? (quick ? Self.quickLookupCount : Self.defaultLookupCount),
            scanObjectCount: scanObjects ?? (quick ? Self.quickScanObjectCount : Self.defaultScanObjectCount),
            queryRepetitions: Self.queryRepetitions,
            seed: seed)

        let directory = try dir.map(Self.prepareDirectory) ?? Self.makeTemporaryDirectory()
        defer { if dir == nil { try? FileManager.default.removeItem(atPath: directory) } }

        let columnar = ColumnarEngine(clusterSize: clusterSize)
        let sqlite = SQLiteEngine()
        let encryptedColumnar = ColumnarEngine(name: BenchEncryption.engineName, clusterSize: clusterSize, encrypted: true)
        let engines: [any BenchmarkEngine] =
            suite.includesStorage ? [columnar] + (encrypted ? [encryptedColumnar] : []) + [sqlite] : []
        let columnarObjects = ColumnarObjectEngine()
        let encryptedObjects: [ColumnarObjectEngine] = encrypted ? [ColumnarObjectEngine(encrypted: true)] : []
        let objectEngines: [any ObjectBenchmarkEngine] =
            suite.includesObjects ? [columnarObjects] + encryptedObjects + [sqlite] : []
        let heldReadEngines: [any HeldObjectReadEngine] =
            suite.includesObjects ? [columnarObjects] + encryptedObjects + [ColumnarColumnReads()] : []
        let keyValueEngines: [any KeyValueBenchmarkEngine] = suite.includesObjects ? [LMDBEngine()] : []
        let queryEngines: [any QueryBenchmarkEngine] =
            suite.includesQuery
            ? [ColumnarQueryEngine(clusterSize: clusterSize)]
                + (encrypted ? [ColumnarQueryEngine(clusterSize: clusterSize, encrypted: true)] : [])
                + [sqlite, PlainLoopBaseline()]
            : []
        let commitEngines = suite.includesCommit
            ? CommitSuiteEngines(
                columnar: ColumnarEngine(name: "Columnar (io_uring)", clusterSize: clusterSize),
                columnarPwrite: ColumnarEngine(name: "Columnar (pwrite)", clusterSize: clusterSize, usesIOUring: false),
                sqlite: sqlite)
            : nil
        let machine = MachineInfo.current(databaseDirectory: directory,
                                          sqliteVersion: String(cString: sqlite3_libversion()))
        Self.log(machine.line)
        var runner = WorkloadRunner(configuration: configuration, engines: engines, objectEngines: objectEngines,
                                    heldReadEngines: heldReadEngines, keyValueEngines: keyValueEngines,
                                    queryEngines: queryEngines,
                                    commitEngines: commitEngines, directory: directory, keepFiles: dir != nil,
                                    progress: { Self.log("  " + $0) })
        let results = try runner.runAll()
        if suite.includesStorage { Self.log("Columnar commit path: \(columnar.commitPathDescription)") }

        // One line per engine set-up; SQLite serves every suite and is listed once. Then the unmeasured setup steps.
        var engineSetups: [String] = []
        var everyEngine: [any EngineIdentity] = engines.map { $0 } + objectEngines.map { $0 }
            + heldReadEngines.map { $0 } + keyValueEngines.map { $0 } + queryEngines.map { $0 }
        if let commitEngines { everyEngine += [commitEngines.columnar, commitEngines.columnarPwrite, sqlite] }
        for engine in everyEngine where !engineSetups.contains(engine.setupDescription) {
            engineSetups.append(engine.setupDescription)
        }
        if commitEngines != nil {
            engineSetups.append("SQLite's concurrent committers: a connection each, busy_timeout="
                + "\(SQLiteEngine.busyTimeoutMilliseconds) ms, BEGIN IMMEDIATE per commit")
            engineSetups.append("commit probes: C (CBenchBaseline, commit_probe.c) on a "
                + "\(CommitProbe.fileSizeBytes >> 20) MiB file preallocated and zero-filled beside the databases, "
                + "\(CommitProbe.warmUpSteps) untimed steps first; node writes 4 KiB, two pages apart")
        }
        engineSetups += runner.setupNotes
        let report = Report(
            machine: machine,
            configuration: configuration,
            engineSetups: engineSetups,
            results: results,
            peakMemoryIsPerRun: runner.peakMemoryIsPerRun)
        print(json ? try report.json() : "\n" + report.text())
    }

    /// Progress goes to standard error, so standard output holds only the report (and stays valid JSON).
    static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Runs a subcommand's measurements in its directory (`--dir`, kept afterwards, or a fresh temporary one removed
    /// afterwards), after logging the machine's line.
    static func inRunDirectory(_ dir: String?, _ body: (String, MachineInfo) throws -> Void) throws {
        let directory = try dir.map(prepareDirectory) ?? makeTemporaryDirectory()
        defer { if dir == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let machine = MachineInfo.current(databaseDirectory: directory,
                                          sqliteVersion: String(cString: sqlite3_libversion()))
        log(machine.line)
        try body(directory, machine)
    }

    static func prepareDirectory(_ path: String) throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func makeTemporaryDirectory() throws -> String {
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
