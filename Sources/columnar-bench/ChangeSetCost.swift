// ChangeSetCost: what a change notification costs the observing thread for a large sorted collection (the third
// workload of the notifications subcommand, NotificationWorkload.swift).
//
// `realm.objects(RankedObject.self).sorted(byKeyPath: "rank")` over `objectCount` objects (rank: an unindexed
// Int, so every evaluation reads and sorts the column) is observed without a queue on an observer thread, which
// never runs its run loop: its notifications come only inside its own `realm.refresh()`. After a writer thread
// commits a change, the workload times, on the observer thread, `refresh()` (moving to the new version, bringing
// the sorted results up to date, computing the change set, then the callback), and on a reader thread that has no
// observations, `refresh()` alone, then evaluating the same query fresh (a new sorted Results' first element,
// which sorts all of them). Both threads read the same version. What observing costs is the observer's refresh
// less the reader's, taken per repetition; the fresh evaluation is what re-sorting everything would cost.
//
// The changes, in this order in each repetition: one object's `payload` modified; one object's `rank` modified
// (it moves); one object inserted, then deleted again; `payload` of 10 % of the objects modified (a fresh random
// choice each time: their order is kept); `rank` of 10 % modified (they move); 10 % as many objects inserted with
// random ranks, then those deleted again (so the table has `objectCount` objects at the start of each repetition).
// Each callback's counts are checked against the change, and the observed results against the fresh ones.

import Columnar
import Foundation

/// An object of the sorted collection. (`Object` is `@unchecked Sendable`, and Swift 6 asks subclasses to restate
/// it.)
final class RankedObject: Object, @unchecked Sendable {
    @Persisted(primaryKey: true) var id: Int
    /// The sort key: not indexed, so sorting reads the whole column.
    @Persisted var rank: Int
    /// Changed by the modifications that keep the order.
    @Persisted var payload: Int

    static let sortKeyPath = "rank"
    /// Ranks are drawn from 0 ..< rankRange: ties are rare, so the order is (almost) a strict one.
    static let rankRange: UInt64 = 1 << 40

    static func configuration(path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [RankedObject.self])
    }
}

/// One kind of change the writer commits.
enum RankingChange: CaseIterable {
    case modifyOne
    case rerankOne
    case insertOne
    case deleteOne
    case modifyTenth
    case rerankTenth
    case insertTenth
    case deleteTenth

    var label: String {
        switch self {
        case .modifyOne: return "1 object modified"
        case .rerankOne: return "1 object re-ranked (moved)"
        case .insertOne: return "1 object inserted"
        case .deleteOne: return "1 object deleted"
        case .modifyTenth: return "10 % modified (order kept)"
        case .rerankTenth: return "10 % re-ranked (moved)"
        case .insertTenth: return "10 % inserted"
        case .deleteTenth: return "10 % deleted"
        }
    }
}

extension RankingChange {
    var isOneObject: Bool { [.modifyOne, .rerankOne, .insertOne, .deleteOne].contains(self) }
}

/// The sizes of one `.update`.
struct ReportedChange: Equatable {
    var deletionCount = 0
    var insertionCount = 0
    var modificationCount = 0

    var text: String { "\(deletionCount) / \(insertionCount) / \(modificationCount)" }
}

/// The figures of one kind of change, one entry per repetition.
struct ChangeSetResult {
    var change: RankingChange
    /// The objects the writer changed.
    var changedObjectCount: Int
    /// The update of the last repetition.
    var reported = ReportedChange()
    var refreshWithObserverNanoseconds: [Int64] = []
    var refreshWithoutObserverNanoseconds: [Int64] = []
    var freshEvaluationNanoseconds: [Int64] = []

    /// Per repetition: the observer's refresh less the reader's: what the observation adds to moving to the new
    /// version (bringing the sorted results up to date, the change set, the callback).
    var observationNanoseconds: [Int64] {
        refreshWithObserverNanoseconds.indices.map {
            refreshWithObserverNanoseconds[$0] - refreshWithoutObserverNanoseconds[$0]
        }
    }

    static func medianMilliseconds(_ nanoseconds: [Int64]) -> Double {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? Double(sorted[middle])
            : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
        return median / 1e6
    }
}

/// The change-set workload.
struct ChangeSetCost {
    let path: String
    let objectCount: Int
    let repetitions: Int
    let seed: UInt64
    let progress: (String) -> Void

    /// 10 % of the objects, for the large changes.
    private var tenthCount: Int { max(1, objectCount / 10) }

    /// What the writer thread keeps between steps.
    private final class WriterState {
        var realm: Realm?
        var generator: SplitMix64
        init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    }

    /// What the observer thread keeps: the observed results, the token, and what the last callback reported.
    private final class ObserverState {
        var realm: Realm?
        var results: Results<RankedObject>?
        var token: NotificationToken?
        var lastUpdate: ReportedChange?
        var unexpected: String?
    }

    /// What the reader thread keeps: a Realm on the same file with no observations.
    private final class ReaderState {
        var realm: Realm?
    }

    func run() throws -> [ChangeSetResult] {
        try NotificationLatency.removeRealmFiles(at: path)
        let configuration = RankedObject.configuration(path: path)
        let writer = ConfinedThread(name: "columnar-bench-change-writer")
        let observer = ConfinedThread(name: "columnar-bench-change-observer")
        let reader = ConfinedThread(name: "columnar-bench-change-reader")
        let writerState = WriterState(seed: seed)
        let observerState = ObserverState()
        let readerState = ReaderState()
        // Each thread lets go of its Realm itself, whatever happened, before it ends.
        defer {
            _ = try? observer.run {
                observerState.token?.invalidate()
                observerState.token = nil
                observerState.results = nil
                observerState.realm = nil
            }
            _ = try? reader.run { readerState.realm = nil }
            _ = try? writer.run { writerState.realm = nil }
            for thread in [writer, observer, reader] { thread.stop() }
        }

        progress("change sets: adding \(Report.grouped(objectCount)) objects")
        try writer.run {
            let realm = try Realm(configuration: configuration)
            writerState.realm = realm
            try realm.write {
                for id in 0 ..< objectCount {
                    let object = RankedObject()
                    object.id = id
                    object.rank = Int(writerState.generator.next() % RankedObject.rankRange)
                    realm.add(object)
                }
            }
        }
        try observer.run {
            let realm = try Realm(configuration: configuration)
            let results = realm.objects(RankedObject.self).sorted(byKeyPath: RankedObject.sortKeyPath)
            observerState.realm = realm
            observerState.results = results
            observerState.token = results.observe { [weak observerState] change in
                guard let observerState else { return }
                switch change {
                case .initial:
                    break
                case .update(_, let deletions, let insertions, let modifications):
                    observerState.lastUpdate = ReportedChange(deletionCount: deletions.count,
                                                              insertionCount: insertions.count,
                                                              modificationCount: modifications.count)
                case .error(let error):
                    observerState.unexpected = "an error: \(error)"
                }
            }
            // The initial callback comes with the first refresh, here rather than in the first measured one.
            realm.refresh()
        }
        try reader.run { readerState.realm = try Realm(configuration: configuration) }

        // One untimed round, so that the first measured refresh is not also the first of its kind.
        try writer.run { try apply(.modifyOne, state: writerState) }
        _ = try measureObserver(observer, observerState)
        _ = try measureReader(reader, readerState)

        var results = RankingChange.allCases.map {
            ChangeSetResult(change: $0, changedObjectCount: $0.isOneObject ? 1 : tenthCount)
        }
        for repetition in 0 ..< repetitions {
            progress("change sets: repetition \(repetition + 1) of \(repetitions)")
            for (changeIndex, change) in RankingChange.allCases.enumerated() {
                try writer.run { try apply(change, state: writerState) }
                // The thread that refreshes first might warm what the other reads: they take turns going first.
                let observed: (refreshNanoseconds: Int64, reported: ReportedChange, firstID: Int, count: Int)
                let fresh: (refreshNanoseconds: Int64, evaluationNanoseconds: Int64, firstID: Int, count: Int)
                if repetition % 2 == 0 {
                    observed = try measureObserver(observer, observerState)
                    fresh = try measureReader(reader, readerState)
                } else {
                    fresh = try measureReader(reader, readerState)
                    observed = try measureObserver(observer, observerState)
                }
                try check(observed.reported, for: change)
                guard observed.count == fresh.count, observed.firstID == fresh.firstID else {
                    throw BenchError.wrongAnswer(engine: "Columnar", what: "after \(change.label) the observed "
                        + "results have \(observed.count) objects, first \(observed.firstID); evaluated fresh "
                        + "\(fresh.count), first \(fresh.firstID)")
                }
                results[changeIndex].reported = observed.reported
                results[changeIndex].refreshWithObserverNanoseconds.append(observed.refreshNanoseconds)
                results[changeIndex].refreshWithoutObserverNanoseconds.append(fresh.refreshNanoseconds)
                results[changeIndex].freshEvaluationNanoseconds.append(fresh.evaluationNanoseconds)
            }
        }
        return results
    }

    /// On the writer thread: commits one change (durably, as every commit of the default configuration).
    private func apply(_ change: RankingChange, state: WriterState) throws {
        guard let realm = state.realm else { throw BenchError.setup("the writer thread has no Realm") }
        func object(_ id: Int) throws -> RankedObject {
            guard let object = realm.object(ofType: RankedObject.self, forPrimaryKey: id) else {
                throw BenchError.wrongAnswer(engine: "Columnar", what: "no ranked object with id \(id)")
            }
            return object
        }
        func randomIDs(_ count: Int) -> ArraySlice<Int> {
            var ids = Array(0 ..< objectCount)
            ids.shuffle(using: &state.generator)
            return ids.prefix(count)
        }
        // The object the one-object insertion adds and the deletion removes: an id no other change uses.
        let singleID = objectCount + tenthCount
        switch change {
        case .modifyOne:
            let changed = try object(Int(state.generator.next() % UInt64(objectCount)))
            try realm.write { changed.payload += 1 }
        case .rerankOne:
            let changed = try object(Int(state.generator.next() % UInt64(objectCount)))
            try realm.write { changed.rank = Int(state.generator.next() % RankedObject.rankRange) }
        case .insertOne:
            try realm.write {
                let inserted = RankedObject()
                inserted.id = singleID
                inserted.rank = Int(state.generator.next() % RankedObject.rankRange)
                realm.add(inserted)
            }
        case .deleteOne:
            let inserted = try object(singleID)
            try realm.write { realm.delete(inserted) }
        case .modifyTenth:
            let changed = try randomIDs(tenthCount).map(object)
            try realm.write { for object in changed { object.payload += 1 } }
        case .rerankTenth:
            let changed = try randomIDs(tenthCount).map(object)
            try realm.write {
                for object in changed { object.rank = Int(state.generator.next() % RankedObject.rankRange) }
            }
        case .insertTenth:
            try realm.write {
                for id in objectCount ..< objectCount + tenthCount {
                    let object = RankedObject()
                    object.id = id
                    object.rank = Int(state.generator.next() % RankedObject.rankRange)
                    realm.add(object)
                }
            }
        case .deleteTenth:
            let inserted = try (objectCount ..< objectCount + tenthCount).map(object)
            try realm.write { realm.delete(inserted) }
        }
    }

    /// On the observer thread: times `refresh()`, which delivers the change; returns what the callback reported
    /// and, read afterwards from the observed results, their first object and count.
    private func measureObserver(_ thread: ConfinedThread, _ state: ObserverState) throws
        -> (refreshNanoseconds: Int64, reported: ReportedChange, firstID: Int, count: Int)
    {
        try thread.run {
            guard let realm = state.realm, let results = state.results else {
                throw BenchError.setup("the observer thread has no Realm")
            }
            state.lastUpdate = nil
            let start = MonotonicClock.nowNanoseconds()
            let moved = realm.refresh()
            let end = MonotonicClock.nowNanoseconds()
            if let unexpected = state.unexpected {
                throw BenchError.wrongAnswer(engine: "Columnar", what: unexpected)
            }
            guard moved, let reported = state.lastUpdate else {
                throw BenchError.wrongAnswer(engine: "Columnar", what: "refresh() after a commit "
                    + (moved ? "delivered no update" : "did not move to a new version"))
            }
            return (Int64(end - start), reported, results.first?.id ?? -1, results.count)
        }
    }

    /// On the reader thread: times `refresh()`, then a fresh evaluation of the sorted results (up to their last
    /// object, which needs them all sorted: their first alone is picked without sorting the rest).
    private func measureReader(_ thread: ConfinedThread, _ state: ReaderState) throws
        -> (refreshNanoseconds: Int64, evaluationNanoseconds: Int64, firstID: Int, count: Int)
    {
        try thread.run {
            guard let realm = state.realm else { throw BenchError.setup("the reader thread has no Realm") }
            let start = MonotonicClock.nowNanoseconds()
            realm.refresh()
            let refreshed = MonotonicClock.nowNanoseconds()
            let fresh = realm.objects(RankedObject.self).sorted(byKeyPath: RankedObject.sortKeyPath)
            _ = fresh.last
            let evaluated = MonotonicClock.nowNanoseconds()
            let firstID = fresh.first?.id ?? -1
            return (Int64(refreshed - start), Int64(evaluated - refreshed), firstID, fresh.count)
        }
    }

    /// Throws unless the callback's counts are what `change` makes.
    private func check(_ reported: ReportedChange, for change: RankingChange) throws {
        let expected: Bool
        switch change {
        case .modifyOne:
            expected = reported == ReportedChange(modificationCount: 1)
        case .rerankOne:
            // Moved (a deletion and an insertion), or kept in place when its new rank falls between its neighbours'.
            expected = reported == ReportedChange(deletionCount: 1, insertionCount: 1)
                || reported == ReportedChange(modificationCount: 1)
        case .insertOne:
            expected = reported == ReportedChange(insertionCount: 1)
        case .deleteOne:
            expected = reported == ReportedChange(deletionCount: 1)
        case .modifyTenth:
            expected = reported == ReportedChange(modificationCount: tenthCount)
        case .rerankTenth:
            // A re-ranked object is either moved (a deletion and an insertion) or kept in place (a modification);
            // an unchanged object may be moved too, when that keeps more objects in place.
            expected = reported.deletionCount == reported.insertionCount
                && reported.modificationCount <= tenthCount
                && reported.deletionCount + reported.modificationCount >= tenthCount
        case .insertTenth:
            expected = reported == ReportedChange(insertionCount: tenthCount)
        case .deleteTenth:
            expected = reported == ReportedChange(deletionCount: tenthCount)
        }
        guard expected else {
            throw BenchError.wrongAnswer(engine: "Columnar", what: "\(change.label): the update reported "
                + "\(reported.deletionCount) deletions, \(reported.insertionCount) insertions and "
                + "\(reported.modificationCount) modifications")
        }
    }
}
