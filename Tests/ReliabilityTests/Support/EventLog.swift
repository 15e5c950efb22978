import Foundation
import PasteboardTestSupport

/// One event `pb watch` printed.
struct WatchedEvent: Sendable {
    let event: String
    let id: Int64?
    /// The X server time of the owner change a `captured` event comes from.
    let ownerTime: UInt64?
    /// A change of the history: its number in the change feed.
    var seq: Int64? = nil
    var count: Int? = nil
    var lastID: Int64? = nil
    var device: String? = nil
}

/// A running `pb watch`; its output file is parsed whole on every look (a few thousand lines at most).
struct EventLog: Sendable {
    let process: ChildProcess

    /// Every complete event line printed so far, in order.
    var events: [WatchedEvent] {
        var events: [WatchedEvent] = []
        for line in process.stdout.split(separator: 0x0A) {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] else { continue }
            events.append(
                WatchedEvent(
                    event: object["event"] as? String ?? "", id: (object["id"] as? NSNumber)?.int64Value,
                    ownerTime: (object["ownerTime"] as? NSNumber)?.uint64Value,
                    seq: (object["seq"] as? NSNumber)?.int64Value, count: (object["count"] as? NSNumber)?.intValue,
                    lastID: (object["lastID"] as? NSNumber)?.int64Value, device: object["device"] as? String))
        }
        return events
    }

    /// The `captured` events the daemon sent for copies it captured from the display (they carry the owner
    /// change's X server time), so far; `pb copy` announces its copies as `captured` too, without one.
    var captures: [WatchedEvent] { events.filter { $0.event == "captured" && $0.ownerTime != nil } }
}
