// NotificationLatency: how long a committed change takes to reach an observer on another thread and in another
// process (the first two workloads of the notifications subcommand, NotificationWorkload.swift).
//
// A table of `PulseObject.tableObjectCount` objects is observed as a whole, `realm.objects(PulseObject.self)
// .observe(on: queue)`, on a serial queue of the harness. A writer commits one change at a time to one object
// (durable commits, the default configuration): its commit number and the CLOCK_MONOTONIC reading taken just
// before the write began. Right after the commit call returns the writer reads the clock again; the callback reads
// it when it is entered, takes the commit number and first reading from the object, and hands the three to the
// writer, which waits for them before its next commit. So no two commits are coalesced into one notification and
// every commit is measured alone. The writer is a thread of the harness, or another process (this program again,
// run as `notification-writer`, NotificationWriter.swift), which reports its second reading through a pipe;
// CLOCK_MONOTONIC is one clock for every process of the machine, so the readings of the two processes can be
// subtracted.
//
// The latency is measured from the end of the commit call (what an application sees as "committed") to the start
// of the callback; the report also gives it from the start of the write, which adds the commit's own sync.

import Columnar
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The object the latency workloads change: one of a small table, so that a delivery's cost is the path from the
/// commit to the callback rather than re-reading a large collection. (`Object` is `@unchecked Sendable`, and
/// Swift 6 asks subclasses to restate it.)
final class PulseObject: Object, @unchecked Sendable {
    @Persisted(primaryKey: true) var id: Int
    /// Which commit of the writer made the object's current values (0 before the first).
    @Persisted var commitNumber: Int
    /// CLOCK_MONOTONIC nanoseconds just before the writer began the write transaction that made them.
    @Persisted var stampNanoseconds: Int

    /// Objects in the observed table; the writer changes the one whose id is `changedID`.
    static let tableObjectCount = 1_000
    static let changedID = 0

    static func configuration(path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [PulseObject.self])
    }
}

/// One measured commit: the writer's clock readings around the commit and the callback's at its start.
struct DeliverySample {
    var writeBeganNanoseconds: UInt64
    var commitReturnedNanoseconds: UInt64
    var callbackNanoseconds: UInt64

    /// Signed: a delivery may start before the writer's commit call has returned. The version is published to
    /// readers inside the call, and the call wakes the watcher before it returns; on a busy machine the woken
    /// threads may run first while the writer waits for a core.
    var fromCommitReturnedNanoseconds: Int64 { Int64(bitPattern: callbackNanoseconds &- commitReturnedNanoseconds) }
    var fromWriteBeganNanoseconds: Int64 { Int64(bitPattern: callbackNanoseconds &- writeBeganNanoseconds) }
    var commitNanoseconds: Int64 { Int64(bitPattern: commitReturnedNanoseconds &- writeBeganNanoseconds) }
}

/// Percentiles of signed durations (nearest rank), in microseconds.
struct SignedPercentiles {
    var p50Microseconds: Double
    var p99Microseconds: Double
    var maxMicroseconds: Double

    init(_ nanoseconds: [Int64]) {
        precondition(!nanoseconds.isEmpty, "percentiles of no samples")
        let sorted = nanoseconds.sorted()
        func percentile(_ fraction: Double) -> Double {
            let rank = Int((fraction * Double(sorted.count)).rounded(.up))
            return Double(sorted[max(0, min(sorted.count - 1, rank - 1))]) / 1000
        }
        p50Microseconds = percentile(0.50)
        p99Microseconds = percentile(0.99)
        maxMicroseconds = Double(sorted[sorted.count - 1]) / 1000
    }
}

/// What the observer's callback reports, and what the writer waits on. Callbacks run on the observer's queue,
/// waits on the writer's thread.
final class DeliveryLog: @unchecked Sendable {
    // @unchecked: every field is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var sawInitial = false
    /// By commit number: the callback's clock reading and the writer's first reading, as read from the object.
    private var deliveries: [Int: (callbackNanoseconds: UInt64, stampNanoseconds: UInt64)] = [:]
    /// The first callback that did not report exactly the one object the writer changes.
    private var unexpected: String?

    func noteInitial() {
        condition.lock()
        sawInitial = true
        condition.broadcast()
        condition.unlock()
    }

    func noteDelivery(commitNumber: Int, callbackNanoseconds: UInt64, stampNanoseconds: UInt64) {
        condition.lock()
        deliveries[commitNumber] = (callbackNanoseconds, stampNanoseconds)
        condition.broadcast()
        condition.unlock()
    }

    func noteUnexpected(_ what: String) {
        condition.lock()
        if unexpected == nil { unexpected = what }
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until the initial callback came; throws after `timeoutSeconds`.
    func waitForInitial(timeoutSeconds: Double) throws {
        try wait(timeoutSeconds: timeoutSeconds, for: "the initial callback") { sawInitial ? () : nil }
    }

    /// Blocks until the callback reported commit `commitNumber` and returns what it recorded; throws after
    /// `timeoutSeconds`, or when a callback reported something else than that one object's change.
    func waitForDelivery(of commitNumber: Int, timeoutSeconds: Double) throws
        -> (callbackNanoseconds: UInt64, stampNanoseconds: UInt64)
    {
        try wait(timeoutSeconds: timeoutSeconds, for: "the notification of commit \(commitNumber)") {
            deliveries.removeValue(forKey: commitNumber)
        }
    }

    private func wait<Value>(timeoutSeconds: Double, for what: String, _ found: () -> Value?) throws -> Value {
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let unexpected { throw BenchError.wrongAnswer(engine: "Columnar", what: unexpected) }
            if let value = found() { return value }
            if !condition.wait(until: deadline) {
                if let value = found() { return value }
                throw BenchError.setup("\(what) did not come within \(Report.format(timeoutSeconds, decimals: 0)) s")
            }
        }
    }
}

/// The latency workloads.
enum NotificationLatency {
    /// Commits made and waited for before the measured ones: the first deliveries open the queue's Realm and
    /// warm up the path.
    static let warmUpCommits = 5
    /// How long a delivery may take before the run fails (the watcher's fallback poll is 100 ms).
    static let deliveryTimeoutSeconds = 5.0

    enum Writer: String {
        case thread
        case process
    }

    /// Makes the observed table at `path` (replacing any file there), observes it on a serial queue and has
    /// `writer` make `commitCount` measured commits; returns one sample per commit.
    static func run(_ writer: Writer, path: String, commitCount: Int) throws -> [DeliverySample] {
        try removeRealmFiles(at: path)
        let configuration = PulseObject.configuration(path: path)
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 0 ..< PulseObject.tableObjectCount {
                let pulse = PulseObject()
                pulse.id = id
                realm.add(pulse)
            }
        }
        let log = DeliveryLog()
        let queue = DispatchQueue(label: "columnar-bench.notification-observer")
        let token = realm.objects(PulseObject.self).observe(on: queue) { change in
            let callbackNanoseconds = MonotonicClock.nowNanoseconds()
            switch change {
            case .initial:
                log.noteInitial()
            case .update(let pulses, let deletions, let insertions, let modifications):
                guard deletions.isEmpty, insertions.isEmpty, modifications.count == 1 else {
                    log.noteUnexpected("an update of \(deletions.count) deletions, \(insertions.count) insertions "
                        + "and \(modifications.count) modifications for a change of one object")
                    return
                }
                let pulse = pulses[modifications[0]]
                guard pulse.id == PulseObject.changedID else {
                    log.noteUnexpected("the update named object \(pulse.id), not \(PulseObject.changedID)")
                    return
                }
                log.noteDelivery(commitNumber: pulse.commitNumber, callbackNanoseconds: callbackNanoseconds,
                                 stampNanoseconds: UInt64(pulse.stampNanoseconds))
            case .error(let error):
                log.noteUnexpected("an error: \(error)")
            }
        }
        defer { token.invalidate() }
        try log.waitForInitial(timeoutSeconds: deliveryTimeoutSeconds)

        switch writer {
        case .thread:
            let thread = ConfinedThread(name: "columnar-bench-notification-writer")
            defer { thread.stop() }
            return try thread.run {
                try commitFromThisThread(configuration: configuration, commitCount: commitCount, log: log)
            }
        case .process:
            return try commitFromWriterProcess(path: path, commitCount: commitCount, log: log)
        }
    }

    /// The writer as a thread: its own Realm, its commits, and its waits for each delivery.
    private static func commitFromThisThread(configuration: Realm.Configuration, commitCount: Int, log: DeliveryLog)
        throws -> [DeliverySample]
    {
        let realm = try Realm(configuration: configuration)
        guard let pulse = realm.object(ofType: PulseObject.self, forPrimaryKey: PulseObject.changedID) else {
            throw BenchError.setup("the writer thread found no object \(PulseObject.changedID)")
        }
        var samples: [DeliverySample] = []
        samples.reserveCapacity(commitCount)
        for commitNumber in 1 ... warmUpCommits + commitCount {
            let writeBegan = MonotonicClock.nowNanoseconds()
            try realm.write {
                pulse.commitNumber = commitNumber
                pulse.stampNanoseconds = Int(writeBegan)
            }
            let commitReturned = MonotonicClock.nowNanoseconds()
            let delivery = try log.waitForDelivery(of: commitNumber, timeoutSeconds: deliveryTimeoutSeconds)
            guard delivery.stampNanoseconds == writeBegan else {
                throw BenchError.wrongAnswer(engine: "Columnar", what: "the notification of commit \(commitNumber) "
                    + "carried another commit's values")
            }
            if commitNumber > warmUpCommits {
                samples.append(DeliverySample(writeBeganNanoseconds: writeBegan, commitReturnedNanoseconds: commitReturned,
                                              callbackNanoseconds: delivery.callbackNanoseconds))
            }
        }
        return samples
    }

    /// The writer as another process (NotificationWriter.swift): asked for one commit at a time, it answers with
    /// its clock readings, and the next commit is asked for once both its answer and the delivery are in.
    private static func commitFromWriterProcess(path: String, commitCount: Int, log: DeliveryLog) throws
        -> [DeliverySample]
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/self/exe"))
        process.arguments = [NotificationWriter.configuration.commandName!, path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Whatever happens, the writer does not outlive this call: closing its input ends it.
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        let outputDescriptor = output.fileHandleForReading.fileDescriptor
        let ready = CommitWorkerProcesses.readLine(from: outputDescriptor)
        guard ready == "ready" else {
            throw BenchError.setup("the notification writer did not become ready"
                + (ready.map { ": it said \"\($0)\"" } ?? ": it ended first"))
        }
        var samples: [DeliverySample] = []
        samples.reserveCapacity(commitCount)
        for commitNumber in 1 ... warmUpCommits + commitCount {
            input.fileHandleForWriting.write(Data("commit \(commitNumber)\n".utf8))
            let answer = CommitWorkerProcesses.readLine(from: outputDescriptor)
            guard let answer, let readings = NotificationWriter.parseCommitted(answer, commitNumber: commitNumber)
            else {
                throw BenchError.setup("the notification writer failed commit \(commitNumber)"
                    + (answer.map { ": it said \"\($0)\"" } ?? ": it ended"))
            }
            let delivery = try log.waitForDelivery(of: commitNumber, timeoutSeconds: deliveryTimeoutSeconds)
            guard delivery.stampNanoseconds == readings.writeBeganNanoseconds else {
                throw BenchError.wrongAnswer(engine: "Columnar", what: "the notification of commit \(commitNumber) "
                    + "carried another commit's values")
            }
            if commitNumber > warmUpCommits {
                samples.append(DeliverySample(writeBeganNanoseconds: readings.writeBeganNanoseconds,
                                              commitReturnedNanoseconds: readings.commitReturnedNanoseconds,
                                              callbackNanoseconds: delivery.callbackNanoseconds))
            }
        }
        return samples
    }

    /// Removes a Realm file and its lock file, so that a workload starts from nothing.
    static func removeRealmFiles(at path: String) throws {
        for file in [path, path + ".lock"] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.removeItem(atPath: file)
        }
    }
}
