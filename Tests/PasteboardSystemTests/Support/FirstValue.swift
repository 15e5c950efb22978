import Foundation

/// The first value `stream` yields, or nil when none comes within `timeout`.
func firstValue(of stream: AsyncStream<Int>, within timeout: Duration) async throws -> Int? {
    try await withThrowingTaskGroup(of: Int?.self) { group in
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
