// CommitWorkload: the commit suite (`--suite commit`) — durable commits measured against the least a durable write
// costs on this storage, alone, from threads and from processes, on Columnar (durability FULL) and on SQLite (WAL,
// synchronous=FULL), in the same run. Each committer makes --commits commits; every figure is judged by ratios to
// peers of the same run, because this machine's sync times drift between runs.
//
//   1. reference line: one 4 KiB pwrite + fdatasync at pages cycling over a preallocated, zero-filled 16 MiB file
//      in the databases' directory (CommitProbe, in C): what one durable write costs here.
//   2. io options probe (a table of its own): the write pattern of a commit, k = 1 and 4 node pages + a 512-byte
//      header sector + one data sync, done each way the engine could do it (pwritev, io_uring linked with and
//      without SINGLE_ISSUER|DEFER_TASKRUN, registered files and buffers, O_DIRECT, RWF_DSYNC, and O_DIRECT through
//      io_uring with the writes in parallel and a drained sync). Ratio: p50 over the reference's.
//   3. single-object durable commits on Columnar, through io_uring and through pwrite (COLUMNAR_OPEN_NO_IO_URING):
//      the storage suite's workload b (each commit sets `small` of one object of a 10,000-object table). Ratios:
//      p50 over the reference's (target: at most 1.5) and commits/s over SQLite's.
//   4. the same on SQLite.
//   5a. the threads' reference line: `commitThreadCount` threads each make --commits steps of the reference line at
//      once, each with a descriptor and pages of its own: what that many independent durable writers get from this
//      storage. Ratio: syncs a second over the single reference line's.
//   5. threads committing at once: `commitThreadCount` threads each increment a counter of their own (`small` of
//      row t, read and written in one durable write transaction) --commits times; on Columnar with one handle
//      shared by every thread and with a handle per thread, on SQLite with a connection per thread. Ratios: total
//      commits/s over the same engine's single-object commits/s (Columnar's target: at least 4), and Columnar's
//      over SQLite's and over the threads' reference line (5a).
//   6. processes committing at once: `commitProcessCount` processes (the harness run again as `commit-worker`,
//      CommitWorker.swift) each increment a counter of their own --commits times on the same file. Ratios as in 5,
//      without a target.
// They run in the order 1, 3, 4, 2, 5a, 5, 6, so that the single commits follow the reference line they are compared
// with. After 5 and 6 the file is reopened and each counter must have grown by exactly the commits its committer saw
// acknowledged ("lost: 0"); anything else fails the run. Threads and processes use each engine's default commit
// path (Columnar: io_uring where the kernel allows it).

#if canImport(Glibc)
import Glibc
#endif

/// What the runner needs of an engine for the commit suite's concurrent workloads (5 and 6), besides workload b.
protocol CounterCommitEngine: BenchmarkEngine {
    /// The name `commit-worker --engine` knows this engine by (CommitWorker.engine(named:)).
    var workerEngineName: String { get }
    /// Opens one committer per entry of `rowIndexes` on the database at `path` (a table made by createUpdateTable):
    /// committer i increments `small` of row rowIndexes[i]. With `sharedHandle` every committer uses one database
    /// handle; otherwise each has its own. The database closes when the last committer goes away.
    func openCounterCommitters(path: String, rowIndexes: [Int], sharedHandle: Bool) throws -> [any CounterCommitter]
}

/// Increments one counter, one durable write transaction per call. Used by one thread at a time.
protocol CounterCommitter: AnyObject, Sendable {
    func increment() throws
}

/// The engines of the commit suite, by role: the ratios name them.
struct CommitSuiteEngines {
    /// Columnar on its default commit path (io_uring where the kernel allows it): every workload.
    let columnar: ColumnarEngine
    /// Columnar with COLUMNAR_OPEN_NO_IO_URING: single-object commits only.
    let columnarPwrite: ColumnarEngine
    let sqlite: SQLiteEngine
}

/// How one thread of workload 5 did.
private struct ThreadOutcome: Sendable {
    var recorder: LatencyRecorder
    var acknowledged: Int
    var failure: String?
    var finishedNanoseconds: UInt64
}

extension WorkloadRunner {
    static let referenceWorkload = "reference: 4 KiB write + sync"
    static let referenceEngine = "C (pwrite + fdatasync)"
    static let singleCommitWorkload = "1 object per commit"
    private var sharedHandleWorkload: String { "\(configuration.commitThreadCount) threads, 1 shared handle" }
    private var ownHandlesWorkload: String { "\(configuration.commitThreadCount) threads, a handle each" }
    private var processesWorkload: String { "\(configuration.commitProcessCount) processes" }
    private var threadsReferenceWorkload: String { "\(configuration.commitThreadCount) threads, write + sync each" }

    /// The commit suite on `commitEngines`; see the top of this file.
    mutating func runCommitSuite() throws -> [WorkloadResult] {
        guard let commitEngines else { return [] }
        var results: [WorkloadResult] = []

        // 1. The reference line, on a file prepared before anything is timed, which the probe (2) uses too.
        let probePath = "\(directory)/commit-probe.bin"
        progress("preparing the \(CommitProbe.fileSizeBytes >> 20) MiB file of the commit probes")
        try CommitProbe.prepareFile(at: probePath)
        var reference = try probeResult(CommitProbe.reference, path: probePath, workload: Self.referenceWorkload,
                                        engineName: Self.referenceEngine)
        reference.table = .commit
        reference.notes.append("ops/s: syncs a second")
        results.append(reference)

        // 3 and 4: workload b of the storage suite, each engine on a file of its own; right after the reference
        // line, which their p50 is compared with, so that both see the disk in the same mood.
        for engine in [commitEngines.columnar, commitEngines.columnarPwrite] as [any CounterCommitEngine]
            + [commitEngines.sqlite]
        {
            var row = try singleObjectCommits(engine, workload: Self.singleCommitWorkload,
                                              fileName: "commit-single-\(engine.workerEngineName)")
            row.table = .commit
            results.append(row)
        }

        // 2. The io options probe.
        for nodeWrites in CommitProbe.probeNodeWrites {
            for method in CommitProbe.probeMethods {
                var row = try probeResult(CommitProbe(method: method, nodeWrites: nodeWrites), path: probePath,
                                          workload: "k=\(nodeWrites)", engineName: nil)
                row.table = .ioProbe
                results.append(row)
            }
        }
        // 5a. What the threads could reach at most: each thread's own durable writes, at once.
        results.append(try threadsReference(path: probePath))
        if !keepFiles { unlink(probePath) }

        // 5. Threads.
        for (engine, sharedHandle) in [(commitEngines.columnar, true), (commitEngines.columnar, false)]
            as [(any CounterCommitEngine, Bool)] + [(commitEngines.sqlite, false)]
        {
            let workload = sharedHandle ? sharedHandleWorkload : ownHandlesWorkload
            results.append(try threadCounters(engine, workload: workload, sharedHandle: sharedHandle))
        }

        // 6. Processes.
        for engine in [commitEngines.columnar, commitEngines.sqlite] as [any CounterCommitEngine] {
            results.append(try processCounters(engine))
        }

        addCommitRatios(to: &results, engines: commitEngines)
        return results
    }

    /// One row of the reference line or the probe. A probe the kernel or file system refuses here gives a row
    /// without figures that says why.
    private mutating func probeResult(_ probe: CommitProbe, path: String, workload: String, engineName: String?)
        throws -> WorkloadResult
    {
        let stepCount = configuration.commitCount
        return try measure(workload, engineName: engineName ?? probe.name, dataFiles: [path], operations: nil) {
            recorder in
            do {
                try probe.run(path: path, stepCount: stepCount, recorder: &recorder)
            } catch let unavailable as CommitProbe.Unavailable {
                recorder.notes.append("not available here: \(unavailable.reason)")
            }
        }
    }

    /// Workload 5a: `commitThreadCount` threads each make --commits reference steps (one 4 KiB pwrite + fdatasync)
    /// at once, each through a descriptor of its own and on pages of its own of the probes' file: the most durable
    /// writes a second this storage gives that many independent writers, the yardstick of the threads' rows.
    private mutating func threadsReference(path: String) throws -> WorkloadResult {
        let threadCount = configuration.commitThreadCount
        let stepCount = configuration.commitCount
        let pagesPerThread = CommitProbe.fileSizeBytes / CommitProbe.pageBytes / UInt64(threadCount)
        var outcomes: [ThreadOutcome] = []
        var result = try measure(threadsReferenceWorkload, engineName: Self.referenceEngine, dataFiles: [path],
                                 operations: threadCount * stepCount) { recorder in
            let probes = try (0 ..< threadCount).map {
                try OpenedCommitProbe(CommitProbe.reference, path: path, skippingWrites: UInt64($0) * pagesPerThread)
            }
            for probe in probes {
                for _ in 0 ..< CommitProbe.warmUpSteps { try probe.step() }
            }
            outcomes = Self.timedThreads(stepCount, onStart: { recorder.startRun() }, steps: probes.map { $0.step })
            recorder.endRun()
            for outcome in outcomes { recorder.addSamples(of: outcome.recorder) }
        }
        if let failure = outcomes.lazy.compactMap(\.failure).first {
            throw BenchError.setup("\(threadsReferenceWorkload): a thread's step failed: \(failure)")
        }
        result.table = .commit
        result.notes.append("ops/s: syncs a second of all threads together; each thread has its own descriptor "
            + "and its own pages")
        return result
    }

    /// Runs one thread per entry of `steps`, all released together (`onStart` runs once they are ready); each
    /// makes `stepCount` timed calls of its step and stops at the first that throws. A step counts in `acknowledged`
    /// only once it returned.
    private static func timedThreads(_ stepCount: Int, onStart: () -> Void, steps: [@Sendable () throws -> Void])
        -> [ThreadOutcome]
    {
        runThreadsStartingTogether(steps.count, onStart: onStart) { threadIndex, gate in
            let step = steps[threadIndex]
            var threadRecorder = LatencyRecorder(expectedOperations: stepCount)
            gate.arriveAndWait()
            var acknowledged = 0
            var failure: String?
            for _ in 0 ..< stepCount {
                do {
                    try threadRecorder.measure(step)
                    acknowledged += 1
                } catch {
                    failure = "\(error)"
                    break
                }
            }
            return ThreadOutcome(recorder: threadRecorder, acknowledged: acknowledged, failure: failure,
                                 finishedNanoseconds: MonotonicClock.nowNanoseconds())
        }
    }

    /// Makes the update table on a fresh file for a counters workload and returns the path and the counters'
    /// values before it.
    private mutating func prepareCounters(_ engine: any CounterCommitEngine, fileName: String, counterCount: Int)
        throws -> (path: String, before: [Int64])
    {
        let path = databasePath(engine, fileName)
        removeFiles(of: engine, at: path)
        let tableCount = configuration.updateTableObjectCount
        guard counterCount <= tableCount else {
            throw BenchError.setup("\(counterCount) counters need as many objects; the table has \(tableCount)")
        }
        progress("\(engine.name): creating the \(tableCount)-object table for \(counterCount) counters")
        try engine.createUpdateTable(path: path, data: DataSet(seed: configuration.seed &+ 2), rowCount: tableCount)
        let before = try engine.smallColumn(path: path, rowCount: tableCount)
        return (path, Array(before.prefix(counterCount)))
    }

    /// Reopens the table and checks that counter i grew by exactly acknowledged[i]; throws naming the commits lost
    /// (or gained) otherwise. Returns the note for the report.
    private func checkCounters(_ engine: any CounterCommitEngine, path: String, before: [Int64],
                               acknowledged: [Int], committerKind: String) throws -> String
    {
        let after = try engine.smallColumn(path: path, rowCount: configuration.updateTableObjectCount)
        var lost = 0
        var differences: [String] = []
        for (index, acknowledgedCount) in acknowledged.enumerated() {
            let grown = Int(after[index] - before[index])
            if grown != acknowledgedCount {
                lost += acknowledgedCount - grown
                differences.append("\(committerKind) \(index): counter grew by \(grown), \(acknowledgedCount) "
                    + "commits acknowledged")
            }
        }
        guard differences.isEmpty else {
            throw BenchError.wrongAnswer(engine: engine.name, what: "lost: \(lost) commits ("
                + differences.joined(separator: "; ") + ")")
        }
        return "lost: 0 (file reopened; each \(committerKind)'s counter grew by exactly its acknowledged commits)"
    }

    /// Workload 5 on one engine: `commitThreadCount` threads each increment their own counter --commits times.
    private mutating func threadCounters(_ engine: any CounterCommitEngine, workload: String, sharedHandle: Bool)
        throws -> WorkloadResult
    {
        let threadCount = configuration.commitThreadCount
        let commitCount = configuration.commitCount
        let (path, before) = try prepareCounters(
            engine, fileName: "commit-threads-\(sharedHandle ? "shared" : "own")-\(engine.workerEngineName)",
            counterCount: threadCount)
        var outcomes: [ThreadOutcome] = []
        var startNanoseconds: UInt64 = 0
        var result = try measure(workload, engine, path, operations: threadCount * commitCount) { recorder in
            // Opened before the threads start; closed when the committers go away, once the threads are done with
            // them (the counters are then read through a handle of their own, which sees every committed version).
            let committers = try engine.openCounterCommitters(path: path, rowIndexes: Array(0 ..< threadCount),
                                                              sharedHandle: sharedHandle)
            outcomes = Self.timedThreads(commitCount, onStart: {
                recorder.startRun()
                startNanoseconds = MonotonicClock.nowNanoseconds()
            }, steps: committers.map { committer in { try committer.increment() } })
            recorder.endRun()
            for outcome in outcomes { recorder.addSamples(of: outcome.recorder) }
        }
        result.table = .commit
        let finishSeconds = outcomes.map { Double($0.finishedNanoseconds - startNanoseconds) / 1e9 }
        result.notes.append("threads finished \(Report.format(finishSeconds.min() ?? 0, decimals: 2)) to "
            + "\(Report.format(finishSeconds.max() ?? 0, decimals: 2)) s after the start")
        result.notes.append(try checkCounters(engine, path: path, before: before,
                                              acknowledged: outcomes.map(\.acknowledged), committerKind: "thread"))
        if let failure = outcomes.lazy.compactMap(\.failure).first {
            throw BenchError.setup("\(engine.name), \(workload): a thread's commit failed: \(failure)")
        }
        if !keepFiles { removeFiles(of: engine, at: path) }
        return result
    }

    /// Workload 6 on one engine: `commitProcessCount` worker processes each increment their own counter --commits
    /// times.
    private mutating func processCounters(_ engine: any CounterCommitEngine) throws -> WorkloadResult {
        let processCount = configuration.commitProcessCount
        let commitCount = configuration.commitCount
        let (path, before) = try prepareCounters(engine, fileName: "commit-processes-\(engine.workerEngineName)",
                                                 counterCount: processCount)
        var reports: [CommitWorkerReport] = []
        var result = try measure(processesWorkload, engine, path, operations: processCount * commitCount) { recorder in
            reports = try CommitWorkerProcesses.run(engine: engine, path: path, processCount: processCount,
                                                    commitsPerProcess: commitCount)
            // From the first worker's first commit to the last worker's last: clock readings of the workers.
            recorder.setRun(startNanoseconds: reports.map(\.startNanoseconds).min() ?? 0,
                            endNanoseconds: reports.map(\.endNanoseconds).max() ?? 0)
            for report in reports { recorder.addSamples(report.samplesNanoseconds) }
        }
        result.table = .commit
        result.notes.append("each process timed its own commits; throughput over the span from the first one's "
            + "start to the last one's end")
        result.notes.append(try checkCounters(engine, path: path, before: before,
                                              acknowledged: reports.map(\.acknowledged), committerKind: "process"))
        if let failure = reports.lazy.compactMap(\.failure).first {
            throw BenchError.setup("\(engine.name), \(processCount) processes: a worker failed: \(failure)")
        }
        if !keepFiles { removeFiles(of: engine, at: path) }
        return result
    }

    /// Adds each commit-suite row's ratios to its peers (see the top of this file).
    private func addCommitRatios(to results: inout [WorkloadResult], engines: CommitSuiteEngines) {
        func row(_ workload: String, _ engine: String) -> WorkloadResult? {
            results.first { $0.workload == workload && $0.engine == engine && $0.operationsPerSecond > 0 }
        }
        let referenceP50 = row(Self.referenceWorkload, Self.referenceEngine)?.latency?.p50Microseconds
        let sqliteName = engines.sqlite.name
        let columnarNames = [engines.columnar.name, engines.columnarPwrite.name]

        for index in results.indices where results[index].table != nil && results[index].operationsPerSecond > 0 {
            let result = results[index]
            let isColumnar = columnarNames.contains(result.engine)
            var ratios: [PeerRatio] = []
            func throughputRatio(over peer: WorkloadResult?, named peerName: String, atLeast target: Double? = nil) {
                guard let peer else { return }
                ratios.append(PeerRatio(measure: "commits/s", peer: peerName,
                                        value: result.operationsPerSecond / peer.operationsPerSecond,
                                        targetAtLeast: target))
            }
            switch result.workload {
            case _ where result.table == .ioProbe, Self.singleCommitWorkload:
                if let referenceP50, referenceP50 > 0, let p50 = result.latency?.p50Microseconds {
                    ratios.append(PeerRatio(measure: "p50", peer: "reference", value: p50 / referenceP50,
                                            targetAtMost: isColumnar ? 1.5 : nil))
                }
                if isColumnar { throughputRatio(over: row(Self.singleCommitWorkload, sqliteName), named: sqliteName) }
            case threadsReferenceWorkload:
                throughputRatio(over: row(Self.referenceWorkload, Self.referenceEngine), named: "1 thread")
            case sharedHandleWorkload, ownHandlesWorkload:
                throughputRatio(over: row(Self.singleCommitWorkload, result.engine), named: "1 committer",
                                atLeast: isColumnar ? 4 : nil)
                if isColumnar {
                    throughputRatio(over: row(ownHandlesWorkload, sqliteName), named: sqliteName)
                    throughputRatio(over: row(threadsReferenceWorkload, Self.referenceEngine),
                                    named: "\(configuration.commitThreadCount) threads' write + sync")
                }
            case processesWorkload:
                throughputRatio(over: row(Self.singleCommitWorkload, result.engine), named: "1 committer")
                if isColumnar { throughputRatio(over: row(processesWorkload, sqliteName), named: sqliteName) }
            default:
                break
            }
            results[index].ratios = ratios.isEmpty ? nil : ratios
        }
    }
}
