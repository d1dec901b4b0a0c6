// Swift6ClientTests: client code written as a Swift 6 server application writes it, compiled in the Swift 6
// language mode with complete concurrency checking and warnings as errors (Package.swift), so that a missing
// Sendable annotation or an isolation mistake in Columnar's API fails the build. It uses a Realm from an actor
// (opened with Realm.open and Realm(configuration:actor:), async writes, observation on the actor) and from
// detached tasks (a queue-confined Realm, frozen results read concurrently, ThreadSafeReference, changes
// sequences), then checks what those did.

import Columnar
import Foundation
import XCTest

final class Ticket: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var title = ""
    @Persisted var done = false
}

/// A service owning its Realm, as an actor.
actor TicketService {
    private var realm: Realm?
    private var token: NotificationToken?
    private(set) var insertionsSeen = 0

    func start(_ configuration: Realm.Configuration) async throws {
        let realm = try await Realm.open(configuration: configuration)
        self.realm = realm
        token = await realm.objects(Ticket.self).observe(on: self) { service, change in
            if case .update(_, _, let insertions, _) = change { service.insertionsSeen += insertions.count }
        }
    }

    func add(_ id: Int, _ title: String) async throws {
        guard let realm else { return }
        try await realm.asyncWrite {
            realm.create(Ticket.self, value: ["id": id, "title": title])
        }
    }

    /// A frozen snapshot, which may leave the actor.
    func openTickets() -> Results<Ticket>? {
        realm?.objects(Ticket.self).filter("done == false").freeze()
    }

    /// A reference to one ticket, to be resolved elsewhere.
    func reference(to id: Int) -> ThreadSafeReference<Ticket>? {
        guard let ticket = realm?.object(ofType: Ticket.self, forPrimaryKey: id) else { return nil }
        return ThreadSafeReference(to: ticket)
    }

    func stop() {
        token?.invalidate()
        token = nil
    }
}

final class Swift6ClientTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift6-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testARealmUsedFromAnActorAndFromDetachedTasks() async throws {
        let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("tickets.realm"),
                                                objectTypes: [Ticket.self])
        let service = TicketService()
        try await service.start(configuration)

        // Writes from several tasks at once, through the actor.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 0 ..< 20 {
                group.addTask { try await service.add(id, "ticket \(id)") }
            }
            try await group.waitForAll()
        }

        // A frozen snapshot read on several detached tasks at once.
        guard let snapshot = await service.openTickets() else { return XCTFail("no snapshot") }
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0 ..< 4 {
                group.addTask { snapshot.filter("title BEGINSWITH 'ticket'").count }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(counts, [20, 20, 20, 20])

        // A queue-confined Realm used from a detached task, resolving a reference made on the actor.
        guard let reference = await service.reference(to: 7) else { return XCTFail("no reference") }
        let title = try await Task.detached {
            let queue = DispatchQueue(label: "tickets")
            return try queue.sync {
                let realm = try Realm(configuration: configuration, queue: queue)
                guard let ticket = realm.resolve(reference) else { return "" }
                try realm.write { ticket.done = true }
                return ticket.title
            }
        }.value
        XCTAssertEqual(title, "ticket 7")

        // A changes sequence consumed by a detached task.
        let stream = try await Task.detached {
            let queue = DispatchQueue(label: "changes")
            return try queue.sync {
                try Realm(configuration: configuration, queue: queue).objects(Ticket.self).filter("done == true").changes
            }
        }.value
        for await change in stream {
            if case .initial(let done) = change {
                XCTAssertEqual(done.map(\.id), [7])
                break
            }
        }

        var seen = 0
        for _ in 0 ..< 200 where seen < 20 {
            try await Task.sleep(nanoseconds: 10_000_000)
            seen = await service.insertionsSeen
        }
        XCTAssertEqual(seen, 20)
        await service.stop()
    }
}
