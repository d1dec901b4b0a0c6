// CopyCommand.swift — `copy FILE DESTINATION`: a dense copy of a file's latest version in a new file
// (columnar_write_copy), taken as a reader while other processes go on using the file.

import ArgumentParser
import CColumnar
import Foundation

struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Write a dense, consistent copy of a file's latest version to a new file.",
        discussion: """
            Opens FILE read-only as a reader (it takes a reader slot in the lock file, so writers of other \
            processes keep the version it copies intact, and creates the lock file when there is none) and \
            writes what its latest version holds to DESTINATION: every table filled in key order, collections \
            and search indexes rebuilt in order, removed tables and columns left out, object keys kept. The copy \
            is built as DESTINATION.copying, made durable and then linked into place, so DESTINATION is absent \
            or complete at every moment. DESTINATION must not exist. FILE is not changed. The Realm API does the \
            same with Realm.writeCopy(toFile:encryptionKey:).

            An encrypted FILE is read with the key of --key-file or the environment variable \
            COLUMNAR_ENCRYPTION_KEY. The copy is encrypted with the same key (none for a plain FILE) unless \
            --copy-key-file names another key, or --plain-copy asks for an unencrypted copy: this is how a file \
            is encrypted, decrypted or given a new key.

            EXIT STATUS
              0  the copy was written
              2  FILE cannot be read (also: an encrypted FILE without its key, or the wrong key), DESTINATION \
            exists, or writing the copy failed (nothing is left at DESTINATION)
              64 the command line was wrong (also: a key that is not 64 bytes, or not hexadecimal)

            EXAMPLES
              columnar-inspect copy data.columnar backup.columnar
              columnar-inspect copy --json data.columnar /backups/data-$(date +%F).columnar
              columnar-inspect copy --copy-key-file new.key data.columnar encrypted.columnar
              columnar-inspect copy --key-file old.key --copy-key-file new.key old.columnar rekeyed.columnar
              columnar-inspect copy --key-file data.key --plain-copy encrypted.columnar plain.columnar
            """)

    @OptionGroup var options: FileOptions

    @Argument(help: ArgumentHelp("Where to write the copy (must not exist).", valueName: "destination"))
    var destination: String

    @Option(help: ArgumentHelp("""
        Encrypt the copy with the key in this file (\(EncryptionKey.sizeBytes) raw bytes, or \
        \(EncryptionKey.hexCharacterCount) hexadecimal characters) instead of FILE's own key.
        """, valueName: "path"))
    var copyKeyFile: String?

    @Flag(help: "Write the copy unencrypted, whatever FILE's encryption.")
    var plainCopy = false

    func validate() throws {
        if plainCopy && copyKeyFile != nil { throw ValidationError("--plain-copy conflicts with --copy-key-file") }
        if let copyKeyFile { _ = try EncryptionKey(contentsOfFile: copyKeyFile) }
    }

    struct Report: Encodable {
        let file: String
        let destination: String
        /// "copied" or "failed"
        let status: String
        let version: UInt64?
        let sizeBytes: UInt64?
        let error: String?
    }

    func run() throws {
        let key = try options.encryptionKey()
        let copyKey = plainCopy ? nil : try copyKeyFile.map(EncryptionKey.init(contentsOfFile:)) ?? key
        var db: OpaquePointer?
        var openOptions = columnar_open_options()
        openOptions.flags = COLUMNAR_OPEN_READ_ONLY.rawValue
        var rc = key.withOptions(openOptions) { columnar_open(self.options.file, $0, &db) }
        var version: UInt64?
        if rc == COLUMNAR_OK {
            var txn: OpaquePointer?
            rc = columnar_txn_begin_read(db, &txn)
            if rc == COLUMNAR_OK {
                version = columnar_txn_version(txn)
                rc = copyKey.withOptions(columnar_open_options()) { columnar_write_copy(txn, destination, $0) }
                columnar_txn_rollback(txn)
            }
        }
        // Only the source's key can mismatch: the copy is a new file.
        let error = rc == COLUMNAR_OK ? nil : EngineFailure(code: rc).message + keyAdvice(rc, key: key)
        if db != nil { columnar_close(db) }
        let size = rc == COLUMNAR_OK
            ? (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? NSNumber)?.uint64Value : nil
        let report = Report(file: self.options.file, destination: destination,
                            status: error == nil ? "copied" : "failed", version: error == nil ? version : nil,
                            sizeBytes: size, error: error)
        try Output.report(report, json: self.options.json) {
            if let error { return "\(report.file): not copied: \(error)" }
            return "\(report.file): version \(version ?? 0) copied to \(destination) (\(Format.humanBytes(size ?? 0)))"
        }
        if error != nil { throw ExitCode(2) }
    }
}
