// QuerySyntaxError: a parse failure at a character offset, and its conversion to the ColumnarError users see.
//
// The lexer and parser throw this small value; `PredicateParser.parse` turns it into a `ColumnarError` of code
// `.misuse` whose message names the offset, says what was expected and what was found, and repeats the query with
// a caret under the offending character, e.g.
//
//     malformed query at offset 12: expected a value or key path, found ')'
//       age > 3 AND )
//                   ^

/// A syntax error: `message` says what was expected and found; `offset` is where, in characters.
struct QuerySyntaxError: Error, Equatable {
    var offset: Int
    var message: String

    /// The user-facing error for a failure while parsing `query`.
    func columnarError(query: String) -> ColumnarError {
        // Newlines and tabs would break the caret's alignment, so the echoed query shows each as one space.
        let echoed = String(query.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        let caret = String(repeating: " ", count: offset) + "^"
        return ColumnarError(
            code: .misuse,
            message: "malformed query at offset \(offset): \(message)\n  \(echoed)\n  \(caret)")
    }
}
