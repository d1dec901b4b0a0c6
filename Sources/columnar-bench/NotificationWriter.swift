// NotificationWriter: the other process of the notifications subcommand's process-latency workload
// (NotificationLatency.swift). The harness runs itself again as `columnar-bench notification-writer PATH` (left out
// of --help), and the writer changes the object the harness observes, one commit when asked.
//
// The conversation, one line at a time (writer: standard output; harness: the writer's standard input):
//   writer   "ready"                       the Realm is open and the object found
//   harness  "commit N"                    make commit N
//   writer   "committed N BEGAN RETURNED"  CLOCK_MONOTONIC nanoseconds before the write began and after the commit
//                                          call returned
//   writer   "error TEXT"                  a commit failed; the exit status is then 1
// The writer ends when its standard input does. Its standard error is the harness's.

import ArgumentParser
import Columnar
import Foundation

struct NotificationWriter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notification-writer",
        abstract: "The writer process of the notifications subcommand (run by columnar-bench itself).",
        shouldDisplay: false)

    @Argument(help: "The Realm, with the observed table already made.")
    var path: String

    func run() throws {
        let realm = try Realm(configuration: PulseObject.configuration(path: path))
        guard let pulse = realm.object(ofType: PulseObject.self, forPrimaryKey: PulseObject.changedID) else {
            Self.emit("error no object \(PulseObject.changedID) in \(path)")
            throw ExitCode.failure
        }
        Self.emit("ready")
        while let line = readLine() {
            let fields = line.split(separator: " ")
            guard fields.count == 2, fields[0] == "commit", let commitNumber = Int(fields[1]) else {
                Self.emit("error unknown request \"\(line)\"")
                throw ExitCode.failure
            }
            let writeBegan = MonotonicClock.nowNanoseconds()
            do {
                try realm.write {
                    pulse.commitNumber = commitNumber
                    pulse.stampNanoseconds = Int(writeBegan)
                }
            } catch {
                Self.emit("error \(error)")
                throw ExitCode.failure
            }
            let commitReturned = MonotonicClock.nowNanoseconds()
            Self.emit("committed \(commitNumber) \(writeBegan) \(commitReturned)")
        }
    }

    /// The clock readings of a "committed" line for commit `commitNumber`; nil for any other line.
    static func parseCommitted(_ line: String, commitNumber: Int) -> (writeBeganNanoseconds: UInt64,
                                                                      commitReturnedNanoseconds: UInt64)?
    {
        let fields = line.split(separator: " ")
        guard fields.count == 4, fields[0] == "committed", Int(fields[1]) == commitNumber,
              let began = UInt64(fields[2]), let returned = UInt64(fields[3]) else { return nil }
        return (began, returned)
    }

    /// Writes one line to standard output at once: the harness waits for it.
    private static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
