// SourceRange: where in a query's text an AST node came from.
//
// Every node of the query AST keeps the range of characters it was parsed from, so that the later steps (type
// checking against a model, compilation) can point at the offending part of the query in their error messages.
// Offsets count Swift `Character`s (grapheme clusters) from the start of the query, which is what a caret printed
// under the query lines up with. Front ends without query text (the typed builder, `#Predicate`) use `.none`.

/// A half-open range of character offsets into a query string, `start ..< end`.
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    /// The offset of the first character of the node.
    public var start: Int
    /// The offset just past the last character of the node.
    public var end: Int

    public init(start: Int, end: Int) {
        precondition(start <= end, "SourceRange start \(start) is after its end \(end)")
        self.start = start
        self.end = end
    }

    /// The range for nodes that have no query text behind them.
    public static let none = SourceRange(start: 0, end: 0)

    /// The smallest range covering both `self` and `other`.
    public func union(_ other: SourceRange) -> SourceRange {
        SourceRange(start: Swift.min(start, other.start), end: Swift.max(end, other.end))
    }

    public var description: String { "\(start)..<\(end)" }
}
