/// The first value `stream` yields, or nil when none comes within `timeout` (so a test cannot hang on it).
///
/// ```swift
/// let changes = pasteboard.changes
/// try pasteboard.setString("hello")
/// #expect(try await firstValue(of: changes, within: .seconds(3)) == 1)
/// ```
public func firstValue<Element: Sendable>(of stream: AsyncStream<Element>, within timeout: Duration) async throws
    -> Element?
{
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await value in stream { return value }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
