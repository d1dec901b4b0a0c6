// SeededGenerator.swift — reproducible randomness for tests.
//
// Random tests draw from a SplitMix64 generator whose seed is chosen per run (or taken from the environment
// variable COLUMNAR_TEST_SEED) and printed when the test fails, so any failure can be replayed exactly with
// `COLUMNAR_TEST_SEED=<seed> swift test --filter <test>`.

import Foundation
import XCTest

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough for test data.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// A generator seeded from COLUMNAR_TEST_SEED when set (decimal or 0x-hex), else from the system's randomness.
    public static func fromEnvironment() -> SeededGenerator {
        if let text = ProcessInfo.processInfo.environment["COLUMNAR_TEST_SEED"] {
            let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            if let seed = parsed { return SeededGenerator(seed: seed) }
        }
        return SeededGenerator(seed: UInt64.random(in: .min ... .max))
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededGenerator.mix(state)
    }

    /// The SplitMix64 finaliser: a cheap, well-spread hash of one 64-bit word. Tests use it to derive a value
    /// from (seed, row, column) without storing the expected data.
    @inline(__always)
    public static func mix(_ word: UInt64) -> UInt64 {
        var z = word
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A hash of several words, each mixed in turn.
    @inline(__always)
    public static func hash(_ a: UInt64, _ b: UInt64, _ c: UInt64 = 0) -> UInt64 {
        mix(mix(mix(a &+ 0x9E37_79B9_7F4A_7C15) ^ b) &+ c)
    }

    /// A note for assertion messages: how to replay this run.
    public var replayNote: String { "seed \(seed) (replay with COLUMNAR_TEST_SEED=\(seed))" }
}

extension XCTestCase {
    /// A seeded generator for this test whose seed is printed if the test fails.
    public func makeSeededGenerator() -> SeededGenerator {
        let generator = SeededGenerator.fromEnvironment()
        let note = generator.replayNote
        let name = self.name
        addTeardownBlock { [weak self] in
            if let run = self?.testRun, run.totalFailureCount > 0 {
                print("\(name) failed with \(note)")
            }
        }
        return generator
    }
}
