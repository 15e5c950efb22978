/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(
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
