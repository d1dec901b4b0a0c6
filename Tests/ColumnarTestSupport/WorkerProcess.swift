// WorkerProcess.swift — runs the ColumnarTestWorker executable as a child process.
//
// Crash and multi-process tests need a second process that uses the same database file: one that can be killed
// with SIGKILL in the middle of a commit, or two that race for the writer lock. The worker is built beside the
// test bundle (the test target depends on it); this file finds it, starts it, collects its standard output line
// by line on a background thread, and kills or waits for it.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class WorkerProcess: @unchecked Sendable {
    public static let executableName = "ColumnarTestWorker"

    /// The worker executable: COLUMNAR_TEST_WORKER when set, else the built product next to the test bundle.
    public static func executableURL() throws -> URL {
        try BuiltExecutable.url(named: executableName, override: "COLUMNAR_TEST_WORKER")
    }

    public let process = Process()
    public let arguments: [String]
    private let outputPipe = Pipe()
    private let condition = NSCondition()
    private var outputBytes: [UInt8] = []
    private var outputClosed = false

    /// Starts the worker with `arguments` (the subcommand first). Its standard error goes to ours.
    public init(_ arguments: [String]) throws {
        self.arguments = arguments
        process.executableURL = try WorkerProcess.executableURL()
        process.arguments = arguments
        process.standardOutput = outputPipe
        process.standardError = FileHandle.standardError
        try process.run()
        // The parent's copy of the write end must be closed, or reading never sees end-of-file after the worker
        // dies. Foundation normally does this in run(); closing a closed FileHandle again is harmless.
        try? outputPipe.fileHandleForWriting.close()
        let reader = Thread { [self] in self.readOutput() }
        reader.name = "worker-stdout"
        reader.start()
    }

    private func readOutput() {
        let handle = outputPipe.fileHandleForReading
        while true {
            let chunk = handle.availableData
            condition.lock()
            if chunk.isEmpty {
                outputClosed = true
            } else {
                outputBytes.append(contentsOf: chunk)
            }
            condition.broadcast()
            condition.unlock()
            if chunk.isEmpty { return }
        }
    }

    public var pid: pid_t { process.processIdentifier }

    /// Complete lines (terminated by a newline) the worker has printed so far; a partial last line is left out.
    public var outputLines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return WorkerProcess.completeLines(outputBytes)
    }

    private static func completeLines(_ bytes: [UInt8]) -> [String] {
        guard let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        return bytes[..<lastNewline].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Waits until the worker has printed at least one complete line, its output ends, or `timeout` passes.
    /// Returns whether a line arrived.
    @discardableResult
    public func waitForFirstLine(timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !outputBytes.contains(UInt8(ascii: "\n")) && !outputClosed {
            if !condition.wait(until: deadline) { break }
        }
        return outputBytes.contains(UInt8(ascii: "\n"))
    }

    /// Sends SIGKILL: the worker dies at once, wherever it is (in the middle of a commit, holding the writer lock).
    public func kill() {
        if process.isRunning { _ = Glibc.kill(pid, SIGKILL) }
    }

    /// Waits for the worker to exit and for its output to be read to the end.
    /// Returns the exit status, or the signal number when `reason` is `.uncaughtSignal`.
    @discardableResult
    public func waitForExit() -> (status: Int32, reason: Process.TerminationReason) {
        process.waitUntilExit()
        condition.lock()
        while !outputClosed { condition.wait() }
        condition.unlock()
        return (process.terminationStatus, process.terminationReason)
    }

    /// Waits for exit, failing with a description when the worker did not exit with status 0.
    public func waitForSuccess() throws {
        let (status, reason) = waitForExit()
        guard reason == .exit && status == 0 else {
            throw WorkerFailed(arguments: arguments, status: status, reason: reason, output: outputLines)
        }
    }
}

public struct WorkerFailed: Error, CustomStringConvertible {
    public let arguments: [String]
    public let status: Int32
    public let reason: Process.TerminationReason
    public let output: [String]
    public var description: String {
        let how = reason == .exit ? "exited with status \(status)" : "was killed by signal \(status)"
        return "ColumnarTestWorker \(arguments.joined(separator: " ")) \(how); last output: "
            + output.suffix(5).joined(separator: " | ")
    }
}

extension FileHandle {
    /// Reads up to a newline (which is dropped) or the end, a byte at a time, so that nothing after the line is
    /// taken from a pipe a worker process is still writing.
    public func readLine() -> [UInt8] {
        var line: [UInt8] = []
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte[0] == UInt8(ascii: "\n") { return line }
            line.append(byte[0])
        }
    }
}
