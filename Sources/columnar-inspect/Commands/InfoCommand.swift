// InfoCommand.swift — `info FILE`: the version, what the file and its lock file say about versions and readers,
// cluster size, used and free space, tables and objects.

import ArgumentParser
import CColumnar

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show versions and the readers pinning them, cluster size, used and free space, tables, objects.",
        discussion: """
            From the data file: the current version (its header slot and top ref), the cluster size the writer \
            recorded in the top node's META (objects per cluster; files written with any size are readable), \
            the used size (the end of the version's last node) split into live nodes, free-list entries and \
            unaccounted bytes, the preallocated tail past the used size, and the number of tables and objects \
            (object counts come from each table's META node).

            From the lock file (<file>.lock), read with one pread and never locked or written: the latest \
            version the last writer published, and each reader slot that pins a version with its process id and \
            whether that process still runs (the slot of a process that died is reclaimed by the next writer). \
            The live versions are the distinct versions readers pin plus the latest. Free-list entries freed by a \
            version newer than the oldest pinned one cannot be reused yet.

            The commit path (io_uring or pwrite) is not recorded anywhere: each process chooses it when it opens \
            the database (columnar_db_commit_path), so the output says so instead of guessing.

            EXIT STATUS
              0 nothing wrong, 1 damage was met while reading (listed with offsets), 2 unreadable.

            EXAMPLES
              columnar-inspect info data.columnar
              columnar-inspect info --json data.columnar | jq .lockFile.readers
            """)

    @OptionGroup var options: FileOptions
    @OptionGroup var slotOption: SlotOption

    struct Report: Encodable {
        let file: String
        let fileSizeBytes: UInt64
        let version: UInt64
        let headerSlot: Int
        let topRef: UInt64
        let clusterSize: UInt32?
        let usedSizeBytes: UInt64
        let liveBytes: UInt64
        let liveNodeCount: Int
        let freeBytes: UInt64
        let freeEntryCount: Int
        /// Free bytes freed by the oldest pinned version or earlier: a writer may reuse them now.
        let freeReusableBytes: UInt64
        /// Free bytes freed by a later version: they wait until no reader pins a version before it.
        let freeWaitingBytes: UInt64
        let unaccountedBytes: UInt64
        let preallocatedBytes: UInt64
        let tableCount: Int?
        let liveTableCount: Int?
        let objectCount: Int64?
        let commitPath: String?
        let commitPathNote: String
        let lockFile: LockFileReport?
        let liveVersions: [UInt64]
        let oldestPinnedVersion: UInt64
        let findings: [Finding]
    }

    static let commitPathNote = "not recorded in the file: each process chooses io_uring or pwrite when it opens "
        + "the database (columnar_db_commit_path)"

    func run() throws {
        let inspector = try Opening.inspector(options, slot: slotOption.slot)
        let (version, versionFailure) = inspector.version()
        var findings = inspector.headerFindings()
        if let versionFailure { findings.append(Finding(offset: versionFailure.offset, what: versionFailure.message)) }
        let map = try SpaceMap(inspector: inspector)
        findings += map.findings
        var tables: [TableRecord]?
        do {
            tables = try inspector.tables()
        } catch let failure as EngineFailure {
            findings.append(Finding(offset: failure.offset, what: failure.message))
        }
        let live = tables?.filter { !$0.removed }
        var objectCount: Int64? = live.map { _ in 0 }
        for table in live ?? [] {
            if let count = table.objectCount { objectCount? += count } else { objectCount = nil }
        }
        var lockFile: LockFileReport?
        do {
            lockFile = try LockFileReport.read(databasePath: options.file)
        } catch let failure as EngineFailure {
            findings.append(Finding(offset: 0, what: "lock file: \(failure.message)"))
        }
        // The latest version is what the header says (the published copy in the lock file follows it).
        let latest = max(version.version, inspector.header.slots.0.usable ? inspector.header.slots.0.version : 0,
                         inspector.header.slots.1.usable ? inspector.header.slots.1.version : 0)
        let pinned = (lockFile?.readers ?? []).filter(\.processAlive).map(\.version)
        let liveVersions = Array(Set(pinned + [latest])).sorted()
        let oldestPinned = liveVersions.first ?? latest
        let reusable = map.freeList.filter { $0.version <= oldestPinned }.reduce(0) { $0 + $1.size_bytes }
        let report = Report(
            file: options.file, fileSizeBytes: map.fileSizeBytes, version: version.version,
            headerSlot: Int(version.slot), topRef: version.top_ref,
            clusterSize: version.cluster_size > 0 ? version.cluster_size : nil, usedSizeBytes: map.usedSizeBytes,
            liveBytes: map.liveBytes, liveNodeCount: map.liveNodeCount, freeBytes: map.freeBytes,
            freeEntryCount: map.freeList.count, freeReusableBytes: reusable, freeWaitingBytes: map.freeBytes - reusable,
            unaccountedBytes: map.unaccountedBytes,
            preallocatedBytes: map.preallocatedBytes, tableCount: tables?.count, liveTableCount: live?.count,
            objectCount: objectCount, commitPath: nil, commitPathNote: InfoCommand.commitPathNote,
            lockFile: lockFile, liveVersions: liveVersions, oldestPinnedVersion: oldestPinned,
            findings: findings.deduplicated())
        try Output.report(report, json: options.json) { render(report) }
        throw ExitStatus.forFindings(report.findings)
    }

    private func render(_ report: Report) -> String {
        var fields = FieldList()
        fields.append("File", "\(report.file), \(Format.bytes(report.fileSizeBytes))")
        fields.append("Version", "\(report.version) (header slot \(report.headerSlot), top node at \(report.topRef))")
        fields.append("Cluster size", report.clusterSize.map { "\($0) objects per cluster (recorded by the writer)" }
                      ?? "unknown (top META unreadable)")
        fields.append("Used size", "\(Format.bytes(report.usedSizeBytes)), to the end of the last node")
        fields.append("  header", Format.bytes(4096))
        fields.append("  live nodes", "\(Format.bytes(report.liveBytes)) in \(Format.grouped(report.liveNodeCount)) "
                      + "nodes")
        fields.append("  free list", "\(Format.bytes(report.freeBytes)) in \(Format.grouped(report.freeEntryCount)) "
                      + "entries" + (report.freeWaitingBytes == 0 ? ", all reusable now"
                         : ": \(Format.grouped(report.freeReusableBytes)) reusable now, "
                           + "\(Format.grouped(report.freeWaitingBytes)) kept while version "
                           + "\(report.oldestPinnedVersion) is pinned"))
        if report.unaccountedBytes > 0 {
            fields.append("  unaccounted", "\(Format.bytes(report.unaccountedBytes)) (neither live nor free)")
        }
        fields.append("Preallocated", "\(Format.bytes(report.preallocatedBytes)) past the used size")
        if let count = report.tableCount, let live = report.liveTableCount {
            fields.append("Tables", live == count ? "\(count)" : "\(live) (\(count - live) removed)")
        } else {
            fields.append("Tables", "unknown (schema unreadable)")
        }
        fields.append("Objects", report.objectCount.map { Format.grouped($0) } ?? "unknown")
        fields.append("Commit path", report.commitPathNote)
        if let lockFile = report.lockFile {
            if !lockFile.exists {
                fields.append("Lock file",
                              "\(lockFile.path): absent (the first process to open the database creates it)")
            } else if !lockFile.valid {
                fields.append("Lock file", "\(lockFile.path): \(lockFile.problem ?? "invalid")")
            } else {
                fields.append("Lock file", lockFile.path)
                fields.append("  published", lockFile.publishedVersion.map {
                    "version \($0)" + (lockFile.publishInProgress ? " (a publish was in progress)" : "")
                } ?? "nothing yet")
                fields.append("  readers", lockFile.readers.count == 1 ? "1 slot pins a version"
                              : "\(lockFile.readers.count) slots pin a version")
            }
        }
        fields.append("Live versions", report.liveVersions.map(String.init).joined(separator: ", ")
                      + " (pinned by running readers, plus the latest)")
        var text = fields.render()
        if let readers = report.lockFile?.readers, !readers.isEmpty {
            var table = TextTable(["slot", "pid", "version", "process"], rightAligned: [0, 1, 2])
            for reader in readers {
                table.append(["\(reader.slot)", "\(reader.pid)", "\(reader.version)",
                              reader.processAlive ? "running" : "gone (slot awaits reclaim)"])
            }
            text += "\n\n" + table.render(indent: "  ")
        }
        if !report.findings.isEmpty { text += "\n\nFindings:\n" + Output.findingLines(report.findings) }
        return text
    }
}
