// FileChangeWatcher: notices commits made by other threads and processes to files whose cores have observations
// or autorefresh (every writable Realm confined to a thread), and wakes those cores on their own thread or queue
// (RealmCore+Notifications.swift).
//
// One thread per process waits on two descriptors: a pipe that commits made in this process signal, and an
// inotify descriptor watching the data files, which the kernel signals when any process writes one. Woken, or
// every 100 ms as a fallback (a file on a filesystem without inotify events, such as some network mounts), it reads
// each watched file's latest version and wakes every core that has not seen it.
//
// Another process's commit writes the data file before its sync, and publishes the new version only after the
// sync (through the lock file's shared memory, which makes no inotify event). So a write event that finds no new
// version starts a short re-check: every millisecond for up to 250 ms, until the version appears.
// Realms confined to a thread are watched from their first opening (autorefresh); those on queues and actors only
// once they have observations. A wake-up costs such a Realm at most one pending timer on its thread's run loop, and
// nothing runs until the thread runs its run loop.

import CColumnar
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

final class FileChangeWatcher: @unchecked Sendable {
    static let shared = FileChangeWatcher()
    /// Set once the first core is watched: until then commits and releases of cores skip the watcher entirely (a
    /// process that opens no Realm on a thread and observes nothing never starts the thread or opens descriptors).
    private static let isActive = Atomic<Bool>(false)

    /// The watcher, or nil while nothing has ever been observed in the process.
    static var ifActive: FileChangeWatcher? { isActive.load(ordering: .acquiring) ? shared : nil }

    private final class Entry {
        weak var core: RealmCore?
        let file: StorageFile
        /// The latest version the core was woken for (or had when it was first watched).
        var seenVersion: UInt64
        init(core: RealmCore, file: StorageFile, seenVersion: UInt64) {
            self.core = core
            self.file = file
            self.seenVersion = seenVersion
        }
    }

    private let lock = NSLock()
    /// Held for the whole of each pass over the entries: a pass keeps the files it reads open (and may end the
    /// last reference to a core, and with it to its file) until it finishes. `waitForPass` waits for it.
    private let passLock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var watchedPaths: [String: Int32] = [:]
    private var thread: Thread?
    /// The pipe's read end (the watcher drains it) and write end (commits write a byte).
    private let wakeDescriptor: Int32
    private let wakeWriteDescriptor: Int32
    private let inotifyDescriptor: Int32

    private init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        } else {
            ends = [-1, -1]
        }
        wakeDescriptor = ends[0]
        wakeWriteDescriptor = ends[1]
        inotifyDescriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    }

    /// The latest committed version of a file.
    static func latestVersion(of file: StorageFile) -> UInt64 {
        guard let read = try? ReadVersion(file: file) else { return 0 }
        return read.version
    }

    /// Watches a core's file for commits (idempotent).
    func watch(_ core: RealmCore) {
        let id = ObjectIdentifier(core)
        let file = core.file
        lock.lock()
        defer { lock.unlock() }
        if entries[id]?.core === core { return }
        entries[id] = Entry(core: core, file: file, seenVersion: core.version)
        if !file.isInMemory, watchedPaths[file.path] == nil, inotifyDescriptor >= 0 {
            let mask = UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_ATTRIB)
            watchedPaths[file.path] = inotify_add_watch(inotifyDescriptor, file.path, mask)
        }
        Self.isActive.store(true, ordering: .releasing)
        if thread == nil {
            let thread = Thread { [unowned self] in self.run() }
            thread.name = "Columnar change watcher"
            thread.start()
            self.thread = thread
        }
    }

    /// Stops watching a core (its deinit).
    func forget(_ core: RealmCore) {
        lock.lock()
        entries[ObjectIdentifier(core)] = nil
        lock.unlock()
    }

    /// A commit in this process: wake the watcher now rather than at its next poll.
    func noteCommit(_ file: StorageFile) {
        lock.lock()
        let watching = !entries.isEmpty
        lock.unlock()
        guard watching else { return }
        var byte: UInt8 = 1
        _ = write(wakeWriteDescriptor, &byte, 1)   // a full pipe already holds a wake-up
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        /// Until when (monotonic nanoseconds) to re-check every millisecond after a write event found nothing new.
        var recheckUntil: UInt64 = 0
        while true {
            var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: inotifyDescriptor, events: Int16(POLLIN), revents: 0)]
            let rechecking = DispatchTime.now().uptimeNanoseconds < recheckUntil
            _ = poll(&descriptors, descriptors[1].fd >= 0 ? 2 : 1, rechecking ? 1 : 100)
            while buffer.withUnsafeMutableBytes({ read(wakeDescriptor, $0.baseAddress, $0.count) }) > 0 {}
            var fileWritten = false
            if inotifyDescriptor >= 0 {
                while buffer.withUnsafeMutableBytes({ read(inotifyDescriptor, $0.baseAddress, $0.count) }) > 0 {
                    fileWritten = true
                }
            }
            if checkVersions() {
                recheckUntil = 0
            } else if fileWritten {
                recheckUntil = DispatchTime.now().uptimeNanoseconds + 250_000_000
            }
        }
    }

    /// Returns once no pass over the entries is under way. Called before an operation that needs every handle of
    /// a file closed (compaction, deletion), so that a file whose last Realm just went away is not still held
    /// open for a moment by a pass that was reading its version.
    func waitForPass() {
        passLock.lock()
        passLock.unlock()
    }

    /// Wakes the cores that have not seen their file's latest version; returns whether any had not.
    @discardableResult
    private func checkVersions() -> Bool {
        // The pass is a function of its own so that everything it holds is released before the lock is.
        passLock.lock()
        let woke = wakeCoresBehindTheirFiles()
        passLock.unlock()
        return woke
    }

    private func wakeCoresBehindTheirFiles() -> Bool {
        // Released cores take themselves out (RealmCore.deinit calls `forget`). Nothing here may load a core
        // under the lock: the strong reference a weak load makes can be the last one, and the core's deinit
        // takes the lock.
        lock.lock()
        let current = Array(entries.values)
        lock.unlock()
        var latest: [ObjectIdentifier: UInt64] = [:]
        var woke = false
        for entry in current {
            let fileID = ObjectIdentifier(entry.file)
            let version = latest[fileID] ?? Self.latestVersion(of: entry.file)
            latest[fileID] = version
            guard version > entry.seenVersion, let core = entry.core else { continue }
            entry.seenVersion = version
            core.scheduleDeliveryOnOwnContext()
            woke = true
        }
        return woke
    }
}
