// DumpWhereTests.swift — `dump --where`: the rows the query engine selects are exactly those a plain Swift filter
// of the full dump selects, and a bad query exits 2 with its offset before printing any row.

import Foundation
import XCTest

final class DumpWhereTests: SampleDatabaseTestCase {
    private func dump(_ arguments: [String]) throws -> DumpDocument {
        let result = try inspect(["dump", "--format", "json"] + arguments)
        XCTAssertEqual(result.status, 0, result.description)
        return try JSONDecoder().decode(DumpDocument.self, from: Data(result.stdout.utf8))
    }

    /// Checks that `--where query` selects exactly the rows of the full dump that `expected` accepts.
    private func check(_ query: String, table: String = "notes", _ expected: ([String: JSONValue]) -> Bool,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let all = try dump([sample.path, table])
        let filtered = try dump(["--where", query, sample.path, table])
        let wanted = all.rows.filter { expected($0.values) }.map(\.key)
        XCTAssertEqual(filtered.rows.map(\.key), wanted, query, file: file, line: line)
        XCTAssertGreaterThan(all.rows.count, 0, file: file, line: line)
    }

    private func int(_ value: JSONValue?) -> Int64? { if case .int(let v)? = value { return v } else { return nil } }
    private func text(_ value: JSONValue?) -> String? { if case .string(let v)? = value { return v } else { return nil } }

    func testKernelConditionsMatchAPlainFilter() throws {
        try check("n >= 30 AND n < 60") { (30..<60).contains(self.int($0["n"]) ?? -1) }
        try check("text BEGINSWITH 'note 1'") { self.text($0["text"])?.hasPrefix("note 1") == true }
        try check("text == nil") { $0["text"] == .null }
        try check("NOT (n BETWEEN {10, 200}) OR text CONTAINS[c] 'CHANGED'") {
            let n = self.int($0["n"]) ?? -1
            return !(10...200).contains(n) || self.text($0["text"])?.lowercased().contains("changed") == true
        }
    }

    func testCollectionsAndIndexLookups() throws {
        try check("refs.@count == 2") {
            if case .array(let refs)? = $0["refs"] { return refs.count == 2 } else { return false }
        }
        try check("n == 42") { self.int($0["n"]) == 42 }
        try check("n IN {3, 6, 999}") { [3, 6, 999].contains(self.int($0["n"]) ?? -1) }
    }

    func testBadQueryExitsWithItsOffsetAndNoRows() throws {
        let unknown = try inspect("dump", "--where", "nn > 3", sample.path, "notes")
        XCTAssertEqual(unknown.status, 2, unknown.description)
        XCTAssertTrue(unknown.stderr.contains("offset 0"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("property 'nn' not found in class notes"), unknown.stderr)
        XCTAssertEqual(unknown.stdout, "")
        let malformed = try inspect("dump", "--where", "n > ", sample.path, "notes")
        XCTAssertEqual(malformed.status, 2, malformed.description)
        XCTAssertTrue(malformed.stderr.contains("offset 4"), malformed.stderr)
        let mismatch = try inspect("dump", "--where", "text > 3", sample.path, "notes")
        XCTAssertEqual(mismatch.status, 2, mismatch.description)
        XCTAssertTrue(mismatch.stderr.contains("text"), mismatch.stderr)
    }
}
