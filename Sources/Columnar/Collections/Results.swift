// Results: the live, lazily evaluated objects of a class (`realm.objects(Dog.self)`).
//
// A Results value reads the Realm's current version whenever it is used: objects added or deleted since show up
// (auto-updating). Object keys are cached per state of the data they were read from. Its objects come from a
// class's table or from a collection (ResultsSource), narrowed by a query, sorted and deduplicated
// (ResultsQuery; Results+Query.swift and Results+Aggregates.swift hold the public methods). Results of a collection
// of values (`list.filter("self > 3")`, `Results<Int>`) hold element positions as keys and read the values at
// them (ValueCollection+Query.swift).

import CColumnar
import Foundation

/// Keys of a table at one state of its Realm (shared by copies of a Results value): all of them, or only the first
/// few when only those were asked for (`first`, `prefix(_:)` of sorted results), picked without sorting the rest.
final class KeySnapshot {
    var state: UInt64 = .max
    var keys: [columnar_key] = []
    var leadingState: UInt64 = .max
    var leading: [columnar_key] = []
    /// `leading` holds every key (fewer were selected than were asked for).
    var leadingIsAll = false
}

public struct Results<Element: RealmCollectionValue>: Equatable, CustomStringConvertible {
    let core: RealmCore
    /// nil when the class has no table in a read-only file (the results are empty), and for results of values.
    let binding: ClassBinding?
    let source: ResultsSource
    let query: ResultsQuery
    let snapshot = KeySnapshot()
    private let generation: UInt64

    init(core: RealmCore, binding: ClassBinding?, source: ResultsSource = .table, query: ResultsQuery = ResultsQuery(),
         generation: UInt64? = nil) {
        self.core = core
        self.binding = binding
        self.source = source
        self.query = query
        self.generation = generation ?? core.generation
        // Threads share frozen results: their keys are computed now, so that reading them only reads.
        if core.isFrozen { _ = keys }
    }

    /// The same source with another selection.
    func with(_ query: ResultsQuery) -> Results<Element> {
        Results(core: core, binding: binding, source: source, query: query, generation: generation)
    }

    public static func == (lhs: Results<Element>, rhs: Results<Element>) -> Bool {
        lhs.core === rhs.core && lhs.binding === rhs.binding && lhs.source.isTable && rhs.source.isTable
            && lhs.query.predicateText == rhs.query.predicateText && lhs.query.sort == rhs.query.sort
            && lhs.query.distinct == rhs.query.distinct
    }

    /// The Realm the results come from.
    public var realm: Realm? { Realm(core: core) }

    /// Whether the results can no longer be used (their Realm was invalidated). Invalid results are empty.
    public var isInvalidated: Bool { generation != core.generation }

    /// Whether the results are every object of the class, unsorted (keys then change only with the structure).
    var isWholeTable: Bool { source.isTable && query.isTrivial }

    /// The state of the data the keys depend on.
    private var keyState: UInt64 { isWholeTable ? core.structureCounter : core.changeCounter }

    /// `keys` when they were read at the Realm's current state already, else nil.
    var keysIfRead: [columnar_key]? { !isInvalidated && snapshot.state == keyState ? snapshot.keys : nil }

    /// The objects' keys (for results of values, the elements' positions) at the Realm's current state.
    var keys: [columnar_key] {
        guard !isInvalidated else { return [] }
        let state = keyState
        if snapshot.state != state {
            if let seekKeys = preparedSeekKeys {
                snapshot.keys = seekKeys
                snapshot.state = state
                return seekKeys
            }
            guard let target else { return [] }
            do {
                snapshot.keys = isWholeTable ? try core.keys(of: target.table)
                    : try query.keys(core: core, target: target, source: source)
            } catch {
                fatalError("Columnar: cannot read \(target.className) \(source.holdsValues ? "values" : "objects"): "
                           + "\(error)")
            }
            snapshot.state = state
        }
        return snapshot.keys
    }

    /// The first `count` keys (fewer when there are fewer). Sorted results of a table pick them without sorting the
    /// others (a top-k selection, RowOrdering.swift) unless all keys are current already; they are kept until the
    /// data changes, for `first` and for the positions `prefix(_:)` covers.
    func leadingKeys(_ count: Int) -> ArraySlice<columnar_key> {
        guard !isInvalidated else { return [] }
        let state = keyState
        if snapshot.state == state || isWholeTable || core.isFrozen { return keys.prefix(count) }
        if snapshot.leadingState == state && (snapshot.leading.count >= count || snapshot.leadingIsAll) {
            return snapshot.leading.prefix(count)
        }
        let selected: [columnar_key]?
        if let seekKeys = preparedSeekKeys {
            selected = seekKeys.count <= count ? seekKeys : Array(seekKeys.prefix(count))
        } else {
            guard let target else { return [] }
            do { selected = try query.leadingKeys(core: core, target: target, source: source, limit: count) } catch {
                fatalError("Columnar: cannot read \(target.className) objects: \(error)")
            }
        }
        guard let selected else { return keys.prefix(count) }
        snapshot.leading = selected
        snapshot.leadingIsAll = selected.count < count
        snapshot.leadingState = state
        return selected[...]
    }

    /// The results' binding when `Element` is exactly its class (not an optional of it, nor a projection): the
    /// common case, in which objects are made from that binding directly (`exactElement`), with no dynamic cast or
    /// binding lookup.
    var exactClassBinding: ClassBinding? {
        guard let binding, ObjectIdentifier(binding.schema.objectClass) == ObjectIdentifier(Element.self) else {
            return nil
        }
        return binding
    }

    /// The object of row `key`, made from `binding`, which is `exactClassBinding`.
    func exactElement(key: columnar_key, binding: ClassBinding) -> Element {
        unsafeBitCast(core.materialize(binding.schema.objectClass, binding: binding, key: key), to: Element.self)
    }

    func element(key: columnar_key) -> Element {
        if case .values(let column) = source { return valueElement(at: key, of: column) }
        if let binding, binding.isDynamic {
            return core.materialize(DynamicObject.self, binding: binding, key: key) as! Element
        }
        if let exact = exactClassBinding { return exactElement(key: key, binding: exact) }
        if let type = Element.self as? ObjectBase.Type { return core.materialize(type, key: key) as! Element }
        if let projection = Element.self as? any ProjectionKind.Type {
            return projection.projecting(core.materialize(projection.rootObjectType, key: key)) as! Element
        }
        return core.materialize(Self.objectType, key: key) as! Element
    }

    /// The number of objects.
    public var count: Int {
        guard !isInvalidated else { return 0 }
        if !isWholeTable && snapshot.state == core.changeCounter { return snapshot.keys.count }
        if let seekKeys = preparedSeekKeys { return seekKeys.count }
        guard let target else { return 0 }
        if isWholeTable { return core.objectCount(of: target.table) }
        do { return try query.count(core: core, target: target, source: source) } catch {
            fatalError("Columnar: cannot count \(target.className) \(source.holdsValues ? "values" : "objects"): "
                       + "\(error)")
        }
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        if snapshot.state != snapshot.leadingState, snapshot.leadingState == keyState, !isInvalidated,
           position >= 0, position < snapshot.leading.count {
            return element(key: snapshot.leading[position])
        }
        let keys = keys
        precondition(position >= 0 && position < keys.count,
                     "Index \(position) is out of bounds (must be less than \(keys.count)).")
        return element(key: keys[position])
    }

    // Not `.map(element(key:))`: the partial application would allocate a context holding the results.
    public var first: Element? {
        guard let key = leadingKeys(1).first else { return nil }
        return element(key: key)
    }

    /// The first `maxLength` objects. Of sorted results only those are sorted (a top-k selection), so the first
    /// page of a large sorted table costs a pass over the sort key rather than a sort.
    public func prefix(_ maxLength: Int) -> Slice<Results<Element>> {
        precondition(maxLength >= 0, "Can't take a prefix of negative length from a collection")
        return Slice(base: self, bounds: 0..<leadingKeys(maxLength).count)
    }
    public var last: Element? {
        guard let key = keys.last else { return nil }
        return element(key: key)
    }

    /// The position of an object (or value) in the results, or nil.
    public func index(of object: Element) -> Int? {
        if source.holdsValues { return firstIndex(of: object) }
        guard let object = (object as? ObjectBase) ?? (object as? any ProjectionKind)?.projectedRoot,
              let location = object._location, let binding,
              location.binding.table == binding.table, location.core.file === core.file else { return nil }
        let keys = keys
        guard isWholeTable else { return keys.firstIndex(of: location.key) }
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < location.key { low = mid + 1 } else { high = mid }
        }
        return low < keys.count && keys[low] == location.key ? low : nil
    }

    /// The elements at the given positions; a position out of range stops with a message.
    public func objects(at indexes: IndexSet) -> [Element] { elements(at: indexes) }

    // MARK: Key-value coding

    /// Each object's value of a property, in order.
    public func value(forKey key: String) -> Any? { value(forKeyPath: key) }

    /// Each object's value at a key path (properties through to-one links, as in `owner.name`), in order.
    public func value(forKeyPath keyPath: String) -> Any? {
        columnValues(ofProperty: keyPath) ?? CollectionKeyValueCoding.value(of: self, keyPath: keyPath)
    }

    /// Each object's value of a property stored in its class's own column, as `[Value]` of the property's type,
    /// read for every object in one engine call (in key order, whatever the results' order); nil for results of
    /// values, key paths through links, names of no property, and properties without a column (collections,
    /// linking objects), which are read object by object.
    private func columnValues(ofProperty name: String) -> Any? {
        // A dynamic binding has no prototype cells: its objects answer one by one, through their subscript.
        guard !source.holdsValues, !isInvalidated, !name.contains("."), let current = currentBinding,
              !current.isDynamic else { return nil }
        guard let index = current.schema.properties.firstIndex(where: { $0.name == name }) else { return nil }
        return current.info.prototypeCells[index].readManagedColumn(core: core, binding: current,
                                                                    column: current.columns[index], keys: keys)
    }

    /// Sets a property of every object (inside a write transaction).
    public func setValue(_ value: Any?, forKey key: String) {
        core.requireWriteTransaction()
        CollectionKeyValueCoding.setValue(value, forKey: key, in: self)
    }

    public var description: String {
        let name = binding?.schema.className ?? String(describing: Element.self)
        let items = prefix(100).enumerated().map { index, element in
            "\t[\(index)] " + ObjectBase.describe(element).replacingOccurrences(of: "\n", with: "\n\t")
        }
        return "Results<\(name)> <\(count) objects> (\n" + items.joined(separator: ",\n") + (count > 100 ? ",\n\t..." : "")
            + "\n)"
    }
}

extension Results: RandomAccessCollection {
    public typealias Index = Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// Iterates the objects present when iteration began (deleting or adding during the loop is safe).
    public func makeIterator() -> RLMIterator<Element> { RLMIterator(results: self) }
}

extension Results: Encodable where Element: Encodable {
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

/// The state of iterating results: the keys (or values) present when iteration began.
final class ResultsIteration<Element: RealmCollectionValue>: IterationState {
    private let results: Results<Element>
    /// The keys to visit (for results of values, the positions), kept by a class that is not generic, so that this
    /// unspecialized `next()` reaches them without generic metadata.
    private let keys: IterationKeys
    /// For results of values: the values, read when iteration began (positions move when the collection
    /// changes, values do not).
    private let values: [Element]?
    @exclusivity(unchecked) private var position = 0
    /// The results' `exactClassBinding`, looked at once for the whole loop.
    private let exactBinding: ClassBinding?
    /// Makes the objects of `exactBinding`, handing out the last one again when nothing else references it
    /// (AccessorReuse.swift).
    @exclusivity(unchecked) private var accessors: LoopAccessor

    init(_ results: Results<Element>) {
        self.results = results
        let state = results.core.changeCounter
        if !results.source.holdsValues, results.isWholeTable, !results.isInvalidated, results.keysIfRead == nil,
           let table = results.currentBinding?.table {
            keys = IterationKeys(batches: TableKeyBatches(core: results.core, table: table), state: state)
            values = nil
        } else {
            let all = results.keys
            keys = IterationKeys(all: all, state: state)
            values = results.source.holdsValues ? all.map(results.element(key:)) : nil
        }
        exactBinding = values == nil ? results.exactClassBinding : nil
        accessors = LoopAccessor(binding: exactBinding)
    }

    private init(copying other: ResultsIteration) {
        results = other.results
        keys = other.keys.copy()
        values = other.values
        position = other.position
        exactBinding = other.exactBinding
        accessors = LoopAccessor(binding: other.exactBinding)
    }

    /// A state of its own for an iterator copied from another (RLMIterator.next).
    func copy() -> ResultsIteration { ResultsIteration(copying: self) }

    private func element(key: columnar_key) -> Element {
        guard let exactBinding else { return results.element(key: key) }
        return unsafeBitCast(accessors.object(key: key, binding: exactBinding, core: results.core), to: Element.self)
    }

    func next() -> Element? {
        if let values {
            guard position < values.count else { return nil }
            position += 1
            return values[position - 1]
        }
        let core = results.core
        while let (key, unchanged) = keys.next(core: core) {
            let object = element(key: key)
            if unchanged || exists(object) { return object }
        }
        return nil
    }

    /// Whether `object` still exists (the Realm changed since its key was read). It takes the object rather than
    /// giving back an optional one: an `Element?` here would make every `next()` look up its generic metadata.
    private func exists(_ object: Element) -> Bool {
        let base = (object as? ObjectBase) ?? (object as? any ProjectionKind)?.projectedRoot
        return base?._location.map(results.core.objectExists) == true
    }
}
