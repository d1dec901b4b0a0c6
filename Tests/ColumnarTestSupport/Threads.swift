// Threads.swift — real threads and a lock-protected box for concurrency tests.
//
// Concurrency tests need threads that truly run at the same time (a reader that loops until the writer is done
// would wait forever on a pool that runs work items one after another), and each transaction must stay on the
// thread that began it, so the tests start one Foundation Thread per role and join them all.

import Foundation

/// A value shared between threads, guarded by a lock.
public final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    public init(_ state: State) { self.state = state }

    /// Runs `body` with exclusive access to the state.
    @discardableResult
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    public var value: State { withLock { $0 } }
}

/// Runs `body(index)` on `count` new threads at once and returns when all have finished.
public func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.name = "test-thread-\(index)"
        thread.stackSize = 8 << 20
        thread.start()
    }
    group.wait()
}

/// Work running on a thread of its own while the test goes on: `isFinished` polls, `value` waits for the result.
public final class BackgroundWork<Result>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<Result?>(nil)

    public init(_ body: @escaping @Sendable () -> Result) {
        let thread = Thread { [result, done] in
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    public var isFinished: Bool { result.withLock { $0 != nil } }

    /// Waits for the work to end and returns its result.
    public var value: Result {
        done.wait()
        done.signal()   // later reads return at once
        return result.withLock { $0! }
    }
}
