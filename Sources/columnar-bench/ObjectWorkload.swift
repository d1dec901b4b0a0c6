// ObjectWorkload: the object suite — the workloads an application runs through an object API, on Columnar's
// Swift API (`Realm`, `Object`, `@Persisted`) and on SQLite's C API, in the same run and on the same data; LMDB
// (LMDBEngine.swift) runs the key-value-shaped ones (insert, read, lookup, commits) beside them.
//
// Workloads (sizes: --objects and --lookups):
//   insert:  `objectCount` objects of five properties (an Int primary key and four more) added in ONE write
//            transaction with a durable commit. The table itself is created before the measured interval.
//   read:    one Int property of every object of the table, in the engine's natural order
//            (Columnar: `for item in realm.objects(Item.self) { item.someInt }`; SQLite: `SELECT someInt FROM item`).
//   held:    one Int property of every object, the objects made before the measured interval, against the raw C
//            read of the same column (Columnar: `item.someInt` for each of `Array(realm.objects(Item.self))`;
//            C API: `columnar_obj_get_int` for every key; ColumnarColumnReads.swift). No SQLite row: the pair shows
//            what a managed property read costs over the column read it makes. The lookups have a C API row too
//            (`columnar_obj_find_primary_key` + `columnar_obj_get_int`), with the cost of one table descent noted.
//   lookup:  `lookupCount` objects found by primary key in a seeded random order, reading one Int property of each
//            (Columnar: `realm.object(ofType:forPrimaryKey:)`; SQLite: a prepared `SELECT ... WHERE id = ?` on the
//            INTEGER PRIMARY KEY).
//   sort:    every object sorted by `someInt` (no index on either side), the ids read in that order; then only the
//            first one and only the first 100 (Columnar: `realm.objects(Item.self).sorted(byKeyPath: "someInt")`,
//            then `value(forKey: "id")`, `.first` or `.prefix(100)`; SQLite: `SELECT id FROM item ORDER BY someInt`,
//            with `LIMIT 1` or `LIMIT 100`). Each sort is one operation, made afresh (a new Results, a reset statement).
//   commits: `commitCount` objects, each getting a new `someInt` in its own durable write transaction (Columnar:
//            `realm.write { realm.object(ofType:forPrimaryKey:)!.someInt = v }`; SQLite: a prepared UPDATE in
//            autocommit; LMDB: mdb_get, then mdb_put of the changed value, one write transaction each). Last, since
//            it changes the file.
// Each read workload sums what it read and the sum is checked, so a wrong engine fails the run.

/// The object of the object suite: row `rowIndex` of a `DataSet` with primary key `rowIndex` (the `large` value of
/// a `BenchRow` is not stored: five properties, the primary key included).
struct ObjectRow {
    var id: Int
    var someInt: Int
    var ratio: Double
    var label: ShortText
    var flag: Bool

    init(_ row: BenchRow, id: Int) {
        self.id = id
        someInt = Int(row.small)
        ratio = row.ratio
        label = row.label
        flag = row.flag
    }
}

/// An engine with a row in the lookup workload.
protocol PrimaryKeyLookupEngine: EngineIdentity {
    /// Finds each object of `ids` by primary key and returns the sum of their `someInt`.
    func lookUpByPrimaryKey(path: String, ids: [Int], recorder: inout LatencyRecorder) throws -> Int
}

/// What the runner needs of an engine for the object suite's key-value-shaped workloads (insert, read, lookup,
/// single-object commits), which a key-value store runs too. As for `BenchmarkEngine`, each method opens the database at `path`, does its
/// part and closes it again, and times only the measured part through `recorder`.
protocol KeyValueBenchmarkEngine: PrimaryKeyLookupEngine {
    /// Creates the table (not measured), then adds objects 0 ..< objectCount in one durable write transaction.
    func insertObjects(path: String, data: DataSet, objectCount: Int, recorder: inout LatencyRecorder) throws
    /// Reads `someInt` of every object; returns how many objects were read and the sum of the values.
    func readIntProperty(path: String, recorder: inout LatencyRecorder) throws -> (objectCount: Int, sum: Int)
    /// Sets `someInt` of object `update.id` to `update.value`, each update in its own durable write transaction.
    func singleObjectCommits(path: String, updates: [(id: Int, value: Int)], recorder: inout LatencyRecorder) throws
}

/// What the runner needs of an engine for the whole object suite: the key-value workloads and sorting.
protocol ObjectBenchmarkEngine: KeyValueBenchmarkEngine {
    /// Sorts every object by `someInt` `repetitions` times, each time reading the ids of the first `limit` objects
    /// in that order (all of them with nil), each sort timed as one operation; returns the last sort's ids.
    func sortedIDs(path: String, limit: Int?, repetitions: Int, recorder: inout LatencyRecorder) throws -> [Int]
}

/// An engine of the held-objects workload: the object API, and the C API read it is measured against.
protocol HeldObjectReadEngine: PrimaryKeyLookupEngine {
    /// Reads `someInt` of every object of the object suite's file, the objects (or keys) found before the measured
    /// interval; returns how many objects were read and the sum of the values.
    func readIntPropertyOfHeldObjects(path: String, recorder: inout LatencyRecorder) throws
        -> (objectCount: Int, sum: Int)
}

extension WorkloadRunner {
    /// Reads are timed in batches of this many operations (see LatencyRecorder): each takes well under a µs.
    static let objectReadsPerSample = 64

    /// The object suite on every object engine; see the top of this file.
    mutating func runObjectSuite() throws -> [WorkloadResult] {
        var results: [WorkloadResult] = []
        // Its own seed, so the storage suite's figures stay comparable with runs made before this suite existed.
        let data = DataSet(seed: configuration.seed &+ 4)
        let objectCount = configuration.objectCount
        let expectedSum = (0 ..< objectCount).reduce(0) { $0 + ObjectRow(data.row(at: $1), id: $1).someInt }

        let keyValueWorkloadEngines: [any KeyValueBenchmarkEngine] = objectEngines + keyValueEngines
        for engine in keyValueWorkloadEngines {
            let path = databasePath(engine, "objects")
            removeFiles(of: engine, at: path)
            results.append(try measure("objects: insert (1 txn)", engine, path, operations: objectCount) { recorder in
                try engine.insertObjects(path: path, data: data, objectCount: objectCount, recorder: &recorder)
            })
        }

        for engine in keyValueWorkloadEngines {
            let path = databasePath(engine, "objects")
            results.append(try measure("objects: read 1 int prop", engine, path, operations: objectCount,
                                       operationsPerSample: Self.objectReadsPerSample) { recorder in
                let (readCount, sum) = try engine.readIntProperty(path: path, recorder: &recorder)
                guard readCount == objectCount, sum == expectedSum else {
                    throw BenchError.wrongAnswer(engine: engine.name, what: "read \(readCount) objects summing to "
                        + "\(sum), expected \(objectCount) summing to \(expectedSum)")
                }
            })
        }

        for engine in heldReadEngines {
            let path = databasePath(engine, "objects")
            results.append(try measure("objects: read 1 int prop, held", engine, path, operations: objectCount,
                                       operationsPerSample: Self.objectReadsPerSample) { recorder in
                let (readCount, sum) = try engine.readIntPropertyOfHeldObjects(path: path, recorder: &recorder)
                guard readCount == objectCount, sum == expectedSum else {
                    throw BenchError.wrongAnswer(engine: engine.name, what: "read \(readCount) objects summing to "
                        + "\(sum), expected \(objectCount) summing to \(expectedSum)")
                }
            })
        }

        // Distinct ids in a seeded random order while there are enough objects; beyond that the order repeats.
        var orderGenerator = SplitMix64(seed: configuration.seed &+ 5)
        var order = Array(0 ..< objectCount)
        order.shuffle(using: &orderGenerator)
        let ids = (0 ..< configuration.lookupCount).map { order[$0 % objectCount] }
        let expectedLookupSum = ids.reduce(0) { $0 + ObjectRow(data.row(at: $1), id: $1).someInt }
        // The key-value engines, then the held-read engines that are not among them (the C API's row).
        let lookupEngines = keyValueWorkloadEngines.map { $0 as any PrimaryKeyLookupEngine }
            + heldReadEngines.filter { !($0 is any KeyValueBenchmarkEngine) }.map { $0 as any PrimaryKeyLookupEngine }
        for engine in lookupEngines {
            let path = databasePath(engine, "objects")
            results.append(try measure("objects: lookup by pk", engine, path, operations: ids.count,
                                       operationsPerSample: Self.objectReadsPerSample) { recorder in
                let sum = try engine.lookUpByPrimaryKey(path: path, ids: ids, recorder: &recorder)
                guard sum == expectedLookupSum else {
                    throw BenchError.wrongAnswer(engine: engine.name,
                                                 what: "lookups summed to \(sum), expected \(expectedLookupSum)")
                }
            })
        }

        // Sorting by an unindexed property: ties (someInt repeats) may come in any order, so a sort is right when
        // its ids are distinct and their values are the smallest values in ascending order.
        let someInts = (0 ..< objectCount).map { ObjectRow(data.row(at: $0), id: $0).someInt }
        let sortedValues = someInts.sorted()
        let sortRuns: [(String, Int?, Int)] = [("objects: sort by unindexed int, read ids", nil, 5),
                                               ("objects: sorted by unindexed int, first", 1, 20),
                                               ("objects: sorted by unindexed int, prefix(100)", 100, 20)]
        for (workload, limit, repetitions) in sortRuns {
            for engine in objectEngines {
                let path = databasePath(engine, "objects")
                results.append(try measure(workload, engine, path, operations: repetitions) { recorder in
                    let ids = try engine.sortedIDs(path: path, limit: limit, repetitions: repetitions,
                                                   recorder: &recorder)
                    let wanted = min(limit ?? objectCount, objectCount)
                    guard ids.count == wanted, Set(ids).count == wanted, ids.allSatisfy({ $0 >= 0 && $0 < objectCount }),
                          ids.map({ someInts[$0] }).elementsEqual(sortedValues.prefix(wanted)) else {
                        throw BenchError.wrongAnswer(engine: engine.name, what: "\(workload): \(ids.count) ids, not "
                            + "the \(wanted) distinct objects with the smallest values in ascending order")
                    }
                })
            }
        }
        // Single durable commits, last because they change the file: each sets one object's someInt, distinct
        // objects in a seeded random order. Checked afterwards by reading every value back (not measured).
        let updates = (0 ..< min(configuration.commitCount, objectCount)).map { (id: order[$0], value: -1 - $0) }
        let expectedAfterCommits = expectedSum - updates.reduce(0) { $0 + someInts[$1.id] }
            + updates.reduce(0) { $0 + $1.value }
        for engine in keyValueWorkloadEngines {
            let path = databasePath(engine, "objects")
            results.append(try measure("objects: single durable commits", engine, path, operations: updates.count) {
                recorder in
                try engine.singleObjectCommits(path: path, updates: updates, recorder: &recorder)
                var unmeasured = LatencyRecorder(expectedOperations: objectCount)
                let (readCount, sum) = try engine.readIntProperty(path: path, recorder: &unmeasured)
                guard readCount == objectCount, sum == expectedAfterCommits else {
                    throw BenchError.wrongAnswer(engine: engine.name, what: "after \(updates.count) commits, "
                        + "\(readCount) objects summing to \(sum), expected \(objectCount) summing to "
                        + "\(expectedAfterCommits)")
                }
            })
        }

        for engine in keyValueWorkloadEngines where !keepFiles {
            removeFiles(of: engine, at: databasePath(engine, "objects"))
        }
        return results
    }
}
