// SchemaMismatchTests: a model that differs from the file's stored schema at the same schema version is never
// accepted in silence. RealmSwift throws `Realm.Error` `.schemaMismatch` with "Migration is required due to the
// following errors:" and a line per difference; Columnar does the same when it opens a Realm with `objectTypes`
// or with classes it already knows, and stops with the same text when a class first used later differs. A class
// the migration to a higher version did not know is adapted at first use (its stamp is below the file's version).
// Also `Realm.Error`'s codes for the other failures of opening (RealmSwift's `catch Realm.Error.fileNotFound`).

import CColumnar
import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class SMItemV1: Object {
    override class func _realmObjectName() -> String? { "SMItem" }
    @Persisted var name = ""
    @Persisted var count = 0
    @Persisted var note = ""
    @Persisted var tag = ""
    @Persisted var list: List<Int>
}

/// SMItemV1 with one difference of each kind.
final class SMItemV2: Object {
    override class func _realmObjectName() -> String? { "SMItem" }
    @Persisted(primaryKey: true) var name = ""   // primary key added
    @Persisted var count = ""                     // int -> string
    @Persisted var note: String?                  // made optional
    @Persisted var label = ""                     // added
    @Persisted var list: MutableSet<Int>          // array<int> -> set<int>
    // tag removed
}

/// SMItemV1 with `tag` renamed: RealmSwift reports a rename as a removal and an addition.
final class SMItemRenamed: Object {
    override class func _realmObjectName() -> String? { "SMItem" }
    @Persisted var name = ""
    @Persisted var count = 0
    @Persisted var note = ""
    @Persisted var label = ""
    @Persisted var list: List<Int>
}

final class SMBirdV1: Object {
    override class func _realmObjectName() -> String? { "SMBird" }
    @Persisted var name = ""
    @Persisted var obsolete = 0
}

final class SMBirdV2: Object {
    override class func _realmObjectName() -> String? { "SMBird" }
    @Persisted var name = ""
    @Persisted var color = "grey"
}

final class SMBirdV3: Object {
    override class func _realmObjectName() -> String? { "SMBird" }
    @Persisted var name = ""
    @Persisted var color = "grey"
    @Persisted var wings = 2
}

final class SMNest: Object {
    @Persisted var size = 0
}

/// Used in this process before a file whose SMKnown table differs is opened without objectTypes.
final class SMKnown: Object {
    @Persisted var name = ""
    @Persisted var weight = 0.0
}

final class SchemaMismatchTests: RealmTestCase {
    private static let runner = "ColumnarTests.SchemaMismatchTests/testRunDeathCase"
    private var url: URL { configuration.fileURL! }

    private func config(_ version: UInt64, _ types: [ObjectBase.Type]?, deleteIfNeeded: Bool = false)
        -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: version, deleteRealmIfMigrationNeeded: deleteIfNeeded,
                            objectTypes: types)
    }

    private func seedItems(version: UInt64) throws {
        let realm = try Realm(configuration: config(version, [SMItemV1.self]))
        try realm.write {
            for name in ["a", "b"] {
                realm.create(SMItemV1.self, value: ["name": name, "count": 1, "note": "n", "tag": "t", "list": [1, 2]])
            }
        }
    }

    /// RealmSwift: opening with a changed model at the same schema version throws `.schemaMismatch`, naming each
    /// difference, and leaves the file as it was.
    func testEveryKindOfDifferenceAtTheSameVersionIsThrownAsASchemaMismatch() throws {
        try seedItems(version: 1)
        do {
            _ = try Realm(configuration: config(1, [SMItemV2.self]))
            XCTFail("opened with a changed model")
        } catch let error as Realm.Error where error.code == .schemaMismatch {
            XCTAssertTrue(error.message.hasPrefix("""
                Migration is required due to the following errors:
                - Property 'SMItem.count' has been changed from 'int' to 'string'.
                - Property 'SMItem.note' has been made optional.
                - Property 'SMItem.label' has been added.
                - Property 'SMItem.list' has been changed from 'array<int>' to 'set<int>'.
                - Property 'SMItem.tag' has been removed.
                - Primary Key for class 'SMItem' has been added.
                """), error.message)
            XCTAssertTrue(error.message.contains("raise the configuration's schemaVersion"), error.message)
            XCTAssertEqual(error.fileURL, url)
        }
        // A rename is a removal and an addition; the pattern form of catch works as in RealmSwift.
        do {
            _ = try Realm(configuration: config(1, [SMItemRenamed.self]))
            XCTFail("opened with a renamed property")
        } catch Realm.Error.schemaMismatch {
        } catch {
            XCTFail("\(error)")
        }
        // Nothing changed: the first model still opens the same data at the same version.
        XCTAssertEqual(try schemaVersionAtURL(url), 1)
        let realm = try Realm(configuration: config(1, [SMItemV1.self]))
        XCTAssertEqual(realm.objects(SMItemV1.self).map(\.tag), ["t", "t"])
        XCTAssertEqual(Array(realm.objects(SMItemV1.self).first!.list), [1, 2])
    }

    /// RealmSwift: the same change with a raised schema version migrates, and deleteRealmIfMigrationNeeded starts
    /// over instead of throwing.
    func testRaisingTheVersionOrDeletingIfNeededOpensTheChangedModel() throws {
        try seedItems(version: 1)
        let migrated = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
            migration.enumerateObjects(ofType: "SMItem") { _, new in new!["label"] = "migrated" }
        }, objectTypes: [SMItemRenamed.self]))
        XCTAssertEqual(migrated.objects(SMItemRenamed.self).map(\.label), ["migrated", "migrated"])

        let other = URL(fileURLWithPath: directory.file("other.realm"))
        do {
            let first = try Realm(configuration: Realm.Configuration(fileURL: other, schemaVersion: 3,
                                                                     objectTypes: [SMItemV1.self]))
            try first.write { first.create(SMItemV1.self, value: ["name": "x"]) }
        }
        let again = try Realm(configuration: Realm.Configuration(fileURL: other, schemaVersion: 3,
                                                                 deleteRealmIfMigrationNeeded: true,
                                                                 objectTypes: [SMItemRenamed.self]))
        XCTAssertEqual(again.objects(SMItemRenamed.self).count, 0)
    }

    /// Columnar learns classes as they are used: a class the migration to a higher version did not know is
    /// adapted when first used (properties added and removed, as the migration would have), and is stamped, so
    /// a later change to it without raising the version is a mismatch again.
    func testAClassTheMigrationDidNotKnowIsAdaptedOnceAtFirstUse() throws {
        do {
            let realm = try Realm(configuration: config(1, [SMBirdV1.self, SMNest.self]))
            try realm.write {
                realm.create(SMBirdV1.self, value: ["name": "robin", "obsolete": 9])
                realm.create(SMNest.self, value: ["size": 3])
            }
        }
        // Raised to 2 knowing only SMNest.
        _ = try Realm(configuration: config(2, [SMNest.self]))
        do {
            let realm = try Realm(configuration: config(2, nil))
            XCTAssertEqual(realm.objects(SMBirdV2.self).map(\.name), ["robin"])
            // As in a migration, a property added to the model starts at its type's zero value in stored objects.
            XCTAssertEqual(realm.objects(SMBirdV2.self).map(\.color), [""])
        }
        XCTAssertThrowsError(try Realm(configuration: config(2, [SMBirdV3.self]))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .schemaMismatch)
            XCTAssertTrue("\(error)".contains("- Property 'SMBird.wings' has been added."), "\(error)")
        }
        // The adapted file verifies (the removed column is gone, the added one filled with its default).
        let database = try TestDatabase(path: url.path, flags: .readOnly)
        defer { database.close() }
        let report = try database.beginRead().verify()
        XCTAssertTrue(report.isSound, "\(report)")
    }

    /// A class first used after opening, whose table differs at the file's version, stops the program with
    /// RealmSwift's text (the call that first uses it cannot throw).
    func testAClassFirstUsedLaterWithAChangedModelStops() throws {
        assertStops("changed model used later", runnerTest: Self.runner,
                    message: "Migration is required due to the following errors:\n- Property 'SMBird.wings' has been added.")
    }

    func testRunDeathCase() throws {
        guard currentDeathCase == "changed model used later" else { return }
        do {
            let realm = try Realm(configuration: config(0, [SMBirdV2.self]))
            try realm.write { realm.create(SMBirdV2.self, value: ["name": "wren"]) }
        }
        let later = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: nil))
        _ = later.objects(SMBirdV3.self).count
    }

    /// Opening without objectTypes compares the classes this process already knows with the file at once.
    func testClassesAlreadyKnownAreComparedWhenARealmOpensWithoutObjectTypes() throws {
        let known = URL(fileURLWithPath: directory.file("known.realm"))
        let realm = try Realm(configuration: Realm.Configuration(fileURL: known, objectTypes: [SMKnown.self]))
        try realm.write { realm.create(SMKnown.self, value: ["name": "k", "weight": 1.5]) }
        do {
            let database = try TestDatabase(path: url.path)
            defer { database.close() }
            let txn = try database.beginWrite()
            let table = try txn.addTable("SMKnown")
            _ = try txn.addColumn(table, "name", COLUMNAR_TYPE_STRING)
            _ = try txn.addColumn(table, "weight", COLUMNAR_TYPE_INT)
            try txn.commit()
        }
        XCTAssertThrowsError(try Realm(configuration: config(0, nil))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .schemaMismatch)
            XCTAssertTrue("\(error)".contains("- Property 'SMKnown.weight' has been changed from 'int' to 'double'."),
                          "\(error)")
        }
    }

    // MARK: Realm.Error

    /// RealmSwift's `Realm.Error` codes for failures of opening, with the engine's error beneath.
    func testOpeningFailuresThrowRealmErrorsWithRealmSwiftsCodes() throws {
        var readOnly = config(0, [SMNest.self])
        readOnly.fileURL = URL(fileURLWithPath: directory.file("missing.realm"))
        readOnly.readOnly = true
        do {
            _ = try Realm(configuration: readOnly)
            XCTFail("opened a missing file read-only")
        } catch Realm.Error.fileNotFound {
        } catch {
            XCTFail("\(error)")
        }
        XCTAssertThrowsError(try schemaVersionAtURL(readOnly.fileURL!)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .fileNotFound)
            XCTAssertEqual((error as? Realm.Error)?.underlyingError?.code, .io(errno: ENOENT))
        }

        let garbage = URL(fileURLWithPath: directory.file("garbage.realm"))
        try Data(repeating: 0x5A, count: 8192).write(to: garbage)
        var garbageConfiguration = config(0, [SMNest.self])
        garbageConfiguration.fileURL = garbage
        XCTAssertThrowsError(try Realm(configuration: garbageConfiguration)) { error in
            guard let error = error as? Realm.Error else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .invalidDatabase)
            XCTAssertEqual(error.underlyingError?.code, .notADatabase)
            XCTAssertEqual(error.localizedDescription, error.message)
        }

        try seedItems(version: 4)
        XCTAssertThrowsError(try Realm(configuration: config(3, [SMItemV1.self]))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .schemaMismatch)
        }
        XCTAssertEqual(Realm.Error.Code.schemaMismatch.rawValue, 10)
        XCTAssertEqual(Realm.Error.fileNotFound, .fileNotFound)

        // An error thrown by the write block itself is rethrown as it is.
        struct Refused: Swift.Error {}
        let realm = try Realm(configuration: config(4, [SMItemV1.self]))
        XCTAssertThrowsError(try realm.write { throw Refused() }) { error in XCTAssertTrue(error is Refused) }
    }
}
