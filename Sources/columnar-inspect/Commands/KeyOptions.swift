// KeyOptions.swift — how an encrypted file's key reaches the tool: from a file named by --key-file, or from the
// environment variable COLUMNAR_ENCRYPTION_KEY. Never as the value of a command-line argument, which every user of
// the machine can read in the process list and which shells keep in their history.
//
// A key is 64 bytes (COLUMNAR_ENCRYPTION_KEY_BYTES). It is checked when it is read: a key that cannot be one (the
// wrong length, a character that is not hexadecimal, an unreadable key file) is a usage error (exit 64), while a
// well-formed key that does not match the file is the file's problem, reported as that file being unreadable.

import ArgumentParser
import CColumnar
import Foundation

/// A 64-byte encryption key, as the engine takes it.
struct EncryptionKey {
    static let sizeBytes = Int(COLUMNAR_ENCRYPTION_KEY_BYTES)
    static let hexCharacterCount = 2 * sizeBytes
    /// Where the key is read from when no key file is given.
    static let environmentVariable = "COLUMNAR_ENCRYPTION_KEY"

    let bytes: [UInt8]
    /// Where the key was read from ("the key file 'k.hex'"), for messages. (The key itself is never printed.)
    let source: String

    /// `text` as 128 hexadecimal digits (either case), whitespace around them ignored. `source` names where the text
    /// came from.
    init(hex text: String, source: String) throws {
        let digits = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count == EncryptionKey.hexCharacterCount else {
            throw ValidationError("\(source) must hold \(EncryptionKey.hexCharacterCount) hexadecimal characters "
                                  + "(a \(EncryptionKey.sizeBytes)-byte key), not \(digits.count)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(EncryptionKey.sizeBytes)
        for pairStart in stride(from: 0, to: digits.count, by: 2) {
            guard let high = EncryptionKey.hexValue(digits[pairStart]),
                  let low = EncryptionKey.hexValue(digits[pairStart + 1]) else {
                let position = EncryptionKey.hexValue(digits[pairStart]) == nil ? pairStart : pairStart + 1
                throw ValidationError("\(source) is not hexadecimal: character \(position + 1) of "
                                      + "\(digits.count) is not 0-9, a-f or A-F")
            }
            bytes.append(high << 4 | low)
        }
        self.init(bytes: bytes, source: source)
    }

    /// The key in the file at `path`: exactly 64 bytes are the raw key; anything else must be 128 hexadecimal
    /// characters, whitespace around them ignored. (A raw key is never trimmed: its bytes may be whitespace.)
    init(contentsOfFile path: String) throws {
        let contents: Data
        do {
            contents = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw ValidationError("cannot read the key file '\(path)': \(reason)")
        }
        if contents.count == EncryptionKey.sizeBytes {
            self.init(bytes: Array(contents), source: "the key file '\(path)'")
            return
        }
        guard let text = String(data: contents, encoding: .utf8),
              text.trimmingCharacters(in: .whitespacesAndNewlines).utf8.count == EncryptionKey.hexCharacterCount else {
            throw ValidationError("the key file '\(path)' holds \(contents.count) bytes: it must hold "
                                  + "\(EncryptionKey.sizeBytes) raw bytes or \(EncryptionKey.hexCharacterCount) "
                                  + "hexadecimal characters")
        }
        try self.init(hex: text, source: "the key file '\(path)'")
    }

    private init(bytes: [UInt8], source: String) {
        self.bytes = bytes
        self.source = source
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension Optional where Wrapped == EncryptionKey {
    /// Calls `body` with the key's bytes, or NULL for no key (a plain file), valid for the duration of `body`: the
    /// engine reads the key only during the call it is given to.
    func withUnsafeKeyBytes<Result>(_ body: (UnsafePointer<UInt8>?) throws -> Result) rethrows -> Result {
        guard let key = self else { return try body(nil) }
        return try key.bytes.withUnsafeBufferPointer { try body($0.baseAddress) }
    }

    /// Calls `body` with `options` whose encryption_key is this key (NULL for none).
    func withOptions<Result>(_ options: columnar_open_options,
                             _ body: (UnsafePointer<columnar_open_options>) throws -> Result) rethrows -> Result {
        try withUnsafeKeyBytes { key in
            var options = options
            options.encryption_key = key
            return try withUnsafePointer(to: options, body)
        }
    }
}

/// `--key-file`, shared by every subcommand that reads a database.
struct KeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        Read the encryption key of an encrypted file from this file: \(EncryptionKey.sizeBytes) raw bytes, or \
        \(EncryptionKey.hexCharacterCount) hexadecimal characters (whitespace around them is ignored). Without \
        it, the key is taken from the environment variable \(EncryptionKey.environmentVariable) \
        (\(EncryptionKey.hexCharacterCount) hexadecimal characters) when that is set and not empty. The key is \
        never given on the command line itself, where the process list and the shell's history would show it.
        """, valueName: "path"))
    var keyFile: String?

    /// Reads the key once before the subcommand runs, so that a key that cannot be one is reported as a usage
    /// error with the subcommand's usage (run reads it again: a small file or a variable, read twice).
    func validate() throws { _ = try key() }

    /// The key given (nil: none, a plain file). Throws a ValidationError (exit 64) for a key that cannot be one.
    func key() throws -> EncryptionKey? {
        if let keyFile { return try EncryptionKey(contentsOfFile: keyFile) }
        let variable = EncryptionKey.environmentVariable
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
        return try EncryptionKey(hex: text, source: "the environment variable \(variable)")
    }
}

/// What the tool adds to the engine's message when the key does not match the file (COLUMNAR_EKEY): how to give
/// one, or where the one given came from (a key in the environment applies to every file the tool is given).
func keyAdvice(_ code: Int32, key: EncryptionKey?) -> String {
    guard code == COLUMNAR_EKEY else { return "" }
    guard let key else {
        return " (give the key with --key-file PATH or the environment variable \(EncryptionKey.environmentVariable))"
    }
    return " (the key was read from \(key.source))"
}
