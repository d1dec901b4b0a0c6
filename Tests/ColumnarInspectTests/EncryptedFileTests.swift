// EncryptedFileTests.swift — the tool on an encrypted file (docs/Encryption.md): with its key, from the environment
// variable COLUMNAR_ENCRYPTION_KEY or a --key-file (raw or hexadecimal), every subcommand reads it as it reads a
// plain file; without the key, or with another, the file is unreadable and the message says why; a key that cannot
// be one is a usage error that does not echo the key; compact keeps the key, and copy keeps, changes or drops it.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class EncryptedFileTests: XCTestCase {
    nonisolated(unsafe) private static var directory: TemporaryDirectory?
    nonisolated(unsafe) private static var sample: SampleDatabase?

    private static let key = testEncryptionKey
    private static let otherKey: [UInt8] = (0..<64).map { UInt8(255 - $0) }

    override class func setUp() {
        super.setUp()
        do {
            let directory = try TemporaryDirectory(prefix: "inspect-encrypted")
            self.directory = directory
            sample = try SampleDatabase.build(at: directory.file("encrypted.columnar"), encryptionKey: key)
        } catch {
            XCTFail("building the encrypted sample database failed: \(error)")
        }
    }

    override class func tearDown() {
        directory?.cleanup()
        directory = nil
        sample = nil
        super.tearDown()
    }

    private var scratch: TemporaryDirectory!

    override func setUpWithError() throws { scratch = try TemporaryDirectory(prefix: "inspect-encrypted-test") }
    override func tearDown() { scratch?.cleanup() }

    private var samplePath: String {
        get throws {
            guard let path = EncryptedFileTests.sample?.path else { throw TestFailure("no encrypted sample") }
            return path
        }
    }

    /// A private copy of the encrypted sample.
    private func copyOfSample() throws -> String {
        let path = scratch.file("copy.columnar")
        try FileManager.default.copyItem(atPath: try samplePath, toPath: path)
        return path
    }

    private static func hex(_ key: [UInt8]) -> String {
        key.map { String(format: "%02x", $0) }.joined()
    }

    /// The environment that gives the tool `key`.
    private func environment(_ key: [UInt8]) -> [String: String] {
        [InspectTool.keyVariable: EncryptedFileTests.hex(key)]
    }

    /// A key file holding `contents`.
    private func keyFile(_ contents: Data, named name: String = "key") throws -> String {
        let path = scratch.file(name)
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }

    @discardableResult
    private func inspect(_ arguments: [String], environment: [String: String] = [:],
                         file: StaticString = #filePath, line: UInt = #line) throws -> ToolResult {
        let result = try InspectTool.run(arguments, environment: environment)
        XCTAssertFalse(result.crashed, result.description, file: file, line: line)
        return result
    }

    func testEverySubcommandReadsAnEncryptedFileWithTheKeyFromTheEnvironment() throws {
        let path = try copyOfSample()
        let withKey = environment(EncryptedFileTests.key)
        for subcommand in ["header", "info", "schema", "tables", "space", "verify"] {
            let result = try inspect([subcommand, "--json", path], environment: withKey)
            XCTAssertEqual(result.status, 0, result.description)
        }
        let schema = try inspect(["schema", "--json", path], environment: withKey).stdout
        XCTAssertTrue(schema.contains("notes"), schema)
        let dump = try inspect(["dump", "--format", "json", path, "notes"], environment: withKey)
        XCTAssertEqual(dump.status, 0, dump.description)
        XCTAssertTrue(dump.stdout.contains(SampleDatabase.lastEdit), dump.description)
        XCTAssertEqual(dump.object().objects("rows").count, SampleDatabase.noteCount)
        let verify = try inspect(["verify", path], environment: withKey)
        XCTAssertTrue(verify.stdout.contains("sound"), verify.description)
    }

    func testAKeyFileHoldsRawBytesOrHexadecimalAndTakesPrecedenceOverTheEnvironment() throws {
        let path = try samplePath
        let raw = try keyFile(Data(EncryptedFileTests.key), named: "raw.key")
        let hex = try keyFile(Data(("  \n" + EncryptedFileTests.hex(EncryptedFileTests.key).uppercased() + "\n").utf8),
                              named: "hex.key")
        for keyPath in [raw, hex] {
            let result = try inspect(["verify", "--key-file", keyPath, path])
            XCTAssertEqual(result.status, 0, result.description)
            let dump = try inspect(["dump", "--key-file", keyPath, "--limit", "1", path, "notes"])
            XCTAssertEqual(dump.status, 0, dump.description)
        }
        let overridden = try inspect(["verify", "--key-file", raw, path],
                                     environment: environment(EncryptedFileTests.otherKey))
        XCTAssertEqual(overridden.status, 0, overridden.description)
    }

    func testWithoutTheKeyTheFileIsUnreadableAndTheMessageSaysHowToGiveIt() throws {
        let path = try samplePath
        for subcommand in ["verify", "schema", "tables", "info", "space"] {
            let result = try inspect([subcommand, path])
            XCTAssertEqual(result.status, 2, result.description)
            let output = result.stdout + result.stderr
            XCTAssertTrue(output.contains("encrypted"), result.description)
            XCTAssertTrue(output.contains("--key-file") && output.contains(InspectTool.keyVariable), result.description)
        }
        let dump = try inspect(["dump", path, "notes"])
        XCTAssertEqual(dump.status, 2, dump.description)
        XCTAssertTrue(dump.stderr.contains("--key-file"), dump.description)
        // The header is not encrypted and is still shown.
        let header = try inspect(["header", "--json", path])
        XCTAssertNotEqual(header.status, 0, header.description)
        XCTAssertTrue(header.stdout.contains("encrypted"), header.description)
    }

    func testTheWrongKeyOrAKeyForAPlainFileMakesTheFileUnreadable() throws {
        let path = try samplePath
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let wrong = environment(EncryptedFileTests.otherKey)
        for arguments in [["verify", path], ["schema", path], ["dump", path, "notes"]] {
            let result = try inspect(arguments, environment: wrong)
            XCTAssertEqual(result.status, 2, result.description)
            let output = result.stdout + result.stderr
            XCTAssertTrue(output.contains("another key"), result.description)
            XCTAssertTrue(output.contains("the key was read from the environment variable \(InspectTool.keyVariable)"),
                          result.description)
        }
        let compact = try inspect(["compact", "--json", try copyOfSample()], environment: wrong)
        XCTAssertEqual(compact.status, 2, compact.description)
        XCTAssertEqual(compact.object().string("status"), "failed")
        XCTAssertTrue((compact.object().string("error") ?? "").contains("another key"), compact.description)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "nothing was written")

        let plain = scratch.file("plain.columnar")
        let db = try TestDatabase(path: plain)
        try db.write { txn in _ = try txn.addTable("t") }
        db.close()
        let result = try inspect(["verify", plain], environment: environment(EncryptedFileTests.key))
        XCTAssertEqual(result.status, 2, result.description)
        XCTAssertTrue(result.stdout.contains("not an encrypted"), result.description)
    }

    func testAKeyThatCannotBeOneIsAUsageErrorThatDoesNotEchoIt() throws {
        let path = try samplePath
        let hex = EncryptedFileTests.hex(EncryptedFileTests.key)
        let cases: [(environment: [String: String], arguments: [String], says: String)] = [
            ([InspectTool.keyVariable: String(hex.dropLast())], [], "128 hexadecimal characters"),
            ([InspectTool.keyVariable: String(hex.dropLast()) + "g"], [], "not hexadecimal"),
            ([:], ["--key-file", try keyFile(Data(hex.prefix(100).utf8), named: "short.key")], "raw bytes or 128"),
            ([:], ["--key-file", try keyFile(Data((String(hex.dropLast()) + "z").utf8), named: "bad.key")],
             "not hexadecimal"),
            ([:], ["--key-file", scratch.file("missing.key")], "cannot read the key file"),
        ]
        for (environment, arguments, says) in cases {
            for subcommand in ["verify", "schema", "dump", "compact", "copy"] {
                var command = [subcommand] + arguments + [path]
                if subcommand == "dump" { command.append("notes") }
                if subcommand == "copy" { command.append(scratch.file("never.columnar")) }
                let result = try inspect(command, environment: environment)
                XCTAssertEqual(result.status, 64, result.description)
                XCTAssertTrue(result.stderr.contains(says), result.description)
                XCTAssertFalse(result.stderr.contains(hex.prefix(32)), "the key is echoed: \(result.description)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.file("never.columnar")))
        // An empty variable is no key: the file is then unreadable, not the command line wrong.
        XCTAssertEqual(try inspect(["verify", path], environment: [InspectTool.keyVariable: ""]).status, 2)
    }

    func testCompactKeepsTheKeyAndCopyKeepsChangesOrDropsIt() throws {
        let path = try copyOfSample()
        let key = EncryptedFileTests.key, otherKey = EncryptedFileTests.otherKey
        let expected = try objectCountsByTable(path, encryptionKey: key)
        let compact = try inspect(["compact", "--json", path], environment: environment(key))
        XCTAssertEqual(compact.status, 0, compact.description)
        XCTAssertEqual(compact.object().string("status"), "compacted")
        XCTAssertEqual(try objectCountsByTable(path, encryptionKey: key), expected)
        XCTAssertEqual(try inspect(["verify", path]).status, 2, "still encrypted")

        let same = scratch.file("same.columnar")
        let rekeyed = scratch.file("rekeyed.columnar")
        let plain = scratch.file("plain.columnar")
        let reencrypted = scratch.file("reencrypted.columnar")
        let otherKeyFile = try keyFile(Data(otherKey), named: "other.key")
        let copies: [(arguments: [String], environment: [String: String], key: [UInt8]?, path: String)] = [
            (["copy", path, same], environment(key), key, same),
            (["copy", "--copy-key-file", otherKeyFile, path, rekeyed], environment(key), otherKey, rekeyed),
            (["copy", "--plain-copy", path, plain], environment(key), nil, plain),
            (["copy", "--copy-key-file", otherKeyFile, plain, reencrypted], [:], otherKey, reencrypted),
        ]
        for (arguments, environment, copyKey, copyPath) in copies {
            let result = try inspect(arguments, environment: environment)
            XCTAssertEqual(result.status, 0, result.description)
            XCTAssertEqual(try objectCountsByTable(copyPath, encryptionKey: copyKey), expected, copyPath)
            for wrong in [key, otherKey, nil] where wrong != copyKey {
                XCTAssertThrowsError(try objectCountsByTable(copyPath, encryptionKey: wrong), "\(copyPath) opened with the wrong key")
            }
            let verify = try inspect(["verify", copyPath], environment: copyKey.map { self.environment($0) } ?? [:])
            XCTAssertEqual(verify.status, 0, verify.description)
        }
        let conflicting = try inspect(["copy", "--plain-copy", "--copy-key-file", otherKeyFile, path,
                                       scratch.file("never.columnar")], environment: environment(key))
        XCTAssertEqual(conflicting.status, 64, conflicting.description)
        XCTAssertTrue(conflicting.stderr.contains("--plain-copy conflicts with --copy-key-file"), conflicting.description)
    }

    func testTheHelpOfEverySubcommandThatReadsAFileNamesTheKeyOptions() throws {
        for subcommand in HelpTests.subcommands {
            let result = try inspect([subcommand, "--help"])
            XCTAssertTrue(result.stdout.contains("--key-file"), "\(subcommand):\n\(result.stdout)")
            XCTAssertTrue(result.stdout.contains(InspectTool.keyVariable), "\(subcommand):\n\(result.stdout)")
        }
        let copy = try inspect(["copy", "--help"]).stdout
        XCTAssertTrue(copy.contains("--copy-key-file") && copy.contains("--plain-copy"), copy)
    }
}
