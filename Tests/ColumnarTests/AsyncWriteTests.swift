// AsyncWriteTests: RealmSwift's callback-based asynchronous writes (writeAsync, beginAsyncWrite, commitAsyncWrite,
// cancelAsyncWrite, isPerformingAsynchronousWriteOperations) on a queue-confined Realm and on a thread that runs
// its run loop, as RealmSwift documents them: they return at once even while another writer holds the lock, run
// in the order asked for, call back on the Realm's own queue or thread, and can be cancelled before they run.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class AsyncWriteTests: RealmTestCase {
    private let queue = DispatchQueue(label: "async-write-tests")

    /// Opens the queue's Realm and runs `body` with it on the queue; waits for `body`'s expectations meanwhile.
    private func onQueue(_ body: @escaping (Realm) throws -> Void) {
        let configuration = self.configuration!
        queue.sync {
            let realm = try! Realm(configuration: configuration, queue: queue)
            try! body(realm)
        }
    }

    private func names(_ realm: Realm) -> [String] { realm.objects(NoteDog.self).map(\.name) }

    func testWriteAsyncRunsInOrderAndCompletesOnTheQueue() throws {
        let done = expectation(description: "eight completions")
        done.expectedFulfillmentCount = 8
        let completions = SeenChanges()
        let queue = self.queue
        onQueue { realm in
            for index in 0 ..< 8 {
                realm.writeAsync({
                    realm.create(NoteDog.self, value: ["name": "dog \(index)"])
                }, onComplete: { error in
                    dispatchPrecondition(condition: .onQueue(queue))
                    // At least its own write is visible (a later write may have committed already: the next
                    // block can run while this commit's sync is in flight).
                    let visible = realm.objects(NoteDog.self).count >= index + 1
                    completions.append("\(index) \(error.map { "\($0)" } ?? "ok") \(visible ? "visible" : "not visible")")
                    done.fulfill()
                })
            }
            XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(completions.all, (0 ..< 8).map { "\($0) ok visible" })
        onQueue { realm in
            XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
            XCTAssertEqual(self.names(realm), (0 ..< 8).map { "dog \($0)" })
        }
    }

    /// beginAsyncWrite returns at once while another thread holds the writer lock; the block runs after that
    /// writer commits, and sees its object.
    func testBeginAsyncWriteDoesNotBlockWhileAnotherThreadWrites() throws {
        let configuration = self.configuration!
        let lockHeld = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let other = Thread {
            let realm = try! Realm(configuration: configuration)
            realm.beginWrite()
            realm.create(NoteDog.self, value: ["name": "other"])
            lockHeld.signal()
            release.wait()
            try! realm.commitWrite()
        }
        other.start()
        lockHeld.wait()
        let ran = expectation(description: "the async block ran")
        let seen = SeenChanges()
        onQueue { realm in
            let started = Date()
            realm.beginAsyncWrite {
                seen.append("block sees \(self.names(realm))")
                realm.create(NoteDog.self, value: ["name": "mine"])
                realm.commitAsyncWrite { error in
                    seen.append("committed \(error == nil)")
                    ran.fulfill()
                }
            }
            XCTAssertLessThan(Date().timeIntervalSince(started), 0.5, "beginAsyncWrite waited for the lock")
        }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(seen.all, [], "the block ran while another writer held the lock")
        release.signal()
        wait(for: [ran], timeout: 20)
        XCTAssertEqual(seen.all, ["block sees [\"other\"]", "committed true"])
    }

    func testCancellingAQueuedBlockOrACompletion() throws {
        let finished = expectation(description: "the first write and its cancelled completion's commit")
        let seen = SeenChanges()
        onQueue { realm in
            realm.beginAsyncWrite {
                realm.create(NoteDog.self, value: ["name": "first"])
                let commit = realm.commitAsyncWrite { _ in seen.append("cancelled completion called") }
                try! realm.cancelAsyncWrite(commit)
            }
            let second = realm.beginAsyncWrite { seen.append("cancelled block ran") }
            try! realm.cancelAsyncWrite(second)
            XCTAssertThrowsError(try realm.cancelAsyncWrite(9_999)) { error in
                XCTAssertEqual((error as? Realm.Error)?.code, .fail)
            }
            realm.writeAsync({ realm.create(NoteDog.self, value: ["name": "third"]) },
                             onComplete: { _ in finished.fulfill() })
        }
        wait(for: [finished], timeout: 20)
        XCTAssertEqual(seen.all, [])
        onQueue { realm in XCTAssertEqual(Set(self.names(realm)), ["first", "third"]) }
    }

    /// A synchronous write on the queue while an asynchronous begin is taking the lock neither deadlocks nor
    /// reorders: the synchronous one runs now, the queued block afterwards.
    func testASynchronousWriteWhileABeginTakesTheLock() throws {
        let done = expectation(description: "the async write completed")
        onQueue { realm in
            realm.writeAsync({ realm.create(NoteDog.self, value: ["name": "async"]) },
                             onComplete: { error in
                                 XCTAssertNil(error)
                                 done.fulfill()
                             })
            try realm.write { realm.create(NoteDog.self, value: ["name": "sync"]) }
            XCTAssertEqual(self.names(realm), ["sync"])
        }
        wait(for: [done], timeout: 20)
        onQueue { realm in XCTAssertEqual(self.names(realm), ["sync", "async"]) }
    }

    /// A transaction begun asynchronously and left open by its block may be committed synchronously later; then no
    /// asynchronous work is left.
    func testAnAsyncBegunTransactionCommittedSynchronouslyLeavesNothingPending() throws {
        let begun = expectation(description: "the block ran")
        var kept: Realm?   // the queue's Realm stays open between the two blocks, as an application keeps it
        onQueue { realm in
            kept = realm
            realm.beginAsyncWrite {
                realm.create(NoteDog.self, value: ["name": "left open"])
                begun.fulfill()
            }
        }
        wait(for: [begun], timeout: 20)
        onQueue { realm in
            defer { kept = nil }
            XCTAssertTrue(realm.isInWriteTransaction)
            XCTAssertTrue(realm.isPerformingAsynchronousWriteOperations)
            try realm.commitWrite()
            XCTAssertFalse(realm.isPerformingAsynchronousWriteOperations)
            XCTAssertEqual(self.names(realm), ["left open"])
        }
    }

    /// A write begun synchronously may be committed asynchronously; on a thread, callbacks come from its run loop.
    func testCommitAsyncWriteOfASynchronousTransactionOnARunLoopThread() throws {
        let configuration = self.configuration!
        let finished = expectation(description: "the thread's run loop delivered the completion")
        let thread = Thread {
            let realm = try! Realm(configuration: configuration)
            var completed = false
            realm.beginWrite()
            realm.create(NoteDog.self, value: ["name": "rex"])
            realm.commitAsyncWrite { error in
                XCTAssertNil(error)
                XCTAssertEqual(realm.objects(NoteDog.self).count, 1)
                completed = true
            }
            XCTAssertFalse(realm.isInWriteTransaction)
            let deadline = Date().addingTimeInterval(20)
            while !completed && Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.01)) }
            XCTAssertTrue(completed)
            finished.fulfill()
        }
        thread.start()
        wait(for: [finished], timeout: 30)
    }
}
