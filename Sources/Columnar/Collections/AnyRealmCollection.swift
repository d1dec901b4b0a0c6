// AnyRealmCollection: RealmSwift's type-erased Realm collection, wrapping a Results, List, MutableSet or
// LinkingObjects of the same element type, so code can hold or pass "some Realm collection of Dogs" without naming
// which (`var dogs: AnyRealmCollection<Dog> = AnyRealmCollection(person.dogs)`).
//
// Every member forwards to the wrapped collection, so the wrapper reads, queries and aggregates exactly as it does
// (live, unmanaged aggregates in memory, RealmSwift's messages for misuse). Predicate strings take their
// arguments as a variadic list, which Swift cannot pass on as such: the wrapper runs them through the collection's
// Results (the same path the collection's own `filter` takes) or, for `index(matching:)` on an unmanaged
// collection, through UnmanagedIndexMatching, as the collection itself does. `observe` observes the wrapped
// collection and wraps each collection it reports. Frozen copies come with that work and are not offered yet.

import Foundation
import QueryVM

/// A type-erased Realm collection: a `Results`, `List`, `MutableSet` or `LinkingObjects` of `Element`.
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection {
    public typealias Index = Int
    public typealias Iterator = RLMIterator<Element>

    private let box: AnyRealmCollectionBox<Element>

    /// Wraps `base`.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        box = ConcreteRealmCollectionBox(base)
    }

    public var realm: Realm? { box.realm }
    public var isInvalidated: Bool { box.isInvalidated }
    public var count: Int { box.count }
    public var description: String { box.description }
    public var first: Element? { box.first }
    public var last: Element? { box.last }

    public var startIndex: Int { 0 }
    public var endIndex: Int { box.count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }
    public subscript(position: Int) -> Element { box.element(at: position) }
    public func makeIterator() -> RLMIterator<Element> { box.makeIterator() }

    public func index(of object: Element) -> Int? { box.index(of: object) }

    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        if let elements = box.unmanagedElements {
            do {
                return try UnmanagedIndexMatching.firstIndex(of: elements, method: "index(matching:)") {
                    try $0.filtered(predicateFormat, args)
                }
            } catch { fatalError("Columnar: \(error)") }
        }
        let all = box.elementResults("index(matching:)")
        do { return all.firstPosition(in: try all.filtered(predicateFormat, args)) } catch {
            fatalError("Columnar: \(error)")
        }
    }

    public func index(matching predicate: NSPredicate) -> Int? { box.index(matchingPredicate: predicate) }
    public func index(matching isIncluded: ((Query<Element>) -> Query<Bool>)) -> Int? {
        box.index(matchingQuery: isIncluded)
    }

    public func objects(at indexes: IndexSet) -> [Element] { elements(at: indexes) }

    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try box.elementResults("filter").filtered(predicateFormat, args) } catch {
            fatalError("Columnar: \(error)")
        }
    }

    public func filter(_ predicate: NSPredicate) -> Results<Element> { box.filter(predicate: predicate) }
    public func `where`(_ isIncluded: ((Query<Element>) -> Query<Bool>)) -> Results<Element> {
        box.elementResults("where").where(isIncluded)
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        box.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        box.sorted(by: Array(sortDescriptors))
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        box.distinct(by: Array(keyPaths))
    }

    public func min<T: MinMaxType>(ofProperty property: String) -> T? { box.min(ofProperty: property) }
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { box.max(ofProperty: property) }
    public func sum<T: AddableType>(ofProperty property: String) -> T { box.sum(ofProperty: property) }
    public func average<T: AddableType>(ofProperty property: String) -> T? { box.average(ofProperty: property) }

    public func value(forKey key: String) -> Any? { box.value(forKeyPath: key) }
    public func value(forKeyPath keyPath: String) -> Any? { box.value(forKeyPath: keyPath) }
    public func setValue(_ value: Any?, forKey key: String) { box.setValue(value, forKey: key) }

    /// Registers a block called with the wrapped collection's changes (see `Results.observe(keyPaths:on:_:)`).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void)
        -> NotificationToken {
        observe(keyPaths: keyPaths, in: queue.map(ConfinementContext.queue), block)
    }

    /// Observes on the observing thread, or in a serial queue's or an actor's core.
    func observe(keyPaths: [String]?, in context: ConfinementContext?,
                 _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> NotificationToken {
        box.observe(keyPaths: keyPaths, in: context, block)
    }

    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void)
        -> NotificationToken where Element: ObjectBase {
        observe(keyPaths: CollectionObservation.names(keyPaths), on: queue, block)
    }

    /// Whether the wrapped collection is frozen.
    public var isFrozen: Bool { box.isFrozen }
    /// The wrapped collection frozen, wrapped.
    public func freeze() -> AnyRealmCollection<Element> { box.freeze() }
    /// The wrapped collection live on the calling thread, wrapped; nil when it no longer exists there.
    public func thaw() -> AnyRealmCollection<Element>? { box.thaw() }

    /// Whether both wrap the same collection (by the wrapped type's own `==`).
    public static func == (lhs: AnyRealmCollection<Element>, rhs: AnyRealmCollection<Element>) -> Bool {
        lhs.box.isEqual(to: rhs.box)
    }
}

/// The wrapped collection behind AnyRealmCollection's erased type (abstract: ConcreteRealmCollectionBox below).
class AnyRealmCollectionBox<Element: RealmCollectionValue> {
    var realm: Realm? { fatalError("abstract") }
    var isInvalidated: Bool { fatalError("abstract") }
    var count: Int { fatalError("abstract") }
    var description: String { fatalError("abstract") }
    var first: Element? { fatalError("abstract") }
    var last: Element? { fatalError("abstract") }
    var unmanagedElements: [Element]? { fatalError("abstract") }
    func element(at position: Int) -> Element { fatalError("abstract") }
    func makeIterator() -> RLMIterator<Element> { fatalError("abstract") }
    func index(of object: Element) -> Int? { fatalError("abstract") }
    func index(matchingPredicate predicate: NSPredicate) -> Int? { fatalError("abstract") }
    func index(matchingQuery isIncluded: ((Query<Element>) -> Query<Bool>)) -> Int? { fatalError("abstract") }
    func elementResults(_ method: String) -> Results<Element> { fatalError("abstract") }
    func filter(predicate: NSPredicate) -> Results<Element> { fatalError("abstract") }
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element> { fatalError("abstract") }
    func sorted(by descriptors: [SortDescriptor]) -> Results<Element> { fatalError("abstract") }
    func distinct(by keyPaths: [String]) -> Results<Element> { fatalError("abstract") }
    func min<T: MinMaxType>(ofProperty property: String) -> T? { fatalError("abstract") }
    func max<T: MinMaxType>(ofProperty property: String) -> T? { fatalError("abstract") }
    func sum<T: AddableType>(ofProperty property: String) -> T { fatalError("abstract") }
    func average<T: AddableType>(ofProperty property: String) -> T? { fatalError("abstract") }
    func value(forKeyPath keyPath: String) -> Any? { fatalError("abstract") }
    func setValue(_ value: Any?, forKey key: String) { fatalError("abstract") }
    func isEqual(to other: AnyRealmCollectionBox<Element>) -> Bool { fatalError("abstract") }
    func observe(keyPaths: [String]?, in context: ConfinementContext?,
                 _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> NotificationToken {
        fatalError("abstract")
    }
    var isFrozen: Bool { fatalError("abstract") }
    func freeze() -> AnyRealmCollection<Element> { fatalError("abstract") }
    func thaw() -> AnyRealmCollection<Element>? { fatalError("abstract") }
}

final class ConcreteRealmCollectionBox<Base: RealmCollection>: AnyRealmCollectionBox<Base.Element> {
    typealias Element = Base.Element
    let base: Base

    init(_ base: Base) { self.base = base }

    override var isFrozen: Bool { (base as? any ThreadConfined)?.isFrozen ?? false }

    override func freeze() -> AnyRealmCollection<Element> {
        guard let confined = base as? any ThreadConfined, let realm = confined.realm else {
            fatalError("Columnar: an unmanaged \(Base.self) cannot be frozen")
        }
        return AnyRealmCollection(Freezing.freezeErased(confined, core: realm.core) as! Base)
    }

    override func thaw() -> AnyRealmCollection<Element>? {
        guard let confined = base as? any ThreadConfined, let realm = confined.realm else { return AnyRealmCollection(base) }
        return (Freezing.thawErased(confined, core: realm.core) as? Base).map { AnyRealmCollection($0) }
    }

    override func observe(keyPaths: [String]?, in context: ConfinementContext?,
                          _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void)
        -> NotificationToken {
        guard let observable = base as? any ErasedObservableCollection else {
            fatalError("Columnar: \(Base.self) cannot be observed")
        }
        return observable.observeErased(keyPaths: keyPaths, in: context) { change in
            switch change {
            case .initial(let collection): block(.initial(AnyRealmCollection(collection as! Base)))
            case .update(let collection, let deletions, let insertions, let modifications):
                block(.update(AnyRealmCollection(collection as! Base), deletions: deletions, insertions: insertions,
                              modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }

    override var realm: Realm? { base.realm }
    override var isInvalidated: Bool { base.isInvalidated }
    override var count: Int { base.count }
    override var description: String { base.description }
    override var first: Element? { base.first }
    override var last: Element? { base.last }
    override var unmanagedElements: [Element]? {
        guard let queryable = base as? any QueryableObjectCollection else { return nil }
        return Self.unmanaged(queryable) as? [Element]
    }

    override func element(at position: Int) -> Element { base[position] }
    override func makeIterator() -> RLMIterator<Element> { base.makeIterator() }
    override func index(of object: Element) -> Int? { base.index(of: object) }
    override func index(matchingPredicate predicate: NSPredicate) -> Int? { base.index(matching: predicate) }
    override func index(matchingQuery isIncluded: ((Query<Element>) -> Query<Bool>)) -> Int? {
        base.index(matching: isIncluded)
    }

    /// The collection's elements as Results: itself for Results, the managed collection's elements otherwise
    /// (which stops with a message for an unmanaged collection, as its own queries do).
    override func elementResults(_ method: String) -> Results<Element> {
        if let results = base as? Results<Element> { return results }
        if let queryable = base as? any QueryableObjectCollection,
           let results = Self.results(queryable, method) as? Results<Element> {
            return results
        }
        fatalError("Columnar: \(method) is not available on \(Base.self)")
    }

    override func filter(predicate: NSPredicate) -> Results<Element> { base.filter(predicate) }
    override func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element> {
        base.sorted(byKeyPath: keyPath, ascending: ascending)
    }
    override func sorted(by descriptors: [SortDescriptor]) -> Results<Element> { base.sorted(by: descriptors) }
    override func distinct(by keyPaths: [String]) -> Results<Element> { base.distinct(by: keyPaths) }
    override func min<T: MinMaxType>(ofProperty property: String) -> T? { base.min(ofProperty: property) }
    override func max<T: MinMaxType>(ofProperty property: String) -> T? { base.max(ofProperty: property) }
    override func sum<T: AddableType>(ofProperty property: String) -> T { base.sum(ofProperty: property) }
    override func average<T: AddableType>(ofProperty property: String) -> T? { base.average(ofProperty: property) }
    override func value(forKeyPath keyPath: String) -> Any? { base.value(forKeyPath: keyPath) }
    override func setValue(_ value: Any?, forKey key: String) { base.setValue(value, forKey: key) }

    override func isEqual(to other: AnyRealmCollectionBox<Element>) -> Bool {
        guard let other = other as? ConcreteRealmCollectionBox<Base> else { return false }
        return base == other.base
    }

    private static func results<Q: QueryableObjectCollection>(_ collection: Q, _ method: String) -> Any {
        collection._elementResults(method)
    }

    private static func unmanaged<Q: QueryableObjectCollection>(_ collection: Q) -> Any? {
        collection._unmanagedElements
    }
}

extension AnyRealmCollection where Element: ObjectBase {
    /// The wrapped collection's elements sorted by a key path and divided into one section per value of it.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true)
        -> SectionedResults<Key, Element> {
        box.elementResults("sectioned(by:)").sectioned(by: keyPath, ascending: ascending)
    }

    /// The elements sorted by `sortDescriptors` (the first being the key path's), one section per key path value.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor])
        -> SectionedResults<Key, Element> {
        box.elementResults("sectioned(by:)").sectioned(by: keyPath, sortDescriptors: sortDescriptors)
    }

    /// The elements sorted by `sortDescriptors`, one section per key `keyBlock` gives.
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor],
                                                        _ keyBlock: @escaping (Element) -> Key)
        -> SectionedResults<Key, Element> {
        box.elementResults("sectioned(sortDescriptors:)").sectioned(sortDescriptors: sortDescriptors, keyBlock)
    }
}
