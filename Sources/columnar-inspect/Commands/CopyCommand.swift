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
            same with Realm.writeCopy(toFile:).

            EXIT STATUS
              0  the copy was written
              2  FILE cannot be read, DESTINATION exists, or writing the copy failed (nothing is left at \
            DESTINATION)
              64 the command line was wrong

            EXAMPLES
              columnar-inspect copy data.columnar backup.columnar
              columnar-inspect copy --json data.columnar /backups/data-$(date +%F).columnar
            """)

    @OptionGroup var options: FileOptions

    @Argument(help: ArgumentHelp("Where to write the copy (must not exist).", valueName: "destination"))
    var destination: String

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
        var db: OpaquePointer?
        var options = columnar_open_options()
        options.flags = COLUMNAR_OPEN_READ_ONLY.rawValue
        var rc = columnar_open(self.options.file, &options, &db)
        var version: UInt64?
        if rc == COLUMNAR_OK {
            var txn: OpaquePointer?
            rc = columnar_txn_begin_read(db, &txn)
            if rc == COLUMNAR_OK {
                version = columnar_txn_version(txn)
                rc = columnar_write_copy(txn, destination, nil)
                columnar_txn_rollback(txn)
            }
        }
        let error = rc == COLUMNAR_OK ? nil : String(cString: columnar_last_error().pointee.message)
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
