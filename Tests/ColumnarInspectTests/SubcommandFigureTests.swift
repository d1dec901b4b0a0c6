// SubcommandFigureTests.swift — on a file with every property type, each subcommand prints the figures the
// library reports and the schema that wrote the file, in text and as JSON that parses.

import CColumnar
import ColumnarTestSupport
import XCTest

final class SubcommandFigureTests: SampleDatabaseTestCase {
    /// The library's view of the sample, read through the ordinary API without the lock file.
    private func withLibrary<R>(_ body: (TestDatabase, Transaction) throws -> R) throws -> R {
        let db = try TestDatabase(path: try sample.path, flags: [.readOnly, .noLock])
        defer { db.close() }
        return try db.read { try body(db, $0) }
    }

    func testHeaderShowsTheIdentityEverySlotAndTheCurrentVersionAsTheLibrarySeesIt() throws {
        let sample = try self.sample
        let stats = try withLibrary { db, _ in try db.stats() }
        let result = try inspect("header", "--json", sample.path)
        XCTAssertEqual(result.status, 0, result.description)
        let json = result.object()
        XCTAssertEqual(json.uint("fileSizeBytes"), stats.file_size_bytes)
        XCTAssertEqual(json.string("magic"), "CLMNRDB1")
        XCTAssertEqual(json.bool("magicValid"), true)
        XCTAssertEqual(json.int("formatVersion"), 4)
        XCTAssertEqual(json.int("headerBytes"), 8192)
        XCTAssertEqual(json.int("sectorBytes"), 512)
        XCTAssertEqual(json.int("slotCount"), 15)
        XCTAssertEqual(json.bool("identityChecksumValid"), true)
        XCTAssertEqual(json.string("fileId")?.count, 32, "16 random bytes in hex")
        let slots = json.objects("slots")
        XCTAssertEqual(slots.map { $0.int("slot") }, (0..<15).map { Int64($0) })
        XCTAssertEqual(slots.map { $0.uint("offset") }, (0..<15).map { FileSurgery.slotOffset($0) })
        let current = try XCTUnwrap(json.int("currentSlot"))
        XCTAssertEqual(Int(current), FileSurgery.slot(of: stats.version), "version v lives in slot v % 15")
        XCTAssertEqual(json.uint("currentVersion"), stats.version)
        let slot = slots[Int(current)]
        XCTAssertEqual(slot.uint("version"), stats.version)
        XCTAssertEqual(slot.uint("usedSizeBytes"), stats.used_size_bytes)
        XCTAssertEqual(slot.uint("freeBytes"), stats.free_bytes)
        XCTAssertEqual(slot.bool("checksumValid"), true)
        XCTAssertEqual(slot.bool("whole"), true)
        XCTAssertEqual(slot.bool("current"), true)
        XCTAssertNil(slot["problem"] as? String, "a whole slot has no problem")
        // The last commit came after a sync of the one before: that is its base, and its record reaches no further.
        XCTAssertEqual(slot.uint("baseVersion"), stats.version - 1)
        // Every version so far has its slot, all whole (nothing was reused that they list); the rest are empty.
        for version in 1...stats.version {
            let older = slots[FileSurgery.slot(of: version)]
            XCTAssertEqual(older.uint("version"), version)
            XCTAssertEqual(older.bool("whole"), true, "\(older)")
            XCTAssertEqual(older.bool("current"), version == stats.version)
        }
        XCTAssertEqual(slots.filter { $0.bool("empty") == true }.count, 15 - Int(stats.version))
        XCTAssertTrue(slots.filter { $0.bool("empty") == true }.allSatisfy { $0.bool("usable") == false })
        XCTAssertEqual(json.objects("findings").count, 0)

        let text = try inspect("header", sample.path)
        XCTAssertEqual(text.status, 0)
        XCTAssertTrue(text.stdout.contains("CLMNRDB1 (valid)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Format version  4\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Current         version \(stats.version) (slot \(current))"), text.stdout)
        // One row per slot: its number, then its sector's offset.
        let rows = text.stdout.split(separator: "\n").filter { line in
            let words = line.split(separator: " ")
            guard words.count > 2, let slot = Int(words[0]), let offset = UInt64(words[1]) else { return false }
            return offset == FileSurgery.slotOffset(slot)
        }
        XCTAssertEqual(rows.count, 15, "one row per slot:\n\(text.stdout)")
        XCTAssertEqual(rows.filter { $0.hasSuffix("empty") }.count, 15 - Int(stats.version), text.stdout)
        XCTAssertTrue(text.stdout.contains("whole, current"), text.stdout)
        XCTAssertFalse(text.stdout.contains("Why not whole"), text.stdout)
    }

    func testInfoShowsThePinnedVersionsReadersSpaceTablesAndObjects() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        // This process pins the sample's version with a reader, then commits once more, so two versions are live.
        // The commit records the cluster size of the handle that writes it, so the handle uses the sample's.
        let db = try TestDatabase(path: path, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE,
                                  clusterSize: SampleDatabase.clusterSize)
        defer { db.close() }
        let reader = try db.beginRead()
        defer { reader.rollback() }
        let pinned = reader.version
        try db.write { txn in
            let notes = try txn.findTable("notes")
            _ = try txn.createObject(notes, primaryKey: .int(100_000))
        }
        let stats = try db.stats()
        let counts = try db.read { txn in try (0..<txn.tableCount()).map { try txn.count($0) } }

        let result = try inspect("info", "--json", path)
        XCTAssertEqual(result.status, 0, result.description)
        let json = result.object()
        XCTAssertEqual(json.uint("version"), stats.version)
        XCTAssertEqual(json.uint("version"), pinned + 1)
        XCTAssertEqual(json.int("clusterSize"), Int64(SampleDatabase.clusterSize))
        XCTAssertEqual(json.uint("usedSizeBytes"), stats.used_size_bytes)
        XCTAssertEqual(json.uint("freeBytes"), stats.free_bytes)
        XCTAssertEqual(json.uint("fileSizeBytes"), stats.file_size_bytes)
        XCTAssertEqual(json.uint("unaccountedBytes"), 0)
        XCTAssertEqual((json.uint("liveBytes") ?? 0) + (json.uint("freeBytes") ?? 0) + 8192, stats.used_size_bytes,
                       "header, live nodes and free list make up the used size")
        XCTAssertEqual(json.uint("preallocatedBytes"), stats.file_size_bytes - stats.used_size_bytes)
        XCTAssertEqual(json.int("tableCount"), 3)
        XCTAssertEqual(json.int("objectCount"), Int64(counts.reduce(0, +)))
        XCTAssertNil(json["commitPath"] as? String, "the commit path is not in the file")
        let lock = try XCTUnwrap(json.object("lockFile"))
        XCTAssertEqual(lock.bool("exists"), true)
        XCTAssertEqual(lock.bool("valid"), true)
        XCTAssertEqual(lock.uint("publishedVersion"), stats.version)
        // With durability UNSAFE the new version is written but not durable: the opener made the sample's version
        // durable when it recovered the file, and nothing has synced since.
        XCTAssertEqual(lock.uint("writtenVersion"), stats.version)
        XCTAssertEqual(lock.uint("durableVersion"), stats.durable_version)
        XCTAssertEqual(stats.durable_version, pinned)
        XCTAssertNil(lock["pendingRepair"] as? String)
        XCTAssertEqual(lock.bool("storageFailed"), false)
        let readers = lock.objects("readers")
        XCTAssertEqual(readers.count, 1, "\(readers)")
        XCTAssertTrue(readers.contains { $0.uint("version") == pinned && $0.bool("handleAlive") == true
                                         && $0.uint("handleSlot") != nil }, "\(readers)")
        XCTAssertEqual((json["liveVersions"] as? [NSNumber])?.map(\.uint64Value), [pinned, pinned + 1])
        XCTAssertEqual(stats.live_versions, 2)
        // Reusable now: freed by a version up to the oldest pinned one and up to the durable version's base.
        let structure = try FileStructure.read(path)
        let durableBase = try XCTUnwrap(structure.slots.first { $0.version == stats.durable_version }).base_version
        let bound = min(pinned, durableBase)
        XCTAssertEqual(json.uint("reuseBoundVersion"), bound)
        XCTAssertEqual(json.uint("freeReusableBytes"),
                       structure.freeList.filter { $0.version <= bound }.reduce(0) { $0 + $1.size_bytes })
        XCTAssertEqual((json.uint("freeReusableBytes") ?? 0) + (json.uint("freeWaitingBytes") ?? 0), stats.free_bytes)
        // What the new version freed stays while the reader of the version before may still see it.
        let freedByNewVersion = structure.freeList.filter { $0.version > pinned }.reduce(0) { $0 + $1.size_bytes }
        XCTAssertGreaterThan(freedByNewVersion, 0)
        XCTAssertEqual(json.uint("freeKeptForReadersBytes"), freedByNewVersion)
        XCTAssertEqual((json.uint("freeKeptForReadersBytes") ?? 0) + (json.uint("freeKeptForRecoveryBytes") ?? 0),
                       json.uint("freeWaitingBytes"))

        let text = try inspect("info", path)
        XCTAssertTrue(text.stdout.contains("Live versions  \(pinned), \(pinned + 1)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("  written      version \(stats.version)\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("  durable      version \(pinned) (the versions after it are written but "
                                           + "not yet synced)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("\(pinned)  open"), "the reader's row: its version, its handle open\n"
                      + text.stdout)
        let groupedBytes = freedByNewVersion.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
        XCTAssertTrue(text.stdout.contains("\(groupedBytes) bytes while a reader pins version \(pinned)"), text.stdout)

        // After a sync the lock file says the new version is durable too.
        try db.sync()
        let synced = try inspect("info", "--json", path).object()
        XCTAssertEqual(synced.object("lockFile")?.uint("durableVersion"), stats.version)
        XCTAssertEqual(synced.object("lockFile")?.uint("writtenVersion"), stats.version)
        let afterSync = try inspect("info", path)
        XCTAssertTrue(afterSync.stdout.contains("  durable      version \(stats.version)\n"), afterSync.stdout)
    }

    /// The sample's notes are created with ascending ids as their keys, so the table is marked; the others have
    /// no int primary key. The tool reads the mark from the file as the library does.
    func testSchemaSaysWhichTablesHaveTheirPrimaryKeysAsObjectKeys() throws {
        let sample = try self.sample
        let result = try inspect("schema", "--json", sample.path)
        XCTAssertEqual(result.status, 0, result.description)
        let tables = result.object().objects("tables")
        try withLibrary { _, txn in
            for table in tables {
                let id = try XCTUnwrap(table.int("id").map(TableID.init))
                XCTAssertEqual(table.bool("keysArePrimaryKeys"), try txn.tableInfo(id).keys_are_primary_keys,
                               "\(table)")
            }
        }
        XCTAssertEqual(tables.first { $0.string("name") == "notes" }?.bool("keysArePrimaryKeys"), true)
        XCTAssertEqual(tables.first { $0.string("name") == "all" }?.bool("keysArePrimaryKeys"), false)
        let text = try inspect("schema", sample.path)
        let notesRow = text.stdout.split(separator: "\n").first { $0.hasPrefix("   0  n ") }
        XCTAssertTrue(notesRow?.hasSuffix("every object's key is its value") == true, text.stdout)
    }

    func testSchemaListsEveryPropertyAsTheSchemaWroteIt() throws {
        let sample = try self.sample
        let result = try inspect("schema", "--json", sample.path)
        XCTAssertEqual(result.status, 0, result.description)
        let tables = result.object().objects("tables")
        XCTAssertEqual(tables.map { $0.string("name") }, ["target", "all", "notes"])
        try withLibrary { _, txn in
            for table in tables {
                let id = try XCTUnwrap(table.int("id").map(TableID.init))
                let info = try txn.tableInfo(id)
                XCTAssertEqual(table.int("objectCount"), Int64(info.object_count))
                XCTAssertEqual(table.string("primaryKey"),
                               info.primary_key == COLUMNAR_NO_COLUMN ? nil : try txn.columnName(id, info.primary_key))
                for column in table.objects("columns") {
                    let columnID = try XCTUnwrap(column.int("id").map(ColumnID.init))
                    if column.bool("hidden") == true || column.bool("removed") == true {
                        XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.columnInfo(id, columnID))
                        continue
                    }
                    var expected = try txn.columnInfo(id, columnID)
                    XCTAssertEqual(column.string("name"), fixedString(&expected.name))
                    XCTAssertEqual(column.string("type"), typeName(expected.type).lowercased()
                                   .replacingOccurrences(of: "objectid", with: "objectId"))
                    XCTAssertEqual(column.bool("nullable"), expected.nullable, "\(column)")
                    XCTAssertEqual(column.bool("indexed"), expected.indexed, "\(column)")
                    XCTAssertEqual(column.bool("primaryKey"), expected.is_primary_key, "\(column)")
                    let collection = ["list", "set", "dictionary"]
                    XCTAssertEqual(column.string("collection"), expected.collection == COLUMNAR_COLLECTION_NONE ? nil
                                   : collection[Int(expected.collection.rawValue) - 1])
                    if expected.type == COLUMNAR_TYPE_LINK {
                        XCTAssertEqual(column.string("linkTarget"), try txn.tableName(expected.target_table))
                    }
                }
            }
        }
        // What the fixture wrote: every scalar type twice (the second nullable), a link, three collections.
        let all = try XCTUnwrap(tables.first { $0.string("name") == "all" })
        let columns = all.objects("columns")
        for scalar in sample.fixture.scalars {
            let column = try XCTUnwrap(columns.first { $0.string("name") == scalar.name })
            XCTAssertEqual(column.bool("nullable"), scalar.nullable)
        }
        XCTAssertEqual(columns.first { $0.string("name") == "tags" }?.string("collection"), "set")
        // Hidden backlink columns name the link they mirror; the removed column is listed as removed.
        let target = try XCTUnwrap(tables.first { $0.string("name") == "target" }).objects("columns")
        XCTAssertEqual(Set(target.compactMap { $0.string("backlinkOrigin") }), ["all.link", "notes.refs"])
        let notes = try XCTUnwrap(tables.first { $0.string("name") == "notes" })
        XCTAssertEqual(notes.objects("columns").first { $0.string("name") == "scratch" }?.bool("removed"), true)
        XCTAssertEqual(notes.string("primaryKey"), "n")

        let text = try inspect("schema", sample.path)
        XCTAssertTrue(text.stdout.contains("TABLE notes (id 2, \(SampleDatabase.noteCount) objects, primary key n)"),
                      text.stdout)
        XCTAssertTrue(text.stdout.contains("hidden: backlinks of all.link"), text.stdout)
    }

    func testTablesCountObjectsBytesEncodingsAndRatios() throws {
        let sample = try self.sample
        let result = try inspect("tables", "--json", sample.path)
        XCTAssertEqual(result.status, 0, result.description)
        let json = result.object()
        let tables = json.objects("tables")
        let (stats, counts, rows) = try withLibrary { db, txn -> (columnar_db_stats, [UInt64], [UInt64]) in
            let tableCount = try txn.tableCount()
            let counts = try (0..<tableCount).map { try txn.count($0) }
            // Rows the clusters hold, from the library's own cluster iteration.
            let rows = try (0..<tableCount).map { table -> UInt64 in
                var rows: UInt64 = 0
                try txn.forEachCluster(table) { rows += $0.row_count }
                return rows
            }
            return (try db.stats(), counts, rows)
        }
        var total = json.object("fileStructure")?.uint("sizeBytes") ?? 0
        for table in tables {
            let id = Int(try XCTUnwrap(table.int("id")))
            XCTAssertEqual(table.uint("objectCount"), counts[id], "\(table.string("name") ?? "")")
            total += table.uint("sizeBytes") ?? 0
            var parts = table.object("structure")?.uint("sizeBytes") ?? 0
            for column in table.objects("columns") {
                guard let storage = column.object("storage") else { continue }
                parts += storage.uint("sizeBytes") ?? 0
                parts += column.object("index")?.uint("sizeBytes") ?? 0
                XCTAssertEqual(storage.uint("valueCount"), rows[id], "values of \(column.string("name") ?? "")")
                let ratio = Double(storage.uint("plainBytes") ?? 0) / Double(storage.uint("sizeBytes") ?? 1)
                XCTAssertEqual((storage["compressionRatio"] as? NSNumber)?.doubleValue ?? -1, ratio, accuracy: 0.001)
            }
            XCTAssertEqual(parts, table.uint("sizeBytes"), "a table's bytes are its parts' bytes")
        }
        XCTAssertEqual(total, json.uint("liveBytes"))
        XCTAssertEqual(total + stats.free_bytes + 8192, stats.used_size_bytes,
                       "every byte of the used size is the header, a live node or free")

        func encodings(_ table: String, _ column: String, part: String = "storage") -> [(String, String, Int64)] {
            let columns = tables.first { $0.string("name") == table }?.objects("columns") ?? []
            let found = columns.first { $0.string("name") == column }?.object(part)?.objects("encodings") ?? []
            return found.map { ($0.string("role") ?? "", $0.string("encoding") ?? "", $0.int("width") ?? -1) }
        }
        let fileEncodings = (json.object("fileStructure")?.objects("encodings") ?? []).map {
            ($0.string("role") ?? "", $0.string("encoding") ?? "", $0.int("width") ?? -1)
        }
        XCTAssertTrue(fileEncodings.contains { $0 == ("COMMIT_RECORD", "packed int", 64) }, "\(fileEncodings)")
        XCTAssertFalse(result.stdout.contains("\"invalid\""), "every role of a sound file has its name")
        XCTAssertTrue(encodings("all", "bool").contains { $0 == ("VALUES", "packed int", 1) }, "bools are 1 bit")
        XCTAssertTrue(encodings("all", "uuid").contains { $0 == ("VALUES", "fixed", 16) })
        XCTAssertTrue(encodings("all", "objectid").contains { $0 == ("VALUES", "fixed", 12) })
        XCTAssertTrue(encodings("all", "double").contains { $0.0 == "VALUES" && $0.1 == "double" })
        XCTAssertTrue(encodings("all", "int_opt").contains { $0 == ("NULLS", "packed int", 1) }, "null bitmaps")
        XCTAssertTrue(encodings("all", "string").contains { $0.0 == "BLOB" }, "strings of 0 ... 40 bytes: long form")
        XCTAssertTrue(encodings("notes", "text").contains { $0.1 == "short strings" }, "short notes: short strings")
        XCTAssertTrue(encodings("target", "id").contains { $0 == ("VALUES", "packed int", 4) }, "ids 0 ... 15: 4 bits")
        XCTAssertFalse(encodings("notes", "n", part: "index").isEmpty, "the primary key's search index")
        let list = tables.first { $0.string("name") == "all" }?.objects("columns").first { $0.string("name") == "ints" }
        let elements = try withLibrary { _, txn in
            try txn.keys(sample.fixture.table).reduce(0) {
                $0 + (try txn.size(sample.fixture.table, $1, sample.fixture.list))
            }
        }
        XCTAssertEqual(list?.object("storage")?.uint("elementCount"), elements, "list elements")

        let text = try inspect("tables", sample.path)
        XCTAssertTrue(text.stdout.contains("TABLE all (id 1): \(counts[1]) objects"), text.stdout)
    }

    func testDumpPrintsTheValuesTheLibraryReads() throws {
        let sample = try self.sample
        let fixture = sample.fixture
        let result = try inspect("dump", "--format", "json", sample.path, "all")
        XCTAssertEqual(result.status, 0, result.description)
        // JSONDecoder rather than JSONSerialization: the latter rounds some doubles on Linux.
        let document = try JSONDecoder().decode(DumpDocument.self, from: Data(result.stdout.utf8))
        XCTAssertNotNil(result.json(), "JSONSerialization parses it too")
        try withLibrary { _, txn in
            let keys = try txn.keys(fixture.table)
            XCTAssertEqual(document.rows.map(\.key), keys)
            XCTAssertEqual(document.rowCount, keys.count)
            XCTAssertTrue(Set(keys).isDisjoint(with: sample.deletedKeys))
            for (row, key) in zip(document.rows, keys) {
                let values = row.values
                for scalar in fixture.scalars {
                    let expected = try txn.get(fixture.table, key, scalar.id)
                    assertDumped(values[scalar.name], expected, "key \(key) \(scalar.name)")
                }
                assertDumped(values["link"], try txn.get(fixture.table, key, fixture.link), "key \(key) link")
                let list = try txn.elements(fixture.table, key, fixture.list)
                XCTAssertEqual(values["ints"], .array(list.map { value -> JSONValue in
                    if case .int(let v) = value { return .int(v) } else { return .null }
                }))
                guard case .array(let tags) = values["tags"] else {
                    return XCTFail("tags: \(String(describing: values["tags"]))")
                }
                XCTAssertEqual(Set(tags), Set(try txn.elements(fixture.table, key, fixture.set).map { value -> JSONValue in
                    if case .string(let s) = value { return .string(s) } else { return .null }
                }))
                guard case .object(let weights) = values["weights"] else { return XCTFail("weights") }
                XCTAssertEqual(UInt64(weights.count), try txn.size(fixture.table, key, fixture.dict))
                for (name, value) in weights {
                    assertDumped(value, try txn.dictGet(fixture.table, key, fixture.dict, Array(name.utf8)) ?? .null,
                                 "key \(key) weights[\(name)]")
                }
            }
        }
        let csv = try inspect("dump", "--format", "csv", "--limit", "5", sample.path, "all")
        XCTAssertEqual(csv.status, 0, csv.description)
        let lines = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        XCTAssertGreaterThanOrEqual(lines.count, 6)
        XCTAssertTrue(lines[0].hasPrefix("key,int,int_opt,bool,bool_opt,float"), lines[0])
        let table = try inspect("dump", "--limit", "3", sample.path, "notes")
        XCTAssertEqual(table.status, 0, table.description)
        XCTAssertTrue(table.stdout.hasPrefix("TABLE notes: 3 rows"), table.stdout)
        XCTAssertTrue(table.stdout.contains("changed"), table.stdout)
        let missing = try inspect("dump", sample.path, "nosuchtable")
        XCTAssertEqual(missing.status, 64, missing.description)
        XCTAssertTrue(missing.stderr.contains("target, all, notes"), missing.stderr)
    }

    /// Compares a dumped JSON value with the library's value, in the formats `dump` documents.
    private func assertDumped(_ dumped: JSONValue?, _ expected: Value, _ message: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        func equal(_ value: JSONValue) { XCTAssertEqual(dumped, value, message, file: file, line: line) }
        switch expected {
        case .null: equal(.null)
        case .int(let value), .link(let value): equal(.int(value))
        case .bool(let value): equal(.bool(value))
        case .float(let value):
            if value.isFinite { XCTAssertEqual(dumped?.double.map(Float.init), value, message, file: file, line: line) }
            else { equal(.string("\(value)")) }
        case .double(let value):
            if value.isFinite { XCTAssertEqual(dumped?.double, value, message, file: file, line: line) }
            else { equal(.string("\(value)")) }
        case .string(let value): equal(.string(value))
        case .binary(let data): equal(.string(hex(Array(data))))
        case .objectID(let bytes), .decimal128(let bytes): equal(.string(hex(bytes)))
        case .uuid(let bytes):
            guard case .string(let text) = dumped else { return XCTFail(message, file: file, line: line) }
            XCTAssertEqual(text.replacingOccurrences(of: "-", with: ""), hex(bytes), message, file: file, line: line)
            XCTAssertEqual(text.split(separator: "-").map(\.count), [8, 4, 4, 4, 12], message, file: file, line: line)
        case .timestamp(let seconds, let nanoseconds):
            // The fixture's seconds go far past year 9999; check the fields that need no calendar here (a
            // separate test checks whole dates).
            guard case .string(let text) = dumped else { return XCTFail(message, file: file, line: line) }
            XCTAssertTrue(text.hasSuffix(String(format: ".%09dZ", nanoseconds)), "\(message): \(text)",
                          file: file, line: line)
            let secondOfDay = ((seconds % 86_400) + 86_400) % 86_400
            XCTAssertTrue(text.contains(String(format: "T%02lld:%02lld:%02lld.", secondOfDay / 3600,
                                               secondOfDay / 60 % 60, secondOfDay % 60)),
                          "\(message): \(text)", file: file, line: line)
        default:
            XCTFail("\(message): unexpected \(expected)", file: file, line: line)
        }
    }

    func testTimestampsAreISO8601InUTC() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let db = try TestDatabase(path: path, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE)
        try db.write { txn in
            let table = try txn.addTable("times")
            let column = try txn.addColumn(table, "at", COLUMNAR_TYPE_TIMESTAMP)
            for (seconds, nanoseconds) in [(0, 0), (951_782_400, 5), (-1, 999_999_999), (253_402_300_800, 1)] {
                let key = try txn.createObject(table)
                try txn.set(table, key, column, .timestamp(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds)))
            }
        }
        db.close()
        let result = try inspect("dump", "--json", path, "times")
        let document = try JSONDecoder().decode(DumpDocument.self, from: Data(result.stdout.utf8))
        let values = document.rows.map { row -> String in
            if case .string(let text) = row.values["at"] { return text } else { return "" }
        }
        XCTAssertEqual(values, ["1970-01-01T00:00:00.000000000Z", "2000-02-29T00:00:00.000000005Z",
                                "1969-12-31T23:59:59.999999999Z", "+10000-01-01T00:00:00.000000001Z"])
    }

    func testNodeDecodesAClusterItsKeysAndItsChildren() throws {
        let sample = try self.sample
        let fixture = sample.fixture
        let (clusterRef, rowCount, keys) = try withLibrary { _, txn -> (UInt64, UInt64, [Int64]) in
            var found: (UInt64, UInt64, [Int64])?
            try txn.forEachCluster(fixture.table) { cluster in
                guard found == nil else { return }
                var array = cluster.keys
                found = (cluster.ref, cluster.row_count, (0..<cluster.row_count).map { columnar_array_get_int(&array, $0) })
            }
            return try XCTUnwrap(found)
        }
        let result = try inspect("node", "--json", sample.path, "\(clusterRef)")
        XCTAssertEqual(result.status, 0, result.description)
        let node = result.object()
        XCTAssertEqual(node.string("roleName"), "CLUSTER")
        XCTAssertEqual(node.bool("checksumValid"), true)
        XCTAssertEqual(node.bool("live"), true)
        XCTAssertEqual(node.object("owner")?.string("table"), "all")
        XCTAssertEqual(node.object("owner")?.string("what"), "cluster")
        XCTAssertEqual(node.int("count"), Int64(fixture.scalars.count + 4 + 1), "keys, then one leaf per column")
        let children = node.objects("children")
        XCTAssertEqual(children.first?.string("role"), "KEYS")
        XCTAssertEqual(children.first?.uint("count"), rowCount)
        let keysRef = try XCTUnwrap(children.first?.uint("ref"))
        let keysNode = try inspect("node", "--json", "--limit", "1000", sample.path, "0x" + String(keysRef, radix: 16))
        let decoded = keysNode.object()
        XCTAssertEqual((decoded["elements"] as? [String])?.compactMap { Int64($0) }, keys)
        XCTAssertEqual(decoded.object("owner")?.string("what"), "cluster keys")
        XCTAssertEqual(decoded.string("hex")?.count, Int(decoded.uint("sizeBytes") ?? 0) * 2)

        let text = try inspect("node", sample.path, "\(clusterRef)")
        XCTAssertTrue(text.stdout.contains("Role         11 (CLUSTER)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("cluster of table all"), text.stdout)
        // A ref in the middle of a node is not a node: the header fields are shown with what is wrong.
        let middle = try inspect("node", "--json", sample.path, "\(clusterRef + 8)")
        XCTAssertEqual(middle.status, 1, middle.description)
        XCTAssertEqual(middle.object().bool("valid"), false)
        let outside = try inspect("node", "--json", sample.path, "\(1 << 40)")
        XCTAssertEqual(outside.status, 1, outside.description)
        XCTAssertEqual(outside.object().bool("headerPresent"), false)
    }

    func testSpaceAccountsForEveryByteOfTheFile() throws {
        let sample = try self.sample
        let stats = try withLibrary { db, _ in try db.stats() }
        let structure = try FileStructure.read(sample.path)
        let result = try inspect("space", "--json", sample.path)
        XCTAssertEqual(result.status, 0, result.description)
        let json = result.object()
        let regions = json.objects("regions")
        var at: UInt64 = 0
        var bytesByKind: [String: UInt64] = [:]
        for region in regions {
            XCTAssertEqual(region.uint("start"), at, "regions are contiguous")
            at = region.uint("end") ?? 0
            bytesByKind[region.string("kind") ?? "", default: 0] += region.uint("sizeBytes") ?? 0
        }
        XCTAssertEqual(at, stats.file_size_bytes, "the regions cover the file")
        XCTAssertEqual(bytesByKind["header"], 8192)
        XCTAssertEqual(bytesByKind["free"], stats.free_bytes)
        XCTAssertEqual(bytesByKind["node"], structure.nodes.reduce(0) { $0 + $1.sizeBytes })
        XCTAssertEqual(bytesByKind["unaccounted"], nil)
        XCTAssertEqual(bytesByKind["preallocated"], stats.file_size_bytes - stats.used_size_bytes)
        XCTAssertEqual(json.objects("owners").reduce(0) { $0 + ($1.uint("sizeBytes") ?? 0) }, json.uint("liveBytes"))
        let free = json.objects("freeList")
        XCTAssertEqual(free.map { $0.uint("pos") }, structure.freeList.map { Optional($0.pos) })
        XCTAssertEqual(free.map { $0.uint("version") }, structure.freeList.map { Optional($0.version) })
        XCTAssertTrue(free.allSatisfy { ($0.uint("version") ?? .max) <= stats.version })
        XCTAssertTrue(json.objects("owners").contains { $0.string("label") == "notes.n (index)" })
        let text = try inspect("space", sample.path)
        XCTAssertTrue(text.stdout.contains("Free list (\(free.count) entries"), text.stdout)
    }

    func testVerifyFindsTheSampleSound() throws {
        let sample = try self.sample
        let result = try inspect("verify", "--json", sample.path)
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertEqual(result.object().string("status"), "sound")
        XCTAssertEqual(result.object().objects("findings").count, 0)
        let version = try withLibrary { db, _ in try db.stats() }.version
        XCTAssertEqual(result.object().uint("version"), version)
        let text = try inspect("verify", sample.path)
        XCTAssertTrue(text.stdout.hasSuffix(": sound, version \(version) (header slot \(FileSurgery.slot(of: version)))\n"),
                      text.stdout)
    }

    func testEverySubcommandsJSONParses() throws {
        let sample = try self.sample
        let structure = try FileStructure.read(sample.path)
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("inspect-\(UUID().uuidString).svg").path
        defer { try? FileManager.default.removeItem(atPath: svg) }
        for arguments in [["header"], ["info"], ["schema"], ["tables"], ["space", "--svg", svg], ["verify"],
                          ["node", "\(structure.version.top_ref)"], ["dump", "notes"],
                          ["info", "--slot", "\(FileSurgery.slot(of: structure.version.version - 1))"]] {
            let result = try inspect([arguments[0], "--json", sample.path] + arguments.dropFirst())
            XCTAssertEqual(result.status, 0, result.description)
            XCTAssertNotNil(result.json(), result.description)
        }
    }
}
