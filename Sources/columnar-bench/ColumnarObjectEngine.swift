// ColumnarObjectEngine: the object suite on Columnar through its Swift object API (`import Columnar`), written as
// an application would write it: a model class, `realm.write { realm.add(item) }`, `realm.objects(Item.self)`,
// `realm.object(ofType:forPrimaryKey:)`.
//
// A Realm commits with durability FULL (a commit returns once the new version is on stable storage), as the
// storage suite's C-API engine does. A Realm is closed when the last `Realm` value and managed object of the file
// go away, so each method keeps them inside its own scope and every workload sees a freshly opened file.

import CColumnar
import Columnar
import Foundation

/// The model class of the object suite: five persisted properties, the first the primary key. (`Object` is
/// `@unchecked Sendable`, and Swift 6 asks subclasses to restate it.)
final class Item: Object, @unchecked Sendable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var someInt: Int
    @Persisted var ratio: Double
    @Persisted var label: String
    @Persisted var flag: Bool
}

final class ColumnarObjectEngine: ObjectBenchmarkEngine, HeldObjectReadEngine {
    let name: String
    var fileExtension: String { encrypted ? "encrypted.realm" : "realm" }
    /// Whether the files are encrypted (BenchEncryption's key).
    let encrypted: Bool
    /// The commit path of the last file written (columnar_db_commit_path_description).
    private var commitPathDescription = "not opened yet"

    init(encrypted: Bool = false) {
        self.encrypted = encrypted
        name = encrypted ? BenchEncryption.engineName : "Columnar"
    }

    var setupDescription: String {
        "\(name) object API (Realm, Object, @Persisted): durability FULL, commit path \(commitPathDescription)"
            + (encrypted ? ", encrypted (AES-256-CTR + HMAC-SHA256 sectors)" : "")
    }

    func dataFiles(at path: String) -> [String] { [path] }
    func allFiles(at path: String) -> [String] { [path, path + ".lock"] }

    func insertObjects(path: String, data: DataSet, objectCount: Int, recorder: inout LatencyRecorder) throws {
        do {
            // Opening with `objectTypes` creates the table before the measured interval.
            let realm = try open(path)
            var closureEndNanoseconds: UInt64 = 0
            recorder.startRun()
            try realm.write {
                for rowIndex in 0 ..< objectCount {
                    let row = ObjectRow(data.row(at: rowIndex), id: rowIndex)
                    recorder.measure {
                        let item = Item()
                        item.id = row.id
                        item.someInt = row.someInt
                        item.ratio = row.ratio
                        item.label = row.label.string
                        item.flag = row.flag
                        realm.add(item)
                    }
                }
                closureEndNanoseconds = MonotonicClock.nowNanoseconds()
            }
            // `write` commits after the closure returns: the commit is the rest of the call.
            let commitNanoseconds = MonotonicClock.nowNanoseconds() - closureEndNanoseconds
            recorder.endRun()
            recorder.noteDurableCommit(nanoseconds: commitNanoseconds)
            guard realm.objects(Item.self).count == objectCount else {
                throw BenchError.wrongAnswer(engine: name, what: "\(realm.objects(Item.self).count) objects after "
                    + "adding \(objectCount)")
            }
        }
        let facts = fileFacts(of: path)
        commitPathDescription = facts.commitPath
        if let stats = facts.stats {
            // The file grows in preallocated steps: what the objects take is the latest version's nodes.
            func mebibytes(_ bytes: UInt64) -> String { Report.format(Double(bytes) / Double(1 << 20), decimals: 1) }
            let live = stats.used_size_bytes - min(stats.free_bytes, stats.used_size_bytes)
            recorder.notes.append("file \(mebibytes(stats.file_size_bytes)) MiB, of which the latest version uses "
                + "\(mebibytes(stats.used_size_bytes)) MiB (\(mebibytes(live)) MiB of live nodes, "
                + "\(mebibytes(stats.free_bytes)) MiB on the free list)")
        }
    }

    func singleObjectCommits(path: String, updates: [(id: Int, value: Int)], recorder: inout LatencyRecorder) throws {
        let realm = try open(path)
        recorder.startRun()
        for update in updates {
            try recorder.measure {
                try realm.write {
                    guard let item = realm.object(ofType: Item.self, forPrimaryKey: update.id) else {
                        throw BenchError.wrongAnswer(engine: name, what: "no object with id \(update.id)")
                    }
                    item.someInt = update.value
                }
            }
        }
        recorder.endRun()
    }

    func readIntProperty(path: String, recorder: inout LatencyRecorder) throws -> (objectCount: Int, sum: Int) {
        let realm = try open(path)
        var objectCount = 0
        var sum = 0
        recorder.startRun()
        for item in realm.objects(Item.self) {
            sum &+= recorder.measure { item.someInt }
            objectCount += 1
        }
        recorder.endRun()
        return (objectCount, sum)
    }

    func readIntPropertyOfHeldObjects(path: String, recorder: inout LatencyRecorder) throws
        -> (objectCount: Int, sum: Int)
    {
        let realm = try open(path)
        // The objects are made before the measured interval: what is timed is the property read alone.
        let items = Array(realm.objects(Item.self))
        var sum = 0
        recorder.startRun()
        for item in items { sum &+= recorder.measure { item.someInt } }
        recorder.endRun()
        return (items.count, sum)
    }

    func lookUpByPrimaryKey(path: String, ids: [Int], recorder: inout LatencyRecorder) throws -> Int {
        let realm = try open(path)
        var sum = 0
        recorder.startRun()
        for id in ids {
            let value = try recorder.measure { () throws -> Int in
                guard let item = realm.object(ofType: Item.self, forPrimaryKey: id) else {
                    throw BenchError.wrongAnswer(engine: name, what: "no object with primary key \(id)")
                }
                return item.someInt
            }
            sum &+= value
        }
        recorder.endRun()
        return sum
    }

    func sortedIDs(path: String, limit: Int?, repetitions: Int, recorder: inout LatencyRecorder) throws -> [Int] {
        let realm = try open(path)
        var ids: [Int] = []
        recorder.startRun()
        for _ in 0 ..< repetitions {
            ids = try recorder.measure { () throws -> [Int] in
                let sorted = realm.objects(Item.self).sorted(byKeyPath: "someInt")
                switch limit {
                case nil:
                    guard let ids = sorted.value(forKey: "id") as? [Int] else {
                        throw BenchError.wrongAnswer(engine: name, what: "value(forKey: \"id\") did not return [Int]")
                    }
                    return ids
                case 1?: return sorted.first.map { [$0.id] } ?? []
                case let count?: return sorted.prefix(count).map(\.id)
                }
            }
        }
        recorder.endRun()
        return ids
    }

    private func open(_ path: String) throws -> Realm {
        try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                     encryptionKey: encrypted ? BenchEncryption.keyData : nil,
                                                     objectTypes: [Item.self]))
    }

    /// What the Swift API does not expose, read through the C API once the Realm is closed: the commit path the
    /// engine chose for the file (io_uring or pwrite, and why) and the file's statistics (sizes, free list).
    private func fileFacts(of path: String) -> (commitPath: String, stats: columnar_db_stats?) {
        var options = columnar_open_options()
        options.flags = 0
        options.encryption_key = encrypted ? BenchEncryption.keyPointer : nil
        var db: OpaquePointer?
        guard columnar_open(path, &options, &db) == COLUMNAR_OK, let db else { return ("unknown", nil) }
        defer { columnar_close(db) }
        var stats = columnar_db_stats()
        return (String(cString: columnar_db_commit_path_description(db)),
                columnar_db_stats_get(db, &stats) == COLUMNAR_OK ? stats : nil)
    }
}
