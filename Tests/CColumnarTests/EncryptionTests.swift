// EncryptionTests.swift — an encrypted file hides its content, detects damage, refuses the wrong key without
// changing anything, and behaves like a plain file for readers, writers and other handles (docs/Encryption.md).

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class EncryptionTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "encryption") }
    override func tearDown() { directory.cleanup() }

    /// Distinct, searchable strings: long enough that finding one by chance in ciphertext is impossible.
    private func phrases(_ count: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        let words = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "juniper"]
        return (0..<count).map { index in
            let picked = (0..<4).map { _ in words[Int(generator.next() % UInt64(words.count))] }
            return "\(picked.joined(separator: "-"))-\(index)"
        }
    }

    /// Fills table "t" (INT "n", STRING "s" indexed, a list of strings) with `strings`, over several commits.
    private func fill(_ db: TestDatabase, _ strings: [String]) throws {
        try db.write { txn in
            let table = try txn.addTable("t")
            _ = try txn.addColumn(table, "n", COLUMNAR_TYPE_INT)
            _ = try txn.addColumn(table, "s", COLUMNAR_TYPE_STRING, indexed: true)
            _ = try txn.addColumn(table, "tags_of_each_item", COLUMNAR_TYPE_STRING,
                                  collection: COLUMNAR_COLLECTION_LIST)
        }
        for chunk in stride(from: 0, to: strings.count, by: 250) {
            try db.write { txn in
                let table = try txn.findTable("t")
                let n = try txn.findColumn(table, "n"), s = try txn.findColumn(table, "s")
                let tags = try txn.findColumn(table, "tags_of_each_item")
                for index in chunk..<min(chunk + 250, strings.count) {
                    let key = try txn.createObject(table)
                    try txn.set(table, key, n, .int(Int64(index)))
                    try txn.set(table, key, s, .string(strings[index]))
                    try txn.listAppend(table, key, tags, .string("tag:" + strings[index]))
                }
            }
        }
    }

    private func assertHolds(_ db: TestDatabase, _ strings: [String], _ context: String) throws {
        try db.read { txn in
            let table = try txn.findTable("t")
            let n = try txn.findColumn(table, "n"), s = try txn.findColumn(table, "s")
            let tags = try txn.findColumn(table, "tags_of_each_item")
            let keys = try txn.keys(table)
            XCTAssertEqual(keys.count, strings.count, context)
            for key in keys {
                guard let index = try txn.getInt(table, key, n) else { return XCTFail("null n; \(context)") }
                XCTAssertEqual(try txn.get(table, key, s), .string(strings[Int(index)]), context)
                XCTAssertEqual(try txn.elements(table, key, tags), [.string("tag:" + strings[Int(index)])], context)
            }
            XCTAssertNotNil(try txn.findFirst(table, s, .string(strings[strings.count / 2])), context)
            XCTAssertVerifies(txn, context)
        }
    }

    func testAnEncryptedFileHoldsNoneOfItsPlaintextAndReadsBackWhole() throws {
        let path = directory.file("secret.columnar")
        let strings = phrases(3_000, seed: 7)
        do {
            let db = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
            defer { db.close() }
            try fill(db, strings)
            try assertHolds(db, strings, "in the handle that wrote it")
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for string in strings + ["tag:" + strings[0], "Columnar key check"] {
            XCTAssertNil(bytes.range(of: Data(string.utf8)), "\"\(string)\" is in the file in the clear")
        }
        XCTAssertNil(bytes.range(of: Data("tags_of_each_item".utf8)), "a column name is in the file in the clear")
        XCTAssertEqual(bytes[8], UInt8(5), "an encrypted file declares format version 5")

        let reopened = try TestDatabase(path: path, flags: [], encryptionKey: testEncryptionKey)
        defer { reopened.close() }
        try assertHolds(reopened, strings, "reopened")

        // The same data in a plain file is found in the clear: the search above can succeed.
        let plainPath = directory.file("plain.columnar")
        let plain = try TestDatabase(path: plainPath)
        try fill(plain, Array(strings.prefix(10)))
        plain.close()
        let plainBytes = try Data(contentsOf: URL(fileURLWithPath: plainPath))
        XCTAssertNotNil(plainBytes.range(of: Data(strings[3].utf8)), "the search finds plaintext where it is")
    }

    func testAWrongOrMissingKeyIsRefusedAndChangesNothing() throws {
        let path = directory.file("keyed.columnar")
        let plainPath = directory.file("plain.columnar")
        do {
            let db = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
            try fill(db, phrases(100, seed: 1))
            db.close()
            let plain = try TestDatabase(path: plainPath)
            try fill(plain, phrases(10, seed: 2))
            plain.close()
        }
        var otherKey = testEncryptionKey
        otherKey[63] ^= 1
        let cases: [(String, String, [UInt8]?, String)] = [
            ("without a key", path, nil, "is encrypted: open it with its encryption key"),
            ("with another key", path, otherKey, "encrypted with another key"),
            ("a plain file with a key", plainPath, testEncryptionKey, "is not encrypted"),
        ]
        for (name, target, key, message) in cases {
            let before = try Data(contentsOf: URL(fileURLWithPath: target))
            for flags: OpenFlags in [[], .create, .readOnly] {
                XCTAssertThrowsError(try TestDatabase(path: target, flags: flags, encryptionKey: key), name) { error in
                    let error = error as? EngineError
                    XCTAssertEqual(error?.code, COLUMNAR_EKEY, "\(name): \(String(describing: error))")
                    XCTAssertTrue(error?.description.contains(message) ?? false, "\(name): \(String(describing: error))")
                }
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: target)), before, "\(name) changed the file")
        }
        // An in-memory database has no file to encrypt.
        XCTAssertThrowsError(try TestDatabase(path: "encrypted-in-memory", flags: [.create, .inMemory],
                                              encryptionKey: testEncryptionKey)) { error in
            XCTAssertEqual((error as? EngineError)?.code, COLUMNAR_EMISUSE)
        }
    }

    /// Flips one bit at a time and expects each flip to be found. Every sector a version uses gets a flip, and so
    /// do sampled sectors of the preallocated space after it and sampled bytes of the header's identity and slots.
    /// Found means: the open fails (a sector the versions use fails authentication, or the identity is damaged), or
    /// a read or columnar_verify reports it, or, for what no version reads (slots other than the current one, the
    /// preallocated space), the inspector's header check or its integrity walk over the whole file does
    /// (`columnar-inspect verify`). Each flip is made on a fresh copy.
    func testFlippingAnyBitOfTheFileIsDetected() throws {
        let path = directory.file("flip.columnar")
        let strings = phrases(400, seed: 3)
        let db = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
        try fill(db, strings)
        let usedSize = try db.stats().used_size_bytes
        db.close()
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let headerBytes = 8192, sectorBytes = 512, payload = 480
        let usedSectors = (Int(usedSize) - headerBytes + payload - 1) / payload
        let allSectors = (original.count - headerBytes) / sectorBytes
        var generator = makeSeededGenerator()
        func random(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
        var positions = (0..<usedSectors).map { headerBytes + $0 * sectorBytes + random(sectorBytes) }
        positions += (0..<60).map { _ in headerBytes + (usedSectors + random(allSectors - usedSectors)) * sectorBytes
            + random(sectorBytes) }
        positions += (0..<8).map { _ in random(508) }                     // the identity
        positions += (0..<40).map { _ in 512 + random(headerBytes - 512) } // the slots
        let copy = directory.file("flipped.columnar")
        var detectedAt: [String: Int] = [:]
        for position in positions {
            var damaged = original
            damaged[position] ^= UInt8(1) << UInt8(random(8))
            try? FileManager.default.removeItem(atPath: copy)
            try damaged.write(to: URL(fileURLWithPath: copy))
            let context = "bit flipped at byte \(position) (\(generator.replayNote))"
            if let place = try detection(of: copy, flippedAt: position, context) {
                detectedAt[place, default: 0] += 1
            } else {
                XCTFail("the flip went unnoticed; \(context)")
            }
            if testRun?.totalFailureCount ?? 0 > 0 { break }
        }
        print("EncryptionTests: \(positions.count) flips detected at " + detectedAt.map { "\($0.key) \($0.value)×" }
            .sorted().joined(separator: ", "))
    }

    /// A damaged current slot would make a plain file open at the version before (recovery skips the slot); an
    /// encrypted file, whose slots no crash damages, is refused instead, so the lost commit does not go unnoticed.
    func testADamagedNewestSlotRefusesAnEncryptedFileAndRollsAPlainOneBack() throws {
        for key in [nil, testEncryptionKey] {
            let path = directory.file(key == nil ? "slot-plain.columnar" : "slot-encrypted.columnar")
            let db = try TestDatabase(path: path, encryptionKey: key)
            try db.write { try CounterWorkload.createSchema(in: $0) }
            for _ in 0..<5 { _ = try CounterWorkload.commitStep(db) }
            let version = try db.stats().version
            db.close()
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let slotOffset = 512 * (1 + Int(version % 15))
            bytes[slotOffset + 20] ^= 0x10   // inside the used size field
            try bytes.write(to: URL(fileURLWithPath: path))
            if key == nil {
                let reopened = try TestDatabase(path: path, flags: [])
                defer { reopened.close() }
                XCTAssertEqual(try reopened.read { try CounterWorkload.read($0).counter }, 4, "the version before")
            } else {
                XCTAssertThrowsError(try TestDatabase(path: path, flags: [], encryptionKey: key)) { error in
                    let error = error as? EngineError
                    XCTAssertEqual(error?.code, COLUMNAR_ECORRUPT, String(describing: error))
                    XCTAssertTrue(error?.description.contains("header slot \(version % 15)") ?? false,
                                  String(describing: error))
                }
            }
        }
    }

    /// Where the damage in the file at `path` is found first: "open", "read", "verify", "inspector header" or
    /// "inspector verify"; nil when nowhere.
    private func detection(of path: String, flippedAt position: Int, _ context: String) throws -> String? {
        do {
            let reopened = try TestDatabase(path: path, flags: [.readOnly, .noLock], encryptionKey: testEncryptionKey)
            defer { reopened.close() }
            do {
                let report = try reopened.read { $0.verify() }
                if !report.isSound {
                    if position >= 8192 {
                        XCTAssertTrue(report.findings.contains { $0.what.contains("fails authentication") },
                                      "the finding names the sector: \(report); \(context)")
                    }
                    return "verify"
                }
            } catch let error as EngineError {
                XCTAssertEqual(error.code, COLUMNAR_ECORRUPT, "\(error); \(context)")
                return "read"
            }
        } catch let error as EngineError {
            XCTAssertTrue([COLUMNAR_ECORRUPT, COLUMNAR_ENOTDB, COLUMNAR_EFORMAT].contains(error.code),
                          "\(error); \(context)")
            if position >= 8192 {
                XCTAssertTrue(error.description.contains("fails authentication"), "\(error); \(context)")
            }
            return "open"
        }
        // What the engine does not read: the inspector checks every header slot and decrypts the whole file.
        var inspector: OpaquePointer?
        try testEncryptionKey.withUnsafeBufferPointer { key in
            try check(columnar_inspector_open_with_key(path, key.baseAddress, &inspector), "inspector \(path)")
        }
        defer { columnar_inspector_close(inspector) }
        var header = columnar_inspector_header(inspector).pointee
        let slots = withUnsafeBytes(of: &header.slots) { Array($0.bindMemory(to: columnar_slot_info.self)) }
        if slots.contains(where: { !$0.is_zero && !$0.checksum_valid }) { return "inspector header" }
        var findings: UInt64 = 0
        let rc = columnar_inspect_verify(inspector, nil, nil, &findings)
        return rc != COLUMNAR_OK || findings > 0 ? "inspector verify" : nil
    }

    /// Two handles on one file, each with its own decrypted image: every commit of one is seen by the other,
    /// including commits that rewrite sectors the reader has read before.
    func testCommitsOfAnotherHandleAreSeen() throws {
        let path = directory.file("shared.columnar")
        let first = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
        defer { first.close() }
        try LogWorkload.ensureSchema(first)
        let second = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
        defer { second.close() }
        var generator = makeSeededGenerator()
        var expected: Int64 = 0
        let held = try second.beginRead()
        for round in 0..<120 {
            let writer = Bool.random(using: &generator) ? first : second
            for _ in 0..<Int.random(in: 1...3, using: &generator) { expected = try LogWorkload.commitStep(writer) }
            for reader in [first, second] {
                let state = try reader.read { try LogWorkload.read($0) }
                XCTAssertEqual(state.last, expected, "round \(round); \(generator.replayNote)")
                XCTAssertTrue(LogWorkload.isConsistent(state), "round \(round); \(generator.replayNote)")
            }
        }
        // A reader that began before all of it still sees its version, whole.
        let old = try LogWorkload.read(held)
        XCTAssertEqual(old.last, 0)
        held.rollback()
        try second.read { txn in XCTAssertVerifies(txn) }
    }

    /// Another handle's image takes in commits from the lock file's change ring, which names the sectors each
    /// commit wrote, or, when it fell further behind than the ring reaches, from a pass over every sector. Both
    /// ways must leave it equal to the file: values checked against a model after 1, a few, and thousands of
    /// commits, each updating objects spread over the table.
    func testAnotherHandleCatchesUpThroughTheChangeRingAndPastIt() throws {
        let path = directory.file("ring.columnar")
        let writer = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
        defer { writer.close() }
        let objectCount = 3_000
        var model = [Int64](repeating: 0, count: objectCount)
        var keys: [ObjectKey] = []
        try writer.write { txn in
            let table = try txn.addTable("t")
            let n = try txn.addColumn(table, "n", COLUMNAR_TYPE_INT)
            for _ in 0..<objectCount {
                let key = try txn.createObject(table)
                try txn.set(table, key, n, .int(0))
                keys.append(key)
            }
        }
        let reader = try TestDatabase(path: path, flags: [], encryptionKey: testEncryptionKey)
        defer { reader.close() }
        var generator = makeSeededGenerator()
        for batch in [1, 3, 40, 1, 2_500, 2, 700] {
            for _ in 0..<batch {
                let index = Int(generator.next() % UInt64(objectCount))
                let value = Int64(bitPattern: generator.next())
                try writer.write { txn in
                    let table = try txn.findTable("t")
                    try txn.set(table, keys[index], try txn.findColumn(table, "n"), .int(value))
                }
                model[index] = value
            }
            try reader.read { txn in
                let table = try txn.findTable("t")
                let values = try txn.getManyInt(table, keys, try txn.findColumn(table, "n"))
                XCTAssertEqual(values.map { $0 ?? -1 }, model, "after a batch of \(batch) commits; \(generator.replayNote)")
            }
        }
    }

    /// Threads reading through one handle while another handle commits: the readers' handle takes the commits
    /// into its image while its other readers go on reading their versions (run under ThreadSanitizer by
    /// `make tsan`). Every state a reader sees is whole, and no reader's version goes backwards.
    func testReadersOfOneHandleWhileAnotherHandleCommits() throws {
        let path = directory.file("threads.columnar")
        let readers = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
        defer { readers.close() }
        try LogWorkload.ensureSchema(readers)
        let writer = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
        defer { writer.close() }
        let commits = 150
        let done = Locked(false)
        let problems = Locked<[String]>([])
        runOnThreads(4) { index in
            if index == 0 {
                for _ in 0..<commits {
                    do { try LogWorkload.commitStep(writer) } catch {
                        problems.withLock { $0.append("commit: \(error)") }
                        break
                    }
                }
                done.withLock { $0 = true }
                return
            }
            var lastSeen: Int64 = 0
            while true {
                let finished = done.value
                do {
                    let state = try readers.read { try LogWorkload.read($0) }
                    if !LogWorkload.isConsistent(state) || state.last < lastSeen {
                        problems.withLock { $0.append("reader \(index): last \(state.last) after \(lastSeen)") }
                        return
                    }
                    lastSeen = state.last
                } catch {
                    problems.withLock { $0.append("reader \(index): \(error)") }
                    return
                }
                if finished { break }
            }
        }
        XCTAssertEqual(problems.value, [])
        let final = try readers.read { try LogWorkload.read($0) }
        XCTAssertEqual(final.last, Int64(commits))
    }

    /// A dense copy and a compaction of an encrypted file stay encrypted (with the key given) and verify.
    func testCopiesAndCompactionOfAnEncryptedFile() throws {
        let path = directory.file("source.columnar")
        let strings = phrases(1_000, seed: 11)
        let db = try TestDatabase(path: path, encryptionKey: testEncryptionKey)
        defer { db.close() }
        try fill(db, strings)
        let copyPath = directory.file("copy.columnar")
        var otherKey = testEncryptionKey
        otherKey[0] ^= 0xFF
        try db.read { txn in
            var options = columnar_open_options()
            try otherKey.withUnsafeBufferPointer { key in
                options.encryption_key = key.baseAddress
                try check(columnar_write_copy(txn.handle, copyPath, &options), "columnar_write_copy")
            }
        }
        let copyBytes = try Data(contentsOf: URL(fileURLWithPath: copyPath))
        XCTAssertNil(copyBytes.range(of: Data(strings[5].utf8)), "the copy holds plaintext")
        XCTAssertThrowsError(try TestDatabase(path: copyPath, flags: [], encryptionKey: testEncryptionKey))
        let copy = try TestDatabase(path: copyPath, flags: [], encryptionKey: otherKey)
        defer { copy.close() }
        try assertHolds(copy, strings, "the copy")
    }
}
