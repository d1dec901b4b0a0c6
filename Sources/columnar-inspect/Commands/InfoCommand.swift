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
            the used size (the end of the version's last node) split into the header, live nodes, free-list \
            entries and unaccounted bytes, the preallocated tail past the used size, and the number of tables and \
            objects (object counts come from each table's META node).

            From the lock file (<file>.lock), read with one pread and never locked or written: the version last \
            published to readers; the latest version written and the latest known durable (a commit with \
            durability UNSAFE is written without a sync and becomes durable with the next one: columnar_db_sync, \
            or any FULL commit); a repair the next writer owes (after a writer or sync leader died, or a sync failed); whether \
            the storage failed (the file then refuses writes until every handle has closed it); and each reader \
            slot that pins a version, with the handle slot of the open handle that owns it and whether that handle \
            is still open (its open-file lock is held). Nothing in the lock file names a process: a handle's \
            liveness is its lock. When no handle has the file open, the lock file still shows what the last one \
            left; the next opener starts it afresh.

            The live versions are the distinct versions open handles' readers pin, plus the latest. A free-list \
            entry records the version whose commit freed it. A writer reuses an entry once no reader pins a version \
            older than that one, and once no version a crash may fall back to still lists it: recovery may open the durable \
            version or any whole version after it, and their commit records reach back to the durable version's \
            base. So entries freed by a version up to the oldest pinned version and up to that base are reusable \
            now, and the others are kept. The durable version is the lock file's; without a lock file it is the \
            current version, which the next opener makes durable.

            The commit path (io_uring or pwrite) is not recorded anywhere: each process chooses it when it opens \
            the database (columnar_db_commit_path), so the output says so instead of guessing.

            EXIT STATUS
              0 nothing wrong, 1 damage was met while reading (listed with offsets), 2 unreadable.

            EXAMPLES
              columnar-inspect info data.columnar
              columnar-inspect info --json data.columnar | jq '.lockFile | {writtenVersion, durableVersion, readers}'
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
        /// Free bytes freed by reuseBoundVersion or earlier: a writer may reuse them now.
        let freeReusableBytes: UInt64
        /// Free bytes a writer may not reuse yet (the two kinds below together).
        let freeWaitingBytes: UInt64
        /// Free bytes freed by a version later than the oldest pinned one: a reader may still see them.
        let freeKeptForReadersBytes: UInt64
        /// Free bytes freed after the durable version's base (and by the oldest pinned version or earlier): a
        /// version recovery may fall back to still lists them.
        let freeKeptForRecoveryBytes: UInt64
        /// The newest version whose freed space a writer may reuse: the older of the oldest pinned version and
        /// the durable version's base.
        let reuseBoundVersion: UInt64
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
        /// The lock file's durable version, or (without a valid lock file) the current version.
        let durableVersion: UInt64
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
        let slots = inspector.slots
        let latest = slots.filter(\.whole).map(\.version).reduce(version.version, max)
        let pinned = (lockFile?.readers ?? []).filter(\.handleAlive).map(\.version)
        let liveVersions = Array(Set(pinned + [latest])).sorted()
        let oldestPinned = liveVersions.first ?? latest
        // The engine's reuse rule (txn.c, columnar_txn_begin_write): the older of the oldest pinned version and
        // the base of the durable version. A durable version whose slot is gone gives 0, as the engine's does.
        let durable = lockFile?.durableVersion.flatMap { $0 > 0 ? $0 : nil } ?? latest
        let durableBase = slots.first { $0.usable && $0.version == durable }?.base_version ?? 0
        let reuseBound = min(oldestPinned, durableBase)
        func bytes(freedBy versions: (UInt64) -> Bool) -> UInt64 {
            SpaceMap.saturatingSum(map.freeList.filter { versions($0.version) }.map(\.size_bytes))
        }
        let reusable = bytes { $0 <= reuseBound }
        let keptForReaders = bytes { $0 > oldestPinned }
        let keptForRecovery = bytes { $0 > reuseBound && $0 <= oldestPinned }
        let report = Report(
            file: options.file, fileSizeBytes: map.fileSizeBytes, version: version.version,
            headerSlot: Int(version.slot), topRef: version.top_ref,
            clusterSize: version.cluster_size > 0 ? version.cluster_size : nil, usedSizeBytes: map.usedSizeBytes,
            liveBytes: map.liveBytes, liveNodeCount: map.liveNodeCount, freeBytes: map.freeBytes,
            freeEntryCount: map.freeList.count, freeReusableBytes: reusable,
            freeWaitingBytes: SpaceMap.saturatingSum([keptForReaders, keptForRecovery]),
            freeKeptForReadersBytes: keptForReaders, freeKeptForRecoveryBytes: keptForRecovery,
            reuseBoundVersion: reuseBound,
            unaccountedBytes: map.unaccountedBytes,
            preallocatedBytes: map.preallocatedBytes, tableCount: tables?.count, liveTableCount: live?.count,
            objectCount: objectCount, commitPath: nil, commitPathNote: InfoCommand.commitPathNote,
            lockFile: lockFile, liveVersions: liveVersions, oldestPinnedVersion: oldestPinned, durableVersion: durable,
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
        fields.append("  header", Format.bytes(SpaceMap.headerBytes))
        fields.append("  live nodes", "\(Format.bytes(report.liveBytes)) in \(Format.grouped(report.liveNodeCount)) "
                      + "nodes")
        fields.append("  free list", "\(Format.bytes(report.freeBytes)) in \(Format.grouped(report.freeEntryCount)) "
                      + "entries" + (report.freeWaitingBytes == 0 ? ", all reusable now" : ""))
        if report.freeWaitingBytes > 0 {
            fields.append("    reusable", "\(Format.grouped(report.freeReusableBytes)) bytes, freed by version "
                          + "\(report.reuseBoundVersion) or earlier")
        }
        if report.freeKeptForRecoveryBytes > 0 {
            fields.append("    kept", "\(Format.grouped(report.freeKeptForRecoveryBytes)) bytes until a version after "
                          + "\(report.durableVersion) is durable (recovery may still fall back to version "
                          + "\(report.durableVersion))")
        }
        if report.freeKeptForReadersBytes > 0 {
            fields.append("    kept", "\(Format.grouped(report.freeKeptForReadersBytes)) bytes while a reader pins "
                          + "version \(report.oldestPinnedVersion)")
        }
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
                fields.append("  published", lockFile.publishedVersion.map { "version \($0)" } ?? "nothing yet")
                if let written = lockFile.writtenVersion {
                    fields.append("  written", "version \(written)")
                }
                if let durable = lockFile.durableVersion, let written = lockFile.writtenVersion {
                    fields.append("  durable", "version \(durable)" + (durable < written
                        ? " (the versions after it are written but not yet synced)" : ""))
                }
                if let repair = lockFile.pendingRepair {
                    fields.append("  repair", "the next writer must " + repair.explanation)
                }
                if lockFile.storageFailed {
                    fields.append("  storage", "FAILED: the file refuses writes until every handle has closed it")
                }
                fields.append("  readers", lockFile.readers.count == 1 ? "1 slot pins a version"
                              : "\(lockFile.readers.count) slots pin a version")
            }
        }
        fields.append("Live versions", report.liveVersions.map(String.init).joined(separator: ", ")
                      + " (pinned by open handles' readers, plus the latest)")
        var text = fields.render()
        if let readers = report.lockFile?.readers, !readers.isEmpty {
            var table = TextTable(["slot", "handle", "version", "handle state"], rightAligned: [0, 1, 2])
            for reader in readers {
                table.append(["\(reader.slot)", "\(reader.handleSlot)", "\(reader.version)",
                              reader.handleAlive ? "open" : "gone (slot awaits reclaim)"])
            }
            text += "\n\n" + table.render(indent: "  ")
        }
        if !report.findings.isEmpty { text += "\n\nFindings:\n" + Output.findingLines(report.findings) }
        return text
    }
}
