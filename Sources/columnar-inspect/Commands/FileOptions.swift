// FileOptions.swift — the arguments every subcommand shares (the file, --json, --key-file, --slot) and the one way
// they open a file: through the inspector, reporting an unreadable file the same way everywhere.

import ArgumentParser
import CColumnar

struct FileOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The database file (its lock file is the same path plus \".lock\").",
                                 valueName: "file"))
    var file: String

    @Flag(help: "Print one JSON document instead of text.")
    var json = false

    @OptionGroup var keyOptions: KeyOptions

    /// The file's encryption key, when one is given (KeyOptions).
    func encryptionKey() throws -> EncryptionKey? { try keyOptions.key() }
}

struct SlotOption: ParsableArguments {
    @Option(help: ArgumentHelp("""
        Inspect the version in header slot 0 ... 14 (version v lives in slot v % 15) instead of the current one: \
        an older version, while later commits have not reused its space, or a version that is not whole (a \
        commit cut short, or damage to what the latest commits wrote), to see where its damage is. `header` \
        lists the slots.
        """, valueName: "slot"))
    var slot: Int?

    func validate() throws {
        if let slot, !(0 ..< Int(COLUMNAR_HEADER_SLOTS)).contains(slot) {
            throw ValidationError("--slot must be 0 ... \(COLUMNAR_HEADER_SLOTS - 1)")
        }
    }
}

/// What a subcommand prints when the file cannot be read at all.
struct UnreadableReport: Encodable {
    let file: String
    let status = "unreadable"
    let error: String
    let findings: [Finding]
}

enum Opening {
    /// Opens `options.file` and selects `slot` (nil: the current slot, the highest whole version). When nothing
    /// can be inspected (the file cannot be opened, the slot asked for is not usable, or no version is whole and
    /// `needsVersion`), prints why and throws exit status 2.
    /// The file is opened with its encryption key when one is given (KeyOptions); a key that does not match the
    /// file makes it unreadable.
    static func inspector(_ options: FileOptions, slot: Int?, needsVersion: Bool = true) throws -> Inspector {
        let key = try options.encryptionKey()
        let inspector: Inspector
        do {
            inspector = try Inspector(path: options.file, key: key)
        } catch let failure as EngineFailure {
            try unreadable(options, failure.message + keyAdvice(failure.code, key: key), findings: [])
        }
        if let slot {
            do {
                try inspector.selectSlot(slot)
            } catch let failure as EngineFailure {
                try unreadable(options, failure.message,
                               findings: inspector.headerFindings() + [Finding(offset: failure.offset,
                                                                              what: failure.message)])
            }
        } else if needsVersion && !inspector.hasVersion {
            let findings = inspector.headerFindings()
            try unreadable(options, inspector.status?.message ?? "no whole version in the header", findings: findings)
        }
        return inspector
    }

    /// Prints that the file cannot be read and throws exit status 2.
    static func unreadable(_ options: FileOptions, _ message: String, findings: [Finding]) throws -> Never {
        if options.json {
            try Output.json(UnreadableReport(file: options.file, error: message, findings: findings))
        } else {
            Output.error("\(options.file): \(message)")
            if !findings.isEmpty { Output.text("Findings:\n" + Output.findingLines(findings)) }
        }
        throw ExitStatus.unreadable
    }
}
