import Testing

@testable import PasteboardDaemon

/// The daemon's wait after another writer refused it the store: short at first, doubling, bounded, and short again
/// after a success.
@Suite struct RetryBackoffTests {
    @Test func waitsDoubleUpToTheLongestAndStartOverAfterASuccess() {
        var backoff = RetryBackoff(first: 0.05, longest: 1)
        let waits = (0..<8).map { _ in backoff.refused() }
        #expect(waits == [0.05, 0.1, 0.2, 0.4, 0.8, 1, 1, 1])
        backoff.succeeded()
        #expect(backoff.refused() == 0.05)
        #expect(backoff.refused() == 0.1)
    }

    @Test func theDaemonsBacklogRetriesFirstAfterFiftyMilliseconds() {
        var backoff = RetryBackoff(first: Daemon.indexFirstRetryDelay, longest: Daemon.indexRetryDelay)
        #expect(backoff.refused() == 0.05)
        #expect(Daemon.indexRetryDelay == 1)
    }
}
