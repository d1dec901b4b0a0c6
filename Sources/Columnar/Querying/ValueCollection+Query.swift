// ValueCollection+Query: queries on collections of values (`List<Int>`, `MutableSet<String?>`, a map's values) and
// the value-only forms RealmSwift offers on every collection: `min()`, `max()`, `sum()`, `average()`,
// `sorted(ascending:)` and `distinct()`.
//
// RealmSwift names the element of such a collection `self`: `filter("self > %@", 3)`, `where { $0 > 3 }`,
// `sorted(byKeyPath: "self")`, `min(ofProperty: "self")`. Results of values have the source `.values`, whose keys
// are the elements' positions; the query runs against QueryVM's element table (QueryModel+Elements.swift), whose
// only property is `self`, and the engine reads the element at a position through the collection's owner. So
// filtering, sorting, distinct and aggregates of values follow exactly the rules of objects (docs/QueryVM.md,
// section 4), and a Results of values reads its elements as the collection does.

import CColumnar
import Foundation
import QueryVM

/// Types a collection of values can sort and deduplicate directly (`sorted(ascending:)`, `distinct()`), and the
/// property types `sorted(by: \.keyPath)` accepts: bools, numbers, dates and strings, and their optionals — the
/// types the engine sorts (RealmSwift's `SortableType` also names `Data`, which the engine does not sort).
public protocol SortableType {}
extension Int: SortableType {}
extension Int8: SortableType {}
extension Int16: SortableType {}
extension Int32: SortableType {}
extension Int64: SortableType {}
extension Float: SortableType {}
extension Double: SortableType {}
extension Decimal128: SortableType {}
extension Date: SortableType {}
extension String: SortableType {}
extension Bool: SortableType {}
extension Optional: SortableType where Wrapped: SortableType {}

/// What the query of a Results value runs against: a class's table in the Realm's model, or the element table of a
/// collection of values in a model of its own.
struct QueryTarget {
    let table: columnar_table_id
    let model: QueryModel
    /// The class name, or the collection's type (`List<Int>`), for messages.
    let className: String
}

extension ResultsSource {
    /// Whether the results hold the values of a collection of values (their keys are positions).
    var holdsValues: Bool { if case .values = self { return true } else { return false } }

    /// How a program over the source finds its rows: a scan of the table, given object keys, or positions of values.
    var programSource: Program.Source { isTable ? .table : keysProgramSource }

    /// How a program tests given keys of this source (never a scan): object keys, or positions of values.
    var keysProgramSource: Program.Source {
        guard case .values(let column) = self else { return .keys }
        return .elements(ElementCollection(table: column.table, key: column.key, column: column.column))
    }
}

extension Results {
    /// The table and model the results' query runs against; nil when the class has no table (read-only file).
    var target: QueryTarget? {
        if case .values(let column) = source {
            let storage = Self.valueType(in: column.kind)._storage
            let name = column.kind == .map ? "Map<String, \(Element.self)>" : "\(column.kind.typeName)<\(Element.self)>"
            return QueryTarget(table: QueryModel.elementTable,
                               model: QueryModel.elements(of: storage.type, isNullable: storage.nullable, name: name,
                                                          decimals: RealmCore.decimalSupport),
                               className: name)
        }
        guard let current = currentBinding else { return nil }
        return QueryTarget(table: current.table, model: core.queryModel(), className: current.schema.className)
    }

    /// The binding of the results' class now; nil when the class has no table (read-only file).
    var currentBinding: ClassBinding? {
        guard let binding else { return nil }
        // Cancelling a write drops the core's class bindings (the write may have made the tables), so the query
        // model would no longer describe a class these results were made for: bind it again first.
        if binding.isDynamic { return core.dynamicBinding(named: binding.schema.className) ?? binding }
        return (try? core.binding(for: Self.objectType)) ?? binding
    }

    /// The class of the objects: `Element`, what it wraps for the optional objects of a map (`Dog?`), or the
    /// root class of a projection.
    static var objectType: ObjectBase.Type {
        if let type = Element.self as? ObjectBase.Type { return type }
        if let wrapped = (Element.self as? OptionalProtocol.Type)?.wrappedType as? ObjectBase.Type { return wrapped }
        if let projection = Element.self as? any ProjectionKind.Type { return projection.rootObjectType }
        fatalError("Columnar: \(Element.self) is not an object type")
    }

    static func valueType(in kind: CollectionColumn.Kind) -> any _Persistable.Type {
        CollectionColumn.persistableType(of: Element.self, in: kind)
    }

    /// The element at a position of a collection of values, as the collection reads it.
    func valueElement(at position: columnar_key, of column: CollectionColumn) -> Element {
        column.element(at: Int(position), as: Self.valueType(in: column.kind)) as! Element
    }
}

extension QueryableObjectCollection {
    /// The Results over a managed list or set: its objects, or its values.
    static func collectionResults(_ column: CollectionColumn) -> Results<Element> {
        if Element.self is ObjectBase.Type {
            return makeResults(Element.self, core: column.core, source: .collection(column))
        }
        return Results(core: column.core, binding: nil, source: .values(column))
    }
}

// MARK: Value-only forms

/// List and MutableSet, as the queryable collections that hold values as well as objects. (The value-only forms
/// below, `min()`, `sum()`, `sorted(ascending:)` and `distinct()`, are on every RealmCollection; RealmCollection
/// refines RandomAccessCollection, so its `min()` and `max()` are preferred to Sequence's, as in RealmSwift.)
public protocol QueryableValueCollection: QueryableObjectCollection, RealmCollection {}

extension List: QueryableValueCollection {}
extension MutableSet: QueryableValueCollection {}

extension RealmCollection where Element: MinMaxType {
    /// The smallest element, or nil when there is none (nulls and NaN are skipped).
    public func min() -> Element? { min(ofProperty: "self") }

    /// The largest element, or nil when there is none (nulls and NaN are skipped).
    public func max() -> Element? { max(ofProperty: "self") }
}

extension RealmCollection where Element: AddableType {
    /// The sum of the elements (nulls skipped); zero for none.
    public func sum() -> Element { sum(ofProperty: "self") }

    /// The mean of the elements (nulls skipped), or nil when there is none.
    public func average<T: AddableType>() -> T? { average(ofProperty: "self") }
}

extension RealmCollection where Element: SortableType {
    /// The elements sorted by value: ascending puts nulls first, then NaN, then values.
    public func sorted(ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: "self", ascending: ascending)
    }

    /// The first occurrence of each distinct value, in the collection's order.
    public func distinct() -> Results<Element> { distinct(by: ["self"]) }
}
