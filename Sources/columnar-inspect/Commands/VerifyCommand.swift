// VerifyCommand.swift — `verify FILE...`: the integrity walk, with exit status 0 (sound), 1 (findings, each with
// its offset) or 2 (the file cannot be read at all).

import ArgumentParser
import CColumnar

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a file's integrity; exit 0 when sound, 1 with findings (offset and what), 2 when unreadable.",
        discussion: """
            First the header: the identity sector (magic, format version, geometry, checksum), each commit slot \
            (checksum, file id, bounds) and the reserved bytes. The current version is the highest whole one, as \
            the engine chooses it; a slot above it that is not whole (a commit cut short, or damage to what the \
            latest commits wrote) is a finding that names the range that fails. Then the engine's integrity walk \
            (columnar_verify) over the current version, or the one --slot names, reading every node reachable \
            from its top node: bounds and alignment of every ref, node header sanity, checksums, padding, the role \
            each position requires, tree shape and key order, the free list (sorted, disjoint, inside the file), \
            overlaps between live nodes, overlaps of live nodes with free space, space that is neither live nor \
            free, the schema's consistency, object counts, every link against the target's backlinks and back, and \
            every search index against its column's values.

            The walk runs on the tool's own read-only mapping, so it also checks a version the engine would \
            not open (with --slot, one that is not whole) and reports where the damage is. Each finding is one \
            line: the file offset where the problem was found, and what is wrong.

            Several files may be given; each is checked on its own and the exit status is the worst of them. \
            With --json the output is one object per file (an array when more than one file is given).

            EXIT STATUS
              0  every file is sound
              1  findings (listed with offsets)
              2  a file cannot be read at all: missing, unreadable, not a Columnar file, another format \
            version, no whole version, a --slot that is not usable (with the reasons as findings), or an \
            encrypted file without its key or with another key

            An encrypted file is verified decrypted, with the key of --key-file or COLUMNAR_ENCRYPTION_KEY (the \
            same key for every file given); without it only its header is checked.

            EXAMPLES
              columnar-inspect verify data.columnar
              columnar-inspect verify --json *.columnar
              columnar-inspect verify --key-file data.key encrypted.columnar
            """)

    @Argument(help: ArgumentHelp("The database files.", valueName: "file"))
    var files: [String]

    @Flag(help: "Print JSON instead of text (one object; an array of them for several files).")
    var json = false

    @OptionGroup var slotOption: SlotOption

    @OptionGroup var keyOptions: KeyOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file") }
    }

    struct Report: Encodable {
        let file: String
        let status: String
        let version: UInt64?
        let slot: Int?
        let findingCount: Int
        let findings: [Finding]
    }

    func run() throws {
        let key = try keyOptions.key()
        var reports: [Report] = []
        var worst: Int32 = 0
        for file in files {
            let report = verify(file, key: key)
            reports.append(report)
            let code: Int32 = report.status == "sound" ? 0 : report.status == "findings" ? 1 : 2
            worst = max(worst, code)
            if !json { Output.text(render(report)) }
        }
        if json {
            if reports.count == 1 { try Output.json(reports[0]) } else { try Output.json(reports) }
        }
        throw ExitCode(worst)
    }

    /// Verifies one file, decrypted with `key` when it is given.
    func verify(_ file: String, key: EncryptionKey?) -> Report {
        func unreadable(_ findings: [Finding]) -> Report {
            Report(file: file, status: "unreadable", version: nil, slot: nil, findingCount: findings.count,
                   findings: findings)
        }
        let inspector: Inspector
        do {
            inspector = try Inspector(path: file, key: key)
        } catch let failure as EngineFailure {
            return unreadable([Finding(offset: failure.offset,
                                       what: "cannot open: \(failure)" + keyAdvice(failure.code, key: key))])
        } catch {
            return unreadable([Finding(offset: 0, what: "cannot open: \(error)")])
        }
        var findings = inspector.headerFindings()
        if let slot = slotOption.slot {
            do {
                try inspector.selectSlot(slot)
            } catch let failure as EngineFailure {
                return unreadable(findings + [Finding(offset: failure.offset, what: failure.message)])
            } catch {
                return unreadable(findings + [Finding(offset: 0, what: "\(error)")])
            }
        }
        guard inspector.hasVersion else { return unreadable(findings) }
        let version = inspector.version().version
        do {
            findings += try inspector.verifyVersion()
        } catch {
            findings.append(Finding(offset: 0, what: "the integrity walk could not run: \(error)"))
        }
        return Report(file: file, status: findings.isEmpty ? "sound" : "findings", version: version.version,
                      slot: Int(version.slot), findingCount: findings.count, findings: findings)
    }

    private func render(_ report: Report) -> String {
        let what = report.version.map { "version \($0) (header slot \(report.slot ?? -1))" } ?? "no version"
        switch report.status {
        case "sound":
            return "\(report.file): sound, \(what)"
        case "findings":
            return "\(report.file): \(report.findingCount) finding\(report.findingCount == 1 ? "" : "s") in \(what)\n"
                + Output.findingLines(report.findings)
        default:
            return "\(report.file): unreadable\n" + Output.findingLines(report.findings)
        }
    }
}
