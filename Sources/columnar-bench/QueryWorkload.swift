// QueryWorkload: the query suite — counts, aggregates, a prefix match, sorts and indexed lookups, on Columnar's
// Results API (filter, count, sum/min/max/average, sorted), on SQLite with the indexes it would use, and for the
// scans also on a plain C loop over an int64_t array (CBenchBaseline), in the same run and on the same data.
//
// Two tables, written before anything is measured (each engine's setup time is printed, not measured):
//   scan table:  `scanObjectCount` (default 10,000,000) objects with one Int property, uniform in 0 ..< 1,000,000.
//   item table:  `objectCount` (default 1,000,000) objects: id (the primary key), intCol (a seeded permutation of
//                0 ..< objectCount, so sorts have no ties), stringCol (10 ... 14 random lowercase letters) and
//                indexedString (16 hex digits, distinct, with a search index).
// Workloads, each run once untimed (warm-up: the file's pages are mapped or cached) and then timed at least 5 times
// and until its timed runs took 0.2 s (--lookups lookups for the last), one query per operation:
//   count of intCol > x over the scan table, x chosen so that 50 % and 1 % match;
//   sum, min, max and average of intCol over the scan table, each its own query;
//   count of stringCol BEGINSWITH "ab" over the item table (case-sensitive on both engines);
//   the item table sorted by intCol and by stringCol, reading the id of every object in order;
//   lookups of single objects by indexedString, reading the id of each.
// Every answer is checked against the data (counts, sums, extremes, averages; a sort must return every id once
// with its sort values non-decreasing), so a wrong engine fails the run. SQLite gets an index on every column a
// query filters or sorts by; where that index changes the algorithm (range counts, min/max, prefix, sorts) its
// figure without the index is printed as a note.

import Columnar
#if canImport(Glibc)
import Glibc
#endif

/// The data of the query suite: each value a pure function of (seed, row index), as in `DataSet`.
struct QueryDataSet {
    /// intCol of the scan table, by row index (kept in memory: the C-loop baseline scans this very array).
    let scanValues: [Int64]
    /// intCol of the item table: a permutation of 0 ..< itemCount.
    let itemInts: [Int64]
    /// stringCol of the item table.
    let itemStrings: [ShortText]
    let seed: UInt64

    /// Scan values are uniform in 0 ..< scanValueRange.
    static let scanValueRange: Int64 = 1_000_000

    init(seed: UInt64, scanObjectCount: Int, itemCount: Int) {
        self.seed = seed
        scanValues = (0 ..< scanObjectCount).map { rowIndex in
            var generator = SplitMix64(seed: seed ^ (UInt64(rowIndex) &* 0xD6E8_FEB8_6659_FD93))
            return Int64(generator.next() % UInt64(Self.scanValueRange))
        }
        var generator = SplitMix64(seed: seed &+ 1)
        var permutation = (0 ..< Int64(itemCount)).map { $0 }
        permutation.shuffle(using: &generator)
        itemInts = permutation
        itemStrings = (0 ..< itemCount).map { _ in ShortText(randomLettersFrom: &generator) }
    }

    var itemCount: Int { itemInts.count }

    /// indexedString of item `id`: 16 lowercase hex digits of a bijective mix of the id, so values are distinct.
    func indexedString(id: Int) -> String {
        var mixed = UInt64(id) ^ seed
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        let digits = String(mixed, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// One query of the suite.
enum BenchQuery {
    /// The number of scan-table objects whose intCol is greater than `threshold`.
    case countGreater(threshold: Int64)
    case sum
    case minimum
    case maximum
    case average
    /// The number of item-table objects whose stringCol starts with `prefix` (ASCII letters), case-sensitively.
    case countBeginsWith(prefix: String)
    /// The item table's ids in intCol order.
    case sortByInt
    /// The item table's ids in stringCol order (bytewise, which is both engines' order for strings).
    case sortByString
    /// The id of the item whose indexedString is each of `values`, in order.
    case lookups(values: [String])

    /// Whether the query reads the scan table (and has a C-loop counterpart).
    var readsScanTable: Bool {
        switch self {
        case .countGreater, .sum, .minimum, .maximum, .average: return true
        case .countBeginsWith, .sortByInt, .sortByString, .lookups: return false
        }
    }
}

/// What a query returned.
enum QueryAnswer {
    case integer(Int64)
    case double(Double)
    /// Object ids, in the order the engine returned them.
    case ids([Int64])
}

/// What the runner needs of an engine for the query suite.
protocol QueryBenchmarkEngine: EngineIdentity {
    /// Setup, not measured: writes both tables of `data` into a new database at `path`. Returns lines for the
    /// report (what was written, how, how long it took).
    func createQueryTables(path: String, data: QueryDataSet) throws -> [String]
    /// Whether the engine runs `query` (the C loop only runs scans).
    func supports(_ query: BenchQuery) -> Bool
    /// Runs `query` once untimed, then as often as `repetitions` says inside the recorder's measured interval, one
    /// `recorder.measure` per query (for `.lookups`: one per lookup, and `repetitions` is ignored). Returns the
    /// last run's answer.
    func run(_ query: BenchQuery, path: String, repetitions: QueryRepetitions, recorder: inout LatencyRecorder) throws
        -> QueryAnswer
    /// The same query with the engine's secondary indexes out of play, where an index changes how it runs; nil
    /// otherwise. Measured like `run`.
    func runWithoutIndexes(_ query: BenchQuery, path: String, repetitions: QueryRepetitions, recorder: inout LatencyRecorder)
        throws -> QueryAnswer?
}

extension QueryBenchmarkEngine {
    func supports(_ query: BenchQuery) -> Bool { true }
    func runWithoutIndexes(_ query: BenchQuery, path: String, repetitions: QueryRepetitions, recorder: inout LatencyRecorder)
        throws -> QueryAnswer? { nil }
}

extension WorkloadRunner {
    /// The query suite on every query engine; see the top of this file.
    mutating func runQuerySuite() throws -> [WorkloadResult] {
        var results: [WorkloadResult] = []
        progress("generating the query suite's data (\(configuration.scanObjectCount) + "
            + "\(configuration.objectCount) objects)")
        let data = QueryDataSet(seed: configuration.seed &+ 6, scanObjectCount: configuration.scanObjectCount,
                                itemCount: configuration.objectCount)
        for engine in queryEngines {
            let path = databasePath(engine, "query")
            removeFiles(of: engine, at: path)
            progress("\(engine.name): setting up the query suite's tables")
            setupNotes += try engine.createQueryTables(path: path, data: data).map { "\(engine.name): \($0)" }
        }
        // The setups leave about 500 MB of dirty pages; written back in the background, they would take CPU time
        // from whichever workloads run first. Write them back now, outside every measured interval.
        progress("writing the tables back to disk before measuring (sync)")
        sync()

        let repetitions = configuration.queryRepetitions
        for (workload, query) in Self.queries(data: data, configuration: configuration) {
            let expected = Self.expectedAnswer(query, data: data)
            let isLookup: Bool
            if case .lookups = query { isLookup = true } else { isLookup = false }
            // Lookups run once per value; other queries as often as `repetitions` says.
            let lookupCount: Int?
            if case .lookups(let values) = query { lookupCount = values.count } else { lookupCount = nil }
            var rowOfEngine: [String: Int] = [:]
            var sortOrders: [[Int64]] = []
            for engine in queryEngines where engine.supports(query) {
                let path = databasePath(engine, "query")
                results.append(try measure(workload, engine, path, operations: lookupCount,
                                           operationsPerSample: isLookup ? Self.objectReadsPerSample : 1) { recorder in
                    let answer = try engine.run(query, path: path, repetitions: repetitions, recorder: &recorder)
                    try Self.check(answer, expected, query, data: data, engine: engine.name)
                    if !isLookup, case .ids(let ids) = answer { sortOrders.append(ids) }
                })
                rowOfEngine[engine.name] = results.count - 1
                // SQLite without the index, as a note on its row (see the top of this file).
                var recorder = LatencyRecorder(expectedOperations: 1024)
                if let answer = try engine.runWithoutIndexes(query, path: path, repetitions: repetitions,
                                                             recorder: &recorder) {
                    try Self.check(answer, expected, query, data: data, engine: engine.name + " (without index)")
                    let perQuery = Double(recorder.runNanoseconds) / Double(recorder.operationsMeasured)
                    var note = "without the index: \(Self.duration(nanoseconds: perQuery)) a query"
                    if let columnarRow = rowOfEngine[Report.comparedEngine] {
                        let columnarPerQuery = results[columnarRow].elapsedSeconds * 1e9
                            / Double(results[columnarRow].operationCount)
                        note += "; \(Report.comparedEngine)/that: "
                            + Report.format(perQuery / columnarPerQuery, decimals: 2) + "×"
                    }
                    results[results.count - 1].notes.append(note)
                }
            }
            // Each engine's sort was checked on its own; say whether the orders are also identical (they may
            // differ only among equal sort values, which both then hold in ascending id order).
            if sortOrders.count == 2, let lastRow = rowOfEngine.values.max() {
                let differing = zip(sortOrders[0], sortOrders[1]).filter { $0 != $1 }.count
                results[lastRow].notes.append(differing == 0
                    ? "both engines returned the \(sortOrders[0].count) ids in the same order"
                    : "the engines' orders differ at \(differing) positions, all among equal sort values")
            }
            if !isLookup {
                for index in rowOfEngine.values {
                    let perQuery = results[index].elapsedSeconds * 1e9 / Double(results[index].operationCount)
                    results[index].notes.insert("\(Self.duration(nanoseconds: perQuery)) a query", at: 0)
                }
            }
        }
        if !keepFiles {
            for engine in queryEngines { removeFiles(of: engine, at: databasePath(engine, "query")) }
        }
        return results
    }

    /// The suite's workloads, in order, with their report names.
    static func queries(data: QueryDataSet, configuration: BenchConfiguration) -> [(String, BenchQuery)] {
        let range = QueryDataSet.scanValueRange
        // Values are uniform in 0 ..< range: intCol > x matches (range - 1 - x) / range of the objects.
        let halfThreshold = range / 2 - 1
        let onePercentThreshold = range - range / 100 - 1
        let scanSize = Report.shortCount(configuration.scanObjectCount)
        let itemSize = Report.shortCount(configuration.objectCount)

        // Lookups of distinct ids in a seeded random order while there are enough objects.
        var generator = SplitMix64(seed: data.seed &+ 2)
        var order = Array(0 ..< data.itemCount)
        order.shuffle(using: &generator)
        let lookupValues = (0 ..< configuration.lookupCount).map { data.indexedString(id: order[$0 % data.itemCount]) }

        return [
            ("query: count int > x, 50% (\(scanSize))", .countGreater(threshold: halfThreshold)),
            ("query: count int > x, 1% (\(scanSize))", .countGreater(threshold: onePercentThreshold)),
            ("query: sum of int (\(scanSize))", .sum),
            ("query: min of int (\(scanSize))", .minimum),
            ("query: max of int (\(scanSize))", .maximum),
            ("query: average of int (\(scanSize))", .average),
            ("query: count BEGINSWITH 'ab' (\(itemSize))", .countBeginsWith(prefix: "ab")),
            ("query: sort by int, read ids (\(itemSize))", .sortByInt),
            ("query: sort by string, read ids (\(itemSize))", .sortByString),
            ("query: indexed string == v", .lookups(values: lookupValues)),
        ]
    }

    /// The right answer, computed from the data; nil for sorts, which are checked by their properties instead.
    static func expectedAnswer(_ query: BenchQuery, data: QueryDataSet) -> QueryAnswer? {
        let values = data.scanValues
        switch query {
        case .countGreater(let threshold): return .integer(Int64(values.lazy.filter { $0 > threshold }.count))
        case .sum: return .integer(values.reduce(0, +))
        case .minimum: return values.min().map { .integer($0) }
        case .maximum: return values.max().map { .integer($0) }
        case .average:
            return values.isEmpty ? nil : .double(Double(values.reduce(0, +)) / Double(values.count))
        case .countBeginsWith(let prefix):
            let prefixBytes = Array(prefix.utf8)
            return .integer(Int64(data.itemStrings.lazy.filter { text in
                text.withBytes { $0.count >= prefixBytes.count && $0.prefix(prefixBytes.count).elementsEqual(prefixBytes) }
            }.count))
        case .sortByInt, .sortByString:
            return nil
        case .lookups(let values):
            // indexedString(id:) is a bijection of the id; invert it by building the map once.
            var idOfValue: [String: Int64] = [:]
            idOfValue.reserveCapacity(data.itemCount)
            for id in 0 ..< data.itemCount { idOfValue[data.indexedString(id: id)] = Int64(id) }
            return .ids(values.map { idOfValue[$0]! })
        }
    }

    /// Throws unless `answer` is right for `query`.
    static func check(_ answer: QueryAnswer, _ expected: QueryAnswer?, _ query: BenchQuery, data: QueryDataSet,
                      engine: String) throws {
        func wrong(_ what: String) -> BenchError { BenchError.wrongAnswer(engine: engine, what: what) }
        switch (query, answer, expected) {
        case (.sortByInt, .ids(let ids), _):
            try checkSorted(ids, itemCount: data.itemCount, engine: engine) { data.itemInts[$0] < data.itemInts[$1] }
        case (.sortByString, .ids(let ids), _):
            try checkSorted(ids, itemCount: data.itemCount, engine: engine) { left, right in
                data.itemStrings[left].withBytes { l in
                    data.itemStrings[right].withBytes { r in l.lexicographicallyPrecedes(r) }
                }
            }
        case (_, .integer(let actual), .integer(let wanted)?):
            guard actual == wanted else { throw wrong("\(query) returned \(actual), expected \(wanted)") }
        case (_, .double(let actual), .double(let wanted)?):
            // Both engines sum exactly and divide once; allow for the last bit of a different division order.
            guard abs(actual - wanted) <= 1e-9 * max(1, abs(wanted)) else {
                throw wrong("\(query) returned \(actual), expected \(wanted)")
            }
        case (.lookups, .ids(let actual), .ids(let wanted)?):
            if let position = actual.indices.first(where: { actual[$0] != wanted[$0] }) ?? (actual.count != wanted.count
                ? min(actual.count, wanted.count) : nil) {
                throw wrong("lookup \(position) returned id \(position < actual.count ? "\(actual[position])" : "none"), "
                    + "expected \(position < wanted.count ? "\(wanted[position])" : "none")")
            }
        default:
            throw wrong("\(query) returned \(answer), expected \(expected.map { "\($0)" } ?? "nothing")")
        }
    }

    /// A sort is right when it returns every id exactly once and no id sorts before the one it follows.
    private static func checkSorted(_ ids: [Int64], itemCount: Int, engine: String,
                                    precedes: (Int, Int) -> Bool) throws {
        func wrong(_ what: String) -> BenchError { BenchError.wrongAnswer(engine: engine, what: what) }
        guard ids.count == itemCount else { throw wrong("the sort returned \(ids.count) ids, expected \(itemCount)") }
        var seen = [Bool](repeating: false, count: itemCount)
        for (position, id) in ids.enumerated() {
            guard id >= 0, id < Int64(itemCount), !seen[Int(id)] else {
                throw wrong("the sort returned id \(id) at position \(position): unknown or repeated")
            }
            seen[Int(id)] = true
            if position > 0, precedes(Int(id), Int(ids[position - 1])) {
                throw wrong("the sort put id \(id) after id \(ids[position - 1]), whose value is larger")
            }
        }
    }

    static func duration(nanoseconds: Double) -> String {
        if nanoseconds >= 1e9 { return Report.format(nanoseconds / 1e9, decimals: 2) + " s" }
        if nanoseconds >= 1e6 { return Report.format(nanoseconds / 1e6, decimals: nanoseconds >= 1e8 ? 0 : 1) + " ms" }
        return Report.format(nanoseconds / 1e3, decimals: 1) + " µs"
    }
}
