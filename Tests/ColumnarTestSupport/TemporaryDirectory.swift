// TemporaryDirectory.swift — a private directory for one test's database files.
//
// Every test that touches the file system works inside its own directory under the system's temporary
// directory, so tests never see each other's files (or lock files) and a failed run leaves nothing behind
// except when the process crashed, which is exactly when the files are worth keeping.

import Foundation

public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory, created by `init`.
    public let url: URL
    private var isRemoved = false

    /// Creates a fresh, uniquely named directory (`columnar-<prefix>-<uuid>`).
    public init(prefix: String = "test") throws {
        let name = "columnar-\(prefix)-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The directory's path.
    public var path: String { url.path }

    /// The path of a file named `name` inside the directory (the file is not created).
    public func file(_ name: String) -> String {
        url.appendingPathComponent(name, isDirectory: false).path
    }

    /// Removes the directory and everything in it. Safe to call more than once.
    public func cleanup() {
        guard !isRemoved else { return }
        isRemoved = true
        try? FileManager.default.removeItem(at: url)
    }

    deinit { cleanup() }
}

/// Size in bytes of the file at `path` as the file system reports it (`st_size`).
public func fileSizeBytes(atPath path: String) throws -> UInt64 {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.size] as? NSNumber)?.uint64Value ?? 0
}
