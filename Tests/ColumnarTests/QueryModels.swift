// Model classes of the query differential and semantics tests (prefixed QD and QS so that other test files can
// change theirs freely).
//
// QDItem has a property of every type a query can reach: each scalar type plain and optional, an optional link,
// a list of links, lists and sets of values, a map, two custom-persistable types (QDCents, QDLabel), and (on
// QDOwner) linking objects back through the link and through the list. QDOwner is the linked class; its linking
// objects let the same queries run from the other side.

import Columnar
import Foundation

final class QDOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
    @Persisted var age: Int?
    @Persisted var score = 0.0
    @Persisted var city: String?
    /// The items whose `owner` is this owner.
    @Persisted(originProperty: "owner") var items: LinkingObjects<QDItem>
    /// The items whose `friends` list holds this owner, once per occurrence.
    @Persisted(originProperty: "friends") var fans: LinkingObjects<QDItem>
}

final class QDItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var bool = false
    /// Indexed, so that equality on it compiles to IndexSeek.
    @Persisted(indexed: true) var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    /// Indexed, so that equality on a string compiles to IndexSeek.
    @Persisted(indexed: true) var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var objectId = ObjectId()
    @Persisted var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Persisted var decimal: Decimal128 = 0

    @Persisted var optBool: Bool?
    /// Indexed, so that ranges over a nullable int compile to IndexRange.
    @Persisted(indexed: true) var optInt: Int?
    @Persisted var optInt8: Int8?
    @Persisted var optInt16: Int16?
    @Persisted var optInt32: Int32?
    @Persisted var optInt64: Int64?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUUID: UUID?
    @Persisted var optDecimal: Decimal128?

    @Persisted var owner: QDOwner?
    @Persisted var friends: List<QDOwner>
    /// One of the item's own values, of a type that changes from item to item (QDItemRecord.mixed).
    @Persisted var mixed: AnyRealmValue

    @Persisted var ints: List<Int>
    @Persisted var doubles: List<Double>
    @Persisted var strings: List<String>
    @Persisted var optStrings: List<String?>
    @Persisted var dates: List<Date>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var stringSet: MutableSet<String>
    @Persisted var scores: Map<String, Int?>

    /// A CustomPersistable stored as an Int.
    @Persisted var price: QDCents
    /// A FailableCustomPersistable stored as a String; a stored "" does not convert and reads as nil.
    @Persisted var label: QDLabel?
}

/// An amount in cents, stored as an Int (every Int converts).
struct QDCents: CustomPersistable, Hashable, Comparable {
    var amount: Int
    init(_ amount: Int) { self.amount = amount }
    init(persistedValue: Int) { amount = persistedValue }
    var persistableValue: Int { amount }
    static func < (lhs: QDCents, rhs: QDCents) -> Bool { lhs.amount < rhs.amount }
}

/// A label, stored as its text; the empty text does not convert. Equal and ordered by UTF-8 bytes, as the engine
/// compares the stored strings, so that a range the typed builder is given (`lower...upper`) is one the engine
/// reads the same way ("café" precomposed and decomposed are two labels, as they are two stored strings).
struct QDLabel: FailableCustomPersistable, Hashable, Comparable {
    var text: String
    init(unchecked text: String) { self.text = text }
    init?(persistedValue: String) {
        guard !persistedValue.isEmpty else { return nil }
        text = persistedValue
    }
    var persistableValue: String { text }
    static func == (lhs: QDLabel, rhs: QDLabel) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }
    static func < (lhs: QDLabel, rhs: QDLabel) -> Bool { lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8) }
    func hash(into hasher: inout Hasher) { hasher.combine(Array(text.utf8)) }
}

/// A projection of QDItem, for the differential test's runs through projections: string predicates and sort
/// descriptors name QDItem's properties, and the projection's key paths map to them.
final class QDItemProjection: Projection<QDItem> {
    @Projected(\QDItem.id) var itemId
    @Projected(\QDItem.int) var number
    @Projected(\QDItem.string) var text
    @Projected(\QDItem.optDouble) var maybeDouble
    @Projected(\QDItem.date) var when
    @Projected(\QDItem.owner?.name) var ownerName
    @Projected(\QDItem.strings) var strings
}

// MARK: - Semantics tests

final class QSPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted(indexed: true) var age = 0
    @Persisted var height: Double?
    @Persisted var weight: Float?
    @Persisted var born: Date?
    @Persisted var salary: Decimal128?
    @Persisted var dogs: List<QSDog>
    @Persisted var dogSet: MutableSet<QSDog>
    @Persisted var scores: List<Int?>
    @Persisted var tags: MutableSet<String>
    @Persisted var prices: Map<String, Double?>
}

final class QSDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
    @Persisted var age: Int?
    @Persisted var owner: QSPerson?
    @Persisted(originProperty: "dogs") var walkers: LinkingObjects<QSPerson>
}
