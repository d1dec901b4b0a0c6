// SpacePictureTests.swift — `space --svg` draws a picture a browser's SVG renderer accepts (rsvg-convert, the
// librsvg that GNOME and many tools render SVG with, converts it to PNG) that shows used and free space in their
// colours, to scale.

import CColumnar
import ColumnarTestSupport
import XCTest

final class SpacePictureTests: SampleDatabaseTestCase {
    /// rsvg-convert, installed by scripts/setup.sh (package librsvg2-bin).
    private func converter() throws -> String {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let path = directory + "/rsvg-convert"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw TestFailure("rsvg-convert not found: run scripts/setup.sh (it installs librsvg2-bin)")
    }

    func testTheSpacePictureRendersWithFreeAndUsedSpaceInTheirColours() throws {
        let sample = try self.sample
        let output = try TemporaryDirectory(prefix: "inspect-svg")
        defer { output.cleanup() }
        let svg = output.file("space.svg")
        let result = try inspect("space", "--json", "--svg", svg, sample.path)
        XCTAssertEqual(result.status, 0, result.description)
        let json = result.object()
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("<?xml"), String(text.prefix(100)))
        XCTAssertTrue(text.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))

        // Render it.
        let png = output.file("space.png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try converter())
        process.arguments = [svg, "-o", png]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "rsvg-convert failed")
        let image = try PNGImage(contentsOf: URL(fileURLWithPath: png))
        XCTAssertGreaterThan(image.width, 1000)

        // The plot is everything above the legend (whose first swatch's y the SVG gives).
        let legendTop = try XCTUnwrap(text.range(of: "<rect class=\"swatch\"").flatMap { range -> Int? in
            let tail = text[range.upperBound...]
            guard let y = tail.range(of: " y=\"") else { return nil }
            return Int(tail[y.upperBound...].prefix { $0.isNumber })
        })
        let plot = image.histogram(rows: 0..<legendTop)
        let everything = image.histogram()

        // Free space in its colour, and the owners' colours, each covering pixels.
        let freePixels = plot["#d9d9d9", default: 0]
        XCTAssertGreaterThan(freePixels, 100, "free space is visible")
        let owners = json.objects("owners")
        let ownerColors = Set(owners.compactMap { $0.string("color") })
        XCTAssertFalse(ownerColors.contains("#d9d9d9") || ownerColors.contains("#f4f4f4"), "owners are never grey")
        let usedPixels = ownerColors.reduce(0) { $0 + plot[$1, default: 0] }
        XCTAssertGreaterThan(usedPixels, 1000, "used space is visible")
        XCTAssertGreaterThan(plot["#3b3b3b", default: 0], 100, "the header is visible")
        XCTAssertGreaterThan(plot["#f4f4f4", default: 0], 1000, "the preallocated tail is visible")
        XCTAssertEqual(everything["#ff0000", default: 0], 0, "a sound file has no unaccounted space")
        for owner in owners {
            XCTAssertGreaterThan(everything[owner.string("color") ?? "", default: 0], 0, "legend swatch of \(owner)")
        }

        // To scale: each kind's share of the plot's pixels is its share of the file's bytes (antialiased edges
        // between regions aside).
        let fileBytes = Double(try XCTUnwrap(json.uint("fileSizeBytes")))
        let plotPixels = Double(freePixels + usedPixels + plot["#3b3b3b", default: 0] + plot["#f4f4f4", default: 0])
        let preallocatedShare = Double(try XCTUnwrap(json.uint("preallocatedBytes"))) / fileBytes
        XCTAssertEqual(Double(plot["#f4f4f4", default: 0]) / plotPixels, preallocatedShare, accuracy: 0.03)
        let freeShare = Double(try XCTUnwrap(json.uint("freeBytes"))) / fileBytes
        XCTAssertEqual(Double(freePixels) / plotPixels, freeShare, accuracy: 0.03)
        XCTAssertEqual(json.uint("headerBytes"), 8192)
        XCTAssertEqual(Double(plot["#3b3b3b", default: 0]) / plotPixels, 8192 / fileBytes, accuracy: 0.01)
    }

    func testUnaccountedSpaceIsDrawnRed() throws {
        // A leaked range: a free-list entry shrunk so its tail belongs to nothing.
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let sizes = try XCTUnwrap(structure.nodes.first { $0.role == FileSurgery.roleFreeSize })
        let free = structure.freeList
        let largest = try XCTUnwrap(free.indices.max { free[$0].size_bytes < free[$1].size_bytes })
        let size = free[largest].size_bytes
        XCTAssertGreaterThan(size, 64)
        try FileSurgery.packedSet(path, ref: sizes.ref, width: 64, index: UInt64(largest), Int64(size - 64))
        try FileSurgery.fixChecksum(path, ref: sizes.ref)
        // The latest commit wrote the free list (its record lists it), so that version is no longer whole and the
        // current version is the one before; the damaged version is drawn when its slot is selected.
        XCTAssertTrue(structure.isRecorded(sizes))
        let slot = "\(structure.version.slot)"
        let fallback = try inspect("space", "--json", path)
        XCTAssertEqual(fallback.object().uint("version"), structure.version.version - 1, fallback.description)
        XCTAssertEqual(fallback.status, 1, "the slot that is not whole is a finding")
        let svg = directory.file("leak.svg")
        let result = try inspect("space", "--json", "--slot", slot, "--svg", svg, path)
        XCTAssertEqual(result.object().uint("version"), structure.version.version)
        XCTAssertEqual(result.object().uint("unaccountedBytes"), 64)
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(picture.contains("unaccounted (neither live nor free): 64 bytes"))
        let verify = try inspect("verify", "--slot", slot, path)
        XCTAssertEqual(verify.status, 1)
        XCTAssertTrue(verify.stdout.contains("leaked"), verify.stdout)
    }
}
