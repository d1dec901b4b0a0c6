// QueryVM: Columnar's query engine, between the Swift API (module Columnar) and the storage engine (CColumnar).
//
// Its role: three query front ends — RealmSwift's predicate-format strings (parsed here, since
// swift-corelibs-foundation has no NSPredicate), the typed `where { ... }` builder, and Foundation's
// `#Predicate` — produce one AST; the AST compiles to a short bytecode program whose instructions each process a
// whole cluster's column array at a time, producing or refining a selection; a virtual machine runs the program
// over the clusters of a table through CColumnar's scan interface, then sorts, deduplicates and aggregates over
// the selection. `explain` prints a compiled program with each opcode's synopsis.
//
// The parsers, compiler and VM are built in a later change (see docs/QueryVM.md when it exists). For now the
// module holds what every layer above the C engine shares: the error type, in Storage/ColumnarError.swift.
// It reaches storage only through CColumnar's public header, columnar.h.
