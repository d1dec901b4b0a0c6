// PatchedResultsTests: a live filtered and sorted Results observed across random writes keeps exactly the objects,
// in exactly the order, that a fresh evaluation gives, when its delivery patches the previous keys instead of
// evaluating again (Results+Patch.swift): ties (small value domains), nulls, NaN, descending and two-key sorts, an
// indexed sort key (sorted from the index when evaluated afresh), unsorted filtered results, and queries the patch
// must leave to a full evaluation (a link in the predicate, distinct).

import ColumnarTestSupport
import Foundation
import XCTest

@testable import Columnar

final class PatchedRanked: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var group = 0
    @Persisted var rank: Int?
    @Persisted var name = ""
    @Persisted var score = 0.0
    @Persisted var partner: PatchedRanked?
    /// A fixed-size value, compared in place by the cluster walk.
    @Persisted var tag: ObjectId?
}

final class PatchedResultsTests: RealmTestCase {
    private struct Observed {
        let label: String
        let results: Results<PatchedRanked>
        /// The same query made anew (evaluated from scratch) after each write.
        let fresh: (Realm) -> Results<PatchedRanked>
        var snapshot: [Int] = []
    }

    func testPatchedResultsMatchAFreshEvaluationAfterEveryRandomWrite() throws {
        let realm = try openRealm()
        var generator = SeededGenerator.fromEnvironment()
        var nextId = 0
        func randomize(_ object: PatchedRanked) {
            object.group = Int.random(in: 0 ..< 4, using: &generator)
            object.rank = Int.random(in: 0 ..< 6, using: &generator) == 0 ? nil : Int.random(in: 0 ..< 8, using: &generator)
            object.name = ["a", "ab", "b", "", "é", "a"].randomElement(using: &generator)!
            object.score = [0.1, 0.5, 0.9, .nan, -0.0, 0.0].randomElement(using: &generator)!
        }
        try realm.write {
            for _ in 0 ..< 300 {
                let object = PatchedRanked()
                object.id = nextId
                nextId += 1
                randomize(object)
                realm.add(object)
            }
        }
        let queries: [(String, (Realm) -> Results<PatchedRanked>)] = [
            ("rank, filtered by score", { $0.objects(PatchedRanked.self).filter("score > 0.3").sorted(byKeyPath: "rank") }),
            ("group ascending, name descending", {
                $0.objects(PatchedRanked.self).sorted(by: [SortDescriptor(keyPath: "group"),
                                                          SortDescriptor(keyPath: "name", ascending: false)]) }),
            ("indexed group descending", { $0.objects(PatchedRanked.self).sorted(byKeyPath: "group", ascending: false) }),
            ("score (NaN), filtered by name", {
                $0.objects(PatchedRanked.self).filter("name BEGINSWITH 'a' OR rank == nil").sorted(byKeyPath: "score") }),
            ("unsorted, filtered", { $0.objects(PatchedRanked.self).filter("group IN {1, 2} AND rank >= 3") }),
            ("partner's rank (not patched)", {
                $0.objects(PatchedRanked.self).filter("partner.rank > 4").sorted(byKeyPath: "id") }),
            ("distinct (not patched)", { $0.objects(PatchedRanked.self).distinct(by: ["group"]).sorted(byKeyPath: "id") }),
        ]
        var observed = queries.map { Observed(label: $0.0, results: $0.1(realm), fresh: $0.1) }
        var tokens: [NotificationToken] = []
        var failures = 0
        for index in observed.indices {
            observed[index].snapshot = observed[index].results.map(\.id)
            tokens.append(observed[index].results.observe { change in
                if case .initial(let results) = change { observed[index].snapshot = results.map(\.id) }
                guard case .update(let results, let deletions, let insertions, _) = change else { return }
                let new = results.map(\.id)
                let applied = OrderedApply.apply(old: observed[index].snapshot, deletions: deletions,
                                                 insertions: insertions, new: new)
                let expected = observed[index].fresh(realm).map(\.id)
                if new != expected || applied != new { failures += 1 }
                XCTAssertEqual(new, expected, "\(observed[index].label): \(generator.replayNote)")
                XCTAssertEqual(applied, new, "\(observed[index].label): change set, \(generator.replayNote)")
                observed[index].snapshot = new
            })
        }
        let patchedBefore = realm.core.notifications.patchedResultsCount
        for write in 0 ..< 150 where failures == 0 {
            // Every tenth write changes too many objects to patch: the keys are evaluated afresh, and the diff
            // still looks only at the objects that changed.
            let operations = write % 10 == 9 ? 60 : Int.random(in: 1 ... 3, using: &generator)
            try realm.write {
                for _ in 0 ..< operations {
                    let all = realm.objects(PatchedRanked.self)
                    switch Int.random(in: 0 ..< 10, using: &generator) {
                    case 0 ..< 3:
                        let object = PatchedRanked()
                        object.id = nextId
                        nextId += 1
                        randomize(object)
                        realm.add(object)
                    case 3 ..< 5:
                        if let victim = all.randomElement(using: &generator) { realm.delete(victim) }
                    case 5:
                        all.randomElement(using: &generator)?.partner = all.randomElement(using: &generator)
                    default:
                        if let object = all.randomElement(using: &generator) { randomize(object) }
                    }
                }
            }
        }
        let patched = realm.core.notifications.patchedResultsCount - patchedBefore
        // Five of the seven queries can be patched, after each small write but the first (whose delivery is the
        // initial callback); the two others never are. A large write is patched only where few of its changes
        // touch what the query reads.
        XCTAssertGreaterThanOrEqual(patched, 5 * (149 - 15), "deliveries that patched instead of evaluating again")
        XCTAssertLessThan(patched, 5 * 149, "large writes were patched")
        tokens.forEach { $0.invalidate() }
    }

    /// A NaN property that nobody changed is not a modification when a neighbour in its cluster changes (stored
    /// values compare by their bits; with `==`, NaN differed from itself and every such object was reported); nor
    /// is an unchanged ObjectId (compared where it lies in the cluster).
    func testAnUnchangedNaNIsNotReportedAsModified() throws {
        let realm = try openRealm()
        try realm.write {
            for id in 0 ..< 3 {
                realm.create(PatchedRanked.self, value: ["id": id, "score": Double.nan, "rank": id, "tag": ObjectId()])
            }
        }
        let results = realm.objects(PatchedRanked.self).sorted(byKeyPath: "rank")
        var modifications: [[Int]] = []
        let token = results.observe { change in
            if case .update(_, _, _, let modified) = change { modifications.append(modified) }
        }
        realm.refresh()
        try realm.write { realm.object(ofType: PatchedRanked.self, forPrimaryKey: 1)!.name = "changed" }
        XCTAssertEqual(modifications, [[1]])
        token.invalidate()
    }
}
