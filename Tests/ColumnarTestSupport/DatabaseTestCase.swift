// DatabaseTestCase: a test case with one fresh database per test, in its own temporary directory.
//
// The database is opened with durability UNSAFE (these tests are about behaviour, not durability) and closed and
// removed after each test; `reopen()` closes it and opens the same file again, to check what persists.

import CColumnar
import XCTest

open class DatabaseTestCase: XCTestCase {
    /// Names the temporary directory and the database file; subclasses override it.
    open var databaseName: String { "database" }
    /// Objects per cluster the database writes (0: the engine's default); small sizes exercise deeper trees.
    open var clusterSize: UInt32 { 0 }

    public private(set) var directory: TemporaryDirectory!
    public private(set) var path: String!
    public var db: TestDatabase!

    open override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: databaseName)
        path = directory.file("\(databaseName).columnar")
        db = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE, clusterSize: clusterSize)
    }

    open override func tearDown() {
        db?.close()
        directory?.cleanup()
    }

    /// Closes the database and opens the same file again.
    public func reopen() throws {
        db.close()
        db = try TestDatabase(path: path, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE, clusterSize: clusterSize)
    }
}
