// HelpTests.swift — every subcommand has a manual: `--help` shows an overview (the abstract), a discussion with
// the exit statuses and examples, and the options.

import XCTest

final class HelpTests: XCTestCase {
    static let subcommands = ["header", "info", "schema", "tables", "dump", "node", "space", "verify", "compact",
                              "copy"]

    func testEverySubcommandHasAManualPageStyleHelp() throws {
        for subcommand in HelpTests.subcommands {
            for arguments in [[subcommand, "--help"], ["help", subcommand]] {
                let result = try InspectTool.run(arguments)
                XCTAssertEqual(result.status, 0, result.description)
                let text = result.stdout
                XCTAssertTrue(text.hasPrefix("OVERVIEW: "), "\(subcommand): \(text.prefix(200))")
                for section in ["EXIT STATUS", "EXAMPLES", "USAGE: columnar-inspect \(subcommand)", "OPTIONS:", "--json"] {
                    XCTAssertTrue(text.contains(section), "\(subcommand) --help lacks \(section):\n\(text)")
                }
                XCTAssertGreaterThan(text.count, 800, "\(subcommand): a manual, not a line")
            }
        }
    }

    func testTheToolsHelpListsEverySubcommand() throws {
        let result = try InspectTool.run(["--help"])
        XCTAssertEqual(result.status, 0, result.description)
        for subcommand in HelpTests.subcommands {
            XCTAssertTrue(result.stdout.contains("  \(subcommand) "), "\(subcommand) missing:\n\(result.stdout)")
        }
        XCTAssertTrue(result.stdout.contains("EXIT STATUS"), result.stdout)
    }

    func testAMissingFileIsUnreadableAndAWrongArgumentIsAUsageError() throws {
        let missing = try InspectTool.run(["verify", "/nonexistent/file.columnar"])
        XCTAssertEqual(missing.status, 2, missing.description)
        XCTAssertTrue(missing.stdout.contains("No such file"), missing.description)
        let header = try InspectTool.run(["header", "--json", "/nonexistent/file.columnar"])
        XCTAssertEqual(header.status, 2, header.description)
        XCTAssertEqual(header.object().string("status"), "unreadable")
        // The header has slots 0 ... 14: --slot 15 is a usage error, --slot 14 is valid (the file is missing).
        let usage = try InspectTool.run(["info", "--slot", "15", "/nonexistent/file.columnar"])
        XCTAssertEqual(usage.status, 64, usage.description)
        XCTAssertTrue(usage.stderr.contains("--slot must be 0 ... 14"), usage.description)
        XCTAssertEqual(try InspectTool.run(["info", "--slot", "-1", "/nonexistent/file.columnar"]).status, 64)
        let lastSlot = try InspectTool.run(["info", "--slot", "14", "/nonexistent/file.columnar"])
        XCTAssertEqual(lastSlot.status, 2, lastSlot.description)
        let notDatabase = FileManager.default.temporaryDirectory.appendingPathComponent("not-\(UUID().uuidString)").path
        try String(repeating: "not a database\n", count: 400).write(toFile: notDatabase, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: notDatabase) }
        let wrong = try InspectTool.run(["verify", "--json", notDatabase])
        XCTAssertEqual(wrong.status, 2, wrong.description)
        XCTAssertTrue(wrong.object().objects("findings").contains { $0.uint("offset") == 0
                                                                    && ($0.string("what") ?? "").contains("magic") },
                      wrong.description)
    }
}
