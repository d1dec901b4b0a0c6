// CompactCommand.swift — `compact FILE`: replaces a file nobody has open by a dense copy of itself
// (columnar_compact), the one subcommand that changes the file it is given.

import ArgumentParser
import CColumnar
import Foundation

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite a file that no process has open as a dense copy of itself; exit 3 when it is open.",
        discussion: """
            The one subcommand that changes the file it is given. Unless some handle in any process has the \
            file open, it writes a dense copy of the file's latest version beside it (FILE.compacting): every \
            table filled in key order, so clusters are full; every collection and search index rebuilt in order; \
            removed tables and columns left out; object keys kept. The copy is made durable, renamed over the \
            file and the directory synced, so a crash at any moment leaves the old file or the new one, complete. \
            A program that opens the file meanwhile waits and then opens the new file. The Realm API does the \
            same with Realm.compact(configuration:) or Configuration.shouldCompactOnLaunch.

            --if-unused-above PERCENT compacts only when at least that share of the file is not used by the \
            latest version (free space, and space the file has grown into but not filled).

            An encrypted file is read with the key of --key-file or the environment variable \
            COLUMNAR_ENCRYPTION_KEY, and its compacted copy is encrypted with the same key. To encrypt, decrypt \
            or change the key of a file, write a copy with `copy`.

            EXIT STATUS
              0  compacted, or left alone because --if-unused-above was not reached
              2  the file cannot be read (also: an encrypted file without its key, or the wrong key) or the \
            compaction failed (the file is unchanged)
              3  the file is open: nothing was done
              64 the command line was wrong (also: a key that is not 64 bytes, or not hexadecimal)

            EXAMPLES
              columnar-inspect compact data.columnar
              columnar-inspect compact --if-unused-above 50 --json data.columnar
              COLUMNAR_ENCRYPTION_KEY=$(cat data.key.hex) columnar-inspect compact encrypted.columnar
            """)

    @OptionGroup var options: FileOptions

    @Option(help: ArgumentHelp("Compact only when at least this percentage of the file is unused.",
                               valueName: "percent"))
    var ifUnusedAbove: Double?

    func validate() throws {
        if let ifUnusedAbove, !(0...100).contains(ifUnusedAbove) {
            throw ValidationError("--if-unused-above must be 0 ... 100")
        }
    }

    struct Report: Encodable {
        let file: String
        /// "compacted", "left alone", "open" or "failed"
        let status: String
        let sizeBeforeBytes: UInt64?
        let usedBeforeBytes: UInt64?
        let sizeAfterBytes: UInt64?
        let error: String?
    }

    private final class Threshold {
        let percent: Double
        init(_ percent: Double) { self.percent = percent }
    }

    func run() throws {
        let key = try options.encryptionKey()
        var result = columnar_compact_result()
        // The key both reads the file and encrypts its compacted copy (columnar_compact).
        let rc: Int32 = key.withOptions(columnar_open_options()) { compactOptions in
            guard let ifUnusedAbove else { return columnar_compact(options.file, compactOptions, nil, nil, &result) }
            let threshold = Threshold(ifUnusedAbove)
            return withExtendedLifetime(threshold) {
                columnar_compact(options.file, compactOptions, { size, used, context in
                    let percent = Unmanaged<Threshold>.fromOpaque(context!).takeUnretainedValue().percent
                    return size > 0 && Double(size - min(used, size)) * 100 >= percent * Double(size)
                }, Unmanaged.passUnretained(threshold).toOpaque(), &result)
            }
        }
        let status = rc == -EBUSY ? "open" : rc != COLUMNAR_OK ? "failed" : result.compacted ? "compacted"
                                                                                             : "left alone"
        let known = rc == COLUMNAR_OK
        let report = Report(file: options.file, status: status,
                            sizeBeforeBytes: known ? result.size_before_bytes : nil,
                            usedBeforeBytes: known ? result.used_before_bytes : nil,
                            sizeAfterBytes: known && result.compacted ? result.size_after_bytes : nil,
                            error: known ? nil : EngineFailure(code: rc).message + keyAdvice(rc, key: key))
        try Output.report(report, json: options.json) { render(report) }
        switch status {
        case "open": throw ExitCode(3)
        case "failed": throw ExitCode(2)
        default: return
        }
    }

    private func render(_ report: Report) -> String {
        switch report.status {
        case "compacted":
            let before = report.sizeBeforeBytes ?? 0, after = report.sizeAfterBytes ?? 0
            return "\(report.file): compacted from \(Format.humanBytes(before)) to \(Format.humanBytes(after)) "
                + "(the latest version used \(Format.humanBytes(report.usedBeforeBytes ?? 0)))"
        case "left alone":
            let size = report.sizeBeforeBytes ?? 0
            let unused = size - min(report.usedBeforeBytes ?? 0, size)
            return "\(report.file): left alone: \(Format.percent(unused, of: size)) of \(Format.humanBytes(size)) unused"
        default:
            return "\(report.file): \(report.status == "open" ? "not compacted" : "compaction failed"): "
                + (report.error ?? "")
        }
    }
}
