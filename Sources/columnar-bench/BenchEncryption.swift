// BenchEncryption.swift — the key of the "Columnar (encrypted)" engines that --encrypted adds beside the plain
// ones, so that the cost of encryption at rest is measured in the same run (docs/Encryption.md).

import CColumnar
import Foundation

enum BenchEncryption {
    /// Fixed bytes: the run measures what encryption costs, not how secret the key is.
    static let key: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) }
    /// The key as columnar_open_options takes it; allocated once, never written after, kept for the life of the
    /// process (hence safe to share).
    nonisolated(unsafe) static let keyPointer: UnsafePointer<UInt8> = {
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: key.count)
        bytes.initialize(from: key, count: key.count)
        return UnsafePointer(bytes)
    }()
    /// The key for Realm.Configuration.encryptionKey.
    static let keyData = Data(key)
    /// The name of an engine's encrypted twin.
    static let engineName = "Columnar (encrypted)"
}
