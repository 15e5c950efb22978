import Foundation
import PasteboardTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One JSON line `pb watch` printed.
struct WatchEvent: Sendable {
    let event: String
    let id: Int64?
    let types: [String]
    let size: Int?
    let line: String
}

/// A running `pb watch`, its output read as it grows.
final class EventStream: Sendable {
    let process: ChildProcess
    private let state = Mutex<(offset: UInt64, partial: Data, events: [WatchEvent])>((0, Data(), []))

    init(process: ChildProcess) {
        self.process = process
    }

    /// Every event printed so far, in order.
    var events: [WatchEvent] {
        state.withLock { state in
            guard let handle = try? FileHandle(forReadingFrom: process.stdoutURL) else { return state.events }
            defer { try? handle.close() }  // read-only: closing cannot lose data
            guard (try? handle.seek(toOffset: state.offset)) != nil, let fresh = try? handle.readToEnd(), !fresh.isEmpty
            else {
                return state.events
            }
            state.offset += UInt64(fresh.count)
            state.partial.append(fresh)
            while let newline = state.partial.firstIndex(of: 0x0A) {
                let line = state.partial[state.partial.startIndex..<newline]
                state.partial = Data(state.partial[state.partial.index(after: newline)...])
                state.events.append(Self.parse(Data(line)))
            }
            return state.events
        }
    }

    /// The first event (from the start of the stream) satisfying `condition`, waiting up to `timeout`.
    func first(within timeout: Duration, where condition: (WatchEvent) -> Bool) async throws -> WatchEvent? {
        var found: WatchEvent?
        _ = try await eventually(within: timeout, every: .milliseconds(5)) {
            found = events.first(where: condition)
            return found != nil || !process.isRunning
        }
        return found ?? events.first(where: condition)
    }

    /// Waits until at least `count` events satisfy `condition`; returns how many do.
    func count(atLeast count: Int, within timeout: Duration, where condition: (WatchEvent) -> Bool) async throws -> Int
    {
        var seen = 0
        _ = try await eventually(within: timeout, every: .milliseconds(5)) {
            seen = events.lazy.filter(condition).count
            return seen >= count || !process.isRunning
        }
        return seen
    }

    private static func parse(_ line: Data) -> WatchEvent {
        let text = String(decoding: line, as: UTF8.self)
        guard let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else {
            return WatchEvent(event: "(not JSON)", id: nil, types: [], size: nil, line: text)
        }
        return WatchEvent(
            event: object["event"] as? String ?? "(no event)", id: (object["id"] as? NSNumber)?.int64Value,
            types: object["types"] as? [String] ?? [], size: (object["size"] as? NSNumber)?.intValue, line: text)
    }
}
