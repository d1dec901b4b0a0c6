// FileManagementTests: RealmSwift's file management on a Realm — `fileExists(for:)`, `deleteFiles(for:)` (refused
// while any Realm has the file open, the lock file deleted too) and `performMigration(for:)`.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class FileManagementTests: RealmTestCase {
    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func testDeleteFilesIsRefusedWhileOpenAndThenRemovesTheFileAndItsLockFile() throws {
        let path = configuration.fileURL!.path
        XCTAssertFalse(Realm.fileExists(for: configuration))
        XCTAssertFalse(try Realm.deleteFiles(for: configuration), "nothing to delete yet")
        try {
            let realm = try openRealm()
            try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
            XCTAssertTrue(Realm.fileExists(for: configuration))
            XCTAssertThrowsError(try Realm.deleteFiles(for: configuration)) { error in
                XCTAssertEqual((error as? Realm.Error)?.code, .alreadyOpen, "\(error)")
            }
            XCTAssertEqual(realm.objects(Dog.self).count, 1, "the open Realm is untouched")
            // Open on another thread too: still refused.
            let configuration = self.configuration!
            let refused = expectation(description: "refused from another thread")
            Thread {
                if (try? Realm.deleteFiles(for: configuration)) == nil { refused.fulfill() }
            }.start()
            wait(for: [refused], timeout: 10)
        }()
        XCTAssertTrue(try Realm.deleteFiles(for: configuration))
        XCTAssertFalse(Realm.fileExists(for: configuration))
        XCTAssertFalse(exists(path))
        XCTAssertFalse(exists(path + ".lock"))
        XCTAssertEqual(try openRealm().objects(Dog.self).count, 0, "a new, empty Realm")
    }

    func testInMemoryConfigurationsHaveNoFiles() throws {
        let inMemory = Realm.Configuration(inMemoryIdentifier: "file-management")
        let realm = try Realm(configuration: inMemory)
        try realm.write { realm.add(Dog()) }
        XCTAssertFalse(Realm.fileExists(for: inMemory))
        XCTAssertFalse(try Realm.deleteFiles(for: inMemory))
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testPerformMigrationRunsTheMigrationWithoutKeepingTheRealmOpen() throws {
        let url = configuration.fileURL!
        try {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1,
                                                                     objectTypes: [Dog.self]))
            try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
        }()
        let calls = Locked(0)
        let migrating = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, old in
            calls.withLock { $0 += 1 }
            XCTAssertEqual(old, 1)
            migration.enumerateObjects(ofType: "Dog") { _, new in new?["age"] = 4 }
        }, objectTypes: [Dog.self])
        try Realm.performMigration(for: migrating)
        XCTAssertEqual(calls.value, 1)
        XCTAssertEqual(try schemaVersionAtURL(url), 2)
        XCTAssertTrue(try Realm.deleteFiles(for: migrating), "performMigration left the file closed")
        try Realm.performMigration(for: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [Dog.self]))
        try { () throws -> Void in
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1,
                                                                     objectTypes: [Dog.self]))
            try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
        }()
        try Realm.performMigration(for: migrating)
        XCTAssertEqual(calls.value, 2)
        let realm = try Realm(configuration: migrating)
        XCTAssertEqual(realm.objects(Dog.self).first?.age, 4)
        XCTAssertEqual(calls.value, 2, "opening again does not migrate again")
    }
}
