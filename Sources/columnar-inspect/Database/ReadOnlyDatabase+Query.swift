// ReadOnlyDatabase+Query.swift — `dump --where`: the rows of a table that satisfy a predicate-format string,
// through the query engine (QueryVM). A file has no Swift model, so the query names properties by their stored
// column names (QueryModel.stored), and links and collections are followed as the schema records them.

import CColumnar
import QueryVM

extension ReadOnlyDatabase {
    /// Calls `body` with the key of every object of `table` satisfying `predicate`, in key order, until it
    /// returns false. A malformed or ill-typed predicate throws a ColumnarError whose message gives the offset.
    func forEachMatchingKey(_ table: UInt32, predicate text: String, _ body: (Int64) throws -> Bool) throws {
        try withTransaction { txn in
            let model = try QueryModel.stored(in: txn)
            let parsed = try PredicateParser.parse(text)
            let checked = try TypeChecker.check(parsed, table: table, model: model, query: text)
            let program = QueryCompiler.compile(checked, table: table, model: model)
            let executor = QueryExecutor(program: program, transaction: txn, decimals: nil)
            for key in try executor.matchingKeys() where try !body(key) { return }
        }
    }
}
