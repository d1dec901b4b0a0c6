// ConfinedThread: a thread of its own that runs the closures given to `run`, one at a time, while the caller
// waits. The notifications subcommand plays a writer, an observer and a reader without observers on three such
// threads and steps them from the main thread.
//
// A Realm, its objects and its results belong to the thread that opened them, so a dispatch queue will not do
// (its blocks run on whichever worker thread is free); and a Realm with observations on a thread whose run loop
// never runs gets its notifications only where the workload asks for them, inside `refresh()`.

import Foundation

final class ConfinedThread: @unchecked Sendable {
    // @unchecked: `pending` and `isStopping` are read and written only with `condition` locked; a closure handed
    // over runs while its caller is blocked in `run`, so what it captures is never used by two threads at once.
    private let condition = NSCondition()
    private var pending: (() -> Void)?
    private var isStopping = false
    /// Signalled by the thread after each closure it ran, and once more when it ends.
    private let completed = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Runs `body` on the thread and returns what it returned, or throws what it threw.
    func run<Value>(_ body: () throws -> Value) throws -> Value {
        try withoutActuallyEscaping(body) { body in
            let outcome = Outcome<Value>()
            let work = UncheckedSendable { outcome.result = Result { try body() } }
            condition.lock()
            precondition(pending == nil && !isStopping, "ConfinedThread.run is called from one thread at a time")
            pending = work.value
            condition.signal()
            condition.unlock()
            // The thread lets go of the closure before it signals: `body` must not outlive this call.
            completed.wait()
            return try outcome.result!.get()
        }
    }

    /// Ends the thread once it is idle, and waits until it has.
    func stop() {
        condition.lock()
        isStopping = true
        condition.signal()
        condition.unlock()
        completed.wait()
    }

    private func loop() {
        while true {
            condition.lock()
            while pending == nil && !isStopping { condition.wait() }
            var work = pending
            pending = nil
            condition.unlock()
            guard work != nil else { break }
            work?()
            work = nil
            completed.signal()
        }
        completed.signal()
    }

    private final class Outcome<Value> {
        var result: Result<Value, Error>?
    }
}

/// A value that crosses to another thread where the code around it guarantees that only one thread uses it at a
/// time.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
