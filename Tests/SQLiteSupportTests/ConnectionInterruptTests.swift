import Foundation
import SQLiteSupport
import Synchronization
import Testing

/// `Connection.stopping(when:)`: a query stops at SQLite's progress check once its caller says so.
@Suite struct ConnectionInterruptTests {
    /// A counter and a flag that closures on any thread can share.
    final class Shared: Sendable {
        let count = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
    }

    @Test func aLongQueryStopsOnceAskedAndTheConnectionGoesOn() throws {
        let db = try Connection(path: ":memory:")
        // Counting to a billion takes minutes: only the stop ends it in time.
        let countToABillion = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c"
        let started = ContinuousClock.now
        let checks = Shared()
        #expect {
            try db.stopping(when: { checks.count.add(1, ordering: .relaxed).newValue >= 50 }) {
                _ = try db.row(countToABillion)
            }
        } throws: { ($0 as? SQLiteError)?.isInterrupted == true }
        #expect(checks.count.load(ordering: .relaxed) == 50)
        #expect(ContinuousClock.now - started < .seconds(5))
        // The handler is gone with the call: the next query runs to its end.
        #expect(try db.row("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) AS n FROM c")?.int("n") == 100_000)
        #expect(checks.count.load(ordering: .relaxed) == 50)
    }

    @Test func aStopFromAnotherThreadEndsAQueryUnderWay() async throws {
        let db = try Connection(path: ":memory:")
        let shared = Shared()
        let stopper = Task.detached {
            try await Task.sleep(for: .milliseconds(50))
            shared.stop.store(true, ordering: .releasing)
        }
        #expect {
            try db.stopping(when: { shared.stop.load(ordering: .acquiring) }) {
                _ = try db.row(
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c")
            }
        } throws: { ($0 as? SQLiteError)?.isInterrupted == true }
        try await stopper.value
    }
}
