// InspectTool.swift — runs the columnar-inspect executable as a child process, as a user would.
//
// The executable is built beside the test bundle (the test target depends on it); this file finds it the way
// WorkerProcess finds the test worker, runs it with its standard output and error captured in files (so neither
// pipe can fill up and stall it), and reports its exit status, whether a signal killed it, and its output.

import ColumnarTestSupport
import Foundation
import XCTest

struct ToolResult {
    let arguments: [String]
    let status: Int32
    /// A signal ended the process (a crash) rather than exit().
    let crashed: Bool
    let stdout: String
    let stderr: String

    /// Standard output parsed with JSONSerialization; fails the test when it does not parse.
    func json(file: StaticString = #filePath, line: UInt = #line) -> Any? {
        do {
            return try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
        } catch {
            XCTFail("columnar-inspect \(arguments.joined(separator: " ")): output is not JSON (\(error)):\n"
                    + stdout.prefix(2_000), file: file, line: line)
            return nil
        }
    }

    /// Standard output parsed as a JSON object.
    func object(file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        (json(file: file, line: line) as? [String: Any]) ?? [:]
    }

    var description: String {
        "columnar-inspect \(arguments.joined(separator: " ")) -> \(crashed ? "CRASHED, signal" : "exit") \(status)\n"
            + "stdout:\n\(stdout.prefix(4_000))\nstderr:\n\(stderr.prefix(2_000))"
    }
}

enum InspectTool {
    static let executableName = "columnar-inspect"

    /// COLUMNAR_INSPECT when set, else the built product next to the test bundle.
    static func executableURL() throws -> URL {
        try BuiltExecutable.url(named: executableName, override: "COLUMNAR_INSPECT")
    }

    /// A file's text, read through a FileHandle. (Foundation's whole-file readers leak their buffer for an empty
    /// file, which would fail the AddressSanitizer build's leak check.)
    private static func readText(_ url: URL) -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return "" }
        defer { try? handle.close() }
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// The environment variable the tool reads an encryption key from.
    static let keyVariable = "COLUMNAR_ENCRYPTION_KEY"

    /// Runs the tool with `arguments` and waits for it. It inherits this process's environment without any
    /// encryption key, plus `environment`.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ToolResult {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("columnar-inspect-output-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        inherited[keyVariable] = nil
        process.environment = inherited.merging(environment) { _, given in given }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return ToolResult(
            arguments: arguments, status: process.terminationStatus,
            crashed: process.terminationReason == .uncaughtSignal,
            stdout: readText(outURL), stderr: readText(errURL))
    }
}
