// UnknownEnumValueTests: an optional enum property whose stored raw value names no case of the enum (a file
// written by a newer version of it) reads as nil, as in RealmSwift, in a property and in a list of optionals.

import Columnar
import Foundation
import XCTest

enum EnumReadKindV1: String, PersistableEnum { case a, b }
enum EnumReadKindV2: String, PersistableEnum { case a, b, c }

final class EnumReadHolderV2: Object {
    override class func _realmObjectName() -> String? { "EnumReadHolder" }
    @Persisted var kind: EnumReadKindV2?
    @Persisted var kinds: List<EnumReadKindV2?>
}

final class EnumReadHolderV1: Object {
    override class func _realmObjectName() -> String? { "EnumReadHolder" }
    @Persisted var kind: EnumReadKindV1?
    @Persisted var kinds: List<EnumReadKindV1?>
}

final class UnknownEnumValueTests: RealmTestCase {
    /// RealmSwift: an optional enum property whose stored raw value names no case (written by a newer enum)
    /// reads as nil, in a property and in a list, instead of stopping the program.
    func testAnOptionalEnumWithAnUnknownRawValueReadsAsNil() throws {
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: configuration.fileURL,
                                                                     objectTypes: [EnumReadHolderV2.self]))
            try realm.write {
                let holder = realm.create(EnumReadHolderV2.self, value: ["kind": EnumReadKindV2.c])
                holder.kinds.append(objectsIn: [.a, .c, nil])
            }
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: configuration.fileURL,
                                                                 objectTypes: [EnumReadHolderV1.self]))
        let holder = realm.objects(EnumReadHolderV1.self).first!
        XCTAssertNil(holder.kind)
        XCTAssertEqual(Array(holder.kinds), [.a, nil, nil])
    }
}
