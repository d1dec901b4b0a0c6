// ColumnarQueryEngine: the query suite on Columnar through its Swift API, as an application writes queries:
// `realm.objects(T.self).filter("intCol > %@", x).count`, `sum(ofProperty:)`, `sorted(byKeyPath:)` and reading
// every result's id with `value(forKey:)`, `filter("indexedString == %@", v).first`. Each measured query builds its Results afresh, so
// parsing, type checking and compiling the predicate are part of every query, as they are in an application.
//
// The tables are written through the C API (columnar_obj_create + columnar_obj_set in one write transaction per
// table) after the Realm has created them: ten million objects through the object API would make the setup, which
// is not measured, dominate the run.
//
// For the scans the engine also times the same work done straight on the C API (columnar_scan_* and
// columnar_kernel_* called from a plain loop, no QueryVM): the floor the Results API could reach. The difference
// is the Swift and VM overhead per query; the notes print both, and for sorts the time spent sorting against the
// time spent reading the objects' ids.

import CColumnar
import Columnar
import Foundation

/// The scan table's object: one Int property, indexed (SQLite gets an index on it too).
final class ScanRecord: Object, @unchecked Sendable {
    @Persisted(indexed: true) var intCol: Int
}

/// The item table's object: an Int primary key, an Int and a String to filter and sort by (indexed, as SQLite's
/// are), an indexed String.
final class QueryRecord: Object, @unchecked Sendable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var intCol: Int
    @Persisted(indexed: true) var stringCol: String
    @Persisted(indexed: true) var indexedString: String
}

/// Throws when a C API call returned anything but COLUMNAR_OK (details from the thread's last-error record).
private func check(_ rc: Int32, _ call: @autoclosure () -> String) throws {
    if rc != COLUMNAR_OK { throw BenchError.columnar(call: call(), error: ColumnarError.fromLastError(rc)) }
}

final class ColumnarQueryEngine: QueryBenchmarkEngine {
    let name: String
    var fileExtension: String { encrypted ? "encrypted.realm" : "realm" }
    /// Objects per cluster the tables are written with; nil for the engine's default.
    private let clusterSize: UInt32?
    /// Whether the files are encrypted (BenchEncryption's key).
    let encrypted: Bool

    init(clusterSize: UInt32? = nil, encrypted: Bool = false) {
        self.clusterSize = clusterSize
        self.encrypted = encrypted
        name = encrypted ? BenchEncryption.engineName : "Columnar"
    }

    var setupDescription: String {
        "\(name) queries through the object API (Realm, Results: filter, count, sum/min/max/average, sorted), "
            + "one read transaction per workload, tables written with cluster size "
            + (clusterSize.map { "\($0)" } ?? "\(COLUMNAR_DEFAULT_CLUSTER_SIZE) (default)")
            + (encrypted ? ", encrypted (AES-256-CTR + HMAC-SHA256 sectors)" : "")
    }

    private var encryptionKey: UnsafePointer<UInt8>? { encrypted ? BenchEncryption.keyPointer : nil }

    func dataFiles(at path: String) -> [String] { [path] }
    func allFiles(at path: String) -> [String] { [path, path + ".lock"] }

    /// Lookups run untimed before the measured ones, to map the index's and table's pages.
    static let warmUpLookups = 1_000

    // MARK: Setup

    func createQueryTables(path: String, data: QueryDataSet) throws -> [String] {
        // The Realm creates both tables with the model's columns and index, then closes with this scope.
        do { _ = try open(path) }
        let start = MonotonicClock.nowNanoseconds()
        var options = columnar_open_options()
        options.flags = 0
        options.durability = COLUMNAR_DURABILITY_FULL
        options.cluster_size = clusterSize ?? 0
        options.encryption_key = encryptionKey
        var handle: OpaquePointer?
        try check(columnar_open(path, &options, &handle), "columnar_open(\(path))")
        guard let db = handle else { throw BenchError.setup("columnar_open returned no handle") }
        defer { columnar_close(db) }

        try withWriteTransaction(db) { txn in
            let table = try findTable(txn, "ScanRecord")
            let intColumn = try findColumn(txn, table, "intCol")
            var value = columnar_value()
            value.type = COLUMNAR_TYPE_INT
            for intValue in data.scanValues {
                var key: columnar_key = 0
                try check(columnar_obj_create(txn, table, &key), "columnar_obj_create")
                value.as.i = intValue
                try check(columnar_obj_set(txn, table, key, intColumn, &value), "columnar_obj_set(intCol)")
            }
        }
        let scanDone = MonotonicClock.nowNanoseconds()
        try withWriteTransaction(db) { txn in
            let table = try findTable(txn, "QueryRecord")
            let intColumn = try findColumn(txn, table, "intCol")
            let stringColumn = try findColumn(txn, table, "stringCol")
            let indexedColumn = try findColumn(txn, table, "indexedString")
            var value = columnar_value()
            for id in 0 ..< data.itemCount {
                var key: columnar_key = 0
                value.type = COLUMNAR_TYPE_INT
                value.as.i = Int64(id)
                try check(columnar_obj_create_with_primary_key(txn, table, &value, &key),
                          "columnar_obj_create_with_primary_key(\(id))")
                value.as.i = data.itemInts[id]
                try check(columnar_obj_set(txn, table, key, intColumn, &value), "columnar_obj_set(intCol)")
                value.type = COLUMNAR_TYPE_STRING
                try data.itemStrings[id].withBytes { bytes in
                    value.as.bytes.data = bytes.baseAddress
                    value.as.bytes.size = bytes.count
                    try check(columnar_obj_set(txn, table, key, stringColumn, &value), "columnar_obj_set(stringCol)")
                }
                var indexed = data.indexedString(id: id)
                try indexed.withUTF8 { bytes in
                    value.as.bytes.data = UnsafeRawPointer(bytes.baseAddress)
                    value.as.bytes.size = bytes.count
                    try check(columnar_obj_set(txn, table, key, indexedColumn, &value),
                              "columnar_obj_set(indexedString)")
                }
            }
        }
        let end = MonotonicClock.nowNanoseconds()
        return [
            "setup (not measured): \(Report.grouped(data.scanValues.count)) + \(Report.grouped(data.itemCount)) "
                + "objects written through the C API (columnar_obj_create/_with_primary_key + columnar_obj_set), one "
                + "durable write transaction per table: "
                + "\(Self.seconds(scanDone - start)) + \(Self.seconds(end - scanDone))",
        ]
    }

    // MARK: Queries

    func run(_ query: BenchQuery, path: String, repetitions: QueryRepetitions, recorder: inout LatencyRecorder) throws
        -> QueryAnswer
    {
        let answer = try runThroughRealm(query, path: path, repetitions: repetitions, recorder: &recorder)
        // The Realm is closed now: time the same scan on the C API alone (see the top of this file).
        if query.readsScanTable {
            let floor = try scanOnCAPI(query, path: path, repetitions: repetitions)
            guard floor.answer == answer.integerValue || floor.answer == nil else {
                throw BenchError.wrongAnswer(engine: name + " (C API)",
                                             what: "\(query) gave \(floor.answer!) on the C API and \(answer) through Results")
            }
            recorder.notes.append("the same scan on the C API alone: \(WorkloadRunner.duration(nanoseconds: floor.kernelNanoseconds)) "
                + "a query (columnar_scan_next + columnar_scan_column + kernel), of which walking the clusters and "
                + "viewing the column \(WorkloadRunner.duration(nanoseconds: floor.walkNanoseconds))")
        }
        if case .lookups(let values) = query, case .ids(let ids) = answer {
            let nanoseconds = try lookUpOnCAPI(values, expecting: ids, path: path)
            recorder.notes.append("the same lookups on the C API alone (columnar_index_find_all, then "
                + "columnar_obj_get_int of the id): \(Report.format(nanoseconds / 1e3, decimals: 2)) µs a lookup")
        }
        return answer
    }

    /// The indexed-string lookups done directly on the C API, in the same order: mean ns a lookup. What the engine
    /// itself costs: the index's descent, the check of each candidate's string (the table's descent) and the read of
    /// its id; the rest of a lookup through Results is the object API's.
    private func lookUpOnCAPI(_ values: [String], expecting ids: [Int64], path: String) throws -> Double {
        try withReadTransactionOnCAPI(path: path) { txn in try lookUp(values, expecting: ids, in: txn) }
    }

    private func lookUp(_ values: [String], expecting ids: [Int64], in txn: OpaquePointer) throws -> Double {
        let table = try findTable(txn, "QueryRecord")
        let indexed = try findColumn(txn, table, "indexedString")
        let idColumn = try findColumn(txn, table, "id")
        var found: [Int64] = []
        found.reserveCapacity(values.count)
        let start = MonotonicClock.nowNanoseconds()
        for var value in values {
            let id = try value.withUTF8 { bytes -> Int64 in
                var constant = columnar_value()
                constant.type = COLUMNAR_TYPE_STRING
                constant.as.bytes.data = UnsafeRawPointer(bytes.baseAddress)
                constant.as.bytes.size = bytes.count
                var key: columnar_key = 0
                var count = 0
                try check(columnar_index_find_all(txn, table, indexed, &constant, &key, 1, &count),
                          "columnar_index_find_all")
                guard count > 0 else { return -1 }
                var id: Int64 = 0
                var isNull = false
                try check(columnar_obj_get_int(txn, table, key, idColumn, &id, &isNull), "columnar_obj_get_int(id)")
                return id
            }
            found.append(id)
        }
        let nanoseconds = Double(MonotonicClock.nowNanoseconds() - start) / Double(max(1, values.count))
        guard found == ids else {
            throw BenchError.wrongAnswer(engine: name + " (C API)", what: "the lookups found other objects")
        }
        return nanoseconds
    }

    private func runThroughRealm(_ query: BenchQuery, path: String, repetitions: QueryRepetitions,
                                 recorder: inout LatencyRecorder) throws -> QueryAnswer {
        let realm = try open(path)
        // Every query starts from new Results, so nothing one run computed can serve the next.
        var scan: Results<ScanRecord> { realm.objects(ScanRecord.self) }
        var items: Results<QueryRecord> { realm.objects(QueryRecord.self) }

        if case .lookups(let values) = query {
            func lookUp(_ value: String) throws -> Int64 {
                guard let item = items.filter("indexedString == %@", value).first else {
                    throw BenchError.wrongAnswer(engine: name, what: "no object with indexedString \(value)")
                }
                return Int64(item.id)
            }
            for value in values.prefix(Self.warmUpLookups) { _ = try lookUp(value) }
            var ids: [Int64] = []
            ids.reserveCapacity(values.count)
            recorder.startRun()
            for value in values { ids.append(try recorder.measure { try lookUp(value) }) }
            recorder.endRun()
            if let value = values.first {
                recorder.notes.append("program: " + Self.oneLine(items.filter("indexedString == %@", value).explain()))
            }
            // Where a lookup's time goes: the object API's own lookup by primary key (materializing the object
            // and reading its id, without a predicate), for comparison.
            let start = MonotonicClock.nowNanoseconds()
            var pkSum: Int64 = 0
            for id in ids { pkSum &+= Int64(realm.object(ofType: QueryRecord.self, forPrimaryKey: Int(id))?.id ?? -1) }
            let pkNanoseconds = Double(MonotonicClock.nowNanoseconds() - start) / Double(max(1, ids.count))
            guard pkSum == ids.reduce(0, &+) else {
                throw BenchError.wrongAnswer(engine: name, what: "object(ofType:forPrimaryKey:) found other objects")
            }
            recorder.notes.append("for comparison, realm.object(ofType:forPrimaryKey:) of the same objects then "
                + "reading the id: \(WorkloadRunner.duration(nanoseconds: pkNanoseconds)) a lookup")
            return .ids(ids)
        }

        var sortNanoseconds: UInt64 = 0
        var readNanoseconds: UInt64 = 0
        func sortedIDs(_ keyPath: String) throws -> QueryAnswer {
            let start = MonotonicClock.nowNanoseconds()
            let sorted = items.sorted(byKeyPath: keyPath)
            _ = sorted.first  // computes the sorted keys
            let sortedAt = MonotonicClock.nowNanoseconds()
            // The ids as SQLite's `SELECT id ... ORDER BY` gives them: one property of every result, which
            // RealmSwift's API reads with value(forKey:). (Object by object is measured once, in the notes.)
            guard let ids = sorted.value(forKey: "id") as? [Int] else {
                throw BenchError.wrongAnswer(engine: name, what: "value(forKey: \"id\") did not return [Int]")
            }
            sortNanoseconds += sortedAt - start
            readNanoseconds += MonotonicClock.nowNanoseconds() - sortedAt
            return .ids(ids.map(Int64.init))
        }
        func present<Value>(_ value: Value?) throws -> Value {
            guard let value else { throw BenchError.wrongAnswer(engine: name, what: "\(query) returned nil") }
            return value
        }
        func runOnce() throws -> QueryAnswer {
            switch query {
            case .countGreater(let threshold): return .integer(Int64(scan.filter("intCol > %@", threshold).count))
            case .sum: return .integer(Int64(scan.sum(ofProperty: "intCol") as Int))
            case .minimum: return .integer(Int64(try present(scan.min(ofProperty: "intCol") as Int?)))
            case .maximum: return .integer(Int64(try present(scan.max(ofProperty: "intCol") as Int?)))
            case .average: return .double(try present(scan.average(ofProperty: "intCol") as Double?))
            case .countBeginsWith(let prefix):
                return .integer(Int64(items.filter("stringCol BEGINSWITH %@", prefix).count))
            case .sortByInt, .sortByString: return try sortedIDs(query.sortKeyPath)
            case .lookups: preconditionFailure("handled above")
            }
        }

        _ = try runOnce()
        sortNanoseconds = 0
        readNanoseconds = 0
        var answer = QueryAnswer.ids([])
        recorder.startRun()
        try repetitions.repeatTimed { answer = try recorder.measure { try runOnce() } }
        recorder.endRun()

        switch query {
        case .countGreater(let threshold):
            recorder.notes.append("program: " + Self.oneLine(scan.filter("intCol > %@", threshold).explain()))
        case .countBeginsWith(let prefix):
            recorder.notes.append("program: " + Self.oneLine(items.filter("stringCol BEGINSWITH %@", prefix).explain()))
        case .sortByInt, .sortByString:
            let perQuery = Double(recorder.operationsMeasured)
            // The other way to read the ids, once: object by object (each object materialized, its id read), and
            // of that the iteration alone.
            let sorted = items.sorted(byKeyPath: query.sortKeyPath)
            _ = sorted.first
            let objectsStart = MonotonicClock.nowNanoseconds()
            var objectIDs: [Int64] = []
            objectIDs.reserveCapacity(items.count)
            for item in sorted { objectIDs.append(Int64(item.id)) }
            let iterationStart = MonotonicClock.nowNanoseconds()
            var objectCount = 0
            for _ in sorted { objectCount += 1 }
            let iterationEnd = MonotonicClock.nowNanoseconds()
            if case .ids(let ids) = answer, ids != objectIDs {
                throw BenchError.wrongAnswer(engine: name, what: "value(forKey:) and the objects' ids differ")
            }
            recorder.notes.append("sorting (computing the sorted keys) "
                + "\(WorkloadRunner.duration(nanoseconds: Double(sortNanoseconds) / perQuery)), reading every "
                + "id with value(forKey:) \(WorkloadRunner.duration(nanoseconds: Double(readNanoseconds) / perQuery))"
                + " a query; reading them object by object instead (for item in sorted { item.id }) takes "
                + WorkloadRunner.duration(nanoseconds: Double(iterationStart - objectsStart))
                + ", of which iterating the \(objectCount) objects without reading the id "
                + WorkloadRunner.duration(nanoseconds: Double(iterationEnd - iterationStart)))
        default:
            break
        }
        return answer
    }

    /// A scan query done directly on the C API: (mean ns a query with the kernel, mean ns of the cluster walk
    /// and column views alone, the answer of the kernel run for counts, sums, minima and maxima).
    private func scanOnCAPI(_ query: BenchQuery, path: String, repetitions: QueryRepetitions) throws
        -> (kernelNanoseconds: Double, walkNanoseconds: Double, answer: Int64?)
    {
        try withReadTransactionOnCAPI(path: path) { txn in try scan(query, in: txn, repetitions: repetitions) }
    }

    /// Opens the file read-only on the C API and runs `body` in a read transaction.
    private func withReadTransactionOnCAPI<R>(path: String, _ body: (OpaquePointer) throws -> R) throws -> R {
        var options = columnar_open_options()
        options.flags = COLUMNAR_OPEN_READ_ONLY.rawValue
        options.encryption_key = encryptionKey
        var handle: OpaquePointer?
        try check(columnar_open(path, &options, &handle), "columnar_open(\(path))")
        guard let db = handle else { throw BenchError.setup("columnar_open returned no handle") }
        defer { columnar_close(db) }
        var transaction: OpaquePointer?
        try check(columnar_txn_begin_read(db, &transaction), "columnar_txn_begin_read")
        guard let txn = transaction else { throw BenchError.setup("columnar_txn_begin_read returned nothing") }
        defer { columnar_txn_rollback(txn) }
        return try body(txn)
    }

    private func scan(_ query: BenchQuery, in txn: OpaquePointer, repetitions: QueryRepetitions) throws
        -> (kernelNanoseconds: Double, walkNanoseconds: Double, answer: Int64?)
    {
        let table = try findTable(txn, "ScanRecord")
        let column = try findColumn(txn, table, "intCol")
        let mask = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(columnar_scan_max_rows()))
        defer { mask.deallocate() }

        /// One pass over the table; with `kernel` false only the walk and the views.
        func pass(kernel: Bool) throws -> Int64? {
            var scan: OpaquePointer?
            try check(columnar_scan_open(txn, table, &scan), "columnar_scan_open")
            defer { columnar_scan_close(scan) }
            var cluster = columnar_cluster()
            var view = columnar_column_view()
            var matches: UInt64 = 0
            var aggregate = columnar_aggregate()
            while true {
                let rc = columnar_scan_next(scan, &cluster)
                if rc == COLUMNAR_ENOTFOUND { break }
                try check(rc, "columnar_scan_next")
                try check(columnar_scan_column(scan, column, &view), "columnar_scan_column")
                guard kernel else { continue }
                if case .countGreater(let threshold) = query {
                    columnar_kernel_compare_int(&view, COLUMNAR_COMPARE_GT, threshold, false, mask)
                    matches += columnar_mask_count(mask, cluster.row_count)
                } else {
                    columnar_kernel_aggregate(&view, nil, &aggregate)
                }
            }
            switch query {
            case .countGreater: return Int64(matches)
            case .sum: return Int64(truncatingIfNeeded: aggregate.int_sum_low)
            case .minimum: return aggregate.count > 0 ? aggregate.int_min : nil
            case .maximum: return aggregate.count > 0 ? aggregate.int_max : nil
            default: return nil
            }
        }

        func meanNanoseconds(kernel: Bool) throws -> (Double, Int64?) {
            var answer = try pass(kernel: kernel)  // warm-up
            let start = MonotonicClock.nowNanoseconds()
            let done = try repetitions.repeatTimed { answer = try pass(kernel: kernel) }
            return (Double(MonotonicClock.nowNanoseconds() - start) / Double(done), answer)
        }
        let (kernelNanoseconds, answer) = try meanNanoseconds(kernel: true)
        let (walkNanoseconds, _) = try meanNanoseconds(kernel: false)
        return (kernelNanoseconds, walkNanoseconds, answer)
    }

    // MARK: Helpers

    private func open(_ path: String) throws -> Realm {
        try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                     encryptionKey: encrypted ? BenchEncryption.keyData : nil,
                                                     objectTypes: [ScanRecord.self, QueryRecord.self]))
    }

    private func withWriteTransaction(_ db: OpaquePointer, _ body: (OpaquePointer) throws -> Void) throws {
        var transaction: OpaquePointer?
        try check(columnar_txn_begin_write(db, &transaction), "columnar_txn_begin_write")
        guard let txn = transaction else { throw BenchError.setup("columnar_txn_begin_write returned nothing") }
        do { try body(txn) } catch {
            columnar_txn_rollback(txn)
            throw error
        }
        try check(columnar_txn_commit(txn), "columnar_txn_commit")
    }

    private func findTable(_ txn: OpaquePointer, _ name: String) throws -> columnar_table_id {
        var table: columnar_table_id = 0
        try check(columnar_table_find(txn, name, &table), "columnar_table_find(\(name))")
        return table
    }

    private func findColumn(_ txn: OpaquePointer, _ table: columnar_table_id, _ name: String) throws
        -> columnar_col_id
    {
        var column: columnar_col_id = 0
        try check(columnar_column_find(txn, table, name, &column), "columnar_column_find(\(name))")
        return column
    }

    /// `explain()`'s lines joined into one, for a note.
    private static func oneLine(_ text: String) -> String {
        text.split(separator: "\n").map { $0.trimmingSpaces() }.joined(separator: " | ")
    }

    private static func seconds(_ nanoseconds: UInt64) -> String {
        Report.format(Double(nanoseconds) / 1e9, decimals: 2) + " s"
    }
}

extension BenchQuery {
    /// The property a sort query sorts by.
    var sortKeyPath: String {
        if case .sortByString = self { return "stringCol" }
        return "intCol"
    }
}

extension QueryAnswer {
    /// The answer as an integer, when it is one.
    var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}
