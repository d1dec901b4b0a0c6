// RealmTestCase: each test gets its own Realm file in a fresh temporary directory.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

class RealmTestCase: XCTestCase {
    var directory: TemporaryDirectory!
    var configuration: Realm.Configuration!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "realm")
        configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("test.realm")))
    }

    override func tearDown() {
        directory?.cleanup()
    }

    func openRealm() throws -> Realm { try Realm(configuration: configuration) }

    /// Runs `body`; the Realms it opens are closed when it returns (nothing it makes outlives the scope), so the
    /// next scope opens the file afresh.
    func scoped<R>(_ body: () throws -> R) rethrows -> R { try body() }
}
