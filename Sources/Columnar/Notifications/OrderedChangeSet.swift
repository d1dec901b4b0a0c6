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

    /// The change from `old` to `new`; elements kept in place that are in `modified` are modifications.
    /// `movable`, when given (ascending), holds every element that may have moved: the others are known to keep
    /// their relative order (patched results: objects whose sort values did not change), which lets the middle part
    /// be diffed by looking at the movable elements only.
    static func between<Element: Hashable & Comparable>(_ old: [Element], _ new: [Element],
                                                        modified: Set<Element> = [],
                                                        movable: [Element]?) -> OrderedChangeSet {
        between(old, new, modified: modified, movable: movable, keptInMiddle: { oldMiddle, newMiddle, movable in
            keptByMovable(old, oldMiddle, new, newMiddle, movable: movable)
        })
    }

    /// The change from `old` to `new`; elements kept in place that are in `modified` are modifications.
    static func between<Element: Hashable>(_ old: [Element], _ new: [Element],
                                           modified: Set<Element> = []) -> OrderedChangeSet {
        between(old, new, modified: modified, movable: nil, keptInMiddle: { _, _, _ in nil })
    }

    private static func between<Element: Hashable>(
        _ old: [Element], _ new: [Element], modified: Set<Element>, movable: [Element]?,
        keptInMiddle: (Range<Int>, Range<Int>, [Element]) -> (deletions: [Int], insertions: [Int])?
    ) -> OrderedChangeSet {
        var change = OrderedChangeSet()
        var prefix = 0
        let shorter = min(old.count, new.count)
        while prefix < shorter && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        // The middle parts differ at both ends.
        let oldMiddle = prefix..<(old.count - suffix)
        let newMiddle = prefix..<(new.count - suffix)
        // Per new middle position, whether it is kept; nil when the movable elements' diff gave the insertions
        // directly (then a middle position is kept unless inserted).
        var keptNew: [Bool]? = [Bool](repeating: false, count: newMiddle.count)
        if !oldMiddle.isEmpty && !newMiddle.isEmpty, let movable,
           let kept = keptInMiddle(oldMiddle, newMiddle, movable) {
            keptNew = nil
            change.deletions = kept.deletions
            change.insertions = kept.insertions
        } else if !oldMiddle.isEmpty && !newMiddle.isEmpty {
            let pairs = matchedPairs(old, oldMiddle, new, newMiddle)
            // Of the matched pairs (in new order), the longest run increasing in old order stays in place.
            let kept = longestIncreasingRun(pairs.map(\.old))
            var keptOld = Set<Int>()
            for index in kept {
                keptOld.insert(pairs[index].old)
                keptNew![pairs[index].new - prefix] = true
            }
            change.deletions = oldMiddle.filter { !keptOld.contains($0) }
        } else {
            change.deletions = Array(oldMiddle)
        }
        if let keptNew { change.insertions = newMiddle.filter { !keptNew[$0 - prefix] } }
        // Modifications: elements kept in place (prefix, suffix, and the middle's kept run) that changed. A few
        // changed elements are looked for by comparison, which is cheaper per element than hashing.
        if modified.isEmpty { return change }
        let insertions = change.insertions
        func isKept(_ position: Int) -> Bool {
            if position < prefix || position >= new.count - suffix { return true }
            if let keptNew { return keptNew[position - prefix] }
            return !Self.sortedContains(insertions, position)
        }
        if modified.count <= 8 {
            // A few changed elements are looked for one at a time, each by a tight scan.
            new.withUnsafeBufferPointer { elements in
                for element in modified {
                    for position in elements.indices where elements[position] == element && isKept(position) {
                        change.modifications.append(position)
                    }
                }
            }
            change.modifications.sort()
        } else {
            for position in 0..<new.count where modified.contains(new[position]) && isKept(position) {
                change.modifications.append(position)
            }
        }
        return change
    }

    private static func sortedContains(_ sorted: [Int], _ value: Int) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == value
    }

    /// The middle parts' diff when only `movable` elements (ascending) may have changed their relative order:
    /// every other element stays, and a movable element present in both stays when as many of the others precede
    /// it in both (with, among several such in one gap, the longest run that keeps its order). Returns the old
    /// positions removed and the new positions inserted (ascending); nil when the other elements do not in fact
    /// keep their order (the general diff then runs).
    private static func keptByMovable<Element: Hashable & Comparable>(
        _ old: [Element], _ oldMiddle: Range<Int>, _ new: [Element], _ newMiddle: Range<Int>, movable: [Element]
    ) -> (deletions: [Int], insertions: [Int])? {
        func isMovable(_ element: Element) -> Bool {
            guard let first = movable.first, let last = movable.last, element >= first, element <= last else {
                return false
            }
            var low = 0, high = movable.count
            while low < high {
                let middle = (low + high) / 2
                if movable[middle] < element { low = middle + 1 } else { high = middle }
            }
            return movable[low] == element
        }
        // Movable elements with their position and gap (how many other elements precede them) on each side, and a
        // check, in the same pass, that the other elements are the same sequence on both sides.
        var oldMovable: [Element: (position: Int, gap: Int)] = [:]
        var newMovable: [(element: Element, position: Int, gap: Int)] = []
        var keptOld = Set<Int>(), keptNew = Set<Int>()   // movable ones only
        var i = oldMiddle.lowerBound, j = newMiddle.lowerBound, gap = 0
        while i < oldMiddle.upperBound || j < newMiddle.upperBound {
            if i < oldMiddle.upperBound && isMovable(old[i]) {
                oldMovable[old[i]] = (i, gap)
                i += 1
            } else if j < newMiddle.upperBound && isMovable(new[j]) {
                newMovable.append((new[j], j, gap))
                j += 1
            } else {
                guard i < oldMiddle.upperBound, j < newMiddle.upperBound, old[i] == new[j] else { return nil }
                i += 1
                j += 1
                gap += 1
            }
        }
        // Movable elements in both, in the same gap, stay in place when they keep their order among themselves.
        var start = 0
        while start < newMovable.count {
            var end = start + 1
            while end < newMovable.count && newMovable[end].gap == newMovable[start].gap { end += 1 }
            let candidates = newMovable[start..<end].compactMap { entry -> (old: Int, new: Int)? in
                guard let oldEntry = oldMovable[entry.element], oldEntry.gap == entry.gap else { return nil }
                return (oldEntry.position, entry.position)
            }
            for index in longestIncreasingRun(candidates.map(\.old)) {
                keptOld.insert(candidates[index].old)
                keptNew.insert(candidates[index].new)
            }
            start = end
        }
        let deletions = oldMovable.values.map(\.position).filter { !keptOld.contains($0) }.sorted()
        let insertions = newMovable.map(\.position).filter { !keptNew.contains($0) }
        return (deletions, insertions)
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
