// EngineAssertions.swift — XCTest assertions about engine results.

import CColumnar
import XCTest

/// Asserts that `body` throws an EngineError with `expected` code (and a non-empty explanation is not required).
public func XCTAssertEngineError<T>(_ expected: Int32, _ body: @autoclosure () throws -> T,
                                    _ message: @autoclosure () -> String = "",
                                    file: StaticString = #filePath, line: UInt = #line) {
    do {
        let result = try body()
        XCTFail("expected \(errorName(expected)) (\(expected)), got success: \(result). \(message())",
                file: file, line: line)
    } catch let error as EngineError {
        XCTAssertEqual(error.code, expected,
                       "expected \(errorName(expected)) (\(expected)), got \(error). \(message())",
                       file: file, line: line)
    } catch {
        XCTFail("expected \(errorName(expected)), got \(error). \(message())", file: file, line: line)
    }
}

/// Asserts that columnar_verify finds the transaction's version sound: COLUMNAR_OK and zero findings.
public func XCTAssertVerifies(_ txn: Transaction, _ message: @autoclosure () -> String = "",
                              file: StaticString = #filePath, line: UInt = #line) {
    let report = txn.verify()
    XCTAssertTrue(report.isSound, "\(report) \(message())", file: file, line: line)
}

/// Opens `path` and asserts that its latest version verifies.
public func XCTAssertFileVerifies(_ path: String, _ message: @autoclosure () -> String = "",
                                  file: StaticString = #filePath, line: UInt = #line) {
    do {
        let db = try TestDatabase(path: path, flags: [])
        defer { db.close() }
        try db.read { txn in XCTAssertVerifies(txn, message(), file: file, line: line) }
    } catch {
        XCTFail("cannot verify \(path): \(error). \(message())", file: file, line: line)
    }
}
