// PowerCutCampaignTests.swift — a slice of the power-cut campaign in every test run.
//
// The campaign (ColumnarTestWorker powercut-campaign, PowerCutCampaign.swift) cuts the power under mixed
// workloads of one or two writer processes, with kills, failed syncs and random writeback, and checks each cut
// against a model of the writers' commits. `make powercut N=10000` runs the long campaign; this test runs
// COLUMNAR_POWERCUT_CUTS cuts (200 by default) with a seed from the test's generator.

import ColumnarTestSupport
import Foundation
import XCTest

final class PowerCutCampaignTests: XCTestCase {
    func testPowerCutsUnderMixedWorkloadsDamageNoFileAndLoseNoAcknowledgedCommit() throws {
        var generator = makeSeededGenerator()
        let cuts = ProcessInfo.processInfo.environment["COLUMNAR_POWERCUT_CUTS"].flatMap { Int($0) } ?? 200
        let directory = try TemporaryDirectory(prefix: "powercut-campaign")
        let campaign = try WorkerProcess(["powercut-campaign", "--cuts", String(cuts), "--seed",
                                          String(generator.next()), "--dir", directory.path])
        let (status, reason) = campaign.waitForExit()
        let output = campaign.outputLines
        print(output.filter { !$0.hasSuffix(" s") }.joined(separator: "\n"))
        XCTAssertEqual(reason, .exit, "the campaign was killed: \(output.suffix(3))")
        XCTAssertEqual(status, 0, "the campaign found a problem (its message is on standard error); "
                       + generator.replayNote)
        XCTAssertTrue(output.contains { $0.hasPrefix("powercut campaign: \(cuts) cuts") }, "\(output.suffix(3))")
    }
}
