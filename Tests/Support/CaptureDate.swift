public import Foundation

/// When pb recorded an item, as `pb history --json` gives it ("created", ISO 8601 in milliseconds): the daemon's own
/// clock. A test that bounds how long a capture took measures from its copy to this, not to the moment it got to
/// look at the history: on a loaded two-core machine the test itself can wait seconds for a thread.
///
/// ```swift
/// let copied = Date()
/// try session.wlCopy(Data("text".utf8))
/// let items = try await session.waitForHistory(count: 1)
/// let took = try #require(captureDate(of: items.first)).timeIntervalSince(copied)
/// ```
public func captureDate(of item: [String: Any]?) -> Date? {
    guard let text = item?["created"] as? String else { return nil }
    return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))  // not a date: nil
}
