// DamagedVariantTests.swift — on 1,000 damaged variants of a valid file (truncated at random lengths, 1 ... 16
// random bytes flipped, refs overwritten with wrong values) the tool never crashes: `verify` exits 1 or 2 with
// findings, or 0 only when every changed byte lies where no reader looks (free space, or past the used size).
// Every variant also goes through the whole inspection API in process (walk, free list, usage, schema, node
// decoding at random offsets, every header slot), and every 40th through every subcommand of the tool. A free
// list whose sizes overflow when summed is checked on its own.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class DamagedVariantTests: SampleDatabaseTestCase {
    private static let variantCount = 1_000
    private static let batchSize = 100
    private static let everySubcommandEvery = 40

    private struct Variant {
        let index: Int
        let kind: String
        let bytes: Data
        let description: String
        /// Whether the damage may be invisible: every changed byte is in free space or past the used size.
        let mayBeInvisible: Bool
    }

    /// The sample trimmed to whole pages past its used size (the rest is preallocation, where damage proves
    /// nothing), and the byte ranges where damage cannot be seen.
    private func base() throws -> (bytes: Data, invisible: [Range<Int>]) {
        let sample = try self.sample
        let structure = try FileStructure.read(sample.path)
        let used = Int(structure.version.used_size_bytes)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let all = try Data(contentsOf: URL(fileURLWithPath: sample.path))
        let bytes = all.prefix(min(all.count, (used + page - 1) / page * page))
        var invisible = structure.freeList.map { Int($0.pos)..<Int($0.pos + $0.size_bytes) }
        invisible.append(used..<bytes.count)
        return (Data(bytes), invisible)
    }

    private func makeVariant(_ index: Int, seed: UInt64, base: Data, invisible: [Range<Int>],
                             candidates: [(offset: Int, value: UInt64)]) -> Variant {
        var generator = SeededGenerator(seed: SeededGenerator.hash(seed, UInt64(index), 0x1D5EC7))
        var bytes = base
        let size = base.count
        switch index % 3 {
        case 0:
            // Half of the truncations cut the header or the first nodes after it.
            let length = Bool.random(using: &generator)
                ? Int.random(in: 0..<2 * Int(FileSurgery.headerBytes), using: &generator)
                : Int.random(in: 0..<size, using: &generator)
            bytes = base.prefix(length)
            let used = invisible.last!.lowerBound
            return Variant(index: index, kind: "truncation", bytes: bytes,
                           description: "truncated to \(length) of \(size) bytes", mayBeInvisible: length >= used)
        case 1:
            var offsets: [Int] = []
            for _ in 0..<Int.random(in: 1...16, using: &generator) {
                // One flip in five lands in the header: the identity sector or a slot, written or empty.
                let header = Int(FileSurgery.headerBytes)
                let offset = Int.random(in: 0..<5, using: &generator) == 0
                    ? Int.random(in: 0..<min(header, size), using: &generator) : Int.random(in: 0..<size, using: &generator)
                bytes[offset] = base[offset] ^ UInt8.random(in: 1...255, using: &generator)
                offsets.append(offset)
            }
            return Variant(index: index, kind: "byte flips", bytes: bytes,
                           description: "bytes flipped at \(offsets.map(String.init).joined(separator: ","))",
                           mayBeInvisible: offsets.allSatisfy { o in invisible.contains { $0.contains(o) } })
        default:
            var notes: [String] = []
            var changed: [Int] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let target = candidates.randomElement(using: &generator)!
                let replacement: UInt64
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: replacement = UInt64.random(in: UInt64(size)...UInt64.max, using: &generator)
                case 1: replacement = target.value + UInt64.random(in: 1...7, using: &generator)
                case 2: replacement = UInt64(size) + 8 * UInt64.random(in: 0...1_000, using: &generator)
                case 3: replacement = UInt64(candidates.randomElement(using: &generator)!.offset)
                case 4: replacement = 8 * UInt64.random(in: 0..<512, using: &generator)
                default: replacement = candidates.randomElement(using: &generator)!.value
                }
                for byte in 0..<8 {
                    bytes[target.offset + byte] = UInt8(truncatingIfNeeded: replacement >> (8 * byte))
                    if bytes[target.offset + byte] != base[target.offset + byte] { changed.append(target.offset + byte) }
                }
                notes.append("\(target.offset): \(target.value) -> \(replacement)")
            }
            return Variant(index: index, kind: "ref overwrites", bytes: bytes,
                           description: "words overwritten at " + notes.joined(separator: "; "),
                           mayBeInvisible: changed.allSatisfy { o in invisible.contains { $0.contains(o) } })
        }
    }

    /// Aligned words past the header that hold a plausible ref (aligned, inside the file).
    private func refCandidates(_ base: Data) -> [(offset: Int, value: UInt64)] {
        var candidates: [(Int, UInt64)] = []
        let header = Int(FileSurgery.headerBytes)
        base.withUnsafeBytes { raw in
            var offset = header
            while offset + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if word % 8 == 0 && word >= UInt64(header) && word < UInt64(raw.count) { candidates.append((offset, word)) }
                offset += 8
            }
        }
        return candidates
    }

    /// Every call of the inspection API on the file, as the tool makes them; returns how many nodes were walked.
    @discardableResult
    private func exercise(_ path: String, _ generator: inout SeededGenerator) -> Int {
        var opened: OpaquePointer?
        guard columnar_inspector_open(path, &opened) == COLUMNAR_OK, let inspector = opened else { return 0 }
        defer { columnar_inspector_close(inspector) }
        final class Sink { var nodes = 0; var damage = 0; var usage = 0 }
        let sink = Sink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var walked = 0
        for slot in [-1] + Array(0..<Int(COLUMNAR_HEADER_SLOTS)) {
            if slot >= 0 && columnar_inspector_select_slot(inspector, Int32(slot)) != COLUMNAR_OK { continue }
            var version = columnar_inspect_version()
            _ = columnar_inspect_version_get(inspector, &version)
            _ = columnar_inspect_walk(inspector, { context, _ in
                Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().nodes += 1
                return 0
            }, { context, _, _ in Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().damage += 1 }, context)
            _ = columnar_inspect_free_list(inspector, { _, _ in 0 }, nil)
            _ = columnar_inspect_usage_get(inspector, { context, _ in
                Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().usage += 1
                return 0
            }, nil, context)
            var tableCount: UInt32 = 0
            if columnar_inspect_table_count(inspector, &tableCount) == COLUMNAR_OK {
                for table in 0..<min(tableCount, 64) {
                    var info = columnar_inspect_table()
                    guard columnar_inspect_table_get(inspector, table, &info) == COLUMNAR_OK else { continue }
                    for column in 0..<min(info.column_count, 64) {
                        var columnInfo = columnar_inspect_column()
                        _ = columnar_inspect_column_get(inspector, table, column, &columnInfo)
                    }
                }
            }
            var findings: UInt64 = 0
            _ = columnar_inspect_verify(inspector, nil, nil, &findings)
            if slot < 0 { walked = sink.nodes }
        }
        let fileSize = columnar_inspector_header(inspector).pointee.file_size_bytes
        for _ in 0..<32 {
            let ref = UInt64.random(in: 0...(fileSize + 64), using: &generator) & (Bool.random(using: &generator) ? ~7 : ~0)
            var detail = columnar_inspect_node_detail()
            if columnar_inspect_node_decode(inspector, ref, &detail) == COLUMNAR_OK, let data = detail.array.data {
                // Touch the payload's last byte: it must be inside the mapping.
                _ = data.load(fromByteOffset: max(0, Int(detail.payload_bytes) - 1), as: UInt8.self)
            }
            var bytes: UnsafePointer<UInt8>?
            _ = columnar_inspect_bytes(inspector, ref, 16, &bytes)
        }
        return walked
    }

    func testFreeListSizesWhoseSumOverflowsDoNotCrashTheTool() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let structure = try FileStructure.read(path)
        let sizes = try XCTUnwrap(structure.nodes.first { $0.role == FileSurgery.roleFreeSize })
        XCTAssertGreaterThan(sizes.count, 1)
        // Two entries of nearly 2^63 bytes each: positive, aligned, and their sum does not fit in 64 bits.
        for index in 0..<2 {
            try FileSurgery.packedSet(path, ref: sizes.ref, width: 64, index: UInt64(index), 0x7FFF_FFFF_FFFF_FF00)
        }
        try FileSurgery.fixChecksum(path, ref: sizes.ref)
        let slot = "\(structure.version.slot)"
        let svg = directory.file("space.svg")
        for arguments in [["info"], ["info", "--json"], ["space", "--svg", svg], ["space", "--json"], ["tables"],
                          ["verify"]] {
            let result = try inspect(arguments + ["--slot", slot, path])
            XCTAssertEqual(result.status, 1, result.description)
        }
        let verify = try inspect("verify", "--json", "--slot", slot, path)
        XCTAssertTrue(verify.object().objects("findings").contains { ($0.string("what") ?? "").contains("free-list") },
                      verify.description)
    }

    func testDamagedVariantsNeverCrashTheTool() throws {
        var generator = makeSeededGenerator()
        let seed = generator.seed
        let (base, invisible) = try base()
        let candidates = refCandidates(base)
        let directory = try TemporaryDirectory(prefix: "inspect-damaged")
        defer { directory.cleanup() }
        // The trimmed, undamaged file is sound.
        let basePath = directory.file("base.columnar")
        try base.write(to: URL(fileURLWithPath: basePath))
        XCTAssertEqual(try InspectTool.run(["verify", basePath]).status, 0)

        var tally: [String: [String: Int]] = [:]
        var crashes: [String] = []
        var seconds = (inProcess: 0.0, verify: 0.0, subcommands: 0.0)
        for batchStart in stride(from: 0, to: DamagedVariantTests.variantCount, by: DamagedVariantTests.batchSize) {
            let variants = (batchStart..<min(DamagedVariantTests.variantCount, batchStart + DamagedVariantTests.batchSize))
                .map { makeVariant($0, seed: seed, base: base, invisible: invisible, candidates: candidates) }
            var paths: [String] = []
            if ProcessInfo.processInfo.environment["COLUMNAR_DAMAGE_TRACE"] == "1" {
                for variant in variants { print("variant \(variant.index): \(variant.description)") }
            }
            for variant in variants {
                let path = directory.file("variant-\(variant.index).columnar")
                try variant.bytes.write(to: URL(fileURLWithPath: path))
                paths.append(path)
                let started = Date()
                exercise(path, &generator)
                seconds.inProcess += Date().timeIntervalSince(started)
            }
            var started = Date()
            let result = try InspectTool.run(["verify", "--json"] + paths)
            seconds.verify += Date().timeIntervalSince(started)
            var reports: [[String: Any]] = []
            if result.crashed {
                // Find the variant that crashed it, one by one.
                for (variant, path) in zip(variants, paths) {
                    let single = try InspectTool.run(["verify", path])
                    if single.crashed {
                        crashes.append("variant \(variant.index) (\(variant.description)): \(single.description)")
                    }
                }
            } else {
                XCTAssertTrue([0, 1, 2].contains(result.status), result.description)
                reports = result.json() as? [[String: Any]] ?? []
                XCTAssertEqual(reports.count, variants.count, result.description)
            }
            for (variant, report) in zip(variants, reports) {
                let status = report.string("status") ?? "?"
                tally[variant.kind, default: [:]][status, default: 0] += 1
                let findingCount = report.objects("findings").count
                switch status {
                case "sound":
                    XCTAssertTrue(variant.mayBeInvisible, "variant \(variant.index) (\(variant.description)) was "
                                  + "damaged where verify must see it, but verify found it sound; \(generator.replayNote)")
                case "findings", "unreadable":
                    XCTAssertGreaterThan(findingCount, 0, "variant \(variant.index): \(status) without findings")
                    XCTAssertTrue(report.objects("findings").allSatisfy { !($0.string("what") ?? "").isEmpty })
                default:
                    XCTFail("variant \(variant.index): status \(status)")
                }
            }
            // Every subcommand, on a few variants.
            started = Date()
            for (variant, path) in zip(variants, paths) where variant.index % DamagedVariantTests.everySubcommandEvery == 0 {
                let ref = UInt64.random(in: FileSurgery.headerBytes..<max(UInt64(base.count), FileSurgery.headerBytes + 1),
                                        using: &generator) & ~7
                let slot = Int.random(in: 0..<Int(COLUMNAR_HEADER_SLOTS), using: &generator)
                for arguments in [["header"], ["info"], ["schema"], ["tables"], ["space", "--json"], ["dump", "all"],
                                  ["node", "\(ref)"], ["tables", "--slot", "\(slot)"]] {
                    let run = try InspectTool.run([arguments[0], path] + arguments.dropFirst())
                    if run.crashed {
                        crashes.append("variant \(variant.index) (\(variant.description)): \(run.description)")
                    }
                    XCTAssertTrue([0, 1, 2].contains(run.status), "variant \(variant.index): \(run.description)")
                }
            }
            seconds.subcommands += Date().timeIntervalSince(started)
            for path in paths { try? FileManager.default.removeItem(atPath: path) }
        }
        XCTAssertEqual(crashes, [], generator.replayNote)
        var summary = "DamagedVariants (\(DamagedVariantTests.variantCount), \(generator.replayNote)):"
        for (kind, statuses) in tally.sorted(by: { $0.key < $1.key }) {
            summary += "\n  \(kind): " + statuses.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                .joined(separator: ", ")
        }
        summary += String(format: "\n  seconds: %.1f in process, %.1f verify runs, %.1f other subcommands",
                          seconds.inProcess, seconds.verify, seconds.subcommands)
        print(summary)
    }
}
