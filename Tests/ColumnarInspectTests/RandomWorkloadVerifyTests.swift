// RandomWorkloadVerifyTests.swift — `verify` finds every file a random write workload produces sound: 1,000
// small files (COLUMNAR_INSPECT_WORKLOAD_FILES changes the number), verified a few hundred per run of the tool.

import ColumnarTestSupport
import Foundation
import XCTest

final class RandomWorkloadVerifyTests: XCTestCase {
    private static var fileCount: Int {
        ProcessInfo.processInfo.environment["COLUMNAR_INSPECT_WORKLOAD_FILES"].flatMap { Int($0) } ?? 1_000
    }

    func testVerifyFindsEveryRandomWorkloadFileSound() throws {
        let generator = makeSeededGenerator()
        let seed = generator.seed
        let directory = try TemporaryDirectory(prefix: "inspect-workloads")
        defer { directory.cleanup() }
        let count = RandomWorkloadVerifyTests.fileCount
        let paths = (0..<count).map { directory.file("workload-\($0).columnar") }
        let failures = Locked([String]())
        let started = Date()
        runOnThreads(2) { thread in
            for index in stride(from: thread, to: count, by: 2) {
                do {
                    try RandomWorkloadFile.write(at: paths[index], seed: SeededGenerator.hash(seed, UInt64(index)))
                } catch {
                    failures.withLock { $0.append("file \(index): \(error)") }
                }
            }
        }
        XCTAssertEqual(failures.value, [], generator.replayNote)
        let written = Date()
        // The files hold real trees: count their nodes and free-list entries.
        var nodes = 0, freeEntries = 0, deepest: UInt32 = 0
        for path in paths {
            let structure = try FileStructure.read(path)
            nodes += structure.nodes.count
            freeEntries += structure.freeList.count
            deepest = max(deepest, structure.nodes.map(\.depth).max() ?? 0)
        }
        XCTAssertGreaterThan(nodes / count, 20, "files too small to mean anything")
        XCTAssertGreaterThan(freeEntries, count, "files with free space")
        var sound = 0
        for batch in stride(from: 0, to: count, by: 250) {
            let files = Array(paths[batch..<min(count, batch + 250)])
            let result = try InspectTool.run(["verify", "--json"] + files)
            XCTAssertFalse(result.crashed, result.description)
            XCTAssertEqual(result.status, 0, "\(generator.replayNote)\n\(result.description)")
            // One file gives one object, several an array of them.
            let parsed = result.json()
            let reports = parsed as? [[String: Any]] ?? [parsed as? [String: Any] ?? [:]]
            XCTAssertEqual(reports.count, files.count)
            for report in reports where report["status"] as? String != "sound" {
                XCTFail("\(report["file"] ?? "?") is not sound (\(generator.replayNote)): \(report)")
            }
            sound += reports.filter { $0["status"] as? String == "sound" }.count
        }
        print("RandomWorkloadVerify: \(sound) of \(count) files sound (\(nodes / count) live nodes and "
              + "\(freeEntries / count) free-list entries per file on average, trees up to \(deepest) levels); writing took "
              + String(format: "%.1f s, verifying %.1f s", written.timeIntervalSince(started),
                       Date().timeIntervalSince(written)))
    }
}
