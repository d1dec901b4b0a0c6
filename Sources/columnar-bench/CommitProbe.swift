// CommitProbe: the commit suite's durable writes without an engine (CBenchBaseline's commit_probe.h): the reference
// line (one 4 KiB pwrite + fdatasync) and the io options probe (a commit's write pattern, k node pages + a 512-byte
// header sector + one data sync, done each way the engine could do it). Each step is one C call, timed here like
// every other operation of the harness.

import CBenchBaseline
#if canImport(Glibc)
import Glibc
#endif

struct CommitProbe {
    let method: bench_commit_method
    /// Node pages written per step (k); 1 for the reference line.
    let nodeWrites: Int

    /// The size of the file the probes write in: 4,096 pages, which the writes cycle over.
    static let fileSizeBytes: UInt64 = 16 << 20
    /// Steps made before the timed ones, so the first ring submission and page-cache misses are not timed.
    static let warmUpSteps = 16
    /// The methods of the io options probe, in the order of its table.
    static let probeMethods: [bench_commit_method] = [
        BENCH_COMMIT_PWRITEV, BENCH_COMMIT_URING_LINKED, BENCH_COMMIT_URING_DEFER_TASKRUN,
        BENCH_COMMIT_URING_REGISTERED_FILE, BENCH_COMMIT_URING_REGISTERED_BUFFERS, BENCH_COMMIT_O_DIRECT,
        BENCH_COMMIT_RWF_DSYNC, BENCH_COMMIT_URING_O_DIRECT_DRAINED,
    ]
    /// The node counts the probe runs each method with.
    static let probeNodeWrites = [1, 4]

    static let reference = CommitProbe(method: BENCH_COMMIT_REFERENCE, nodeWrites: 1)

    /// The method's name for the report (bench_commit_method_name).
    var name: String { String(cString: bench_commit_method_name(method)) }

    /// Writes the probes' file (bench_commit_file_prepare): zeros over its whole size, synced.
    static func prepareFile(at path: String) throws {
        let rc = bench_commit_file_prepare(path, fileSizeBytes)
        guard rc == 0 else {
            throw BenchError.setup("cannot prepare \(path) for the commit probes: " + String(cString: strerror(-rc)))
        }
    }

    /// Why a probe could not run here (the kernel or the file system refused its set-up).
    struct Unavailable: Error {
        let reason: String
    }

    /// Opens the probe on the prepared file at `path`, makes the warm-up steps, then times `stepCount` steps.
    /// Throws `Unavailable` when the probe cannot be set up here, BenchError when a step fails.
    func run(path: String, stepCount: Int, recorder: inout LatencyRecorder) throws {
        var message = [CChar](repeating: 0, count: 256)
        var probe: OpaquePointer?
        let openResult = bench_commit_probe_open(path, method, UInt32(nodeWrites), &probe, &message, message.count)
        guard openResult == 0, let probe else {
            throw Unavailable(reason: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        defer { bench_commit_probe_close(probe) }
        let note = String(cString: bench_commit_probe_note(probe))
        if !note.isEmpty { recorder.notes.append(note) }

        func step() throws {
            let rc = bench_commit_probe_step(probe)
            guard rc == 0 else {
                throw BenchError.setup("\(name), k=\(nodeWrites): a step failed: " + String(cString: strerror(-rc)))
            }
        }
        for _ in 0 ..< Self.warmUpSteps { try step() }
        recorder.startRun()
        for _ in 0 ..< stepCount { try recorder.measure(step) }
        recorder.endRun()
    }
}
