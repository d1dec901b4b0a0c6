// OrderedChangeSet: the deletions, insertions and modifications that turn one ordered snapshot of a collection
// into the next.
//
// Elements are identified by value (object keys for collections of objects, the values themselves for collections
// of values), and a value that occurs several times by its occurrence number, so lists with repeats diff
// correctly. Elements present in both snapshots stay in place when their relative order is kept; of those whose
// order changed, the longest run that keeps its order stays and the rest are reported as deleted and inserted, as
// RealmSwift reports moves. Deletions are positions in the old snapshot, insertions and modifications positions in
// the new one, all ascending; applying them (delete, then insert) to the old elements gives the new ones.
//
// The common cases are cheap: identical snapshots cost one comparison, and a common prefix and suffix are matched
// without hashing, so one element inserted, deleted or moved in 100,000 costs a linear scan.

struct OrderedChangeSet: Equatable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// The change from `old` to `new` (object keys); elements kept in place that are in `modified` are
    /// modifications. `movable`, when given (ascending), holds every element that may have moved: the others are
    /// known to keep their relative order (patched results: objects whose sort values did not change), which lets
    /// the middle part be diffed by looking at the movable elements only.
    static func between(_ old: [Int64], _ new: [Int64], modified: Set<Int64> = [],
                        movable: [Int64]?) -> OrderedChangeSet {
        guard let movable else { return between(old, new, modified: modified) }
        let (prefix, suffix) = commonEnds(old, new)
        let oldMiddle = prefix..<(old.count - suffix)
        let newMiddle = prefix..<(new.count - suffix)
        var change = OrderedChangeSet()
        if !oldMiddle.isEmpty && !newMiddle.isEmpty {
            guard let diff = movableDiff(old, oldMiddle, new, newMiddle, movable: movable) else {
                return between(old, new, modified: modified)   // the hint did not hold: diff in general
            }
            change.deletions = diff.deletions
            change.insertions = diff.insertions
        } else {
            change.deletions = Array(oldMiddle)
            change.insertions = Array(newMiddle)
        }
        let inserted = Set(change.insertions)   // few: the movable elements' new positions
        change.addModifications(in: new, modified: modified) { position in
            position < prefix || position >= new.count - suffix || !inserted.contains(position)
        }
        return change
    }

    /// The lengths of the common prefix and (not overlapping it) the common suffix.
    private static func commonEnds(_ old: [Int64], _ new: [Int64]) -> (prefix: Int, suffix: Int) {
        old.withUnsafeBufferPointer { o in
            new.withUnsafeBufferPointer { n in
                let shorter = min(o.count, n.count)
                var prefix = 0
                while prefix < shorter && o[prefix] == n[prefix] { prefix += 1 }
                var suffix = 0
                while suffix < shorter - prefix && o[o.count - 1 - suffix] == n[n.count - 1 - suffix] { suffix += 1 }
                return (prefix, suffix)
            }
        }
    }

    /// Adds the positions of `new` whose element is in `modified` and that `isKept` says stayed in place.
    private mutating func addModifications<Element: Hashable>(in new: [Element], modified: Set<Element>,
                                                              isKept: (Int) -> Bool) {
        if modified.isEmpty { return }
        new.withUnsafeBufferPointer { elements in
            if modified.count <= 8 {
                // A few changed elements are looked for one at a time, each by a tight scan.
                for element in modified {
                    for position in elements.indices where elements[position] == element && isKept(position) {
                        modifications.append(position)
                    }
                }
                modifications.sort()
            } else {
                for position in elements.indices where modified.contains(elements[position]) && isKept(position) {
                    modifications.append(position)
                }
            }
        }
    }

    /// The middle parts' diff when only `movable` elements (ascending) may have changed their relative order:
    /// every other element stays, and a movable element present in both stays when as many of the others precede
    /// it in both (with, among several such in one gap, the longest run that keeps its order). Returns the old
    /// positions removed and the new positions inserted (ascending); nil when the other elements do not in fact
    /// keep their order.
    private static func movableDiff(_ old: [Int64], _ oldMiddle: Range<Int>, _ new: [Int64], _ newMiddle: Range<Int>,
                                    movable: [Int64]) -> (deletions: [Int], insertions: [Int])? {
        guard let lowest = movable.first, let highest = movable.last else {
            // Nothing moved: the middles must be equal, and then they are empty. Diff in general otherwise.
            return nil
        }
        // Movable elements with their position and gap (how many other elements precede them) on each side, and a
        // check, in the same pass, that the other elements are the same sequence on both sides.
        var oldMovable: [(element: Int64, position: Int, gap: Int)] = []
        var newMovable: [(element: Int64, position: Int, gap: Int)] = []
        let consistent = old.withUnsafeBufferPointer { o in
            new.withUnsafeBufferPointer { n in
                movable.withUnsafeBufferPointer { m in
                    func isMovable(_ element: Int64) -> Bool {
                        guard element >= lowest && element <= highest else { return false }
                        var low = 0, high = m.count
                        while low < high {
                            let middle = (low + high) / 2
                            if m[middle] < element { low = middle + 1 } else { high = middle }
                        }
                        return m[low] == element
                    }
                    var i = oldMiddle.lowerBound, j = newMiddle.lowerBound, gap = 0
                    while i < oldMiddle.upperBound || j < newMiddle.upperBound {
                        if i < oldMiddle.upperBound && isMovable(o[i]) {
                            oldMovable.append((o[i], i, gap))
                            i += 1
                        } else if j < newMiddle.upperBound && isMovable(n[j]) {
                            newMovable.append((n[j], j, gap))
                            j += 1
                        } else {
                            guard i < oldMiddle.upperBound, j < newMiddle.upperBound, o[i] == n[j] else { return false }
                            i += 1
                            j += 1
                            gap += 1
                        }
                    }
                    return true
                }
            }
        }
        guard consistent else { return nil }
        var oldByElement: [Int64: (position: Int, gap: Int)] = [:]
        oldByElement.reserveCapacity(oldMovable.count)
        for entry in oldMovable { oldByElement[entry.element] = (entry.position, entry.gap) }
        // Movable elements in both and in the same gap, in new order; within one gap, the longest run that keeps
        // its old order stays (a gap usually holds one, which then stays).
        var kept = Set<Int64>()
        var start = 0
        while start < newMovable.count {
            var end = start + 1
            while end < newMovable.count && newMovable[end].gap == newMovable[start].gap { end += 1 }
            if end - start == 1 {
                let entry = newMovable[start]
                if oldByElement[entry.element]?.gap == entry.gap { kept.insert(entry.element) }
            } else {
                var elements: [Int64] = [], oldPositions: [Int] = []
                for entry in newMovable[start..<end] {
                    guard let oldEntry = oldByElement[entry.element], oldEntry.gap == entry.gap else { continue }
                    elements.append(entry.element)
                    oldPositions.append(oldEntry.position)
                }
                for index in longestIncreasingRun(oldPositions) { kept.insert(elements[index]) }
            }
            start = end
        }
        let deletions = oldMovable.filter { !kept.contains($0.element) }.map(\.position)
        let insertions = newMovable.filter { !kept.contains($0.element) }.map(\.position)
        return (deletions, insertions)
    }

    /// The change from `old` to `new`; elements kept in place that are in `modified` are modifications.
    static func between<Element: Hashable>(_ old: [Element], _ new: [Element],
                                           modified: Set<Element> = []) -> OrderedChangeSet {
        var change = OrderedChangeSet()
        var prefix = 0
        let shorter = min(old.count, new.count)
        while prefix < shorter && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        // The middle parts differ at both ends.
        let oldMiddle = prefix..<(old.count - suffix)
        let newMiddle = prefix..<(new.count - suffix)
        var keptNew = [Bool](repeating: false, count: newMiddle.count)
        if !oldMiddle.isEmpty && !newMiddle.isEmpty {
            let pairs = matchedPairs(old, oldMiddle, new, newMiddle)
            // Of the matched pairs (in new order), the longest run increasing in old order stays in place.
            let kept = longestIncreasingRun(pairs.map(\.old))
            var keptOld = Set<Int>()
            for index in kept {
                keptOld.insert(pairs[index].old)
                keptNew[pairs[index].new - prefix] = true
            }
            change.deletions = oldMiddle.filter { !keptOld.contains($0) }
        } else {
            change.deletions = Array(oldMiddle)
        }
        change.insertions = newMiddle.filter { !keptNew[$0 - prefix] }
        // Modifications: elements kept in place (prefix, suffix, and the middle's kept run) that changed. A few
        // changed elements are looked for by comparison, which is cheaper per element than hashing.
        change.addModifications(in: new, modified: modified) { position in
            position < prefix || position >= new.count - suffix || keptNew[position - prefix]
        }
        return change
    }

    /// The (old, new) positions of the elements present in both middle parts, in new order. Elements are told
    /// apart by value and, when a value repeats, by occurrence number; without repeats (every collection of
    /// objects but lists) one position per value is kept, which is much cheaper than a list of them.
    private static func matchedPairs<Element: Hashable>(_ old: [Element], _ oldMiddle: Range<Int>, _ new: [Element],
                                                        _ newMiddle: Range<Int>) -> [(old: Int, new: Int)] {
        var oldPosition: [Element: Int] = [:]
        oldPosition.reserveCapacity(oldMiddle.count)
        var repeats = false
        for position in oldMiddle where oldPosition.updateValue(position, forKey: old[position]) != nil {
            repeats = true
            break
        }
        var pairs: [(old: Int, new: Int)] = []
        pairs.reserveCapacity(min(oldMiddle.count, newMiddle.count))
        if !repeats {
            // A value repeated in the new part matches its one old position once.
            var matched = [Bool](repeating: false, count: oldMiddle.count)
            for position in newMiddle {
                guard let oldIndex = oldPosition[new[position]], !matched[oldIndex - oldMiddle.lowerBound] else { continue }
                matched[oldIndex - oldMiddle.lowerBound] = true
                pairs.append((oldIndex, position))
            }
            return pairs
        }
        var oldPositions: [Element: [Int]] = [:]
        for position in oldMiddle { oldPositions[old[position], default: []].append(position) }
        var occurrences: [Element: Int] = [:]
        for position in newMiddle {
            let element = new[position]
            let occurrence = occurrences[element, default: 0]
            occurrences[element] = occurrence + 1
            if let positions = oldPositions[element], occurrence < positions.count {
                pairs.append((positions[occurrence], position))
            }
        }
        return pairs
    }

    /// The indexes (into `values`) of a longest strictly increasing subsequence, in order.
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        if values.isEmpty { return [] }
        // Already increasing (nothing moved): the common case.
        if zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) { return Array(values.indices) }
        var tails: [Int] = []          // index into values of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last!
        while index >= 0 {
            run.append(index)
            index = previous[index]
        }
        return run.reversed()
    }

    /// The new elements rebuilt from the old ones and this change (for tests): deletions removed, then insertions
    /// placed, with `newElement(position)` giving the element inserted at a position.
    func applied<Element>(to old: [Element], newElement: (Int) -> Element) -> [Element] {
        var result = old
        for position in deletions.reversed() { result.remove(at: position) }
        for position in insertions { result.insert(newElement(position), at: position) }
        return result
    }
}
