// Schema versions and migrations: the version is stored and checked, a higher version migrates (with or without a
// block) in one transaction, deleteRealmIfMigrationNeeded starts over, and the other opening options (seed file,
// encryption key) do what they say. Two Swift classes stored under one name stand for an old and a new model.

import CColumnar
import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class MigPersonV1: Object {
    override class func _realmObjectName() -> String? { "MigPerson" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
    @Persisted var nickname = ""
    @Persisted var score: Int? = nil
    @Persisted var note: String? = nil
}

final class MigPersonV2: Object {
    override class func _realmObjectName() -> String? { "MigPerson" }
    @Persisted var fullName = ""
    @Persisted var surname = ""          // renamed from lastName
    @Persisted var age = ""              // Int -> String
    @Persisted var score = 0             // Int? -> Int
    @Persisted var note: String? = nil
    @Persisted(indexed: true) var email = ""   // new
}

final class MigPersonKeyed: Object {
    override class func _realmObjectName() -> String? { "MigPerson" }
    @Persisted(primaryKey: true) var code = 0
    @Persisted var firstName = ""
}

final class MigPetV1: Object {
    override class func _realmObjectName() -> String? { "MigPet" }
    @Persisted var name = ""
}

final class MigPetV2: Object {
    override class func _realmObjectName() -> String? { "MigPet" }
    @Persisted var name = ""
    @Persisted var legs = 4
}

/// Stored by the engine directly in the test below (so that no older Swift class of the same name is discovered).
final class MigLazyPerson: Object {
    @Persisted var name = ""
    @Persisted var greeting = ""
}

/// Collects what a migration block saw (the block is @Sendable).
private final class Log: @unchecked Sendable {
    var lines: [String] = []
    var oldVersion: UInt64?
}

final class MigrationTests: RealmTestCase {
    private var url: URL { configuration.fileURL! }

    private func config(version: UInt64, types: [ObjectBase.Type],
                        block: MigrationBlock? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: version, migrationBlock: block, objectTypes: types)
    }

    /// Three people stored with the first model, at `version`.
    private func seedPeople(version: UInt64 = 1) throws {
        let realm = try Realm(configuration: config(version: version, types: [MigPersonV1.self]))
        try realm.write {
            for (index, name) in ["Ann", "Bob", "Cy"].enumerated() {
                realm.create(MigPersonV1.self, value: ["firstName": name, "lastName": "L\(index)", "age": 30 + index,
                                                       "nickname": "n\(index)", "score": index == 1 ? nil : index,
                                                       "note": index == 0 ? nil : "note \(index)"])
            }
        }
    }

    func testTheVersionIsStoredAndALowerOneIsRefused() throws {
        try seedPeople(version: 3)
        XCTAssertEqual(try schemaVersionAtURL(url), 3)
        XCTAssertThrowsError(try Realm(configuration: config(version: 2, types: [MigPersonV1.self]))) { error in
            // RealmSwift throws a schema mismatch for a lower version.
            XCTAssertEqual((error as? Realm.Error)?.code, .schemaMismatch)
            XCTAssertTrue("\(error)".contains("less than last set version 3"), "\(error)")
        }
        // The same version opens and reads the data.
        let realm = try Realm(configuration: config(version: 3, types: [MigPersonV1.self]))
        XCTAssertEqual(realm.objects(MigPersonV1.self).count, 3)
        XCTAssertFalse(realm.isEmpty)
    }

    func testAFileWithoutARecordedVersionIsVersionZero() throws {
        do {
            let realm = try Realm(configuration: config(version: 0, types: [MigPersonV1.self]))
            try realm.write { realm.create(MigPersonV1.self, value: ["firstName": "Ann"]) }
        }
        XCTAssertEqual(try schemaVersionAtURL(url), 0)
    }

    func testTheBlockMigratesObjectsFromOldToNewValues() throws {
        try seedPeople()
        let log = Log()
        let block: MigrationBlock = { migration, oldVersion in
            log.oldVersion = oldVersion
            log.lines.append("old has nickname: \(migration.oldSchema["MigPerson"]?["nickname"] != nil)")
            log.lines.append("new has email: \(migration.newSchema["MigPerson"]?["email"] != nil)")
            migration.renameProperty(onType: "MigPerson", from: "lastName", to: "surname")
            migration.enumerateObjects(ofType: MigPersonV2.className()) { old, new in
                guard let old, let new else { return XCTFail("both objects exist") }
                let first = old["firstName"] as! String
                new["fullName"] = "\(first) \(old["lastName"] as! String)"
                new["age"] = String(old["age"] as! Int)
                new.email = "\(first.lowercased())@example.com"
            }
        }
        let realm = try Realm(configuration: config(version: 2, types: [MigPersonV2.self], block: block))
        XCTAssertEqual(log.oldVersion, 1)
        XCTAssertEqual(log.lines, ["old has nickname: true", "new has email: true"])
        let people = realm.objects(MigPersonV2.self).sorted(byKeyPath: "fullName")
        XCTAssertEqual(people.map(\.fullName), ["Ann L0", "Bob L1", "Cy L2"])
        XCTAssertEqual(people.map(\.surname), ["L0", "L1", "L2"])      // renamed: values kept
        XCTAssertEqual(people.map(\.age), ["30", "31", "32"])          // type changed: block converted
        XCTAssertEqual(people.map(\.score), [0, 0, 2])                 // Int? -> Int: nil became 0
        XCTAssertEqual(people.map(\.note), [nil, "note 1", "note 2"])  // unchanged
        XCTAssertEqual(people.map(\.email), ["ann@example.com", "bob@example.com", "cy@example.com"])
        XCTAssertEqual(realm.objects(MigPersonV2.self).filter("email == 'bob@example.com'").count, 1)
        XCTAssertEqual(try schemaVersionAtURL(url), 2)
        XCTAssertEqual(try storedColumns(of: "MigPerson"), ["age", "email", "fullName", "note", "score", "surname"])
        try assertFileVerifies()
    }

    /// The names of a table's columns as the file stores them now.
    private func storedColumns(of tableName: String) throws -> [String] {
        let database = try TestDatabase(path: url.path, flags: .readOnly)
        defer { database.close() }
        let txn = try database.beginRead()
        var table: UInt32 = 0
        XCTAssertEqual(columnar_table_find(txn.handle, tableName, &table), COLUMNAR_OK)
        var info = columnar_table_info()
        XCTAssertEqual(columnar_table_info_get(txn.handle, table, &info), COLUMNAR_OK)
        return (0..<info.column_count).compactMap { column -> String? in
            var columnInfo = columnar_column_info()
            guard columnar_column_info_get(txn.handle, table, column, &columnInfo) == COLUMNAR_OK else { return nil }
            return withUnsafeBytes(of: columnInfo.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }.sorted()
    }

    /// The engine's integrity walk over the file as it is now.
    private func assertFileVerifies(file: StaticString = #filePath, line: UInt = #line) throws {
        let database = try TestDatabase(path: url.path, flags: .readOnly)
        defer { database.close() }
        let report = try database.beginRead().verify()
        XCTAssertTrue(report.isSound, "\(report)", file: file, line: line)
    }

    func testWithoutABlockPropertiesAreAddedAndRemovedAndChangedTypesStartAtZero() throws {
        try seedPeople()
        let realm = try Realm(configuration: config(version: 5, types: [MigPersonV2.self]))
        let people = Array(realm.objects(MigPersonV2.self))
        XCTAssertEqual(people.count, 3)
        XCTAssertEqual(people.map(\.age), ["", "", ""])
        XCTAssertEqual(people.map(\.surname), ["", "", ""])
        XCTAssertEqual(people.map(\.score), [0, 0, 2])
        XCTAssertEqual(people.map(\.note), [nil, "note 1", "note 2"])
        // Reopening at the same version does not migrate again.
        try realm.write { people[0].age = "kept" }
        let again = try Realm(configuration: config(version: 5, types: [MigPersonV2.self]))
        XCTAssertEqual(again.objects(MigPersonV2.self).filter("age == 'kept'").count, 1)
    }

    func testRequiredToOptionalKeepsValues() throws {
        do {
            let realm = try Realm(configuration: config(version: 1, types: [MigPersonV2.self]))
            try realm.write { realm.create(MigPersonV2.self, value: ["fullName": "Ann", "score": 7]) }
        }
        // V1 declares score as Int?: the values are copied across.
        let realm = try Realm(configuration: config(version: 2, types: [MigPersonV1.self]))
        XCTAssertEqual(realm.objects(MigPersonV1.self).first?.score, 7)
    }

    func testAPrimaryKeyAddedByAMigrationIsFilledByTheBlockAndChecked() throws {
        try seedPeople()
        let block: MigrationBlock = { migration, _ in
            var next = 100
            migration.enumerateObjects(ofType: "MigPerson") { _, new in
                new!["code"] = next
                next += 1
            }
        }
        let realm = try Realm(configuration: config(version: 2, types: [MigPersonKeyed.self], block: block))
        XCTAssertEqual(realm.object(ofType: MigPersonKeyed.self, forPrimaryKey: 101)?.firstName, "Bob")
    }

    func testAFailedMigrationLeavesTheFileAsItWas() throws {
        try seedPeople()
        // Without a block every new key is 0: the primary key cannot be set, and nothing is kept.
        XCTAssertThrowsError(try Realm(configuration: config(version: 2, types: [MigPersonKeyed.self]))) { error in
            XCTAssertEqual((error as? Realm.Error)?.underlyingError?.code, .alreadyExists)
            XCTAssertTrue("\(error)".contains("duplicate"), "\(error)")
        }
        XCTAssertEqual(try schemaVersionAtURL(url), 1)
        let realm = try Realm(configuration: config(version: 1, types: [MigPersonV1.self]))
        XCTAssertEqual(realm.objects(MigPersonV1.self).map(\.nickname).sorted(), ["n0", "n1", "n2"])
    }

    func testCreateDeleteAndDeleteDataInABlock() throws {
        do {
            let realm = try Realm(configuration: config(version: 1, types: [MigPersonV1.self, MigPetV1.self]))
            try realm.write {
                realm.create(MigPersonV1.self, value: ["firstName": "Ann"])
                realm.create(MigPersonV1.self, value: ["firstName": "Bob"])
                realm.create(MigPetV1.self, value: ["name": "Rex"])
            }
        }
        let log = Log()
        let block: MigrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { old, _ in
                if old!["firstName"] as? String == "Bob" { migration.delete(old!) }
            }
            log.lines.append("pets deleted: \(migration.deleteData(forType: "MigPet"))")
            log.lines.append("unknown deleted: \(migration.deleteData(forType: "NoSuchClass"))")
            let pet = migration.create("MigPet", value: ["name": "Tom", "legs": 3])
            log.lines.append("created \(pet["name"] as! String) with \(pet["legs"] as! Int) legs")
        }
        let realm = try Realm(configuration: config(version: 2, types: [MigPersonV1.self, MigPetV2.self],
                                                    block: block))
        XCTAssertEqual(log.lines, ["pets deleted: true", "unknown deleted: false", "created Tom with 3 legs"])
        XCTAssertEqual(realm.objects(MigPersonV1.self).map(\.firstName), ["Ann"])
        XCTAssertEqual(realm.objects(MigPetV2.self).map { "\($0.name) \($0.legs)" }, ["Tom 3"])
        try assertFileVerifies()
    }

    func testDeleteRealmIfMigrationNeededStartsOverEmpty() throws {
        try seedPeople()
        var configuration = config(version: 2, types: [MigPersonV2.self])
        configuration.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: configuration)
        XCTAssertTrue(realm.isEmpty)
        XCTAssertEqual(realm.objects(MigPersonV2.self).count, 0)
        try realm.write { realm.create(MigPersonV2.self, value: ["fullName": "New"]) }
        XCTAssertEqual(try schemaVersionAtURL(url), 2)
        try assertFileVerifies()
    }

    func testDeleteRealmIfMigrationNeededAlsoCoversAChangedModelAtTheSameVersion() throws {
        try seedPeople(version: 0)
        var configuration = config(version: 0, types: [MigPersonV2.self])
        XCTAssertThrowsError(try Realm(configuration: configuration)) { error in
            XCTAssertTrue("\(error)".contains("Migration is required"), "\(error)")
        }
        configuration.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: configuration)
        XCTAssertEqual(realm.objects(MigPersonV2.self).count, 0)
        // Nothing to migrate: the data stays.
        try realm.write { realm.create(MigPersonV2.self, value: ["fullName": "Kept"]) }
        let again = try Realm(configuration: configuration)
        XCTAssertEqual(again.objects(MigPersonV2.self).map(\.fullName), ["Kept"])
    }

    func testAReadOnlyRealmThatNeedsAMigrationIsRefused() throws {
        try seedPeople()
        var configuration = config(version: 2, types: [MigPersonV1.self])
        configuration.readOnly = true
        XCTAssertThrowsError(try Realm(configuration: configuration)) { error in
            XCTAssertEqual((error as? Realm.Error)?.underlyingError?.code, .readOnly)
        }
    }

    func testOpeningTheSameFileWithAnotherVersionOnTheSameThreadIsRefused() throws {
        try seedPeople()
        let first = try Realm(configuration: config(version: 1, types: [MigPersonV1.self]))
        XCTAssertThrowsError(try Realm(configuration: config(version: 2, types: [MigPersonV1.self])))
        XCTAssertEqual(first.objects(MigPersonV1.self).count, 3)
    }

    func testDeleteAllKeepsTheSchemaVersion() throws {
        try seedPeople(version: 4)
        let realm = try Realm(configuration: config(version: 4, types: [MigPersonV1.self]))
        try realm.write { realm.deleteAll() }
        XCTAssertTrue(realm.isEmpty)
        XCTAssertEqual(try schemaVersionAtURL(url), 4)
    }

    func testAnEncryptedRealmRecordsItsVersionAndMigratesOnlyWithItsKey() throws {
        let key = Data(repeating: 7, count: 64)
        var first = config(version: 1, types: [MigPersonV1.self])
        first.encryptionKey = key
        do {
            let realm = try Realm(configuration: first)
            try realm.write { realm.create(MigPersonV1.self, value: ["firstName": "Ann", "nickname": "a"]) }
        }
        XCTAssertEqual(try schemaVersionAtURL(url, encryptionKey: key), 1)
        XCTAssertThrowsError(try schemaVersionAtURL(url)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .fileAccess, "\(error)")
        }

        let block: MigrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { _, new in new?["nickname"] = "migrated" }
        }
        let withoutKey = config(version: 2, types: [MigPersonV1.self], block: block)
        let before = try Data(contentsOf: url)
        XCTAssertThrowsError(try Realm.performMigration(for: withoutKey)) { error in
            XCTAssertEqual((error as? Realm.Error)?.underlyingError?.code, .encryptionKeyMismatch, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), before, "a refused open changes nothing")

        var second = withoutKey
        second.encryptionKey = key
        try Realm.performMigration(for: second)
        XCTAssertEqual(try schemaVersionAtURL(url, encryptionKey: key), 2)
        let realm = try Realm(configuration: second)
        XCTAssertEqual(realm.objects(MigPersonV1.self).map(\.nickname), ["migrated"])
    }

    func testAnEncryptionKeyOfAnotherLengthIsRefusedBeforeTheFileIsCreated() throws {
        var configuration = config(version: 0, types: [MigPersonV1.self])
        configuration.encryptionKey = Data(repeating: 7, count: 32)
        XCTAssertThrowsError(try Realm(configuration: configuration)) { error in
            XCTAssertEqual((error as? Realm.Error)?.underlyingError?.code, .misuse)
            XCTAssertTrue("\(error)".contains("64 bytes"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    }

    func testASeedFileIsCopiedOnlyWhenTheRealmHasNoFile() throws {
        try seedPeople()
        let destination = URL(fileURLWithPath: directory.file("seeded.realm"))
        var configuration = config(version: 1, types: [MigPersonV1.self])
        configuration.fileURL = destination
        configuration.seedFilePath = url
        do {
            let realm = try Realm(configuration: configuration)
            XCTAssertEqual(realm.objects(MigPersonV1.self).count, 3)
            try realm.write { realm.deleteAll() }
        }
        // The file exists now: the seed is not copied again.
        let realm = try Realm(configuration: configuration)
        XCTAssertTrue(realm.isEmpty)
        var missing = configuration
        missing.fileURL = URL(fileURLWithPath: directory.file("other.realm"))
        missing.seedFilePath = URL(fileURLWithPath: directory.file("no-such-seed.realm"))
        XCTAssertThrowsError(try Realm(configuration: missing))
    }

    func testWithoutObjectTypesAClassTheBlockNamesIsAdaptedWhenNamed() throws {
        do {
            let database = try TestDatabase(path: url.path)
            defer { database.close() }
            let txn = try database.beginWrite()
            let table = try txn.addTable("MigLazyPerson")
            let name = try txn.addColumn(table, "name", COLUMNAR_TYPE_STRING)
            _ = try txn.addColumn(table, "obsolete", COLUMNAR_TYPE_INT)
            for person in ["Ann", "Bob"] {
                try txn.set(table, try txn.createObject(table), name, .string(person))
            }
            try txn.commit()
        }
        let block: MigrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: MigLazyPerson.className()) { old, new in
                new!["greeting"] = "hi \(old!["name"] as! String)"
            }
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1,
                                                                 migrationBlock: block))
        XCTAssertEqual(realm.objects(MigLazyPerson.self).map(\.greeting), ["hi Ann", "hi Bob"])
        XCTAssertEqual(try storedColumns(of: "MigLazyPerson"), ["greeting", "name"])
        try assertFileVerifies()
    }

    func testConfigurationInitializerTakesRealmSwiftsParameters() {
        let block: MigrationBlock = { _, _ in }
        let configuration = Realm.Configuration(fileURL: url, inMemoryIdentifier: nil, encryptionKey: nil,
                                                readOnly: false, schemaVersion: 9, migrationBlock: block,
                                                deleteRealmIfMigrationNeeded: true, objectTypes: [MigPersonV1.self],
                                                seedFilePath: nil)
        // Migration's members with RealmSwift's types.
        let pin: MigrationBlock = { migration, _ in
            let _: Schema = migration.oldSchema
            let _: Schema = migration.newSchema
            let _: (String, MigrationObjectEnumerateBlock) -> Void = migration.enumerateObjects(ofType:_:)
            let _: (String, Any) -> MigrationObject = migration.create(_:value:)
            let _: (MigrationObject) -> Void = migration.delete(_:)
            let _: (String) -> Bool = migration.deleteData(forType:)
            let _: (String, String, String) -> Void = migration.renameProperty(onType:from:to:)
        }
        _ = pin
        let versionAt: (URL, Data?) throws -> UInt64 = schemaVersionAtURL(_:encryptionKey:)
        _ = versionAt
        var mutable = configuration
        mutable.encryptionKey = nil
        mutable.seedFilePath = nil
        mutable.migrationBlock = nil
        XCTAssertNil(mutable.migrationBlock)
        XCTAssertEqual(configuration.schemaVersion, 9)
        XCTAssertTrue(configuration.deleteRealmIfMigrationNeeded)
        XCTAssertNotNil(configuration.migrationBlock)
    }
}
