// BuiltExecutable: finds an executable product of this package (the test worker, columnar-inspect) next to the
// running test bundle, for tests that start it as a child process.

import Foundation

public enum BuiltExecutable {
    public struct NotFound: Error, CustomStringConvertible {
        public let name: String
        public let searched: [String]
        public var description: String { "\(name) not found; searched: \(searched.joined(separator: ", "))" }
    }

    /// The environment variable `override` when set, else a file named `name` in the directory of the running test
    /// bundle or one of its parents (SwiftPM puts products and the test bundle in the same build directory; on
    /// Darwin the bundle's executable sits three levels inside the .xctest directory).
    public static func url(named name: String, override: String) throws -> URL {
        let fileManager = FileManager.default
        if let path = ProcessInfo.processInfo.environment[override] { return URL(fileURLWithPath: path) }
        var starts: [URL] = []
        if let argument = CommandLine.arguments.first {
            let cwd = URL(fileURLWithPath: fileManager.currentDirectoryPath, isDirectory: true)
            starts.append(URL(fileURLWithPath: argument, relativeTo: cwd).standardizedFileURL)
        }
        if let main = Bundle.main.executableURL { starts.append(main) }
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            starts.append(bundle.bundleURL)
        }
        var searched: [String] = []
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                searched.append(candidate.path)
                if fileManager.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw NotFound(name: name, searched: searched)
    }
}
