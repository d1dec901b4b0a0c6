// Output.swift — writing results: text for people on standard output, JSON for programs, messages on standard
// error; and the exit statuses every subcommand shares.

import ArgumentParser
import Foundation

enum Output {
    /// Prints `value` as one pretty-printed JSON document with sorted keys.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Prints text followed by a newline.
    /// Prints a subcommand's report: as JSON with `--json`, else as the text `render` makes for people.
    static func report<T: Encodable>(_ report: T, json: Bool, render: () -> String) throws {
        if json {
            try Output.json(report)
        } else {
            Output.text(render())
        }
    }

    static func text(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Prints a message on standard error, prefixed with the tool's name.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("columnar-inspect: \(message)\n".utf8))
    }

    /// Findings as text lines: "  at 12345 (0x3039): what".
    static func findingLines(_ findings: [Finding], indent: String = "  ") -> String {
        findings.map { "\(indent)at \(Format.offset($0.offset)): \($0.what)" }.joined(separator: "\n")
    }
}

/// The exit statuses of every subcommand (verify's are the contract the issue names).
enum ExitStatus {
    /// The command did its work and found nothing wrong.
    static let sound = ExitCode(0)
    /// The command found damage (listed with offsets) and showed what it could decode.
    static let findings = ExitCode(1)
    /// The file cannot be read at all: missing, unreadable, not a Columnar file, or no whole version.
    static let unreadable = ExitCode(2)

    static func forFindings(_ findings: [Finding]) -> ExitCode { findings.isEmpty ? sound : self.findings }
}
