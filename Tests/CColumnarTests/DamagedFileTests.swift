// DamagedFileTests.swift — a damaged file yields error codes, never a crash.
//
// A valid file (tables of every type, links, lists, sets, dictionaries, an index and a primary key, several
// commits so there is free space and an older header slot) is damaged a thousand ways: truncated at random
// lengths, 1 ... 16 random bytes flipped anywhere (header included), or refs — 8-byte-aligned words that hold a
// plausible file offset — overwritten with huge, misaligned, out-of-file or wrong-node values. Each variant is
// opened read-only (some with PARANOID, some with the lock file) and everything is read through the API:
// every table, column, object, collection element and dictionary key, then columnar_verify. Every call must
// succeed or return an error code; the process must survive, values handed out must be within the documented
// limits, and verify's code must agree with its finding count. The distribution of outcomes is printed.
//
// To chase a crash, COLUMNAR_DAMAGE_TRACE=1 prints each variant before it runs, and COLUMNAR_DAMAGE_VARIANT=n
// (with the printed COLUMNAR_TEST_SEED) runs variant n alone.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class DamagedFileTests: XCTestCase {
    private static let variantCount = 1_000

    // MARK: The valid file

    /// Builds the valid file at `path` and returns its bytes up to the end of the latest version's last node.
    private func buildValidFile(path: String, seed: UInt64) throws -> Data {
        let db = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE, clusterSize: 32)
        let scratch = ValueScratch()
        var generator = SeededGenerator(seed: seed)
        let fixture = try db.write { txn in
            try AllTypesFixture.create(in: txn, seed: seed, targetCount: 50)
        }
        var allKeys: [ObjectKey] = []
        for batch in 0..<2 {
            try db.write { txn in
                for row in (batch * 500)..<((batch + 1) * 500) {
                    allKeys.append(try fixture.insertRow(UInt64(row), txn: txn.handle, scratch: scratch))
                }
            }
        }
        try db.write { txn in
            let notes = try txn.addTable("notes")
            let number = try txn.addColumn(notes, "n", COLUMNAR_TYPE_INT, indexed: true)
            let text = try txn.addColumn(notes, "text", COLUMNAR_TYPE_STRING, nullable: true, indexed: true)
            let refs = try txn.addColumn(notes, "refs", COLUMNAR_TYPE_LINK, collection: COLUMNAR_COLLECTION_LIST,
                                         target: fixture.targetTable)
            try txn.setPrimaryKey(notes, column: number)
            for index in 0..<1_500 {
                let key = try txn.createObject(notes, primaryKey: .int(index * 3))
                try txn.set(notes, key, text, index % 5 == 0 ? .null : .string("note \(index) " +
                            String(repeating: "ab", count: index % 40)))
                for _ in 0..<(index % 4) {
                    try txn.listAppend(notes, key, refs, .link(fixture.targetKeys.randomElement(using: &generator)!))
                }
            }
        }
        // Changes and deletions leave freed nodes behind and make backlinks and links change together.
        try db.write { txn in
            let notes = try txn.findTable("notes")
            let text = try txn.findColumn(notes, "text")
            let noteKeys = try txn.keys(notes)
            for key in noteKeys.shuffled(using: &generator).prefix(200) {
                try txn.set(notes, key, text, .string("changed \(key)"))
            }
            for key in allKeys.shuffled(using: &generator).prefix(100) { try txn.deleteObject(fixture.table, key) }
            for key in fixture.targetKeys.prefix(5) { try txn.deleteObject(fixture.targetTable, key) }
        }
        try db.write { txn in
            let notes = try txn.findTable("notes")
            for index in 1_500..<1_600 { _ = try txn.createObject(notes, primaryKey: .int(index * 3)) }
        }
        let usedSizeBytes = try db.stats().used_size_bytes
        try db.read { XCTAssertVerifies($0, "the undamaged file") }
        db.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertLessThanOrEqual(Int(usedSizeBytes), bytes.count)
        // Space past the used size is preallocation; damaging it proves nothing, and dropping it keeps every
        // variant small. The file keeps whole pages (the engine maps whole pages of the file only); the trimmed
        // file is itself checked to be valid.
        let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))
        let keptBytes = min((Int(usedSizeBytes) + pageBytes - 1) / pageBytes * pageBytes, bytes.count)
        return bytes.prefix(keptBytes)
    }

    // MARK: Reading everything

    /// What happened to one variant.
    private struct Outcome {
        var openCode: Int32 = COLUMNAR_OK
        var readErrors: [Int32: Int] = [:]
        var verifyCode: Int32 = COLUMNAR_OK
        var findingCount: UInt64 = 0
        /// Broken promises of the API (not merely errors): these fail the test.
        var violations: [String] = []
        /// Data that cannot be right, returned without an error: acceptable where node checksums are not checked
        /// on every read (without PARANOID) and columnar_verify is what finds the damage; a violation with it.
        var inconsistencies: [String] = []
        var paranoid = false
        var valuesRead = 0
        /// A fold of the bytes read, so the reads are real.
        var checksum: UInt8 = 0

        var summary: String {
            if openCode != COLUMNAR_OK { return "open failed: \(errorName(openCode))" }
            if verifyCode != COLUMNAR_OK { return "opened, verify reported corruption" }
            if !readErrors.isEmpty { return "opened, reads failed, verify clean" }
            if !inconsistencies.isEmpty { return "opened, inconsistent data read without an error, verify clean" }
            return "opened, everything read, verify clean"
        }
    }

    /// COLUMNAR_MAX_VALUE_BYTES (a macro with arithmetic, which Swift does not import).
    private static let maxValueBytes = 16 * 1024 * 1024

    private static let knownCodes: ClosedRange<Int32> = COLUMNAR_ESTORAGE...COLUMNAR_ECORRUPT

    /// Records a non-zero code; returns whether the call succeeded.
    @inline(__always)
    private static func succeeded(_ rc: Int32, _ outcome: inout Outcome, _ call: @autoclosure () -> String) -> Bool {
        if rc == COLUMNAR_OK { return true }
        outcome.readErrors[rc, default: 0] += 1
        if !knownCodes.contains(rc) && !(rc < 0 && rc > -4096) {
            outcome.violations.append("\(call()) returned \(rc), neither a COLUMNAR_E* code nor -errno")
        }
        return false
    }

    /// Reads a value's bytes (a page apart and the last one), so a pointer outside the mapping faults here.
    private static func touch(_ value: columnar_value, expectedType: columnar_type, _ outcome: inout Outcome,
                              _ call: @autoclosure () -> String) -> UInt8 {
        outcome.valuesRead += 1
        if value.is_null { return 0 }
        if value.type != expectedType {
            outcome.violations.append("\(call()): value of type \(typeName(value.type)) in a "
                                      + "\(typeName(expectedType)) column")
            return 0
        }
        guard value.type == COLUMNAR_TYPE_STRING || value.type == COLUMNAR_TYPE_BINARY else { return 0 }
        let size = value.`as`.bytes.size
        if size == 0 { return 0 }
        guard size <= maxValueBytes else {
            outcome.violations.append("\(call()): \(size) bytes, more than COLUMNAR_MAX_VALUE_BYTES")
            return 0
        }
        guard let data = value.`as`.bytes.data else {
            outcome.violations.append("\(call()): NULL data for \(size) bytes")
            return 0
        }
        var sink: UInt8 = 0
        var offset = 0
        while offset < size {
            sink ^= data.load(fromByteOffset: offset, as: UInt8.self)
            offset += 4096
        }
        return sink ^ data.load(fromByteOffset: size - 1, as: UInt8.self)
    }

    /// Opens `path` and reads everything through the API, then verifies.
    private static func exercise(path: String, flags: OpenFlags) -> Outcome {
        var outcome = Outcome()
        outcome.paranoid = flags.contains(.paranoid)
        var options = columnar_open_options()
        options.flags = flags.rawValue
        var openedDB: OpaquePointer?
        outcome.openCode = columnar_open(path, &options, &openedDB)
        if outcome.openCode != COLUMNAR_OK {
            _ = succeeded(outcome.openCode, &outcome, "columnar_open")
            outcome.readErrors = [:]
            return outcome
        }
        guard let db = openedDB else {
            outcome.violations.append("columnar_open returned OK and no handle")
            return outcome
        }
        defer { columnar_close(db) }
        var stats = columnar_db_stats()
        _ = succeeded(columnar_db_stats_get(db, &stats), &outcome, "columnar_db_stats_get")
        var openedTxn: OpaquePointer?
        guard succeeded(columnar_txn_begin_read(db, &openedTxn), &outcome, "columnar_txn_begin_read"),
              let txn = openedTxn else { return outcome }
        defer { columnar_txn_rollback(txn) }

        var tableCount: UInt32 = 0
        if succeeded(columnar_table_count(txn, &tableCount), &outcome, "columnar_table_count") {
            for table in 0..<min(tableCount, 256) {
                outcome.checksum ^= readTable(txn, table, &outcome)
            }
        }
        var findingCount: UInt64 = 0
        outcome.verifyCode = columnar_verify(txn, nil, nil, &findingCount)
        outcome.findingCount = findingCount
        if outcome.verifyCode != COLUMNAR_OK && outcome.verifyCode != COLUMNAR_ECORRUPT {
            outcome.violations.append("columnar_verify returned \(errorName(outcome.verifyCode))")
        }
        if (outcome.verifyCode == COLUMNAR_OK) != (findingCount == 0) {
            outcome.violations.append("columnar_verify returned \(errorName(outcome.verifyCode)) with "
                                      + "\(findingCount) findings")
        }
        return outcome
    }

    private static func readTable(_ txn: OpaquePointer, _ table: TableID, _ outcome: inout Outcome) -> UInt8 {
        // ENOTFOUND for a table or column id below the count is normal: removed tables and columns keep their
        // ids, and backlink columns are hidden.
        var info = columnar_table_info()
        let tableRC = columnar_table_info_get(txn, table, &info)
        guard tableRC != COLUMNAR_ENOTFOUND, succeeded(tableRC, &outcome, "columnar_table_info_get") else { return 0 }
        var columns: [(id: ColumnID, info: columnar_column_info)] = []
        for column in 0..<min(info.column_count, 512) {
            var columnInfo = columnar_column_info()
            let columnRC = columnar_column_info_get(txn, table, column, &columnInfo)
            if columnRC != COLUMNAR_ENOTFOUND && succeeded(columnRC, &outcome, "column_info_get") {
                columns.append((column, columnInfo))
            }
        }
        var count: UInt64 = 0
        let counted = succeeded(columnar_obj_count(txn, table, &count), &outcome, "columnar_obj_count")

        var sink: UInt8 = 0
        var iterator = columnar_cluster_iter()
        guard succeeded(columnar_cluster_iter_init(txn, table, &iterator), &outcome, "cluster_iter_init") else {
            return 0
        }
        var rowsRead = 0
        var previousKey: ObjectKey = -1
        for _ in 0..<100_000 {
            var cluster = columnar_cluster()
            let rc = columnar_cluster_iter_next(&iterator, &cluster)
            if rc == COLUMNAR_ENOTFOUND { break }
            guard succeeded(rc, &outcome, "columnar_cluster_iter_next") else { break }
            guard cluster.keys.encoding == COLUMNAR_ENCODING_PACKED_INT, cluster.keys.count >= cluster.row_count,
                  cluster.row_count == 0 || cluster.keys.data != nil else {
                outcome.violations.append("cluster of \(cluster.row_count) rows with a key array of encoding "
                                          + "\(cluster.keys.encoding.rawValue) and \(cluster.keys.count) elements")
                break
            }
            var keys = cluster.keys
            for row in 0..<min(cluster.row_count, 100_000) {
                let key = columnar_array_get_int(&keys, row)
                if key <= previousKey {
                    let problem = "table \(table): iteration went from key \(previousKey) to \(key)"
                    if outcome.paranoid { outcome.violations.append(problem) } else { outcome.inconsistencies.append(problem) }
                    return sink
                }
                previousKey = key
                if row == 0 {
                    var exists = false
                    if succeeded(columnar_obj_exists(txn, table, key, &exists), &outcome, "obj_exists") && !exists {
                        outcome.readErrors[COLUMNAR_ENOTFOUND, default: 0] += 1
                    }
                }
                for column in columns {
                    sink ^= readCell(txn, table, key, column.id, column.info, &outcome)
                }
                rowsRead += 1
            }
            if rowsRead > 200_000 { break }
        }
        if counted && outcome.readErrors.isEmpty && UInt64(rowsRead) != count {
            let problem = "table \(table): columnar_obj_count says \(count), iteration visited \(rowsRead)"
            if outcome.paranoid { outcome.violations.append(problem) } else { outcome.inconsistencies.append(problem) }
        }
        return sink
    }

    private static func readCell(_ txn: OpaquePointer, _ table: TableID, _ key: ObjectKey, _ column: ColumnID,
                                 _ info: columnar_column_info, _ outcome: inout Outcome) -> UInt8 {
        var value = columnar_value()
        if info.collection == COLUMNAR_COLLECTION_NONE {
            guard succeeded(columnar_obj_get(txn, table, key, column, &value), &outcome, "obj_get") else { return 0 }
            return touch(value, expectedType: info.type, &outcome, "obj_get \(key).\(column)")
        }
        var size: UInt64 = 0
        guard succeeded(columnar_coll_size(txn, table, key, column, &size), &outcome, "coll_size") else { return 0 }
        var sink: UInt8 = 0
        for index in 0..<min(size, 64) {
            if succeeded(columnar_coll_get(txn, table, key, column, index, &value), &outcome, "coll_get") {
                sink ^= touch(value, expectedType: info.type, &outcome, "coll_get \(key).\(column)[\(index)]")
            }
            if info.collection == COLUMNAR_COLLECTION_DICT {
                var keyPointer: UnsafeRawPointer?
                var keySize = 0
                if succeeded(columnar_dict_key_at(txn, table, key, column, index, &keyPointer, &keySize),
                             &outcome, "dict_key_at") {
                    var keyValue = columnar_value()
                    keyValue.type = COLUMNAR_TYPE_STRING
                    keyValue.`as`.bytes.data = keyPointer
                    keyValue.`as`.bytes.size = keySize
                    sink ^= touch(keyValue, expectedType: COLUMNAR_TYPE_STRING, &outcome, "dict_key_at")
                }
            }
        }
        if size > 0 {
            // One past the end must be a range error, not a read past the collection.
            let rc = columnar_coll_get(txn, table, key, column, size, &value)
            if rc == COLUMNAR_OK { outcome.violations.append("coll_get at index == size (\(size)) succeeded") }
        }
        return sink
    }

    // MARK: Damage

    private enum DamageKind: String, CaseIterable { case truncation, byteFlips, refOverwrite }

    private struct Damage {
        var kind: DamageKind
        /// Bytes to write (offset, bytes); empty for a truncation.
        var patches: [(offset: Int, bytes: [UInt8])] = []
        var truncatedLength: Int?
        var description: String
    }

    /// 8-byte-aligned positions past the header whose word looks like a ref (aligned, inside the file).
    private static func refCandidates(_ base: Data) -> [(offset: Int, value: UInt64)] {
        var candidates: [(Int, UInt64)] = []
        base.withUnsafeBytes { bytes in
            var offset = FileHeader.headerBytes
            while offset + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if word % 8 == 0 && word >= UInt64(FileHeader.headerBytes) && word < UInt64(bytes.count) {
                    candidates.append((offset, word))
                }
                offset += 8
            }
        }
        return candidates
    }

    private static func makeDamage(variant: Int, seed: UInt64, base: Data,
                                   candidates: [(offset: Int, value: UInt64)]) -> Damage {
        var generator = SeededGenerator(seed: SeededGenerator.hash(seed, UInt64(variant), 0xDA4A6E))
        let size = base.count
        let kind = DamageKind.allCases[variant % DamageKind.allCases.count]
        switch kind {
        case .truncation:
            let length = Bool.random(using: &generator) && size > 8192
                ? Int.random(in: 0..<8192, using: &generator) : Int.random(in: 0..<size, using: &generator)
            return Damage(kind: kind, truncatedLength: length, description: "truncated to \(length) of \(size) bytes")
        case .byteFlips:
            var patches: [(Int, [UInt8])] = []
            for _ in 0..<Int.random(in: 1...16, using: &generator) {
                // One flip in five lands in the header, in a field of a sector (the identity, a slot) or its CRC.
                let sector = 512 * Int.random(in: 0...Int(COLUMNAR_HEADER_SLOTS), using: &generator)
                let field = Bool.random(using: &generator) ? Int.random(in: 0..<64, using: &generator)
                                                           : Int.random(in: 508..<512, using: &generator)
                let offset = Int.random(in: 0..<5, using: &generator) == 0 && sector + field < size
                    ? sector + field : Int.random(in: 0..<size, using: &generator)
                let mask = UInt8.random(in: 1...255, using: &generator)
                patches.append((offset, [base[base.startIndex + offset] ^ mask]))
            }
            let offsets = patches.map { "\($0.0)" }.joined(separator: ",")
            return Damage(kind: kind, patches: patches, description: "\(patches.count) byte flips at \(offsets)")
        case .refOverwrite:
            guard !candidates.isEmpty else {
                return Damage(kind: kind, patches: [(0, [0])], description: "no ref candidates; first byte zeroed")
            }
            var patches: [(Int, [UInt8])] = []
            var notes: [String] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let target = candidates.randomElement(using: &generator)!
                let replacement: UInt64
                switch Int.random(in: 0..<7, using: &generator) {
                case 0: replacement = UInt64.random(in: UInt64(size)...UInt64.max, using: &generator)
                case 1: replacement = target.value + UInt64.random(in: 1...7, using: &generator)
                case 2: replacement = UInt64(size) + 8 * UInt64.random(in: 0...1_000, using: &generator)
                case 3: replacement = UInt64(candidates.randomElement(using: &generator)!.offset)  // into a node
                case 4: replacement = 8 * UInt64.random(in: 0..<512, using: &generator)          // into the header
                case 5: replacement = candidates.randomElement(using: &generator)!.value         // a wrong node
                default: replacement = UInt64.max - 7
                }
                patches.append((target.offset, withUnsafeBytes(of: replacement.littleEndian) { Array($0) }))
                notes.append("\(target.offset): \(target.value) -> \(replacement)")
            }
            return Damage(kind: kind, patches: patches, description: "refs overwritten at " + notes.joined(separator: "; "))
        }
    }

    /// Applies `damage` to the file at `fd` (which holds `base`), or undoes it.
    private static func apply(_ damage: Damage, fd: Int32, base: Data, undo: Bool) throws {
        if let length = damage.truncatedLength {
            if undo {
                try base.suffix(from: base.startIndex + length).withUnsafeBytes { tail in
                    try writeAll(fd, tail, at: length)
                }
            } else if ftruncate(fd, off_t(length)) != 0 {
                throw TestFailure("ftruncate: errno \(errno)")
            }
            return
        }
        for patch in damage.patches {
            if undo {
                let original = Array(base[(base.startIndex + patch.offset)..<(base.startIndex + patch.offset + patch.bytes.count)])
                try original.withUnsafeBytes { try writeAll(fd, $0, at: patch.offset) }
            } else {
                try patch.bytes.withUnsafeBytes { try writeAll(fd, $0, at: patch.offset) }
            }
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        var done = 0
        while done < bytes.count {
            let written = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if written < 0 {
                if errno == EINTR { continue }
                throw TestFailure("pwrite: errno \(errno)")
            }
            done += written
        }
    }

    // MARK: Tests

    func testUndamagedFileReadsAndVerifiesInEveryOpenMode() throws {
        let generator = makeSeededGenerator()
        let directory = try TemporaryDirectory(prefix: "damaged")
        let base = try buildValidFile(path: directory.file("valid.columnar"), seed: generator.seed)
        let path = directory.file("trimmed.columnar")
        try base.write(to: URL(fileURLWithPath: path))
        for flags: OpenFlags in [[.readOnly, .noLock], [.readOnly, .noLock, .paranoid], [.readOnly], []] {
            let outcome = DamagedFileTests.exercise(path: path, flags: flags)
            XCTAssertEqual(outcome.openCode, COLUMNAR_OK, "flags \(flags.rawValue)")
            XCTAssertEqual(outcome.readErrors, [:], "flags \(flags.rawValue)")
            XCTAssertEqual(outcome.verifyCode, COLUMNAR_OK, "flags \(flags.rawValue)")
            XCTAssertEqual(outcome.findingCount, 0, "flags \(flags.rawValue)")
            XCTAssertEqual(outcome.violations, [], "flags \(flags.rawValue)")
            XCTAssertGreaterThan(outcome.valuesRead, 20_000, "flags \(flags.rawValue)")
        }
    }

    func testDamagedFilesGiveErrorCodesAndNeverCrash() throws {
        let generator = makeSeededGenerator()
        let seed = generator.seed
        let directory = try TemporaryDirectory(prefix: "damaged")
        let base = try buildValidFile(path: directory.file("valid.columnar"), seed: seed)
        let candidates = DamagedFileTests.refCandidates(base)
        let environment = ProcessInfo.processInfo.environment
        let trace = environment["COLUMNAR_DAMAGE_TRACE"] == "1"
        let variants = environment["COLUMNAR_DAMAGE_VARIANT"].flatMap { Int($0) }.map { [$0] }
            ?? Array(0..<DamagedFileTests.variantCount)
        let threadCount = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 4, variants.count)

        struct Tally {
            var byOutcome: [String: Int] = [:]
            var byKind: [String: [String: Int]] = [:]
            var detected = 0
            var violations: [String] = []
            var failures: [String] = []
        }
        let tally = Locked(Tally())

        runOnThreads(threadCount) { thread in
            let path = directory.file("damaged-\(thread).columnar")
            do {
                try base.write(to: URL(fileURLWithPath: path))
                let fd = open(path, O_RDWR)
                guard fd >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
                defer { close(fd) }
                for (position, variant) in variants.enumerated() where position % threadCount == thread {
                    let damage = DamagedFileTests.makeDamage(variant: variant, seed: seed, base: base,
                                                             candidates: candidates)
                    // Every fourth variant opens with the lock file, every other one with PARANOID reads.
                    var flags: OpenFlags = variant % 4 == 3 ? [.readOnly] : [.readOnly, .noLock]
                    if variant % 2 == 1 { flags.insert(.paranoid) }
                    if trace { print("damage variant \(variant) (flags \(flags.rawValue)): \(damage.description)") }
                    try DamagedFileTests.apply(damage, fd: fd, base: base, undo: false)
                    let outcome = DamagedFileTests.exercise(path: path, flags: flags)
                    try DamagedFileTests.apply(damage, fd: fd, base: base, undo: true)
                    try? FileManager.default.removeItem(atPath: path + ".lock")
                    tally.withLock { tally in
                        tally.byOutcome[outcome.summary, default: 0] += 1
                        tally.byKind[damage.kind.rawValue, default: [:]][outcome.summary, default: 0] += 1
                        if outcome.openCode != COLUMNAR_OK || outcome.verifyCode != COLUMNAR_OK
                            || !outcome.readErrors.isEmpty {
                            tally.detected += 1
                        }
                        for violation in outcome.violations.prefix(3) {
                            tally.violations.append("variant \(variant) (\(damage.description)): \(violation)")
                        }
                    }
                }
                // The undo steps must have restored the file exactly, or later variants tested other damage.
                let restored = try Data(contentsOf: URL(fileURLWithPath: path))
                if restored != base { throw TestFailure("thread \(thread): the file was not restored after damage") }
            } catch {
                tally.withLock { $0.failures.append("thread \(thread): \(error)") }
            }
        }

        let result = tally.value
        var report = "Damaged files (\(variants.count) variants, \(generator.replayNote)):\n"
        for (summary, count) in result.byOutcome.sorted(by: { $0.value > $1.value }) {
            report += "  \(count)\t\(summary)\n"
        }
        for (kind, outcomes) in result.byKind.sorted(by: { $0.key < $1.key }) {
            report += "  \(kind): " + outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                .joined(separator: ", ") + "\n"
        }
        print(report)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.violations, [], "API promises broken on damaged files")
        if variants.count == DamagedFileTests.variantCount {
            XCTAssertGreaterThan(result.detected, variants.count / 10,
                                 "too few variants were refused or reported as corrupt; is damage detected at all?")
        }
    }
}
