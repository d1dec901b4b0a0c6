// RealmEncryptionTests: `Realm.Configuration.encryptionKey` (docs/Encryption.md). An encrypted Realm's file holds
// none of its strings in the clear and reads back whole with its key; the wrong key, no key, or a key for a plain
// file is refused and leaves the file as it was; a key of another length is refused before anything is touched;
// writeCopy encrypts the copy with the key it is given; schemaVersionAtURL and compaction take the key.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class RealmEncryptionTests: RealmTestCase {
    private let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
    private let otherKey = Data(repeating: 0x5A, count: 64)

    private var url: URL { configuration.fileURL! }

    private var encrypted: Realm.Configuration {
        var encrypted = configuration!
        encrypted.encryptionKey = key
        return encrypted
    }

    private func config(_ fileURL: URL, key: Data?) -> Realm.Configuration {
        Realm.Configuration(fileURL: fileURL, encryptionKey: key)
    }

    /// Names long and odd enough that finding one in ciphertext by chance is impossible.
    private let names = (0..<300).map { "encrypted-realm-name-\($0)-quartz-lantern" }

    /// Dogs named `names`, one owner holding them all, written in a few commits.
    private func fill(_ configuration: Realm.Configuration) throws {
        try scoped {
            let realm = try Realm(configuration: configuration)
            for chunk in stride(from: 0, to: names.count, by: 100) {
                try realm.write {
                    for index in chunk..<chunk + 100 {
                        realm.add(Dog(value: ["name": names[index], "age": index]))
                    }
                }
            }
            try realm.write {
                let owner = Person(value: ["name": "owner-of-every-encrypted-dog"])
                owner.dogs.append(objectsIn: realm.objects(Dog.self).sorted(byKeyPath: "age"))
                realm.add(owner)
            }
        }
    }

    private func checkContents(_ realm: Realm, file: StaticString = #filePath, line: UInt = #line) {
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "age")
        XCTAssertEqual(dogs.map(\.name), names, file: file, line: line)
        XCTAssertEqual(realm.objects(Dog.self).filter("name == %@", names[123]).first?.age, 123, file: file, line: line)
        let owner = realm.objects(Person.self).first
        XCTAssertEqual(owner?.name, "owner-of-every-encrypted-dog", file: file, line: line)
        XCTAssertEqual(owner?.dogs.count, names.count, file: file, line: line)
    }

    private func assertHoldsNoneOfTheStrings(_ fileURL: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try Data(contentsOf: fileURL)
        for string in names + ["owner-of-every-encrypted-dog", "quartz-lantern"] {
            XCTAssertNil(bytes.range(of: Data(string.utf8)), "\"\(string)\" is in the file in the clear",
                         file: file, line: line)
        }
    }

    /// The error a refused key gives: RealmSwift's code and words, the engine's code and message beneath.
    private func assertKeyMismatch(_ error: Error, file: StaticString = #filePath, line: UInt = #line) {
        guard let error = error as? Realm.Error else {
            return XCTFail("not a Realm.Error: \(error)", file: file, line: line)
        }
        XCTAssertEqual(error.code, .fileAccess, "\(error)", file: file, line: line)
        XCTAssertEqual(error.underlyingError?.code, .encryptionKeyMismatch, "\(error)", file: file, line: line)
        XCTAssertTrue(error.message.contains("Realm file decryption failed"), error.message, file: file, line: line)
        XCTAssertTrue(error.message.contains("key"), error.message, file: file, line: line)
    }

    private func assertKeyLengthRefused(_ error: Error, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual((error as? Realm.Error)?.underlyingError?.code, .misuse, "\(error)", file: file, line: line)
        XCTAssertTrue("\(error)".contains("exactly 64 bytes"), "\(error)", file: file, line: line)
    }

    func testAnEncryptedRealmHoldsNoneOfItsStringsInTheClearAndReadsThemBackWithItsKey() throws {
        try fill(encrypted)
        try assertHoldsNoneOfTheStrings(url)
        try scoped { checkContents(try Realm(configuration: encrypted)) }

        // A plain Realm with the same objects does hold them in the clear: the check above can fail.
        let plainURL = URL(fileURLWithPath: directory.file("plain.realm"))
        try fill(config(plainURL, key: nil))
        XCTAssertNotNil(try Data(contentsOf: plainURL).range(of: Data(names[0].utf8)))
    }

    func testTheWrongKeyNoKeyOrAKeyForAPlainFileIsRefusedAndChangesNothing() throws {
        try fill(encrypted)
        let before = try Data(contentsOf: url)
        for wrong in [config(url, key: otherKey), config(url, key: nil)] {
            XCTAssertThrowsError(try Realm(configuration: wrong)) { assertKeyMismatch($0) }
            XCTAssertEqual(try Data(contentsOf: url), before)
        }

        let plainURL = URL(fileURLWithPath: directory.file("plain.realm"))
        try fill(config(plainURL, key: nil))
        let plainBefore = try Data(contentsOf: plainURL)
        XCTAssertThrowsError(try Realm(configuration: config(plainURL, key: key))) { assertKeyMismatch($0) }
        XCTAssertEqual(try Data(contentsOf: plainURL), plainBefore)

        try scoped { checkContents(try Realm(configuration: encrypted)) }
        try scoped { checkContents(try Realm(configuration: config(plainURL, key: nil))) }
    }

    func testAFileOpenInTheProcessIsNotSharedWithAnotherKey() throws {
        try fill(encrypted)
        try scoped {
            let realm = try Realm(configuration: encrypted)
            // The same thread (its cached Realm) and another thread (the process's open file).
            XCTAssertThrowsError(try Realm(configuration: config(url, key: otherKey))) { assertKeyMismatch($0) }
            XCTAssertThrowsError(try Realm(configuration: config(url, key: nil))) { assertKeyMismatch($0) }
            let otherThread = DispatchQueue(label: "other thread")
            let error: Error? = otherThread.sync {
                do {
                    _ = try Realm(configuration: config(url, key: nil))
                    return nil
                } catch {
                    return error
                }
            }
            XCTAssertNotNil(error)
            if let error { assertKeyMismatch(error) }
            XCTAssertNoThrow(try otherThread.sync { _ = try Realm(configuration: encrypted) })
            checkContents(realm)
        }
    }

    func testAKeyOfAnotherLengthIsRefusedBeforeAnythingIsTouched() throws {
        for length in [0, 32, 63, 65, 128] {
            var configuration = self.configuration!
            configuration.encryptionKey = Data(repeating: 1, count: length)
            XCTAssertThrowsError(try Realm(configuration: configuration)) { assertKeyLengthRefused($0) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), "no file created for \(length) bytes")
        }
        try fill(encrypted)
        let short = Data(key.prefix(63))
        let copyURL = URL(fileURLWithPath: directory.file("copy.realm"))
        try scoped {
            let realm = try Realm(configuration: encrypted)
            XCTAssertThrowsError(try realm.writeCopy(toFile: copyURL, encryptionKey: short)) {
                assertKeyLengthRefused($0)
            }
            // With the Realm open, a configuration with a short key is refused for its length, not its mismatch.
            XCTAssertThrowsError(try Realm(configuration: config(url, key: short))) { assertKeyLengthRefused($0) }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: copyURL.path))

        let before = try Data(contentsOf: url)
        XCTAssertThrowsError(try Realm(configuration: config(url, key: short))) { assertKeyLengthRefused($0) }
        XCTAssertThrowsError(try schemaVersionAtURL(url, encryptionKey: short)) { assertKeyLengthRefused($0) }
        XCTAssertThrowsError(try Realm.compact(configuration: config(url, key: short))) {
            assertKeyLengthRefused($0)
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
    }

    func testAnInMemoryRealmWithAKeyIsRefused() throws {
        let inMemory = Realm.Configuration(inMemoryIdentifier: "encrypted-in-memory-\(UUID())", encryptionKey: key)
        XCTAssertThrowsError(try Realm(configuration: inMemory)) { error in
            XCTAssertEqual((error as? Realm.Error)?.underlyingError?.code, .misuse, "\(error)")
            XCTAssertTrue("\(error)".contains("in-memory"), "\(error)")
        }
        // Not even when a Realm of that identifier is open without a key.
        var plain = inMemory
        plain.encryptionKey = nil
        let open = try Realm(configuration: plain)
        XCTAssertThrowsError(try Realm(configuration: inMemory)) { error in
            XCTAssertEqual((error as? Realm.Error)?.underlyingError?.code, .misuse, "\(error)")
        }
        XCTAssertTrue(open.isEmpty)
    }

    func testWriteCopyEncryptsTheCopyWithTheKeyItIsGivenOrWritesAPlainOne() throws {
        try fill(encrypted)
        let rekeyed = URL(fileURLWithPath: directory.file("rekeyed.realm"))
        let decrypted = URL(fileURLWithPath: directory.file("decrypted.realm"))
        let sameKey = URL(fileURLWithPath: directory.file("same-key.realm"))
        try scoped {
            let realm = try Realm(configuration: encrypted)
            try realm.writeCopy(toFile: rekeyed, encryptionKey: otherKey)
            try realm.writeCopy(toFile: decrypted)
            try realm.writeCopy(configuration: config(sameKey, key: key))
        }
        try assertHoldsNoneOfTheStrings(rekeyed)
        try assertHoldsNoneOfTheStrings(sameKey)
        XCTAssertNotNil(try Data(contentsOf: decrypted).range(of: Data(names[0].utf8)), "a plain copy")
        for (copy, copyKey) in [(rekeyed, otherKey), (decrypted, nil), (sameKey, key)] {
            for wrong in [key, otherKey, nil] where wrong != copyKey {
                XCTAssertThrowsError(try Realm(configuration: config(copy, key: wrong)),
                                     "\(copy.lastPathComponent) opened with the wrong key") { assertKeyMismatch($0) }
            }
            try scoped { checkContents(try Realm(configuration: config(copy, key: copyKey))) }
        }

        // And a plain Realm's copy is encrypted when given a key.
        let encryptedCopy = URL(fileURLWithPath: directory.file("encrypted-copy.realm"))
        try scoped {
            try Realm(configuration: config(decrypted, key: nil)).writeCopy(toFile: encryptedCopy,
                                                                                 encryptionKey: key)
        }
        try assertHoldsNoneOfTheStrings(encryptedCopy)
        try scoped { checkContents(try Realm(configuration: config(encryptedCopy, key: key))) }
    }

    func testSchemaVersionAtURLReadsAnEncryptedFileOnlyWithItsKey() throws {
        var versioned = encrypted
        versioned.schemaVersion = 5
        try fill(versioned)
        XCTAssertEqual(try schemaVersionAtURL(url, encryptionKey: key), 5)
        XCTAssertThrowsError(try schemaVersionAtURL(url)) { assertKeyMismatch($0) }
        XCTAssertThrowsError(try schemaVersionAtURL(url, encryptionKey: otherKey)) { assertKeyMismatch($0) }
    }

    func testCompactingAnEncryptedFileKeepsItEncryptedAndKeepsItsData() throws {
        try fill(encrypted)
        try scoped {
            let realm = try Realm(configuration: encrypted)
            try realm.write { realm.delete(realm.objects(Dog.self).filter("age >= 100")) }
        }
        let before = try Data(contentsOf: url)
        XCTAssertThrowsError(try Realm.compact(configuration: config(url, key: nil))) { assertKeyMismatch($0) }
        XCTAssertThrowsError(try Realm.compact(configuration: config(url, key: otherKey))) {
            assertKeyMismatch($0)
        }
        XCTAssertEqual(try Data(contentsOf: url), before, "a refused compaction changes nothing")

        XCTAssertTrue(try Realm.compact(configuration: encrypted))
        XCTAssertNotEqual(try Data(contentsOf: url), before, "the file was rewritten")
        try assertHoldsNoneOfTheStrings(url)
        let kept = Array(names.prefix(100))
        try scoped {
            let realm = try Realm(configuration: encrypted)
            XCTAssertEqual(realm.objects(Dog.self).sorted(byKeyPath: "age").map(\.name), kept)
            XCTAssertEqual(realm.objects(Person.self).first?.dogs.count, kept.count)
            try realm.write { realm.add(Dog(value: ["name": "after-compaction", "age": 1_000])) }
        }

        var asked = 0
        var onLaunch = encrypted
        onLaunch.shouldCompactOnLaunch = { _, _ in
            asked += 1
            return true
        }
        try scoped {
            let realm = try Realm(configuration: onLaunch)
            XCTAssertEqual(asked, 1)
            XCTAssertEqual(realm.objects(Dog.self).count, kept.count + 1)
        }
        try assertHoldsNoneOfTheStrings(url)
        XCTAssertThrowsError(try Realm(configuration: config(url, key: nil))) { assertKeyMismatch($0) }
    }
}
