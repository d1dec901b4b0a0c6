// LockFile.swift — what the lock file beside a database says (columnar_inspect_lock_file): the published, written
// and durable versions, a repair the next writer owes, whether the storage failed, and the reader slots that pin
// versions, read with one pread and never locked, mapped or written.

import CColumnar
#if canImport(Glibc)
import Glibc
#endif

struct LockFileReport: Codable {
    struct Reader: Codable {
        let slot: UInt32
        /// The handle slot of the open handle that owns the reader slot.
        let handleSlot: UInt32
        let version: UInt64
        /// The handle still holds the lock on its handle slot; when it does not, the reader slot awaits reclaim.
        let handleAlive: Bool
    }

    /// A repair the next writer must make before it commits (lock.h, cc_repair_kind).
    enum Repair: String, Codable {
        /// A writer or sync leader died, or the first handle to open the file was read-only: verify the versions
        /// above the durable one, rewrite what the chosen one depends on, and sync.
        case verify
        /// A sync failed: drop every version above the durable one.
        case invalidate

        var explanation: String {
            switch self {
            case .verify:
                return "verify the versions above the durable one and make the highest whole one durable (a writer "
                    + "or sync leader died, or the first handle to open the file was read-only)"
            case .invalidate:
                return "drop the versions above the durable one (a sync failed)"
            }
        }
    }

    let path: String
    let exists: Bool
    let valid: Bool
    let problem: String?
    let publishedVersion: UInt64?
    let publishedTopRef: UInt64?
    let publishedUsedSizeBytes: UInt64?
    let publishedFileSizeBytes: UInt64?
    let writtenVersion: UInt64?
    let durableVersion: UInt64?
    let pendingRepair: Repair?
    let storageFailed: Bool
    let readers: [Reader]

    /// Reads the lock file of the database at `databasePath`. The engine names it after the file's real path; the
    /// path shown is `databasePath` plus ".lock" unless `databasePath` is itself a symbolic link.
    static func read(databasePath: String) throws -> LockFileReport {
        final class Readers { var items: [Reader] = [] }
        let readers = Readers()
        var info = columnar_lock_file_info()
        try check(columnar_inspect_lock_file(databasePath, &info, { context, reader in
            let r = reader!.pointee
            Unmanaged<Readers>.fromOpaque(context!).takeUnretainedValue().items.append(
                Reader(slot: r.slot, handleSlot: r.handle_slot, version: r.version, handleAlive: r.handle_alive))
        }, Unmanaged.passUnretained(readers).toOpaque()))
        let problem = fixedString(info.problem)
        let published = info.valid && info.published
        return LockFileReport(
            path: lockFilePath(databasePath), exists: info.exists, valid: info.valid,
            problem: problem.isEmpty ? nil : problem,
            publishedVersion: published ? info.published_version : nil,
            publishedTopRef: published ? info.published_top_ref : nil,
            publishedUsedSizeBytes: published ? info.published_used_size_bytes : nil,
            publishedFileSizeBytes: published ? info.published_file_size_bytes : nil,
            writtenVersion: info.valid ? info.written_version : nil,
            durableVersion: info.valid ? info.durable_version : nil,
            pendingRepair: info.valid ? [1: Repair.verify, 2: Repair.invalidate][Int(info.repair)] : nil,
            storageFailed: info.valid && info.storage_failed, readers: readers.items)
    }

    private static func lockFilePath(_ databasePath: String) -> String {
        var status = stat()
        guard lstat(databasePath, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
              let resolved = realpath(databasePath, nil) else { return databasePath + ".lock" }
        defer { free(resolved) }
        return String(cString: resolved) + ".lock"
    }
}
