// Workload: the data both engines store, the engine interface, and the runner that executes each workload on
// each engine, checks every answer and collects the figures.
//
// Storage suite (`--suite storage`; through each engine's C API; the sizes are options of the command):
//   a. bulk insert: `objectCount` objects of five columns in ONE write transaction with a durable commit; then
//      the file is reopened and every value is read back and compared with what was written.
//   c. point reads: one int column of every object, one object at a time, in a seeded random order.
//   b. single-object commits: `commitCount` durable write transactions, each updating one object of a
//      10,000-object table; latency per commit. Afterwards the table is reopened and checked.
// (Letters follow the project's workload list; c runs before b because it reuses a's file.)
// The object suite (`--suite objects`: Columnar through its Swift object API) is in ObjectWorkload.swift, the
// query suite (`--suite query`: Results' filter, count, aggregates and sorts) in QueryWorkload.swift, the commit
// suite (`--suite commit`: durable commits against a raw write + sync, with threads and processes) in
// CommitWorkload.swift.

import Columnar
#if canImport(Glibc)
import Glibc
#endif

/// One object of the benchmark table: five columns of the common kinds.
struct BenchRow: Equatable {
    /// 0 ..< 1000: small values, which a bit-packing engine stores in few bits.
    var small: Int64
    /// Any 32-bit signed value.
    var large: Int64
    var ratio: Double
    /// 10 ... 14 lowercase ASCII letters, about 12 bytes.
    var label: ShortText
    var flag: Bool
}

/// A string of at most 16 bytes (the size of `storage`) held inline, so generating rows allocates nothing.
struct ShortText: Equatable {
    private var storage: (UInt64, UInt64) = (0, 0)
    private(set) var byteCount: Int = 0

    init(randomLettersFrom generator: inout SplitMix64) {
        byteCount = 10 + Int(generator.next() % 5)
        withUnsafeMutableBytes(of: &storage) { bytes in
            for index in 0 ..< byteCount { bytes[index] = UInt8(ascii: "a") + UInt8(generator.next() % 26) }
        }
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(of: storage) { try body(UnsafeRawBufferPointer(rebasing: $0[0 ..< byteCount])) }
    }

    /// Whether `count` bytes at `data` are exactly this text.
    func matches(_ data: UnsafeRawPointer?, count: Int) -> Bool {
        guard count == byteCount else { return false }
        guard count > 0 else { return true }
        guard let data else { return false }
        return withBytes { memcmp($0.baseAddress!, data, count) == 0 }
    }

    var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    static func == (left: ShortText, right: ShortText) -> Bool {
        left.withBytes { right.matches($0.baseAddress, count: $0.count) }
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast, well-mixed generator, so runs are reproducible.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// The rows of a table, each a pure function of (seed, rowIndex): both engines get the same data, and readers
/// can recompute any row to check it without keeping the table in memory.
struct DataSet {
    let seed: UInt64

    func row(at rowIndex: Int) -> BenchRow {
        var generator = SplitMix64(seed: seed ^ (UInt64(rowIndex) &* 0xD6E8_FEB8_6659_FD93))
        let small = Int64(generator.next() % 1000)
        let large = Int64(Int32(truncatingIfNeeded: generator.next()))
        let ratio = Double(generator.next() >> 11) / Double(1 << 53) * 1000
        let flag = generator.next() & 1 == 1
        let label = ShortText(randomLettersFrom: &generator)
        return BenchRow(small: small, large: large, ratio: ratio, label: label, flag: flag)
    }
}

/// One single-object update of workload b: set `small` of row `rowIndex` to `newSmall`.
struct RowUpdate {
    var rowIndex: Int
    var newSmall: Int64
}

/// A failure of the harness: an engine call failed, or an engine returned a wrong answer.
enum BenchError: Error, CustomStringConvertible {
    case columnar(call: String, error: ColumnarError)
    case sqlite(call: String, code: Int32, message: String)
    case lmdb(call: String, code: Int32, message: String)
    case wrongAnswer(engine: String, what: String)
    case setup(String)

    var description: String {
        switch self {
        case .columnar(let call, let error): return "Columnar: \(call) failed: \(error)"
        case .sqlite(let call, let code, let message): return "SQLite: \(call) failed (code \(code)): \(message)"
        case .lmdb(let call, let code, let message): return "LMDB: \(call) failed (code \(code)): \(message)"
        case .wrongAnswer(let engine, let what): return "\(engine) returned a wrong answer: \(what)"
        case .setup(let what): return what
        }
    }
}

/// What the runner needs of every engine, whatever workloads it runs: its name, how it is set up, its files.
protocol EngineIdentity: AnyObject {
    /// The engine's name in the report; ratios pair rows of "Columnar" and "SQLite" on the same workload.
    var name: String { get }
    /// One line about how the engine is set up (durability, commit path), for the report.
    var setupDescription: String { get }
    /// The file name extension of its databases.
    var fileExtension: String { get }
    /// The files whose sizes make up the database's size on disk.
    func dataFiles(at path: String) -> [String]
    /// Every file the engine may create for a database at `path` (removed before and after a run).
    func allFiles(at path: String) -> [String]
}

/// What the runner needs of an engine for the storage suite. Each method opens the database at `path`, does its
/// part and closes it again, so every workload sees a freshly opened file. Methods time only the part being
/// measured, through `recorder` (`startRun`/`endRun` around the measured interval and `measure` around each
/// operation).
protocol BenchmarkEngine: EngineIdentity {
    /// Workload a, first half: creates the table and inserts rows 0 ..< rowCount in one durable transaction.
    func bulkInsert(path: String, data: DataSet, rowCount: Int, recorder: inout LatencyRecorder) throws
    /// Workload a, second half: reads every value of every object, compares each with `data` and returns the
    /// number of objects checked.
    func readBack(path: String, data: DataSet, rowCount: Int, recorder: inout LatencyRecorder) throws -> Int
    /// Workload c: reads `small` of each row in `rowOrder`, one at a time, and returns the sum of the values.
    func pointReads(path: String, rowOrder: [Int], recorder: inout LatencyRecorder) throws -> Int64
    /// Workload b, setup (not measured): creates a table of rows 0 ..< rowCount in one transaction.
    func createUpdateTable(path: String, data: DataSet, rowCount: Int) throws
    /// Workload b: applies each update in its own durable write transaction.
    func singleObjectCommits(path: String, updates: [RowUpdate], recorder: inout LatencyRecorder) throws
    /// Workload b, check: `small` of rows 0 ..< rowCount, by row index.
    func smallColumn(path: String, rowCount: Int) throws -> [Int64]
}

/// The sizes and seed of one run of the harness.
struct BenchConfiguration: Codable {
    var suite: BenchSuite
    var objectCount: Int
    var commitCount: Int
    var updateTableObjectCount: Int
    /// Threads committing at once in the commit suite (each makes `commitCount` commits).
    var commitThreadCount: Int
    /// Processes committing at once in the commit suite (each makes `commitCount` commits).
    var commitProcessCount: Int
    /// Primary-key lookups of the object suite, and indexed-string lookups of the query suite.
    var lookupCount: Int
    /// Objects of the query suite's scan table (counts and aggregates); its item table has `objectCount`.
    var scanObjectCount: Int
    /// How many times each query of the query suite is timed (after one untimed run).
    var queryRepetitions: QueryRepetitions
    var seed: UInt64
}

/// Which workloads a run executes: the storage engine's (through the C API), the object API's, the query
/// engine's, the durable commits', or all of them.
enum BenchSuite: String, Codable, CaseIterable {
    case storage
    case objects
    case query
    case commit
    case all

    var includesStorage: Bool { self == .storage || self == .all }
    var includesObjects: Bool { self == .objects || self == .all }
    var includesQuery: Bool { self == .query || self == .all }
    var includesCommit: Bool { self == .commit || self == .all }
}

/// The outcome of one workload on one engine.
struct WorkloadResult: Codable {
    var workload: String
    var engine: String
    var operationCount: Int
    var elapsedSeconds: Double
    var operationsPerSecond: Double
    var latency: LatencySummary?
    var fileSizeBytes: UInt64
    var peakMemoryBytes: UInt64
    var notes: [String]
    /// The table of the text report the row belongs to; nil for the main table (storage, object and query suites).
    var table: ReportTable? = nil
    /// Ratios to peers of the same run that the row is judged by (the commit suite's); nil where the report's
    /// ratio columns apply instead.
    var ratios: [PeerRatio]? = nil
}

/// The tables of the text report besides the main one.
enum ReportTable: String, Codable {
    /// The commit suite: the reference line and the engines' durable commits.
    case commit
    /// The commit suite's io options probe: a commit's write pattern done each way the engine could do it.
    case ioProbe
}

/// One figure of a row over the same figure of a peer in the same run, e.g. "p50 2.9× reference" or
/// "commits/s 0.5× SQLite", with the target the row is held to, if any.
struct PeerRatio: Codable {
    /// What is compared: "p50" (latency: below 1 is faster) or a throughput such as "commits/s" (above 1 is faster).
    var measure: String
    /// Whom it is compared with, as the report names it ("reference", "SQLite", "1 committer").
    var peer: String
    var value: Double
    /// The target: the ratio must be at most this (latencies) ...
    var targetAtMost: Double?
    /// ... or at least this (throughputs).
    var targetAtLeast: Double?
    /// Whether the target is met; nil without a target.
    var meetsTarget: Bool?

    init(measure: String, peer: String, value: Double, targetAtMost: Double? = nil, targetAtLeast: Double? = nil) {
        self.measure = measure
        self.peer = peer
        self.value = value
        self.targetAtMost = targetAtMost
        self.targetAtLeast = targetAtLeast
        meetsTarget = targetAtMost.map { value <= $0 } ?? targetAtLeast.map { value >= $0 }
    }
}

/// Runs every workload of the selected suites on every engine, in one process, on fresh files in `directory`.
struct WorkloadRunner {
    let configuration: BenchConfiguration
    /// The engines of the storage suite (C API of each engine).
    let engines: [any BenchmarkEngine]
    /// The engines of the object suite (Columnar's Swift object API; SQLite's C API on the same data).
    let objectEngines: [any ObjectBenchmarkEngine]
    /// The engines of the object suite's held-objects workload (Columnar's object API, its C API).
    let heldReadEngines: [any HeldObjectReadEngine]
    /// Key-value stores that run the object suite's insert, read and lookup workloads (LMDB).
    let keyValueEngines: [any KeyValueBenchmarkEngine]
    /// The engines of the query suite (Columnar's Results API, SQLite, the plain C loop).
    let queryEngines: [any QueryBenchmarkEngine]
    /// The engines of the commit suite (Columnar through io_uring and through pwrite, SQLite); nil when it does
    /// not run.
    let commitEngines: CommitSuiteEngines?
    let directory: String
    /// Whether database files stay in `directory` after their workloads (for inspection) or are removed.
    let keepFiles: Bool
    /// Called with a line of progress before each step.
    let progress: (String) -> Void
    /// Whether the peak-memory figures are per run (see PeakMemory).
    private(set) var peakMemoryIsPerRun = true
    /// Lines about unmeasured setup steps (how the query suite's tables were written, how long it took).
    var setupNotes: [String] = []

    init(configuration: BenchConfiguration, engines: [any BenchmarkEngine],
         objectEngines: [any ObjectBenchmarkEngine], heldReadEngines: [any HeldObjectReadEngine],
         keyValueEngines: [any KeyValueBenchmarkEngine] = [],
         queryEngines: [any QueryBenchmarkEngine], commitEngines: CommitSuiteEngines?, directory: String,
         keepFiles: Bool, progress: @escaping (String) -> Void) {
        self.configuration = configuration
        self.engines = engines
        self.objectEngines = objectEngines
        self.heldReadEngines = heldReadEngines
        self.keyValueEngines = keyValueEngines
        self.queryEngines = queryEngines
        self.commitEngines = commitEngines
        self.directory = directory
        self.keepFiles = keepFiles
        self.progress = progress
    }

    /// Runs the suites the configuration selects: storage first, then objects, then queries.
    mutating func runAll() throws -> [WorkloadResult] {
        var results: [WorkloadResult] = []
        if configuration.suite.includesStorage { results += try runStorageSuite() }
        if configuration.suite.includesObjects { results += try runObjectSuite() }
        if configuration.suite.includesQuery { results += try runQuerySuite() }
        if configuration.suite.includesCommit { results += try runCommitSuite() }
        return results
    }

    /// Workloads a, c and b on the storage engines (see the top of this file).
    private mutating func runStorageSuite() throws -> [WorkloadResult] {
        var results: [WorkloadResult] = []
        let bulkData = DataSet(seed: configuration.seed)
        let objectCount = configuration.objectCount

        // a. Bulk insert, then (with the file closed and reopened) read everything back.
        for engine in engines {
            let path = databasePath(engine, "bulk")
            removeFiles(of: engine, at: path)
            results.append(try measure("bulk insert (1 txn)", engine, path, operations: objectCount) { recorder in
                try engine.bulkInsert(path: path, data: bulkData, rowCount: objectCount, recorder: &recorder)
            })
        }
        for engine in engines {
            let path = databasePath(engine, "bulk")
            results.append(try measure("read back 5 cols", engine, path, operations: objectCount) { recorder in
                let checked = try engine.readBack(path: path, data: bulkData, rowCount: objectCount,
                                                  recorder: &recorder)
                guard checked == objectCount else {
                    throw BenchError.wrongAnswer(engine: engine.name,
                                                 what: "read back \(checked) objects, expected \(objectCount)")
                }
                recorder.notes.append("checked all \(checked) objects' values")
            })
        }

        // c. Point reads of one int column, in one seeded random order shared by both engines.
        var orderGenerator = SplitMix64(seed: configuration.seed &+ 1)
        var rowOrder = Array(0 ..< objectCount)
        rowOrder.shuffle(using: &orderGenerator)
        let expectedSum = (0 ..< objectCount).reduce(Int64(0)) { $0 + bulkData.row(at: $1).small }
        for engine in engines {
            let path = databasePath(engine, "bulk")
            results.append(try measure("point reads int col", engine, path, operations: objectCount,
                                       operationsPerSample: 64) { recorder in
                let sum = try engine.pointReads(path: path, rowOrder: rowOrder, recorder: &recorder)
                guard sum == expectedSum else {
                    throw BenchError.wrongAnswer(engine: engine.name,
                                                 what: "point reads summed to \(sum), expected \(expectedSum)")
                }
            })
            if !keepFiles { removeFiles(of: engine, at: path) }
        }

        // b. Single-object durable commits on a 10,000-object table.
        for engine in engines {
            results.append(try singleObjectCommits(engine, workload: "single-object commits", fileName: "commits"))
        }
        return results
    }

    /// Workload b on one engine: creates the update table (not measured), makes `commitCount` single-object durable
    /// commits, then reopens the table and checks every object. The commit suite runs it too, under its own name.
    mutating func singleObjectCommits(_ engine: any BenchmarkEngine, workload: String, fileName: String) throws
        -> WorkloadResult
    {
        let updateData = DataSet(seed: configuration.seed &+ 2)
        let tableCount = configuration.updateTableObjectCount
        var updateGenerator = SplitMix64(seed: configuration.seed &+ 3)
        let updates = (0 ..< configuration.commitCount).map { _ in
            RowUpdate(rowIndex: Int(updateGenerator.next() % UInt64(tableCount)),
                      newSmall: Int64(updateGenerator.next() % 1000))
        }
        var expectedSmall = (0 ..< tableCount).map { updateData.row(at: $0).small }
        for update in updates { expectedSmall[update.rowIndex] = update.newSmall }

        let path = databasePath(engine, fileName)
        removeFiles(of: engine, at: path)
        progress("\(engine.name): creating the \(tableCount)-object table for single-object commits")
        try engine.createUpdateTable(path: path, data: updateData, rowCount: tableCount)
        var result = try measure(workload, engine, path, operations: configuration.commitCount) { recorder in
            try engine.singleObjectCommits(path: path, updates: updates, recorder: &recorder)
        }
        let actualSmall = try engine.smallColumn(path: path, rowCount: tableCount)
        if let rowIndex = actualSmall.indices.first(where: { actualSmall[$0] != expectedSmall[$0] }) {
            throw BenchError.wrongAnswer(
                engine: engine.name,
                what: "after the commits, row \(rowIndex) holds \(actualSmall[rowIndex]), "
                    + "expected \(expectedSmall[rowIndex])")
        }
        result.notes.append("reopened and checked all \(tableCount) objects")
        if !keepFiles { removeFiles(of: engine, at: path) }
        return result
    }

    /// Runs `body`, which times its operations with the recorder, and reports them. `operations` is how many it
    /// runs; nil when `body` decides (repeating a query until it has been measured long enough), and then the
    /// recorder's count is the figure.
    mutating func measure(
        _ workload: String, _ engine: any EngineIdentity, _ path: String, operations expectedOperations: Int?,
        operationsPerSample: Int = 1, _ body: (inout LatencyRecorder) throws -> Void
    ) throws -> WorkloadResult {
        try measure(workload, engineName: engine.name, dataFiles: engine.dataFiles(at: path),
                    operations: expectedOperations, operationsPerSample: operationsPerSample, body)
    }

    /// `measure` for a row named otherwise than after its engine (the commit suite's probe names each method).
    mutating func measure(
        _ workload: String, engineName: String, dataFiles: [String], operations expectedOperations: Int?,
        operationsPerSample: Int = 1, _ body: (inout LatencyRecorder) throws -> Void
    ) throws -> WorkloadResult {
        progress("\(engineName): \(workload) (" + (expectedOperations.map { "\($0) operations" } ?? "repeated") + ")")
        if !PeakMemory.reset() { peakMemoryIsPerRun = false }
        var recorder = LatencyRecorder(expectedOperations: expectedOperations ?? 1024,
                                       operationsPerSample: operationsPerSample)
        try body(&recorder)
        let operations = expectedOperations ?? recorder.operationsMeasured
        let peakMemoryBytes = PeakMemory.peakBytes()
        let elapsedSeconds = Double(recorder.runNanoseconds) / 1e9
        return WorkloadResult(
            workload: workload,
            engine: engineName,
            operationCount: operations,
            elapsedSeconds: elapsedSeconds,
            operationsPerSecond: elapsedSeconds > 0 ? Double(operations) / elapsedSeconds : 0,
            latency: recorder.summary(),
            fileSizeBytes: dataFiles.reduce(0) { $0 + fileSizeBytes($1) },
            peakMemoryBytes: peakMemoryBytes,
            notes: recorder.notes)
    }

    func databasePath(_ engine: any EngineIdentity, _ name: String) -> String {
        "\(directory)/\(name).\(engine.fileExtension)"
    }

    func removeFiles(of engine: any EngineIdentity, at path: String) {
        for file in engine.allFiles(at: path) { unlink(file) }
    }

    private func fileSizeBytes(_ path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : 0
    }
}
