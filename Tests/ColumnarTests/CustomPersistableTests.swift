// CustomPersistableTests: RealmSwift's CustomPersistable and FailableCustomPersistable. A custom type is stored as
// its persisted value (a property, list, set and map element), reads back through `init(persistedValue:)` after a
// reopen, reads as nil where a failable conversion fails in an optional place, and takes part in queries (both
// front ends, `persistableValue`) and sorts through its persisted value.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

/// Money in cents, stored as an Int (every Int converts).
struct Cents: CustomPersistable, Hashable {
    var amount: Int
    init(_ amount: Int) { self.amount = amount }
    init(persistedValue: Int) { amount = persistedValue }
    var persistableValue: Int { amount }
}

/// A link stored as its text; text that is not an http(s) link does not convert.
struct WebLink: FailableCustomPersistable, Hashable {
    var text: String
    init(unchecked text: String) { self.text = text }
    init?(persistedValue: String) {
        guard persistedValue.hasPrefix("http://") || persistedValue.hasPrefix("https://") else { return nil }
        text = persistedValue
    }
    var persistableValue: String { text }
}

final class Bookmark: Object {
    @Persisted var title: String
    @Persisted var price: Cents
    @Persisted var link: WebLink?
    @Persisted var mirrors: List<WebLink>
    @Persisted var discounts: MutableSet<Cents>
    @Persisted var byRegion: Map<String, WebLink?>
    @Persisted var home = WebLink(unchecked: "https://home.example")
}

final class CustomPersistableTests: RealmTestCase {

    private func add(_ realm: Realm, _ title: String, price: Int, link: String?) -> Bookmark {
        let bookmark = realm.create(Bookmark.self, value: ["title": title, "price": Cents(price)])
        bookmark.link = link.map(WebLink.init(unchecked:))
        return bookmark
    }

    func testValuesRoundTripThroughCommitAndReopen() throws {
        try scoped {
            let realm = try openRealm()
            try realm.write {
                let bookmark = add(realm, "a", price: 250, link: "https://a.example")
                bookmark.mirrors.append(objectsIn: [WebLink(unchecked: "http://m1"), WebLink(unchecked: "https://m2")])
                bookmark.discounts.insert(objectsIn: [Cents(5), Cents(10), Cents(5)])
                bookmark.byRegion["eu"] = WebLink(unchecked: "https://eu.example")
                bookmark.byRegion["none"] = .some(nil)
            }
            XCTAssertEqual(Bookmark().price, Cents(0), "a property without a value starts at the persisted default")
        }
        try scoped {
            let bookmark = try XCTUnwrap(try openRealm().objects(Bookmark.self).first)
            XCTAssertEqual(bookmark.price, Cents(250))
            XCTAssertEqual(bookmark.link, WebLink(unchecked: "https://a.example"))
            XCTAssertEqual(Array(bookmark.mirrors), [WebLink(unchecked: "http://m1"), WebLink(unchecked: "https://m2")])
            XCTAssertEqual(Set(bookmark.discounts), [Cents(5), Cents(10)])
            XCTAssertEqual(bookmark.byRegion["eu"], WebLink(unchecked: "https://eu.example"))
            XCTAssertEqual(bookmark.byRegion["none"], .some(nil))
            XCTAssertEqual(bookmark.value(forKey: "price") as? Cents, Cents(250))
        }
    }

    func testAStoredValueThatDoesNotConvertReadsAsNilWhereNilIsPossible() throws {
        let realm = try openRealm()
        let bookmark = try realm.write { () -> Bookmark in
            let bookmark = add(realm, "bad", price: 1, link: "ftp://not.web")
            bookmark.byRegion["x"] = WebLink(unchecked: "mailto:nobody")
            return bookmark
        }
        XCTAssertNil(bookmark.link, "RealmSwift reads a failed conversion as nil in an optional property")
        XCTAssertEqual(bookmark.byRegion["x"], .some(nil))
        XCTAssertEqual(realm.objects(Bookmark.self).filter("link == 'ftp://not.web'").count, 1,
                       "the stored value is still there")
    }

    func testQueriesAndSortsSeeThePersistedValue() throws {
        let realm = try openRealm()
        try realm.write {
            for (index, price) in [300, 100, 200, 400].enumerated() {
                let bookmark = add(realm, "b\(index)", price: price, link: index % 2 == 0 ? "https://s\(index)" : nil)
                bookmark.mirrors.append(WebLink(unchecked: "http://mirror\(index % 2)"))
            }
        }
        let bookmarks = realm.objects(Bookmark.self)
        func titles(_ results: Results<Bookmark>) -> [String] { results.map(\.title).sorted() }
        XCTAssertEqual(titles(bookmarks.where { $0.price > Cents(150) }), ["b0", "b2", "b3"])
        XCTAssertEqual(titles(bookmarks.where { $0.price == Cents(100) }), ["b1"])
        XCTAssertEqual(titles(bookmarks.filter("price <= %@", Cents(200))), ["b1", "b2"])
        XCTAssertEqual(titles(bookmarks.filter("price IN %@", [Cents(100), Cents(400)])), ["b1", "b3"])
        XCTAssertEqual(titles(bookmarks.where { $0.link == WebLink(unchecked: "https://s2") }), ["b2"])
        XCTAssertEqual(titles(bookmarks.where { $0.link == nil }), ["b1", "b3"])
        XCTAssertEqual(titles(bookmarks.where { $0.link.persistableValue.starts(with: "https://s") }), ["b0", "b2"])
        XCTAssertEqual(titles(bookmarks.where { $0.price.persistableValue.contains(150...350) }), ["b0", "b2"])
        XCTAssertEqual(titles(bookmarks.filter("ANY mirrors == %@", WebLink(unchecked: "http://mirror1"))),
                       ["b1", "b3"])
        XCTAssertEqual(bookmarks.sorted(byKeyPath: "price").map(\.price), [Cents(100), Cents(200), Cents(300),
                                                                             Cents(400)])
        XCTAssertEqual(bookmarks.sorted(byKeyPath: "price", ascending: false).first?.title, "b3")
    }

    /// Differential: random comparisons of a custom property, through the typed builder and a format string, give
    /// what a plain Swift filter over the same values gives.
    func testRandomComparisonsMatchAPlainSwiftFilter() throws {
        var generator = SeededGenerator(seed: 0x5EED_C0DE)
        let realm = try openRealm()
        var prices: [String: Int] = [:]
        var links: [String: String?] = [:]
        try realm.write {
            for index in 0..<300 {
                let price = Int.random(in: -40...40, using: &generator)
                let host = Int.random(in: 0..<8, using: &generator)
                let link: String? = Bool.random(using: &generator) ? nil : "https://h\(host)"
                _ = add(realm, "t\(index)", price: price, link: link)
                prices["t\(index)"] = price
                links["t\(index)"] = link
            }
        }
        let bookmarks = realm.objects(Bookmark.self)
        let operators: [(String, (Int, Int) -> Bool)] = [
            ("==", { $0 == $1 }), ("!=", { $0 != $1 }), ("<", { $0 < $1 }), ("<=", { $0 <= $1 }),
            (">", { $0 > $1 }), (">=", { $0 >= $1 }),
        ]
        for round in 0..<200 {
            let (symbol, holds) = operators[Int.random(in: 0..<operators.count, using: &generator)]
            let constant = Int.random(in: -45...45, using: &generator)
            let expected = Set(prices.filter { holds($0.value, constant) }.keys)
            let formatted = Set(bookmarks.filter("price \(symbol) %@", Cents(constant)).map(\.title))
            XCTAssertEqual(formatted, expected, "round \(round): price \(symbol) \(constant)")
            let typed: Results<Bookmark>
            switch symbol {
            case "==": typed = bookmarks.where { $0.price == Cents(constant) }
            case "!=": typed = bookmarks.where { $0.price != Cents(constant) }
            case "<": typed = bookmarks.where { $0.price < Cents(constant) }
            case "<=": typed = bookmarks.where { $0.price <= Cents(constant) }
            case ">": typed = bookmarks.where { $0.price > Cents(constant) }
            default: typed = bookmarks.where { $0.price >= Cents(constant) }
            }
            XCTAssertEqual(Set(typed.map(\.title)), expected, "round \(round): typed price \(symbol) \(constant)")
            let host = "https://h\(Int.random(in: 0..<8, using: &generator))"
            XCTAssertEqual(Set(bookmarks.where { $0.link == WebLink(unchecked: host) }.map(\.title)),
                           Set(links.filter { $0.value == host }.keys), "round \(round): link == \(host)")
        }
    }
}
