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

    /// The bytes of one page the probes write.
    static let pageBytes = UInt64(BENCH_COMMIT_PAGE_BYTES)
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
        let opened = try OpenedCommitProbe(self, path: path)
        if !opened.note.isEmpty { recorder.notes.append(opened.note) }
        for _ in 0 ..< Self.warmUpSteps { try opened.step() }
        recorder.startRun()
        for _ in 0 ..< stepCount { try recorder.measure(opened.step) }
        recorder.endRun()
    }
}

/// A probe opened on the prepared file, stepped by one thread at a time: `CommitProbe.run`, and one per thread for
/// the threads reference line (each with a descriptor and pages of its own).
final class OpenedCommitProbe: @unchecked Sendable {
    private let probe: OpaquePointer
    private let label: String
    /// What the probe had to do differently from its method's description, or "".
    let note: String

    /// Opens `probe` on the file at `path`, its page cycle moved `skippingWrites` node writes on. Throws
    /// `CommitProbe.Unavailable` when the kernel or the file system refuses its set-up.
    init(_ probe: CommitProbe, path: String, skippingWrites: UInt64 = 0) throws {
        var message = [CChar](repeating: 0, count: 256)
        var opened: OpaquePointer?
        let openResult = bench_commit_probe_open(path, probe.method, UInt32(probe.nodeWrites), &opened, &message,
                                                 message.count)
        guard openResult == 0, let opened else {
            throw CommitProbe.Unavailable(reason: message.withUnsafeBufferPointer {
                String(cString: $0.baseAddress!)
            })
        }
        self.probe = opened
        label = "\(probe.name), k=\(probe.nodeWrites)"
        note = String(cString: bench_commit_probe_note(opened))
        bench_commit_probe_skip_writes(opened, skippingWrites)
    }

    deinit { bench_commit_probe_close(probe) }

    /// One commit-like write and its sync; throws BenchError naming the probe when a call fails.
    func step() throws {
        let rc = bench_commit_probe_step(probe)
        guard rc == 0 else { throw BenchError.setup("\(label): a step failed: " + String(cString: strerror(-rc))) }
    }
}
