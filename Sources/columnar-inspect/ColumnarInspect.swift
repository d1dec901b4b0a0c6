// columnar-inspect: shows what is in a Columnar file and whether it is sound, without writing to it; and, asked
// explicitly, compacts it (`compact`) or writes a copy of it (`copy`).
//
// Each subcommand is one file in Commands/; they share the opening logic (Commands/FileOptions.swift), the
// inspector wrapper (Inspector/) and the output helpers (Output/). The tool reads the data file through the
// engine's inspector (a private read-only mapping; no lock, no reader slot), reads the lock file with one pread
// when `info` asks for it, and opens the database with COLUMNAR_OPEN_READ_ONLY | COLUMNAR_OPEN_NO_LOCK only to
// read objects for `dump`. `copy` opens it read-only with its lock file (a registered reader), and `compact` goes
// through columnar_compact, which replaces the file only when no handle has it open. An encrypted file's key comes
// from --key-file or the environment (Commands/KeyOptions.swift) and reaches every one of these opens.

import ArgumentParser

@main
struct ColumnarInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "columnar-inspect",
        abstract: "Explain, verify and picture a Columnar database file; compact it or copy it.",
        discussion: """
            columnar-inspect reads a Columnar file and its lock file and reports what they hold: the header and \
            its 15 commit slots (which versions are whole), the versions written, durable and pinned by readers, \
            the schema, how each table and column is stored, single nodes, the map of the file's space, and an \
            integrity walk. These subcommands open the file read-only and never create, lock or write the lock \
            file, so they are safe on a database another process is using (the inspected version is not pinned, \
            so on a file being written a run may see a version partly reused; run it again). Two subcommands do \
            more: `copy` reads as a registered reader and writes a new file, and `compact` replaces the file \
            itself when no process has it open.

            Like the engine, it inspects the current version, the highest whole one. Damage to what the latest \
            commits wrote reads like a commit cut short: the version before it is inspected, and the findings \
            name the slot that is not whole and why. --slot selects another version.

            On a damaged file every subcommand decodes as much as it can and lists what is wrong with the file \
            offset where it was found.

            ENCRYPTED FILES
              An encrypted file (docs/Encryption.md) is read with its 64-byte key, given in a file named by \
            --key-file (64 raw bytes, or 128 hexadecimal characters) or in the environment variable \
            COLUMNAR_ENCRYPTION_KEY (128 hexadecimal characters), never as a command-line value. Every \
            subcommand then shows the file's decrypted content; without the key only the header can be shown, \
            and the wrong key makes the file unreadable (exit 2). A key that is not 64 bytes is a usage error.

            EXIT STATUS
              0  the subcommand did its work and found nothing wrong
              1  damage was found (each finding names its file offset); what could be decoded was shown
              2  the file cannot be read at all: missing, unreadable, not a Columnar file, another format \
            version, or no whole version
              64 the command line was wrong

            Every subcommand takes --json for one machine-readable JSON document on standard output. \
            `columnar-inspect help <subcommand>` shows each subcommand's manual.
            """,
        version: "1.0.0",
        subcommands: [
            HeaderCommand.self, InfoCommand.self, SchemaCommand.self, TablesCommand.self, DumpCommand.self,
            NodeCommand.self, SpaceCommand.self, VerifyCommand.self, CompactCommand.self, CopyCommand.self,
        ])
}
