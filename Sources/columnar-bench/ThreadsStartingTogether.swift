// ThreadsStartingTogether: runs a piece of work on several threads of their own that begin their measured part at
// the same moment, for the commit suite's concurrent writers.
//
// Real threads rather than a dispatch queue: Dispatch runs about one work item per core at a time, and on a
// 2-core machine 8 committers would then take turns instead of contending. Each thread first does its set-up,
// arrives at the gate and waits; the caller opens the gate once every thread has arrived, so thread start-up is
// outside the measured interval.

import Foundation

/// A gate threads wait at until it is opened, once.
final class StartGate: @unchecked Sendable {
    // @unchecked: every field is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var arrivedCount = 0
    private var isOpen = false

    /// Called by a thread when it is ready: counts it, then blocks until the gate opens.
    func arriveAndWait() {
        condition.lock()
        arrivedCount += 1
        condition.broadcast()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    /// Blocks until `count` threads have arrived.
    func waitForArrivals(_ count: Int) {
        condition.lock()
        while arrivedCount < count { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}

/// What each thread returned, by thread index, filled in as the threads finish. Slots of their own in memory that
/// does not move, rather than an array: threads storing into one array at once would race on the array itself.
private final class ThreadResults<Value>: @unchecked Sendable {
    // @unchecked: each slot is written by its own thread only, and read after every thread has finished (the
    // DispatchGroup's wait orders the reads after the writes).
    private let slots: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }

    func store(_ value: Value, at threadIndex: Int) { slots[threadIndex] = value }

    /// Every thread's value; call once every thread has stored its own.
    var values: [Value] { slots.map { $0! } }
}

/// Runs `body(threadIndex, gate)` on `threadCount` new threads. Each body does its set-up, calls
/// `gate.arriveAndWait()` (exactly once, even when its set-up failed: the gate waits for every thread), then its
/// measured work. `onStart` runs on the calling thread when every thread has
/// arrived, just before the gate opens (read the clock there); the call returns when every thread has finished,
/// with their values in thread order.
func runThreadsStartingTogether<Value>(
    _ threadCount: Int, onStart: () -> Void, _ body: @escaping @Sendable (Int, StartGate) -> Value
) -> [Value] {
    let gate = StartGate()
    let results = ThreadResults<Value>(count: threadCount)
    let group = DispatchGroup()
    for threadIndex in 0 ..< threadCount {
        group.enter()
        let thread = Thread {
            results.store(body(threadIndex, gate), at: threadIndex)
            group.leave()
        }
        thread.name = "columnar-bench-\(threadIndex)"
        thread.stackSize = 8 << 20
        thread.start()
    }
    gate.waitForArrivals(threadCount)
    onStart()
    gate.open()
    group.wait()
    return results.values
}
