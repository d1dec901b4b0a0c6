// RealmCompactionTests: RealmSwift's `shouldCompactOnLaunch` and `writeCopy`, and Columnar's `Realm.compact`, on a
// Realm: the file shrinks after large deletes and keeps every object, link and list; compaction never runs under an
// open Realm; a copy opens as a Realm with what the Realm saw when it was taken.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class RealmCompactionTests: RealmTestCase {

    private func fileSize(_ configuration: Realm.Configuration) throws -> Int {
        Int(try fileSizeBytes(atPath: configuration.fileURL!.path))
    }

    /// 2,000 pets with owners and toys; all but every tenth deleted. Returns the ids kept.
    private func fillAndThin() throws -> [Int] {
        try scoped {
            let realm = try openRealm()
            try realm.write {
                for id in 0..<2_000 {
                    let pet = Pet(value: ["id": id, "name": "pet \(id)", "age": id % 17])
                    pet.owner = Owner(value: ["name": "owner \(id)"])
                    pet.toys.append(objectsIn: (0..<3).map { Toy(value: ["brand": "toy \(id)-\($0)", "price": 1.5]) })
                    realm.add(pet)
                }
            }
            try realm.write { realm.delete(realm.objects(Pet.self).filter { $0.id % 10 != 0 }) }
        }
        return Array(stride(from: 0, to: 2_000, by: 10))
    }

    private func checkPets(_ realm: Realm, ids: [Int], file: StaticString = #filePath, line: UInt = #line) {
        let pets = realm.objects(Pet.self).sorted(byKeyPath: "id")
        XCTAssertEqual(pets.map(\.id), ids, file: file, line: line)
        for pet in pets {
            XCTAssertEqual(pet.name, "pet \(pet.id)", file: file, line: line)
            XCTAssertEqual(pet.owner?.name, "owner \(pet.id)", file: file, line: line)
            XCTAssertEqual(Array(pet.toys.map(\.brand)), (0..<3).map { "toy \(pet.id)-\($0)" }, file: file, line: line)
        }
        XCTAssertEqual(realm.object(ofType: Pet.self, forPrimaryKey: 1_230)?.name, "pet 1230", file: file, line: line)
        XCTAssertEqual(realm.objects(Pet.self).filter("age == 5").count, ids.filter { $0 % 17 == 5 }.count,
                       "the index on age", file: file, line: line)
    }

    func testShouldCompactOnLaunchIsAskedWithTheSizesAndShrinksTheFile() throws {
        let ids = try fillAndThin()
        let before = try fileSize(configuration)
        var asked: [(total: Int, used: Int)] = []
        var compacting = configuration!
        compacting.shouldCompactOnLaunch = { total, used in
            asked.append((total, used))
            return true
        }
        try scoped {
            let realm = try Realm(configuration: compacting)
            XCTAssertEqual(asked.count, 1)
            XCTAssertEqual(asked.first?.total, before)
            XCTAssertLessThan(asked.first?.used ?? .max, before)
            XCTAssertLessThan(try fileSize(configuration), before, "compacted")
            checkPets(realm, ids: ids)
            // Open in this process now: a second configuration asking to compact is not asked.
            let again = try Realm(configuration: compacting)
            XCTAssertEqual(asked.count, 1, "not while the file is open")
            XCTAssertEqual(again.objects(Pet.self).count, ids.count)
        }
        try scoped {
            let realm = try openRealm()
            try realm.write { realm.add(Pet(value: ["id": 5_000, "name": "new"])) }
            XCTAssertEqual(realm.objects(Pet.self).count, ids.count + 1, "the compacted file takes writes")
        }
    }

    func testAShouldCompactOnLaunchThatDeclinesLeavesTheFileAlone() throws {
        let ids = try fillAndThin()
        let original = try Data(contentsOf: configuration.fileURL!)
        var declining = configuration!
        declining.shouldCompactOnLaunch = { _, _ in false }
        try scoped {
            let realm = try Realm(configuration: declining)
            checkPets(realm, ids: ids)
        }
        XCTAssertEqual(try Data(contentsOf: configuration.fileURL!), original)
        var readOnly = declining
        readOnly.readOnly = true
        XCTAssertThrowsError(try Realm(configuration: readOnly)) { error in
            XCTAssertTrue("\(error)".contains("readOnly"), "\(error)")
        }
    }

    func testCompactIsRefusedWhileOpenAndCompactsOnceClosed() throws {
        let ids = try fillAndThin()
        let before = try fileSize(configuration)
        try scoped {
            let realm = try openRealm()
            XCTAssertFalse(try Realm.compact(configuration: configuration), "open here")
            XCTAssertEqual(realm.objects(Pet.self).count, ids.count)
        }
        XCTAssertTrue(try Realm.compact(configuration: configuration))
        XCTAssertLessThan(try fileSize(configuration), before)
        try scoped { checkPets(try openRealm(), ids: ids) }
        var missing = configuration!
        missing.fileURL = URL(fileURLWithPath: directory.file("missing.realm"))
        XCTAssertThrowsError(try Realm.compact(configuration: missing)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .fileNotFound, "\(error)")
        }
    }

    func testWriteCopyGivesARealmWithWhatTheRealmSaw() throws {
        let ids = try fillAndThin()
        let copyURL = URL(fileURLWithPath: directory.file("copy.realm"))
        try scoped {
            let realm = try openRealm()
            try realm.writeCopy(toFile: copyURL)
            try realm.writeCopy(toFile: URL(fileURLWithPath: directory.file("key.realm")),
                                encryptionKey: Data(repeating: 3, count: 64))
            try realm.write { realm.add(Pet(value: ["id": 9_999, "name": "after the copy"])) }
            XCTAssertThrowsError(try realm.writeCopy(toFile: copyURL)) { error in
                XCTAssertEqual((error as? Realm.Error)?.code, .fileExists, "\(error)")
            }
            realm.beginWrite()
            XCTAssertThrowsError(try realm.writeCopy(toFile: URL(fileURLWithPath: directory.file("in-write.realm"))))
            realm.cancelWrite()
            XCTAssertThrowsError(try realm.writeCopy(toFile: URL(fileURLWithPath: directory.file("short-key.realm")),
                                                     encryptionKey: Data(count: 63)))
            let frozen = realm.freeze()
            try frozen.writeCopy(configuration: Realm.Configuration(
                fileURL: URL(fileURLWithPath: directory.file("frozen-copy.realm"))))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("in-write.realm")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("short-key.realm")))
        try scoped {
            let copy = try Realm(configuration: Realm.Configuration(fileURL: copyURL))
            checkPets(copy, ids: ids)
            XCTAssertNil(copy.object(ofType: Pet.self, forPrimaryKey: 9_999), "made after the copy")
            let frozenCopy = try Realm(fileURL: URL(fileURLWithPath: directory.file("frozen-copy.realm")))
            XCTAssertEqual(frozenCopy.object(ofType: Pet.self, forPrimaryKey: 9_999)?.name, "after the copy")
            let encryptedCopy = try Realm(configuration: Realm.Configuration(
                fileURL: URL(fileURLWithPath: directory.file("key.realm")), encryptionKey: Data(repeating: 3, count: 64)))
            checkPets(encryptedCopy, ids: ids)
        }
    }
}
