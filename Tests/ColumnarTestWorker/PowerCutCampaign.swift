// PowerCutCampaign.swift — the power-cut campaign (`make powercut N=...`, and a few hundred cuts in every test
// run): mixed workloads by one or two writer processes through columnar_faultio (the page-cache model, shared
// through files), cut off by a power cut at a random moment, and checked.
//
//   ColumnarTestWorker powercut-campaign --cuts N [--seed S] [--dir D]
//       Runs N cuts and prints a summary; exits 0 when every cut left a file that opens, verifies, holds exactly
//       the state of some number of each writer's commits (rebuilt from the seed by CampaignModel) and lost no
//       commit a FULL writer was told was durable; else 1, naming the cut, its seed and what was wrong.
//   ColumnarTestWorker campaign-writer PATH SEED WRITER [OPTIONS]
//       One writer of the campaign: rebuilds its model from the commits the file holds, then commits forever,
//       printing each acknowledged commit's number, until killed (by the campaign, or by itself through the
//       fault layer) or until its writes fail for good (exit 3). OPTIONS: --fault SEED, --unsafe,
//       --cut-after-writes N, --kill-step STEP N, --kill-writes N, --fail-sync-after N.
//
// Each cut runs one scenario: one writer whose power goes after a random number of writes (FULL, or UNSAFE);
// two writers killed together at a random moment; one writer killed at a random step of a commit while another
// goes on; a sync that fails while two write; an UNSAFE and a FULL writer together. Before the cut the campaign
// makes the kernel write back random shares of the dirty pages, and the cut keeps, loses or tears each page
// still dirty. Files are reused for several cuts, so recovery after recovery is exercised too.

import CColumnar
#if canImport(Glibc)
import Glibc
#endif

// MARK: The writer

/// What campaign-writer's options ask for.
struct CampaignWriterOptions {
    var faultSeed: UInt64 = 1
    var unsafe = false
    var cutAfterWrites: UInt64?
    var killStep: (step: UInt32, occurrence: UInt64)?
    var killWrites: UInt64?
    var failSyncAfter: UInt64?

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        func next() throws -> UInt64 {
            guard let text = rest.popFirst(), let value = UInt64(text) else {
                throw WorkerError(description: "an option lacks its number")
            }
            return value
        }
        while let option = rest.popFirst() {
            switch option {
            case "--fault": faultSeed = try next()
            case "--unsafe": unsafe = true
            case "--cut-after-writes": cutAfterWrites = try next()
            case "--kill-step": killStep = (UInt32(try next()), try next())
            case "--kill-writes": killWrites = try next()
            case "--fail-sync-after": failSyncAfter = try next()
            default: throw WorkerError(description: "unknown option \(option)")
            }
        }
    }
}

func campaignWriter(path: String, seed: UInt64, writer: Int, options: CampaignWriterOptions) throws -> Never {
    let faultIO = columnar_faultio_create(options.faultSeed)
    let db = try openDatabase(path, io: columnar_faultio_io(faultIO), unsafe: options.unsafe)
    let tables = try write(db) { try CampaignTables.find($0, writer: writer, create: true)! }
    var model = try readTransaction(db) { txn in CampaignModel.after(try tables.commitCount(txn), seed: seed, writer: writer) }
    if let writes = options.cutAfterWrites { columnar_faultio_power_cut_after(faultIO, writes) }
    if let (step, occurrence) = options.killStep {
        columnar_faultio_at_step(faultIO, columnar_step(rawValue: step), occurrence, true)
    }
    if let writes = options.killWrites { columnar_faultio_kill_after_writes(faultIO, writes) }
    if let syncs = options.failSyncAfter { columnar_faultio_fail_sync(faultIO, syncs, -EIO) }
    var failuresInARow = 0
    while true {
        let ops = model.operations(seed: seed, writer: writer)
        let commit = model.commits + 1
        do {
            try write(db) { txn in try tables.apply(ops, commit: commit, txn) }
        } catch {
            // The commit is not in the database (a failed sync, a cut power): the next attempt makes it again.
            failuresInARow += 1
            if failuresInARow >= 3 { exit(3) }
            continue
        }
        failuresInARow = 0
        emit(String(commit))
        model.apply(ops)
    }
}

/// Runs `body` in a read transaction.
func readTransaction<R>(_ db: OpaquePointer, _ body: (OpaquePointer) throws -> R) throws -> R {
    var txn: OpaquePointer?
    try check(columnar_txn_begin_read(db, &txn), "columnar_txn_begin_read")
    defer { columnar_txn_rollback(txn) }
    return try body(txn!)
}

// MARK: The campaign

/// A child writer of one cut, and what it printed.
final class CampaignChild {
    let writer: Int
    let unsafe: Bool
    let pid: pid_t
    private let output: Int32
    private var buffer: [UInt8] = []
    private(set) var acknowledged: Int64 = 0

    init(executable: String, arguments: [String], writer: Int, unsafe: Bool) throws {
        self.writer = writer
        self.unsafe = unsafe
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw WorkerError(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, argv, environ)
        posix_spawn_file_actions_destroy(&actions)
        close(pipe[1])
        guard rc == 0 else { throw WorkerError(description: "posix_spawn failed: \(rc)") }
        pid = child
        output = pipe[0]
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
    }

    /// Reads what the child printed so far (its acknowledged commits).
    func drain() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(output, &chunk, chunk.count)
            if count <= 0 { break }
            buffer.append(contentsOf: chunk[0..<count])
        }
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            if let number = Int64(String(decoding: buffer[..<newline], as: UTF8.self)) { acknowledged = number }
            buffer.removeSubrange(...newline)
        }
    }

    func kill() { _ = Glibc.kill(pid, SIGKILL) }

    /// Waits for the child to end; returns whether it ended as the scenario allows (killed, or stopped by a cut).
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        drain()
        close(output)
        return status
    }
}

struct CampaignOptions {
    var cuts = 300
    var seed: UInt64 = 0x5EED
    var directory = "/tmp"

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let option = rest.popFirst() {
            guard let value = rest.popFirst() else { throw WorkerError(description: "\(option) lacks its value") }
            switch option {
            case "--cuts": cuts = Int(value) ?? cuts
            case "--seed": seed = UInt64(value) ?? seed
            case "--dir": directory = value
            default: throw WorkerError(description: "unknown option \(option)")
            }
        }
    }
}

/// The scenarios, by name.
private let scenarioNames = ["one FULL writer, power cut after random writes", "one UNSAFE writer, power cut",
                             "two FULL writers killed together", "a writer killed at a step, another going on",
                             "a failed sync under two writers", "an UNSAFE and a FULL writer"]

func powerCutCampaign(options: CampaignOptions) throws -> Never {
    let executable = CommandLine.arguments[0].hasPrefix("/") ? CommandLine.arguments[0]
        : String(cString: realpath(CommandLine.arguments[0], nil))
    var random = CampaignRandom(options.seed)
    let directory = options.directory + "/columnar-powercut-\(getpid())"
    mkdir(directory, 0o755)
    var path = ""
    // Per writer, the commits a check found (and its recovery made durable): no later cut may lose them. The
    // model of that state is kept, so the next check rebuilds only the commits after it.
    var durableFloor = [Int64](repeating: 0, count: 2)
    var floorModels = [CampaignModel(), CampaignModel()]
    var tally = [Int](repeating: 0, count: scenarioNames.count)
    var inFlightSurvived = 0, unsafeCommitsLost: Int64 = 0, commitsChecked: Int64 = 0
    let started = monotonicSeconds()

    for cut in 0..<options.cuts {
        if cut % 8 == 0 {
            removeDatabase(path)
            path = directory + "/campaign-\(cut / 8).columnar"
            durableFloor = [0, 0]
            floorModels = [CampaignModel(), CampaignModel()]
        }
        let scenario = random.below(scenarioNames.count)
        tally[scenario] += 1
        let cutSeed = random.next()
        let context = "cut \(cut) (\(scenarioNames[scenario]); campaign seed \(options.seed))"
        var children: [CampaignChild] = []
        func spawn(_ writer: Int, unsafe: Bool = false, _ extra: [String] = []) throws {
            let arguments = ["campaign-writer", path, String(options.seed), String(writer),
                             "--fault", String(random.next())] + (unsafe ? ["--unsafe"] : []) + extra
            children.append(try CampaignChild(executable: executable, arguments: arguments, writer: writer,
                                              unsafe: unsafe))
        }
        let faultIO = columnar_faultio_create(cutSeed)
        defer { columnar_faultio_destroy(faultIO) }
        switch scenario {
        case 0, 1:
            try spawn(0, unsafe: scenario == 1, ["--cut-after-writes", String(1 + random.below(400))])
        case 2:
            try spawn(0)
            try spawn(1)
        case 3:
            try spawn(0, ["--kill-step", String(1 + random.below(8)), String(1 + random.below(20))])
            try spawn(1)
        case 4:
            try spawn(0, ["--fail-sync-after", String(random.below(30))])
            try spawn(1)
        default:
            try spawn(0, unsafe: true)
            try spawn(1)
        }
        // Let them run, with the kernel writing back pages whenever it likes, then cut the power (for the
        // scenarios whose children do not stop by themselves).
        let runFor = 0.02 + Double(random.below(250)) / 1000
        let deadline = monotonicSeconds() + runFor
        while monotonicSeconds() < deadline {
            usleep(useconds_t(2_000 + random.below(20_000)))
            if random.below(3) == 0 && access(path, F_OK) == 0 {
                _ = columnar_faultio_writeback(faultIO, path, Double(random.below(1000)) / 1000)
            }
            children.forEach { $0.drain() }
        }
        if scenario >= 2 { children.forEach { $0.kill() } }
        for child in children { child.wait() }
        guard access(path, F_OK) == 0 else { continue }   // killed before the file was created: nothing to cut
        let mode = random.below(3) == 0 ? COLUMNAR_POWER_CUT_DROP : COLUMNAR_POWER_CUT_RANDOM
        try check(columnar_faultio_apply_power_cut(faultIO, path, mode), "columnar_faultio_apply_power_cut")

        // The check, through the fault layer too, so the recovery's own writes are part of the model.
        let db: OpaquePointer
        do {
            db = try openDatabase(path, io: columnar_faultio_io(faultIO))
        } catch {
            campaignFailure("\(context): the file does not open after the cut: \(error)", path: path)
        }
        defer { columnar_close(db) }
        try readTransaction(db) { txn in
            var findings: UInt64 = 0
            let rc = columnar_verify(txn, nil, nil, &findings)
            if rc != COLUMNAR_OK {
                campaignFailure("\(context): verify found \(findings) problems: "
                                + String(cString: columnar_last_error().pointee.message), path: path)
            }
            for writer in 0..<2 {
                guard let tables = try CampaignTables.find(txn, writer: writer, create: false) else { continue }
                let found = try tables.read(txn)
                var expected = found.commits >= floorModels[writer].commits ? floorModels[writer] : CampaignModel()
                while expected.commits < found.commits {
                    expected.apply(expected.operations(seed: options.seed, writer: writer))
                }
                if !found.sameContents(as: expected) {
                    campaignFailure("\(context): writer \(writer) holds a state that is no prefix of its commits: "
                                    + found.difference(from: expected), path: path)
                }
                commitsChecked += found.commits
                if found.commits < durableFloor[writer] {
                    campaignFailure("\(context): writer \(writer) holds \(found.commits) commits, fewer than the "
                                    + "\(durableFloor[writer]) an earlier check found durable", path: path)
                }
                for child in children where child.writer == writer {
                    // Commit numbers count from the file's first commit; a child that acknowledged nothing started
                    // from what the previous check found.
                    let acknowledged = max(child.acknowledged, durableFloor[writer])
                    if !child.unsafe && found.commits < acknowledged {
                        campaignFailure("\(context): writer \(writer) was told commit \(acknowledged) is durable, "
                                        + "but the file holds \(found.commits)", path: path)
                    }
                    if found.commits > acknowledged + 1 {
                        campaignFailure("\(context): writer \(writer) holds \(found.commits) commits, more than "
                                        + "the \(acknowledged) acknowledged and one in flight", path: path)
                    }
                    if found.commits == acknowledged + 1 { inFlightSurvived += 1 }
                    if child.unsafe { unsafeCommitsLost += max(0, acknowledged - found.commits) }
                }
                durableFloor[writer] = found.commits
                floorModels[writer] = expected
            }
        }
        if (cut + 1) % 100 == 0 {
            emit("\(cut + 1) cuts, \(Int(monotonicSeconds() - started)) s")
        }
    }
    removeDatabase(path)
    rmdir(directory)
    let seconds = monotonicSeconds() - started
    emit("powercut campaign: \(options.cuts) cuts in \(Int(seconds)) s, seed \(options.seed): 0 damaged files, 0 "
         + "acknowledged commits lost; \(commitsChecked) commits checked against the model; the commit in flight "
         + "survived \(inFlightSurvived) times; UNSAFE commits lost to cuts: \(unsafeCommitsLost)")
    for (name, count) in zip(scenarioNames, tally) { emit("  \(count) × \(name)") }
    exit(0)
}

private func campaignFailure(_ message: String, path: String) -> Never {
    let kept = path + ".failed"
    _ = rename(path, kept)
    fail("\(message) (the file is kept as \(kept))")
}

private func removeDatabase(_ path: String) {
    guard !path.isEmpty else { return }
    _ = columnar_faultio_forget(path)
    unlink(path)
    unlink(path + ".lock")
}

private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
