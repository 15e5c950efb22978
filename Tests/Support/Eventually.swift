/// Polls `condition` every `pause` until it holds or `timeout` passes; returns whether it held.
///
/// The condition is checked once more at the deadline, so a slow last poll still counts.
///
/// `timeout` counts the time this test could look. Swift Testing runs every test of a run at once on the cooperative
/// pool (two threads on a two-core machine), and a test that computes for seconds holds a thread all that time: a
/// pause of 20 ms can then end seconds late. What a pause overran by is added to the deadline, which moves at most
/// to four times `timeout` from the start: a child that did its work in time is not failed for the test having
/// looked late, and one that never does still fails.
///
/// ```swift
/// let ready = try await eventually(within: .seconds(10)) { daemon.stdout.starts(with: Data("ready".utf8)) }
/// #expect(ready, "the daemon never said it was ready")
/// ```
public func eventually(
    within timeout: Duration, every pause: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async throws -> Bool {
    let clock = ContinuousClock()
    let start = clock.now
    var deadline = start + timeout
    let latest = start + timeout * 4
    while true {
        if try await condition() { return true }
        if clock.now >= deadline { return false }
        let asleep = clock.now
        try await Task.sleep(for: pause)
        let overran = clock.now - asleep - pause
        if overran > .milliseconds(50) { deadline = min(deadline + overran, latest) }
    }
}
