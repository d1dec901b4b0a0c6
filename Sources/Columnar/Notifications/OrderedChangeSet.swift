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
        if modified.isEmpty { return change }
        let few = modified.count <= 8 ? Array(modified) : nil
        for position in 0..<new.count {
            let element = new[position]
            guard few?.contains(element) ?? modified.contains(element) else { continue }
            if position >= prefix && position < new.count - suffix && !keptNew[position - prefix] { continue }
            change.modifications.append(position)
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
