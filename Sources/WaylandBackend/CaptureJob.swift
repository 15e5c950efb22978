import ClipboardBackend
import FoundationEssentials
import PasteboardModel

/// One capture in progress: every wanted MIME type is asked for at once, each through a pipe of its own, and read
/// as the source writes. A class, so the growing buffers are appended to in place, never copied.
final class CaptureJob {
    /// One type being read.
    struct Incoming {
        let type: String
        var data = Data()
        var isDone = false
    }

    let selection: Selection
    let offered: [String]
    let observedAt: Date
    let time: UInt
    /// Set when a client (`pb paste`) reads instead of the watcher.
    let isRequest: Bool
    /// When it started, among all captures of this engine.
    var sequence = 0
    /// A newer copy replaced the offer being read (the read goes on: see `WaylandClipboard.replaced`).
    var wasReplaced = false
    /// The types to fetch, best first.
    var preference: [String] = []
    /// Read end of each pipe → what arrived through it.
    var pending: [Int32: Incoming] = [:]
    /// Types asked for only once the browser's custom-data containers have arrived and carry no secret marker.
    var deferred: [String] = []
    /// The offer being read, to ask it for `deferred` later.
    var offer: OpaquePointer?
    /// Finished types, by name.
    var received: [String: Data] = [:]
    var totalBytes = 0
    var lastProgress: Date
    /// The selection lost its source while this was being read: take it over once the read ends.
    var sourceWentAway = false

    init(selection: Selection, offered: [String], time: UInt, isRequest: Bool, now: Date) {
        self.selection = selection
        self.offered = offered
        self.time = time
        self.isRequest = isRequest
        observedAt = now
        lastProgress = now
    }

    /// The type the source is slowest with, for a message.
    var currentType: String {
        preference.first { type in pending.values.contains { $0.type == type && !$0.isDone } } ?? preference.first ?? "?"
    }
}
