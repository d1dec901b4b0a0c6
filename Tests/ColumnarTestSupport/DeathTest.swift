// DeathTest.swift — checking that misuse stops the program with the documented message.
//
// RealmSwift reports programmer errors (an index out of range, a refused dictionary key, a write outside a
// transaction) by raising an exception; Columnar stops with a precondition failure. A test cannot survive that in
// its own process, so a death test runs the test bundle again in a child process with only one runner test
// selected and the case's name in COLUMNAR_DEATH_CASE. The runner test performs that case (in an ordinary run the
// variable is unset and it does nothing); the parent expects the child to die of a signal with the message on
// standard error.

import Foundation
import XCTest

/// The death case this process was started to perform, or nil in an ordinary test run.
public var currentDeathCase: String? { ProcessInfo.processInfo.environment["COLUMNAR_DEATH_CASE"] }

extension XCTestCase {
    /// Runs `runnerTest` (`"Module.Class/testMethod"`) of this test bundle in a child process with
    /// COLUMNAR_DEATH_CASE=`deathCase`, and asserts that the child is killed by a signal (a trap) after writing
    /// `message` to standard error.
    public func assertStops(_ deathCase: String, runnerTest: String, message: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = [runnerTest]
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNAR_DEATH_CASE"] = deathCase
        environment["SWIFT_BACKTRACE"] = "enable=no"   // a symbolicated backtrace takes seconds and says nothing here
        child.environment = environment
        let errorPipe = Pipe()
        child.standardError = errorPipe
        child.standardOutput = FileHandle.nullDevice
        do {
            try child.run()
        } catch {
            XCTFail("cannot start the death test child for '\(deathCase)': \(error)", file: file, line: line)
            return
        }
        let stderr = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal,
                       "'\(deathCase)' should have stopped the process; it exited with \(child.terminationStatus). "
                           + "Its standard error:\n\(stderr)", file: file, line: line)
        XCTAssertTrue(stderr.contains(message),
                      "'\(deathCase)' should have said '\(message)'. Its standard error:\n\(stderr)",
                      file: file, line: line)
    }
}

/// A test class whose death cases are a table of named bodies: its `testRunDeathCase` calls `runDeathCase()`, and
/// its tests call `assertStops(name, message)`.
public protocol DeathCaseTable: XCTestCase {
    /// The misuse cases, by name; each one must stop the program.
    var deathCases: [String: () throws -> Void] { get }
    /// The class's runner test, `"Module.Class/testRunDeathCase"`.
    static var deathCaseRunner: String { get }
}

extension DeathCaseTable {
    /// In a death test's child process, performs the case it was started for; in an ordinary run, nothing.
    public func runDeathCase() throws {
        guard let name = currentDeathCase else { return }
        guard let body = deathCases[name] else { return XCTFail("no death case named '\(name)'") }
        try body()
    }

    /// Asserts that the death case `name` stops the program with `message` on standard error.
    public func assertStops(_ name: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotNil(deathCases[name], "no death case named '\(name)'", file: file, line: line)
        assertStops(name, runnerTest: Self.deathCaseRunner, message: message, file: file, line: line)
    }
}
