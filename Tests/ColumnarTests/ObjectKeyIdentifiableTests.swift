// ObjectKeyIdentifiableTests: RealmSwift's ObjectKeyIdentifiable: every instance of one stored object has the same
// `id` (whatever thread or version read it), different stored objects have different ids, and an unmanaged object
// has an id of its own.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class IdentifiedNote: Object, ObjectKeyIdentifiable {
    @Persisted var text = ""
}

final class ObjectKeyIdentifiableTests: RealmTestCase {
    func testInstancesOfOneStoredObjectShareAnIdAndOthersDiffer() throws {
        let realm = try openRealm()
        let unmanaged = IdentifiedNote()
        let other = IdentifiedNote()
        XCTAssertNotEqual(unmanaged.id, other.id, "two unmanaged objects")
        XCTAssertEqual(unmanaged.id, unmanaged.id)
        try realm.write {
            realm.add(unmanaged)
            for index in 0 ..< 100 { realm.create(IdentifiedNote.self, value: ["text": "note \(index)"]) }
        }
        let notes = realm.objects(IdentifiedNote.self)
        XCTAssertEqual(Set(notes.map(\.id)).count, 101, "each stored object has its own id")
        let first = try XCTUnwrap(notes.first)
        XCTAssertEqual(notes.first?.id, first.id, "another instance of the same object")
        XCTAssertEqual(first.freeze().id, first.id, "its frozen instance")
        let configuration = self.configuration!
        let reference = ThreadSafeReference(to: first)
        let idElsewhere = try DispatchQueue(label: "elsewhere").sync {
            let queue = DispatchQueue(label: "queue")
            return try queue.sync {
                let elsewhere = try Realm(configuration: configuration, queue: queue)
                return elsewhere.resolve(reference)?.id
            }
        }
        XCTAssertEqual(idElsewhere, first.id, "the same object read on another queue")
        // Identifiable, as list UIs need.
        func identities<T: Identifiable>(_ items: [T]) -> [T.ID] { items.map(\.id) }
        XCTAssertEqual(identities(Array(notes.prefix(2))), Array(notes.prefix(2)).map(\.id))
    }
}
