// LockFile.swift — what the lock file beside a database says (columnar_inspect_lock_file): the published latest
// version and the reader slots that pin versions, read with one pread and never locked, mapped or written.

import CColumnar

struct LockFileReport: Codable {
    struct Reader: Codable {
        let slot: UInt32
        let pid: UInt32
        let version: UInt64
        let processAlive: Bool
    }

    let path: String
    let exists: Bool
    let valid: Bool
    let problem: String?
    let publishedVersion: UInt64?
    let publishedTopRef: UInt64?
    let publishedUsedSizeBytes: UInt64?
    let publishedFileSizeBytes: UInt64?
    let publishInProgress: Bool
    let readers: [Reader]

    /// Reads `<databasePath>.lock`.
    static func read(databasePath: String) throws -> LockFileReport {
        final class Readers { var items: [Reader] = [] }
        let readers = Readers()
        var info = columnar_lock_file_info()
        try check(columnar_inspect_lock_file(databasePath, &info, { context, reader in
            let r = reader!.pointee
            Unmanaged<Readers>.fromOpaque(context!).takeUnretainedValue().items.append(
                Reader(slot: r.slot, pid: r.pid, version: r.version, processAlive: r.process_alive))
        }, Unmanaged.passUnretained(readers).toOpaque()))
        let problem = fixedString(info.problem)
        let published = info.valid && info.published
        return LockFileReport(
            path: databasePath + ".lock", exists: info.exists, valid: info.valid,
            problem: problem.isEmpty ? nil : problem,
            publishedVersion: published ? info.published_version : nil,
            publishedTopRef: published ? info.published_top_ref : nil,
            publishedUsedSizeBytes: published ? info.published_used_size_bytes : nil,
            publishedFileSizeBytes: published ? info.published_file_size_bytes : nil,
            publishInProgress: info.valid && info.publishing, readers: readers.items)
    }
}
