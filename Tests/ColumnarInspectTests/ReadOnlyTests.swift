// ReadOnlyTests.swift — no subcommand changes the database file (content or modification time) or its lock file,
// and none creates a lock file: on a file nobody has open, and on one this process has open with a reader.

import CColumnar
import ColumnarTestSupport
import XCTest

final class ReadOnlyTests: SampleDatabaseTestCase {
    /// Every subcommand, with text and JSON output.
    private func everyInvocation(_ path: String, outputDirectory: TemporaryDirectory) throws -> [[String]] {
        let structure = try FileStructure.read(path)
        let cluster = try XCTUnwrap(structure.nodes.first { $0.role == FileSurgery.roleCluster })
        // The slot of the version before the current one: an older version, whole and selectable.
        let older = "\(FileSurgery.slot(of: structure.version.version - 1))"
        var invocations: [[String]] = []
        for json in [[], ["--json"]] {
            invocations += [
                ["header"], ["info"], ["info", "--slot", older], ["schema"], ["tables"], ["verify"],
                ["space", "--svg", outputDirectory.file("space.svg")], ["node", "\(cluster.ref)"],
                ["node", "\(structure.version.top_ref)"], ["dump", "all"], ["dump", "notes", "--limit", "5"],
            ].map { [$0[0]] + json + [path] + $0.dropFirst() }
        }
        invocations += [["dump", "--format", "csv", path, "all"], ["dump", "--format", "table", path, "target"],
                        ["--help"], ["verify", "--slot", older, path], ["node", "--slot", older, path, "\(cluster.ref)"]]
        return invocations
    }

    private func assertUnchanged(_ path: String, _ invocations: [[String]], lockFileExpected: Bool) throws {
        let before = FileSnapshot(path)
        let lockBefore = FileSnapshot(path + ".lock")
        XCTAssertEqual(lockBefore.exists, lockFileExpected)
        for arguments in invocations {
            let result = try inspect(arguments)
            XCTAssertEqual(result.status, 0, result.description)
            XCTAssertEqual(FileSnapshot(path), before, "the database changed: \(arguments.joined(separator: " "))")
            XCTAssertEqual(FileSnapshot(path + ".lock"), lockBefore,
                           "the lock file changed or appeared: \(arguments.joined(separator: " "))")
        }
    }

    func testNoSubcommandChangesAFileNobodyHasOpenOrCreatesItsLockFile() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        // An old modification time, so that a write within the same clock tick could not hide.
        let old = timespec(tv_sec: 1_000_000_000, tv_nsec: 123_456_789)
        var times = [old, old]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        let output = try TemporaryDirectory(prefix: "inspect-output")
        defer { output.cleanup() }
        try assertUnchanged(path, try everyInvocation(path, outputDirectory: output), lockFileExpected: false)
        XCTAssertEqual(FileSnapshot(path).modificationNanoseconds, 123_456_789)
        // The file is opened read-only: a file without write permission is inspected all the same.
        XCTAssertEqual(chmod(path, 0o444), 0)
        let verify = try inspect("verify", path)
        XCTAssertEqual(verify.status, 0, verify.description)
    }

    func testNoSubcommandChangesAFileOrLockFileAnotherProcessHasOpen() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let db = try TestDatabase(path: path, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE,
                                  clusterSize: SampleDatabase.clusterSize)
        defer { db.close() }
        try db.write { txn in _ = try txn.createObject(try txn.findTable("notes"), primaryKey: .int(1_000_000)) }
        let reader = try db.beginRead()
        defer { reader.rollback() }
        let output = try TemporaryDirectory(prefix: "inspect-output")
        defer { output.cleanup() }
        try assertUnchanged(path, try everyInvocation(path, outputDirectory: output), lockFileExpected: true)
    }
}
