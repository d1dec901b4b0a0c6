// Measurement: the clock, latency samples and their percentiles, peak memory, and the machine description that
// every report starts with. Nothing here knows about engines or workloads.

#if canImport(Glibc)
import Glibc
#endif

/// A monotonic clock in nanoseconds (CLOCK_MONOTONIC: immune to wall-clock steps).
enum MonotonicClock {
    static func nowNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// Per-operation latencies of one workload run, plus the wall time of the whole run.
///
/// Operations that take well under a microsecond (point reads) are timed in batches, because reading the clock
/// around each one would cost as much as the operation: a batch's sample is its elapsed time divided by the
/// batch size. The report says which workloads were batched.
struct LatencyRecorder {
    let operationsPerSample: Int
    private(set) var samplesNanoseconds: [UInt64] = []
    private var batchStartNanoseconds: UInt64 = 0
    private var operationsInBatch = 0
    private var runStartNanoseconds: UInt64 = 0
    /// The measured interval of the whole run (between startRun and endRun): throughput is operations over this.
    private(set) var runNanoseconds: UInt64 = 0
    /// Facts about the run worth printing under the table (e.g. how long a bulk commit took).
    var notes: [String] = []
    /// Operations timed so far (calls of `measure`).
    private(set) var operationsMeasured = 0

    init(expectedOperations: Int, operationsPerSample: Int = 1) {
        precondition(operationsPerSample >= 1)
        self.operationsPerSample = operationsPerSample
        samplesNanoseconds.reserveCapacity(expectedOperations / operationsPerSample + 1)
    }

    /// Starts the measured interval of a run.
    mutating func startRun() { runStartNanoseconds = MonotonicClock.nowNanoseconds() }
    /// Notes how long a bulk insert's durable commit took (part of the measured interval).
    mutating func noteDurableCommit(nanoseconds: UInt64) {
        notes.append("durable commit took \(Report.format(Double(nanoseconds) / 1e6, decimals: 1)) ms")
    }

    /// Runs a bulk insert's durable commit, which ends the measured interval, and notes how long it took.
    mutating func endRun(committingWith commit: () throws -> Void) rethrows {
        let commitStart = MonotonicClock.nowNanoseconds()
        try commit()
        let commitNanoseconds = MonotonicClock.nowNanoseconds() - commitStart
        endRun()
        noteDurableCommit(nanoseconds: commitNanoseconds)
    }
    /// Ends the measured interval of a run.
    mutating func endRun() { runNanoseconds = MonotonicClock.nowNanoseconds() - runStartNanoseconds }

    /// Times one operation: `body` runs once and its duration (or its share of a batch) is recorded.
    @inline(__always)
    mutating func measure<Result>(_ body: () throws -> Result) rethrows -> Result {
        if operationsInBatch == 0 { batchStartNanoseconds = MonotonicClock.nowNanoseconds() }
        let result = try body()
        operationsInBatch += 1
        operationsMeasured += 1
        if operationsInBatch == operationsPerSample {
            let elapsed = MonotonicClock.nowNanoseconds() - batchStartNanoseconds
            samplesNanoseconds.append(elapsed / UInt64(operationsPerSample))
            operationsInBatch = 0
        }
        return result
    }

    /// Adds the samples of a recorder that timed the same workload elsewhere (on another thread); its operations
    /// count as measured here. The run's interval stays this recorder's own.
    mutating func addSamples(of other: LatencyRecorder) {
        precondition(other.operationsPerSample == operationsPerSample, "samples of different batch sizes")
        samplesNanoseconds += other.samplesNanoseconds
        operationsMeasured += other.operationsMeasured
    }

    /// Adds single-operation samples timed in another process (a commit worker's), one operation each.
    mutating func addSamples(_ samples: [UInt64]) {
        precondition(operationsPerSample == 1, "foreign samples are of single operations")
        samplesNanoseconds += samples
        operationsMeasured += samples.count
    }

    /// Sets the measured interval from clock readings taken elsewhere: MonotonicClock reads CLOCK_MONOTONIC, which
    /// every process of the machine shares, so readings of worker processes bound the run of them all.
    mutating func setRun(startNanoseconds: UInt64, endNanoseconds: UInt64) {
        runStartNanoseconds = startNanoseconds
        runNanoseconds = endNanoseconds > startNanoseconds ? endNanoseconds - startNanoseconds : 0
    }

    /// Percentiles of the recorded samples (nearest-rank), in microseconds; nil when nothing was recorded.
    func summary() -> LatencySummary? {
        guard !samplesNanoseconds.isEmpty else { return nil }
        let sorted = samplesNanoseconds.sorted()
        func percentile(_ fraction: Double) -> Double {
            let rank = Int((fraction * Double(sorted.count)).rounded(.up))
            return Double(sorted[max(0, min(sorted.count - 1, rank - 1))]) / 1000
        }
        return LatencySummary(
            p50Microseconds: percentile(0.50),
            p99Microseconds: percentile(0.99),
            maxMicroseconds: Double(sorted[sorted.count - 1]) / 1000,
            operationsPerSample: operationsPerSample)
    }
}

/// How many times a short operation is repeated: at least `minimum` times, then again while the repetitions so far
/// took under `minimumNanoseconds` in all, up to `maximum` times. Slow operations run `minimum` times; fast ones
/// run until their total is long enough to measure, whatever their speed.
struct QueryRepetitions: Codable, CustomStringConvertible {
    let minimum: Int
    let maximum: Int
    let minimumNanoseconds: UInt64

    /// Calls `body` as often as the policy says; returns how many times it did.
    @discardableResult
    func repeatTimed(_ body: () throws -> Void) rethrows -> Int {
        let start = MonotonicClock.nowNanoseconds()
        var done = 0
        while done < minimum
            || (done < maximum && MonotonicClock.nowNanoseconds() - start < minimumNanoseconds)
        {
            try body()
            done += 1
        }
        return done
    }

    var description: String {
        "at least \(minimum) times and until the timed runs took \(Double(minimumNanoseconds) / 1e9) s "
            + "(at most \(maximum) times)"
    }
}

struct LatencySummary: Codable {
    var p50Microseconds: Double
    var p99Microseconds: Double
    var maxMicroseconds: Double
    /// 1 when every operation was timed on its own; otherwise the batch size (see LatencyRecorder).
    var operationsPerSample: Int
}

/// Peak resident memory of this process.
///
/// Both engines run in one process, so the peak is reset before each engine's run of each workload by writing
/// "5" to /proc/self/clear_refs (Linux 4.0 and later), then read from VmHWM in /proc/self/status. Where the reset
/// is refused, the figure is getrusage's maximum, which only ever grows: `isPerRun` says which.
enum PeakMemory {
    /// Resets the peak; returns false when the kernel refused.
    static func reset() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// The peak resident set size in bytes since the last successful reset (or since the process started).
    static func peakBytes() -> UInt64 {
        if let status = readTextFile("/proc/self/status") {
            for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count >= 2, let kibibytes = UInt64(fields[1]) { return kibibytes * 1024 }
            }
        }
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return UInt64(usage.ru_maxrss) * 1024  // ru_maxrss is in KiB on Linux
    }
}

/// The few facts about the machine that make figures comparable between runs.
struct MachineInfo: Codable {
    var onlineCores: Int
    var kernel: String
    var cpuModel: String
    var memoryBytes: UInt64
    var sqliteVersion: String
    /// The file system type of the directory holding the databases (fsync costs depend on it).
    var fileSystem: String

    var line: String {
        let memoryGiB = Double(memoryBytes) / Double(1 << 30)
        return "machine: \(onlineCores) cores (\(cpuModel)), \(Report.format(memoryGiB, decimals: 1)) GiB, "
            + "kernel \(kernel), databases on \(fileSystem), SQLite \(sqliteVersion)"
    }

    static func current(databaseDirectory: String, sqliteVersion: String) -> MachineInfo {
        var names = utsname()
        uname(&names)
        let kernel = withUnsafeBytes(of: &names.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            + " " + withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var cpuModel = "unknown CPU"
        if let cpuInfo = readTextFile("/proc/cpuinfo"),
           let line = cpuInfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            cpuModel = line[line.index(after: colon)...].trimmingSpaces()
        }
        let memoryBytes = UInt64(sysconf(Int32(_SC_PHYS_PAGES))) * UInt64(sysconf(Int32(_SC_PAGESIZE)))
        return MachineInfo(
            onlineCores: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
            kernel: kernel,
            cpuModel: cpuModel,
            memoryBytes: memoryBytes,
            sqliteVersion: sqliteVersion,
            fileSystem: fileSystemName(of: databaseDirectory))
    }

    /// The type of the file system holding `path`: that of the longest mount point containing it, from
    /// /proc/self/mounts. tmpfs is called out because there fdatasync costs nothing.
    private static func fileSystemName(of path: String) -> String {
        guard let resolved = realpath(path, nil) else { return "unknown file system" }
        let directory = String(cString: resolved)
        free(resolved)
        var best: (mountPoint: Substring, type: Substring)?
        for line in (readTextFile("/proc/self/mounts") ?? "").split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            // Mount points escape spaces as \040; the paths this harness uses need no unescaping to match.
            let mountPoint = fields[1]
            let contains = mountPoint == "/" || directory == mountPoint || directory.hasPrefix(mountPoint + "/")
            if contains, mountPoint.count >= (best?.mountPoint.count ?? -1) { best = (mountPoint, fields[2]) }
        }
        guard let best else { return "unknown file system" }
        let type = String(best.type)
        return type == "tmpfs" || type == "ramfs"
            ? "\(type) (fdatasync costs nothing there: durable-commit figures are not meaningful)"
            : type
    }
}

/// Reads a whole (small, /proc) text file; nil when it cannot be opened.
func readTextFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16384)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes.append(contentsOf: chunk[0 ..< count])
    }
    return String(decoding: bytes, as: UTF8.self)
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
