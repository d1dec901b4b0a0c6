// grdb-peer: the object suite's insert, iteration and primary-key lookup workloads on Columnar's object API and on
// GRDB's record API, in one process, on the same generated objects, with each answer checked.
//
// GRDB is used as its documentation shows: a `DatabasePool` (WAL), a record type that is `FetchableRecord` with a
// hand-written `init(row:)` (its fastest decoding; Codable records decode more slowly) and `PersistableRecord`,
// the insert in one `write` transaction, reads in one `read`. A pool runs its writer with synchronous=NORMAL; the
// tool sets FULL and checks it, so that GRDB's commit is as durable as Columnar's (durability FULL).
//
//   swift run -c release grdb-peer [--quick] [--objects N] [--lookups N]
//
// Figures are throughputs (operations a second) over the whole workload, and Columnar's over GRDB's.

import Columnar
import Foundation
import GRDB

// MARK: The model, on both sides

final class PeerItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var someInt: Int
    @Persisted var ratio: Double
    @Persisted var label: String
    @Persisted var flag: Bool
}

struct GRDBItem: FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int
    var someInt: Int
    var ratio: Double
    var label: String
    var flag: Bool

    init(id: Int, someInt: Int, ratio: Double, label: String, flag: Bool) {
        self.id = id
        self.someInt = someInt
        self.ratio = ratio
        self.label = label
        self.flag = flag
    }

    init(row: Row) throws {
        id = row["id"]
        someInt = row["someInt"]
        ratio = row["ratio"]
        label = row["label"]
        flag = row["flag"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["someInt"] = someInt
        container["ratio"] = ratio
        container["label"] = label
        container["flag"] = flag
    }
}

/// Object `id`'s values: a seeded mix of the id, so both engines store the same objects.
struct Generated {
    let someInt: Int
    let ratio: Double
    let label: String
    let flag: Bool

    init(_ id: Int) {
        var z = UInt64(truncatingIfNeeded: id) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        someInt = Int(z % 1_000_000)
        ratio = Double(z >> 11) / Double(1 << 53)
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        let length = 10 + Int((z >> 20) % 5)
        label = String(decoding: (0 ..< length).map { letters[Int((z >> UInt64($0 * 4)) % 26)] }, as: UTF8.self)
        flag = z & 1 == 1
    }
}

// MARK: Measuring

struct Row_ {
    let workload: String
    let engine: String
    let operationsPerSecond: Double
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

struct PeerError: Error, CustomStringConvertible {
    let description: String
}

func check(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    if !condition { throw PeerError(description: what()) }
}

// MARK: The run

var objectCount = 1_000_000
var lookupCount = 100_000
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--quick": objectCount = 50_000; lookupCount = 10_000
    case "--objects": objectCount = Int(arguments.next() ?? "") ?? objectCount
    case "--lookups": lookupCount = Int(arguments.next() ?? "") ?? lookupCount
    default:
        FileHandle.standardError.write(Data("usage: grdb-peer [--quick] [--objects N] [--lookups N]\n".utf8))
        exit(2)
    }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grdb-peer-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let values = (0 ..< objectCount).map(Generated.init)
let expectedSum = values.reduce(0) { $0 + $1.someInt }
var generator = SystemRandomNumberGenerator()
var order = Array(0 ..< objectCount)
order.shuffle(using: &generator)
let lookupIDs = (0 ..< lookupCount).map { order[$0 % objectCount] }
let expectedLookupSum = lookupIDs.reduce(0) { $0 + values[$1].someInt }
var rows: [Row_] = []

/// Records a workload's throughput.
@MainActor func record(_ workload: String, _ engine: String, operations: Int, seconds: Double) {
    rows.append(Row_(workload: workload, engine: engine, operationsPerSecond: Double(operations) / seconds))
}


// Columnar.
do {
    var configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("columnar.realm"))
    configuration.objectTypes = [PeerItem.self]
    let realm = try Realm(configuration: configuration)
    let insert = try seconds {
        try realm.write {
            for (id, value) in values.enumerated() {
                let item = PeerItem()
                item.id = id
                item.someInt = value.someInt
                item.ratio = value.ratio
                item.label = value.label
                item.flag = value.flag
                realm.add(item)
            }
        }
    }
    record("insert (1 txn)", "Columnar", operations: objectCount, seconds: insert)
    var sum = 0
    var count = 0
    let iterate = seconds {
        for item in realm.objects(PeerItem.self) {
            sum &+= item.someInt
            count += 1
        }
    }
    try check(sum == expectedSum && count == objectCount, "Columnar read \(count) objects summing to \(sum)")
    record("iterate, read 1 int prop", "Columnar", operations: objectCount, seconds: iterate)
    var lookupSum = 0
    let lookups = seconds {
        for id in lookupIDs { lookupSum &+= realm.object(ofType: PeerItem.self, forPrimaryKey: id)?.someInt ?? 0 }
    }
    try check(lookupSum == expectedLookupSum, "Columnar lookups summed to \(lookupSum)")
    record("lookup by pk", "Columnar", operations: lookupCount, seconds: lookups)
}

// GRDB.
do {
    let pool = try DatabasePool(path: directory.appendingPathComponent("grdb.sqlite").path)
    try pool.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA synchronous = FULL")
        let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous")
        try check(synchronous == 2, "GRDB's writer runs with synchronous=\(synchronous ?? -1), not FULL (2)")
        try db.create(table: "item") { table in
            table.primaryKey("id", .integer)
            table.column("someInt", .integer).notNull()
            table.column("ratio", .double).notNull()
            table.column("label", .text).notNull()
            table.column("flag", .boolean).notNull()
        }
    }
    let insert = try seconds {
        try pool.write { db in
            for (id, value) in values.enumerated() {
                try GRDBItem(id: id, someInt: value.someInt, ratio: value.ratio, label: value.label, flag: value.flag)
                    .insert(db)
            }
        }
    }
    record("insert (1 txn)", "GRDB", operations: objectCount, seconds: insert)
    var sum = 0
    var count = 0
    let iterate = try seconds {
        try pool.read { db in
            let cursor = try GRDBItem.fetchCursor(db)
            while let item = try cursor.next() {
                sum &+= item.someInt
                count += 1
            }
        }
    }
    try check(sum == expectedSum && count == objectCount, "GRDB read \(count) records summing to \(sum)")
    record("iterate, read 1 int prop", "GRDB", operations: objectCount, seconds: iterate)
    var lookupSum = 0
    let lookups = try seconds {
        try pool.read { db in
            for id in lookupIDs { lookupSum &+= try GRDBItem.fetchOne(db, key: id)?.someInt ?? 0 }
        }
    }
    try check(lookupSum == expectedLookupSum, "GRDB lookups summed to \(lookupSum)")
    record("lookup by pk", "GRDB", operations: lookupCount, seconds: lookups)
    // `fetchOne(db, key:)` builds its SQL on every call; a prepared statement kept by the connection
    // (`cachedStatement`) is how GRDB's documentation makes a repeated query fast.
    var preparedSum = 0
    let prepared = try seconds {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM item WHERE id = ?")
            for id in lookupIDs {
                preparedSum &+= try GRDBItem.fetchOne(statement, arguments: [id])?.someInt ?? 0
            }
        }
    }
    try check(preparedSum == expectedLookupSum, "GRDB prepared lookups summed to \(preparedSum)")
    record("lookup by pk, prepared", "GRDB", operations: lookupCount, seconds: prepared)
}

// The table.
print("grdb-peer: \(objectCount) objects, \(lookupCount) lookups; GRDB DatabasePool, synchronous=FULL; "
      + "Columnar durability FULL")
func grouped(_ value: Double) -> String {
    let digits = String(Int(value.rounded()))
    var out = ""
    for (index, character) in digits.reversed().enumerated() {
        if index > 0 && index % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return String(out.reversed())
}
print("workload".padding(toLength: 26, withPad: " ", startingAt: 0) + "engine    " + "       ops/s  Columnar/GRDB")
for row in rows {
    let baseline = rows.first { $0.workload == row.workload && $0.engine == "GRDB" }
    let ratio = row.engine == "Columnar" && baseline != nil
        ? String(format: "%.2f×", row.operationsPerSecond / baseline!.operationsPerSecond) : ""
    print(row.workload.padding(toLength: 26, withPad: " ", startingAt: 0)
          + row.engine.padding(toLength: 10, withPad: " ", startingAt: 0)
          + grouped(row.operationsPerSecond).leftPadded(12) + ratio.leftPadded(15))
    // Columnar's lookups compare with GRDB's faster way too.
    if row.engine == "Columnar", row.workload == "lookup by pk",
       let prepared = rows.first(where: { $0.workload == "lookup by pk, prepared" }) {
        print("lookup by pk, prepared".padding(toLength: 26, withPad: " ", startingAt: 0)
              + "Columnar  " + grouped(row.operationsPerSecond).leftPadded(12)
              + String(format: "%.2f×", row.operationsPerSecond / prepared.operationsPerSecond).leftPadded(15))
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
