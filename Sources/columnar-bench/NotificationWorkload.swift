// NotificationWorkload: the `notifications` subcommand — what change notifications cost, in two tables.
//
//   1. Delivery latency (NotificationLatency.swift): from a durable commit of one object's change to the start of
//      the `.update` callback of a Results observed on a serial queue, with the writer on another thread and in
//      another process; p50, p99 and max over --commits commits, each delivered before the next is made.
//   2. Change-set cost (ChangeSetCost.swift): for a Results of --objects objects sorted by an unindexed Int,
//      observed without a queue, the observing thread's `refresh()` after one object and after 10 % of the
//      objects changed (modified in place, moved, inserted, deleted), against a refresh and a fresh evaluation of
//      the same query on a thread without observers; medians of --repetitions repetitions.
//
// Progress goes to standard error and the report to standard output, as in the other suites.

import ArgumentParser
import CSQLite
import Foundation

struct NotificationBench: ParsableCommand {
    // columnar-bench runs this command itself, as the root of its own parse (ColumnarBench.main), so its usage line
    // names the program through the super-command name.
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        _superCommandName: "columnar-bench",
        abstract: "Measures change notifications: delivery latency and the cost of a change set.",
        discussion: """
            Delivery latency: a writer (a thread of this process, then another process) changes one object of a \
            \(Report.grouped(PulseObject.tableObjectCount))-object table per durable commit, --commits times after \
            \(NotificationLatency.warmUpCommits) untimed commits; an observer of the whole table registered with \
            observe(on: a serial queue) reads CLOCK_MONOTONIC when its .update callback starts; the writer waits \
            for each delivery before its next commit. Reported from the writer's commit call returning and from \
            just before its write transaction began. \
            Change sets: realm.objects(RankedObject.self).sorted(byKeyPath: "rank") over --objects objects (rank \
            not indexed), observed without a queue on a thread whose notifications come inside its own refresh(). \
            After a writer thread commits a change (1 object modified, re-ranked, inserted, deleted; 10 % \
            modified, re-ranked, inserted, then deleted), the observing thread's refresh() is timed, and on a \
            thread without observers a refresh() (the observation costs the difference) and, for scale, a fresh \
            evaluation of the same sorted results.
            """)

    static let defaultCommitCount = 200
    static let defaultObjectCount = 100_000
    static let defaultRepetitions = 5

    @Option(help: "Measured commits of each latency workload.")
    var commits: Int = Self.defaultCommitCount

    @Option(help: "Objects of the sorted Results whose change sets are timed.")
    var objects: Int = Self.defaultObjectCount

    @Option(help: "Repetitions of each change-set measurement; the report gives medians.")
    var repetitions: Int = Self.defaultRepetitions

    @Option(help: """
        Directory for the database files, created if needed; the files are kept there afterwards. \
        Default: a fresh temporary directory, removed afterwards.
        """)
    var dir: String?

    @Option(help: "Seed of the ranks and of the choice of changed objects.")
    var seed: UInt64 = 20_240_601

    mutating func validate() throws {
        if commits < 1 { throw ValidationError("--commits must be at least 1") }
        if objects < 10 { throw ValidationError("--objects must be at least 10") }
        if repetitions < 1 { throw ValidationError("--repetitions must be at least 1") }
    }

    func run() throws {
        try ColumnarBench.inRunDirectory(dir) { directory, machine in try measure(in: directory, machine: machine) }
    }

    private func measure(in directory: String, machine: MachineInfo) throws {
        // Delivery on another thread competes with the writer for the cores: a busy machine changes its figures.
        let loadAverage = readTextFile("/proc/loadavg").flatMap { $0.split(separator: " ").first.map(String.init) }

        var latencies: [(writer: NotificationLatency.Writer, samples: [DeliverySample])] = []
        for writer in [NotificationLatency.Writer.thread, .process] {
            ColumnarBench.log("  delivery latency, writer \(writer.rawValue): \(commits) commits")
            let samples = try NotificationLatency.run(writer, path: "\(directory)/notifications-\(writer.rawValue).realm",
                                                      commitCount: commits)
            latencies.append((writer, samples))
        }
        let changeSets = try ChangeSetCost(path: "\(directory)/notifications-changes.realm", objectCount: objects,
                                           repetitions: repetitions, seed: seed,
                                           progress: { ColumnarBench.log("  " + $0) }).run()
        print("\n" + reportLines(machine: machine, loadAverage: loadAverage, latencies: latencies,
                                  changeSets: changeSets)
            .joined(separator: "\n"))
    }

    private func reportLines(machine: MachineInfo, loadAverage: String?,
                             latencies: [(writer: NotificationLatency.Writer, samples: [DeliverySample])],
                             changeSets: [ChangeSetResult]) -> [String] {
        var lines = [machine.line]
        lines.append("notifications; sizes: \(commits) measured commits per writer, change sets of "
            + "\(Report.grouped(objects)) sorted objects (median of \(repetitions)); seed \(seed)")
        lines.append("Columnar object API (Realm, Object, @Persisted), default configuration: durability FULL")
        if let loadAverage { lines.append("1-minute load average when the run began: \(loadAverage)") }

        lines.append("")
        lines.append("Delivery latency: 1 object changed per durable commit in a "
            + "\(Report.grouped(PulseObject.tableObjectCount))-object table observed with observe(on: serial queue), "
            + "to the start of the .update callback")
        var rows = [["writer", "measured from", "p50 µs", "p99 µs", "max µs"]]
        var notes: [String] = []
        for (writer, samples) in latencies {
            let fromReturn = SignedPercentiles(samples.map(\.fromCommitReturnedNanoseconds))
            let fromBegin = SignedPercentiles(samples.map(\.fromWriteBeganNanoseconds))
            let commit = SignedPercentiles(samples.map(\.commitNanoseconds))
            rows.append(Self.latencyCells(writer.rawValue, "commit returned", fromReturn))
            rows.append(Self.latencyCells(writer.rawValue, "write began", fromBegin))
            rows.append(Self.latencyCells(writer.rawValue, "(the commit itself)", commit))
            let early = samples.filter { $0.fromCommitReturnedNanoseconds < 0 }.count
            if early > 0 {
                notes.append("\(writer.rawValue): \(early) of \(samples.count) callbacks started before the writer's "
                    + "commit call had returned (negative latencies from \"commit returned\").")
            }
        }
        lines += Report.tableLines(rows, leftAligned: [0, 1])
        lines.append("")
        lines.append("\"commit returned\": from the writer's commit call returning to the callback's start; \"write "
            + "began\": from just before the writer's write transaction began, so it includes the commit's sync; "
            + "\"(the commit itself)\": the writer's write transaction and commit call.")
        lines += notes

        lines.append("")
        lines.append("Change sets: realm.objects(RankedObject.self).sorted(byKeyPath: \"rank\"), "
            + "\(Report.grouped(objects)) objects, rank not indexed; observed without a queue, delivered inside the "
            + "observing thread's refresh(); medians of \(repetitions)")
        rows = [["change", "changed objects", "update del/ins/mod", "refresh, observed ms", "refresh, no observer ms",
                 "observation ms", "fresh evaluation ms"]]
        for result in changeSets {
            rows.append([
                result.change.label,
                Report.grouped(result.changedObjectCount),
                result.reported.text,
                Self.milliseconds(result.refreshWithObserverNanoseconds),
                Self.milliseconds(result.refreshWithoutObserverNanoseconds),
                Self.milliseconds(result.observationNanoseconds),
                Self.milliseconds(result.freshEvaluationNanoseconds),
            ])
        }
        lines += Report.tableLines(rows, leftAligned: [0, 2])
        lines.append("")
        lines.append("\"refresh, observed\": the observing thread's refresh(): the new version, the sorted results "
            + "brought up to date (patched when few objects changed, else evaluated again), the change set and the "
            + "callback. \"refresh, no observer\": refresh() on a thread without observations, at the same version. "
            + "\"observation\": the first less the second, per repetition: what observing the results costs, change "
            + "set included. \"fresh evaluation\": a new sorted Results' last object on the thread without "
            + "observations (which sorts them all), for scale.")
        return lines
    }

    private static func latencyCells(_ writer: String, _ from: String, _ percentiles: SignedPercentiles) -> [String] {
        [writer, from, Report.microseconds(percentiles.p50Microseconds),
         Report.microseconds(percentiles.p99Microseconds), Report.microseconds(percentiles.maxMicroseconds)]
    }

    private static func milliseconds(_ nanoseconds: [Int64]) -> String {
        let value = ChangeSetResult.medianMilliseconds(nanoseconds)
        return Report.format(value, decimals: abs(value) < 10 ? 2 : 1)
    }
}
