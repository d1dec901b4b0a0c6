// QueryModel+Elements: the model of a query over the elements of a collection of values (`List<Int>`,
// `MutableSet<String?>`, the values of a `Map<String, Date>`).
//
// RealmSwift queries such a collection through the key path `self` (`filter("self > %@", 3)`, `sorted(byKeyPath:
// "self")`, `min(ofProperty: "self")`). Rather than teach every step of the engine about a second kind of row, the
// elements are described as a table of their own: `elementTable`, whose only property `self` is the element. A row
// of it is an element, and its key is the element's position in the collection. The type checker resolves `self`
// like any property (to the step `.element`), the compiler emits a Keys program over the positions, and the row
// evaluator reads the element at a position with `columnar_coll_get` on the collection's owner, which the program
// names (`Program.Source.elements`). Filtering, sorting, distinct and aggregates then work unchanged, with the
// rules of docs/QueryVM.md section 4.

import CColumnar

/// A collection of values in the file: the object that holds it (table and key) and its list, set or map column.
/// The rows of a program over it are the collection's positions `0 ..< count` (`columnar_coll_size`).
public struct ElementCollection: Sendable, Equatable {
    public var table: columnar_table_id
    public var key: Int64
    public var column: columnar_col_id

    public init(table: columnar_table_id, key: Int64, column: columnar_col_id) {
        self.table = table
        self.key = key
        self.column = column
    }
}

extension QueryModel {
    /// The id of the table that stands for the elements of a collection of values. No table of a file has it
    /// (`COLUMNAR_NO_TABLE`), so it cannot be mistaken for one.
    public static let elementTable: columnar_table_id = COLUMNAR_NO_TABLE

    /// The query model of a collection of values of `type`: one table, `elementTable`, named `name` in messages
    /// (for example `List<Int>`), whose only property `self` is the element.
    public static func elements(of type: columnar_type, isNullable: Bool, name: String,
                                decimals: QueryDecimalSupport?) -> QueryModel {
        let element = QueryProperty(name: "self", kind: .element, column: COLUMNAR_NO_COLUMN, type: type,
                                    isNullable: isNullable)
        return QueryModel(tables: [QueryTable(id: elementTable, className: name, properties: [element])],
                          decimals: decimals)
    }
}
