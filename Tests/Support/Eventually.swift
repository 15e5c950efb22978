/// Polls `condition` every `pause` until it holds or `timeout` passes; returns whether it held.
///
/// The condition is checked once more at the deadline, so a slow last poll still counts.
///
/// ```swift
/// let ready = try await eventually(within: .seconds(10)) { daemon.stdout.starts(with: Data("ready".utf8)) }
/// #expect(ready, "the daemon never said it was ready")
/// ```
public func eventually(
    within timeout: Duration, every pause: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if try await condition() { return true }
        if clock.now >= deadline { return false }
        try await Task.sleep(for: pause)
    }
}
