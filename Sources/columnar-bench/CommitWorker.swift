// CommitWorker: the other processes of the commit suite's processes workload. The harness runs itself again as
// `columnar-bench commit-worker --engine ENGINE PATH COUNT ID` (a subcommand left out of --help), once per process;
// each worker increments its own counter (`small` of row ID of the update table at PATH) COUNT times, one durable
// commit each, while the other workers do the same on the same file.
//
// The conversation, one line at a time (worker: standard output; harness: the worker's standard input):
//   worker   "ready"                  the database is open and the counter found
//   harness  "go"                     sent once every worker is ready, so all start together
//   worker   "acknowledged N"         commits whose commit call returned success
//   worker   "interval START END"     CLOCK_MONOTONIC nanoseconds just before the first commit and after the last
//   worker   "samples L1 L2 ..."      each acknowledged commit's latency in nanoseconds
//   worker   "error TEXT"             only when a commit failed; the exit status is then 1
// The harness then reopens the file and checks that each counter grew by exactly what its worker acknowledged.
// A worker's standard error is the harness's, so its failures show where the harness's do.

import ArgumentParser
import Foundation

struct CommitWorker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commit-worker",
        abstract: "A process of the commit suite's processes workload (run by columnar-bench itself).",
        shouldDisplay: false)

    @Option(help: "columnar, columnar-pwrite or sqlite.")
    var engine: String

    @Argument(help: "The database, with the update table already made.")
    var path: String

    @Argument(help: "Commits to make.")
    var count: Int

    @Argument(help: "The row whose counter this worker increments.")
    var id: Int

    /// The engine a worker name stands for (CounterCommitEngine.workerEngineName).
    static func engine(named name: String) -> (any CounterCommitEngine)? {
        switch name {
        case "columnar": return ColumnarEngine(name: "Columnar (io_uring)")
        case "columnar-pwrite": return ColumnarEngine(name: "Columnar (pwrite)", usesIOUring: false)
        case "sqlite": return SQLiteEngine()
        default: return nil
        }
    }

    mutating func validate() throws {
        guard Self.engine(named: engine) != nil else { throw ValidationError("unknown engine \(engine)") }
        if count < 0 { throw ValidationError("COUNT must be at least 0") }
        if id < 0 { throw ValidationError("ID must be at least 0") }
    }

    func run() throws {
        let counterEngine = Self.engine(named: engine)!
        let committer = try counterEngine.openCounterCommitters(path: path, rowIndexes: [id], sharedHandle: false)[0]
        Self.emit("ready")
        guard let line = readLine(), line == "go" else {
            throw BenchError.setup("commit-worker \(id): the harness did not say go")
        }
        var recorder = LatencyRecorder(expectedOperations: count)
        var acknowledged = 0
        var failure: String?
        let startNanoseconds = MonotonicClock.nowNanoseconds()
        for _ in 0 ..< count {
            do {
                try recorder.measure { try committer.increment() }
                acknowledged += 1
            } catch {
                failure = "\(error)"
                break
            }
        }
        let endNanoseconds = MonotonicClock.nowNanoseconds()
        Self.emit("acknowledged \(acknowledged)")
        Self.emit("interval \(startNanoseconds) \(endNanoseconds)")
        Self.emit("samples" + recorder.samplesNanoseconds.map { " \($0)" }.joined())
        if let failure {
            Self.emit("error \(failure)")
            throw ExitCode.failure
        }
    }

    /// Writes one line to standard output at once: the harness waits for it.
    private static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// What one worker reported.
struct CommitWorkerReport {
    var acknowledged = 0
    var startNanoseconds: UInt64 = 0
    var endNanoseconds: UInt64 = 0
    var samplesNanoseconds: [UInt64] = []
    /// The worker's error line, or a description of how it ended when it did not exit with status 0.
    var failure: String?
}

/// The harness's side: starts the workers, lets them go together, and collects their reports.
enum CommitWorkerProcesses {
    /// Runs `processCount` workers of `engine` on `path`, worker i incrementing row i `commitsPerProcess` times, and
    /// returns their reports by worker. Throws when a worker cannot be started or never becomes ready; a worker that
    /// fails later is reported through its `failure`, so the caller can still check what it acknowledged.
    static func run(engine: any CounterCommitEngine, path: String, processCount: Int, commitsPerProcess: Int) throws
        -> [CommitWorkerReport]
    {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var workers: [(process: Process, input: Pipe, output: Pipe)] = []
        // Whatever happens, no worker outlives this call.
        defer {
            for worker in workers where worker.process.isRunning {
                worker.process.terminate()
                worker.process.waitUntilExit()
            }
        }
        for workerIndex in 0 ..< processCount {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["commit-worker", "--engine", engine.workerEngineName, path,
                                 "\(commitsPerProcess)", "\(workerIndex)"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            workers.append((process, input, output))
        }
        for (workerIndex, worker) in workers.enumerated() {
            let line = readLine(from: worker.output.fileHandleForReading.fileDescriptor)
            guard line == "ready" else {
                throw BenchError.setup("commit worker \(workerIndex) (\(engine.name)) did not become ready"
                    + (line.map { ": it said \"\($0)\"" } ?? ": it ended first"))
            }
        }
        for worker in workers {
            worker.input.fileHandleForWriting.write(Data("go\n".utf8))
            try worker.input.fileHandleForWriting.close()
        }
        // A worker writes its samples only after its last commit, so reading one worker's output to the end while
        // another waits for its pipe to drain delays nothing that is measured.
        return workers.map { worker in
            let text = String(decoding: worker.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            worker.process.waitUntilExit()
            var report = parse(text)
            if report.failure == nil && worker.process.terminationStatus != 0 {
                report.failure = "it ended with status \(worker.process.terminationStatus)"
            }
            return report
        }
    }

    private static func parse(_ text: String) -> CommitWorkerReport {
        var report = CommitWorkerReport()
        var sawInterval = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            switch fields.first {
            case "acknowledged":
                report.acknowledged = fields.count == 2 ? Int(fields[1]) ?? 0 : 0
            case "interval":
                if fields.count == 3, let start = UInt64(fields[1]), let end = UInt64(fields[2]) {
                    report.startNanoseconds = start
                    report.endNanoseconds = end
                    sawInterval = true
                }
            case "samples":
                report.samplesNanoseconds = fields.dropFirst().compactMap { UInt64($0) }
            case "error":
                report.failure = String(line.dropFirst("error ".count))
            default:
                break
            }
        }
        if report.failure == nil && !sawInterval { report.failure = "it reported no interval" }
        return report
    }

    /// Reads one line (without its newline) from `fd` a byte at a time, so nothing after it is consumed; nil at the
    /// end of the input before any byte.
    static func readLine(from fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
