// Columnar: the Swift API of the Columnar embedded object database.
//
// Its role: the programming model of RealmSwift on Linux — `Realm`, `Object` with `@Persisted` properties,
// `List`, `MutableSet`, `Map`, `Results`, write transactions, change notifications and frozen snapshots — on
// top of QueryVM (queries) and CColumnar (the memory-mapped columnar storage engine). It owns objects, schema,
// transactions as the user sees them, and notifications. Those types are built in later changes; today the
// module re-exports the error type that every layer throws.

import QueryVM

/// An error from the storage engine: its kind (`code`), a message, and where known the file offset and the
/// engine check that found it. Errors a correct program can meet at run time are thrown as this type.
public typealias ColumnarError = QueryVM.ColumnarError
