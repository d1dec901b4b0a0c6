// RLMIterator: the iterator List, MutableSet, Results and LinkingObjects return from `makeIterator()` (RealmSwift
// names the type, so code may spell it out), and the positional reads (`objects(at:)`) those collections share.

import Foundation

/// The iterator of a `List`, `MutableSet`, `Results` or `LinkingObjects`.
///
/// Over results it yields the objects present when iteration began (see `Results`); over a list, a set or linking
/// objects it reads position after position while positions remain, as a `for` loop over the collection does.
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    /// Set when iterating results.
    private var results: ResultsIteration<Element>?
    /// Set when iterating a list, set or linking objects: the element at a position, or nil past the end.
    private let elementAt: ((Int) -> Element?)?
    private var position = 0

    init(results: Results<Element>) {
        self.results = ResultsIteration(results)
        self.elementAt = nil
    }

    init(elementAt: @escaping (Int) -> Element?) {
        self.results = nil
        self.elementAt = elementAt
    }

    public mutating func next() -> Element? {
        if results != nil { return results!.next() }
        guard let element = elementAt!(position) else { return nil }
        position += 1
        return element
    }
}

extension RandomAccessCollection where Index == Int {
    /// An iterator that reads the collection position by position, checking the count at each step.
    func positionalIterator() -> RLMIterator<Element> where Element: RealmCollectionValue {
        RLMIterator { position in position < self.count ? self[position] : nil }
    }

    /// The elements at the given positions, in ascending order of position; a position out of range stops with a
    /// message, as the subscript does.
    func elements(at indexes: IndexSet) -> [Element] {
        let size = count
        if let last = indexes.last {
            precondition(indexes.first! >= 0 && last < size,
                         "Index \(last) is out of bounds (must be less than \(size)).")
        }
        return indexes.map { self[$0] }
    }
}
