// RowOrdering: puts rows in the order of their sort keys, or picks only the first few of that order.
//
// Each sort key reaches this file as one unsigned word per row, already turned so that comparing words compares
// values in the key's direction (OrderWords), with a class per row where the words alone cannot say it (null, NaN
// and numbers of one 64-bit type use every word). The whole order is then a least-significant-digit radix sort:
// for each key from the last to the first, the rows are sorted stably by word a byte at a time (bytes in which
// every row agrees are skipped, so small ranges of values take few passes) and then by class. Every pass is stable
// and the first pass starts from row order, so rows whose keys are all equal keep their row order: the sort is
// stable, as RealmSwift's is. No comparison is made, so a million rows cost a few passes over memory, not
// twenty million calls of a comparator.
//
// When only the first `limit` rows are wanted (`first`, `prefix(k)`), a heap of `limit` rows keeps the smallest
// seen so far; a row is compared with the heap's largest only, so nearly every row costs one comparison. Ties go
// to the earlier row, so the selection is exactly the first `limit` rows of the stable sort.

/// Memory of `count` trivial values that the ordering owns: the gather writes rows into it as it reads clusters,
/// and the ordering reads it, with no copy into an array in between (a million rows are 8 MB a key).
final class RowBuffer<Value> {
    let base: UnsafeMutablePointer<Value>
    let count: Int

    /// Takes ownership of `base`, which holds `count` initialized values.
    init(owning base: UnsafeMutablePointer<Value>, count: Int) {
        self.base = base
        self.count = count
    }

    convenience init(_ values: [Value]) {
        let base = UnsafeMutablePointer<Value>.allocate(capacity: max(values.count, 1))
        _ = UnsafeMutableBufferPointer(start: base, count: values.count).initialize(from: values)
        self.init(owning: base, count: values.count)
    }

    deinit { base.deallocate() }

    subscript(index: Int) -> Value { base[index] }

    var buffer: UnsafeBufferPointer<Value> { UnsafeBufferPointer(start: base, count: count) }
}

/// One sort key's values as unsigned words in the key's direction (smaller sorts first), and optionally a class per
/// row that comes before the word (for numbers: null, then NaN, then values).
struct OrderWords {
    var classes: RowBuffer<UInt8>?
    var words: RowBuffer<UInt64>

    init(classes: RowBuffer<UInt8>?, words: RowBuffer<UInt64>) {
        self.classes = classes
        self.words = words
    }

    init(classes: [UInt8]?, words: [UInt64]) {
        self.init(classes: classes.map(RowBuffer.init), words: RowBuffer(words))
    }

    /// An integer's (or boolean's, as 0 or 1) word and class: null first, then ascending values; descending
    /// reverses both. Flipping the sign bit makes two's complement order unsigned order.
    @inline(__always)
    static func integerWord(_ value: Int64, isNull: Bool, ascending: Bool) -> (UInt64, UInt8) {
        if isNull { return (0, ascending ? 0 : 1) }
        return (UInt64(bitPattern: value) ^ (ascending ? 1 << 63 : ~(1 << 63)), ascending ? 1 : 0)
    }

    /// A double's word and class: null first, then NaN, then ascending numbers (-0.0 and 0.0 one value);
    /// descending reverses it all. IEEE order becomes unsigned order when negative numbers have every bit flipped
    /// and the others the sign bit.
    @inline(__always)
    static func doubleWord(_ value: Double, isNull: Bool, ascending: Bool) -> (UInt64, UInt8) {
        let rowClass: UInt8
        var word: UInt64 = 0
        if isNull {
            rowClass = 0
        } else if value.isNaN {
            rowClass = 1
        } else {
            rowClass = 2
            let bits = (value == 0 ? 0.0 : value).bitPattern
            word = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        }
        return (ascending ? word : ~word, ascending ? rowClass : 2 - rowClass)
    }

    /// Integers (and booleans): see `integerWord`.
    static func integers(_ values: [Int64], nulls: [Bool], ascending: Bool) -> OrderWords {
        words(count: values.count) { integerWord(values[$0], isNull: nulls[$0], ascending: ascending) }
    }

    /// Doubles: see `doubleWord`.
    static func doubles(_ values: [Double], nulls: [Bool], ascending: Bool) -> OrderWords {
        words(count: values.count) { doubleWord(values[$0], isNull: nulls[$0], ascending: ascending) }
    }

    /// The words and classes of `count` rows, the classes left out when every row has the same one.
    private static func words(count: Int, _ wordOf: (Int) -> (UInt64, UInt8)) -> OrderWords {
        var words = [UInt64](repeating: 0, count: count)
        var classes = [UInt8](repeating: 0, count: count)
        for row in 0..<count { (words[row], classes[row]) = wordOf(row) }
        let oneClass = classes.allSatisfy { $0 == classes.first }
        return OrderWords(classes: oneClass ? nil : classes, words: words)
    }

    /// Dense ranks (equal values, equal ranks) of a key that is ranked by comparison (strings, other kinds).
    static func ranks(_ ranks: [Int32], ascending: Bool) -> OrderWords {
        OrderWords(classes: nil, words: ranks.map { ascending ? UInt64($0) : ~UInt64($0) })
    }
}

enum RowOrdering {
    /// Rows 0 ..< rowCount in the order of `keys` (the first key first), ties in row order.
    static func sortedRows(_ keys: [OrderWords], rowCount: Int) -> [Int32] {
        var order = [Int32](unsafeUninitializedCapacity: rowCount) { buffer, count in
            for row in 0..<rowCount { buffer[row] = Int32(row) }
            count = rowCount
        }
        guard rowCount > 1 else { return order }
        var words = [UInt64](repeating: 0, count: rowCount)
        var scratchWords = [UInt64](repeating: 0, count: rowCount)
        var scratchOrder = [Int32](repeating: 0, count: rowCount)
        for key in keys.reversed() {
            do {
                let keyWords = key.words.buffer
                order.withUnsafeMutableBufferPointer { order in
                    words.withUnsafeMutableBufferPointer { words in
                        scratchWords.withUnsafeMutableBufferPointer { scratchWords in
                            scratchOrder.withUnsafeMutableBufferPointer { scratchOrder in
                                for position in 0..<rowCount { words[position] = keyWords[Int(order[position])] }
                                radixSort(words: words, rows: order, scratchWords: scratchWords,
                                          scratchRows: scratchOrder)
                                if let classes = key.classes {
                                    sortByClass(rows: order, classes: classes.buffer, scratchRows: scratchOrder)
                                }
                            }
                        }
                    }
                }
            }
        }
        return order
    }

    /// The first `limit` rows of `sortedRows(keys, rowCount:)`, without ordering the others.
    static func firstRows(_ keys: [OrderWords], rowCount: Int, limit: Int) -> [Int32] {
        guard limit < rowCount / 4 else { return Array(sortedRows(keys, rowCount: rowCount).prefix(limit)) }
        guard limit > 0 else { return [] }
        func precedes(_ left: Int32, _ right: Int32) -> Bool {
            for key in keys {
                if let classes = key.classes, classes[Int(left)] != classes[Int(right)] {
                    return classes[Int(left)] < classes[Int(right)]
                }
                let l = key.words[Int(left)], r = key.words[Int(right)]
                if l != r { return l < r }
            }
            return left < right
        }
        // A max-heap of the best rows so far: its root is the last of them in order.
        var heap: [Int32] = []
        heap.reserveCapacity(limit)
        func siftUp(_ start: Int) {
            var child = start
            while child > 0 {
                let parent = (child - 1) / 2
                guard precedes(heap[parent], heap[child]) else { break }
                heap.swapAt(parent, child)
                child = parent
            }
        }
        func siftDown() {
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var largest = parent
                if left < heap.count && precedes(heap[largest], heap[left]) { largest = left }
                if right < heap.count && precedes(heap[largest], heap[right]) { largest = right }
                if largest == parent { return }
                heap.swapAt(parent, largest)
                parent = largest
            }
        }
        if keys.count == 1 && keys[0].classes == nil {
            // One key without classes (the common case): compare words directly, no loop over keys.
            let words = keys[0].words.buffer
            for row in 0..<Int32(limit) {
                heap.append(row)
                siftUp(heap.count - 1)
            }
            // The root's word, kept in a local: nearly every row is compared with it and goes no further.
            var threshold = words[Int(heap[0])]
            for row in limit..<rowCount where words[row] < threshold {
                // A later row equal to the root comes after it: only a smaller word replaces it.
                heap[0] = Int32(row)
                siftDown()
                threshold = words[Int(heap[0])]
            }
        } else {
            for row in 0..<Int32(rowCount) {
                if heap.count < limit {
                    heap.append(row)
                    siftUp(heap.count - 1)
                } else if precedes(row, heap[0]) {
                    heap[0] = row
                    siftDown()
                }
            }
        }
        heap.sort(by: precedes)
        return heap
    }

    /// Stable LSD radix sort of `words` (carrying `rows` along) a byte at a time, skipping bytes all rows share.
    /// The result is in `words` and `rows`; the scratch buffers are the same size.
    private static func radixSort(words: UnsafeMutableBufferPointer<UInt64>, rows: UnsafeMutableBufferPointer<Int32>,
                                  scratchWords: UnsafeMutableBufferPointer<UInt64>,
                                  scratchRows: UnsafeMutableBufferPointer<Int32>) {
        let count = words.count
        var histograms = [Int](repeating: 0, count: 8 * 256)
        histograms.withUnsafeMutableBufferPointer { histogram in
            for word in words {
                for byte in 0..<8 { histogram[byte &* 256 &+ Int((word >> (UInt64(byte) &* 8)) & 0xFF)] &+= 1 }
            }
        }
        var source = (words, rows), target = (scratchWords, scratchRows)
        var offsets = [Int](repeating: 0, count: 256)
        for byte in 0..<8 {
            let base = byte * 256
            // A byte every row shares orders nothing.
            if histograms[base + Int((words[0] >> (UInt64(byte) * 8)) & 0xFF)] == count { continue }
            var total = 0
            for bucket in 0..<256 {
                offsets[bucket] = total
                total += histograms[base + bucket]
            }
            let shift = UInt64(byte) * 8
            offsets.withUnsafeMutableBufferPointer { offsets in
                for position in 0..<count {
                    let word = source.0[position]
                    let bucket = Int((word >> shift) & 0xFF)
                    let destination = offsets[bucket]
                    offsets[bucket] = destination &+ 1
                    target.0[destination] = word
                    target.1[destination] = source.1[position]
                }
            }
            swap(&source, &target)
        }
        if source.0.baseAddress != words.baseAddress {
            _ = words.update(fromContentsOf: source.0)
            _ = rows.update(fromContentsOf: source.1)
        }
    }

    /// Stable counting sort of `rows` by their class.
    private static func sortByClass(rows: UnsafeMutableBufferPointer<Int32>, classes: UnsafeBufferPointer<UInt8>,
                                    scratchRows: UnsafeMutableBufferPointer<Int32>) {
        var offsets = [Int](repeating: 0, count: 257)
        for row in rows { offsets[Int(classes[Int(row)]) + 1] += 1 }
        if offsets.contains(rows.count) { return }   // every row in one class
        for bucket in 1...256 { offsets[bucket] += offsets[bucket - 1] }
        for row in rows {
            let bucket = Int(classes[Int(row)])
            scratchRows[offsets[bucket]] = row
            offsets[bucket] += 1
        }
        _ = rows.update(fromContentsOf: scratchRows)
    }
}
