public import ClipboardBackend
public import DisplayBackends
public import FoundationEssentials
public import PasteboardControl
public import PasteboardHistory
public import PasteboardModel
#if canImport(Glibc)
import Glibc
#endif

/// The client clipboard layer: the one place that knows which clipboard this process uses, reads it, puts an
/// item on it (through the daemon when it runs, else through a short-lived owner, as xclip does) and clears it.
/// `pb`, `Pasteboard.general` and every other surface go through it.
///
/// Without a display the clipboard is the `general` pasteboard in the history store.
public struct SystemClipboard: Sendable {
    public let kind: BackendKind
    public let runtime: RuntimeDirectory
    public let daemon: ControlClient
    /// The environment it was made from, passed on to an owner process.
    public let environment: [String: String]

    /// The clipboard `environment` describes (`PB_BACKEND`, `DISPLAY`, `PB_RUNTIME_DIR`, `XDG_RUNTIME_DIR`).
    public init(environment: [String: String]) throws(ClipboardError) {
        do {
            kind = try BackendKind.detect(environment)
        } catch {
            throw ClipboardError(error.message, cause: error)
        }
        runtime = RuntimeDirectory.standard(environment: environment)
        daemon = ControlClient(runtime: runtime)
        self.environment = environment
    }

    /// Opens the display's backend for one client operation; nil when headless.
    public func openBackend() throws(ClipboardError) -> (any ClipboardBackend)? { try BackendFactory.open(kind) }

    // MARK: - Reading

    /// The types the clipboard offers and what they are stored as (nil for meta types); empty when empty.
    public func offeredTypes(store: HistoryStore) throws(ClipboardError) -> [(name: String, type: ContentType?)] {
        guard let backend = try openBackend() else {
            return try storeItem(store).representations.map { ($0.type.identifier, $0.type) }
        }
        var offered: [String] = []
        switch backend.read(.clipboard, timeout: 3, choose: { types in
            offered = types
            return .nothing
        }) {
        case .item(_, let types): offered = types
        case .empty: return []
        case .failed(let reason):
            if offered.isEmpty { throw ClipboardError("Could not read the clipboard: \(reason).") }
        }
        return offered.map { ($0, TargetPlan.contentType(forTarget: $0)) }
    }

    /// The clipboard's item. With `wanted`, only a representation conforming to it is read; without, its text,
    /// else its first representation worth keeping. A paste reads what it asks for even from a password
    /// manager: a paste is not recorded.
    public func read(wanted: ContentType?, store: HistoryStore) throws(ClipboardError) -> PasteboardItem {
        guard let backend = try openBackend() else { return try storeItem(store) }
        var offered: [String] = []
        let result = backend.read(.clipboard, timeout: 3) { types in
            offered = types
            let readable = ConcealedMarkers.withoutMarkers(types)
            guard let wanted else {
                guard case .fetch(let plan) = TargetPlan.decide(readable), let first = plan.first else { return .nothing }
                return .fetch([first])
            }
            let matching = readable.filter { name in
                guard let type = TargetPlan.contentType(forTarget: name) else { return false }
                return type.conforms(to: wanted) || type.canonicalType.conforms(to: wanted)
            }
            return matching.isEmpty ? .nothing : .fetch([matching[0]])
        }
        switch result {
        case .item(let item, _): return item
        case .empty: throw ClipboardError("The clipboard is empty.")
        case .failed(let reason):
            if let wanted, !offered.isEmpty, reason == .empty {
                throw ClipboardError("The clipboard holds no \(wanted.identifier) (it offers: \(offered.joined(separator: ", "))).")
            }
            throw ClipboardError("Could not read the clipboard: \(reason).")
        }
    }

    private func storeItem(_ store: HistoryStore) throws(ClipboardError) -> PasteboardItem {
        let contents: PasteboardContents
        do {
            contents = try store.pasteboardContents(PasteboardName.general.rawValue)
        } catch {
            throw ClipboardError(error.message, cause: error)
        }
        guard let item = contents.items.first, !item.isEmpty else { throw ClipboardError("The clipboard is empty.") }
        return item
    }

    // MARK: - Writing

    /// How to keep an item on the clipboard when no daemon runs.
    public enum Fallback: Sendable {
        /// Start this program (`/proc/self/exe` for `pb`) with these arguments, in a session of its own; it owns
        /// the clipboard and prints `ready` once it does.
        case ownerProcess(executable: String, arguments: [String])
        /// No owner of our own: fail with this message (an item that asks before pasting needs the daemon to hold
        /// its pastes; a short-lived owner would serve everyone).
        case refuse(String)

        /// The fallback for an item that asks before pasting.
        static let askingItem = Fallback.refuse(
            "This item asks before pasting, and only the daemon can hold a paste while the app asks: start "
                + "'pb daemon' (and pasteboard-gtk to answer).")
    }

    /// Puts `item` on the clipboard without recording it in the history: for an item the user's ignore rules
    /// keep out. Headless, the store's `general` pasteboard holds it; with a display, an owner process started
    /// with `arguments` reads it from its standard input (as `data` of `type`) and serves it. A running daemon
    /// sees that owner as any other application and, by the same rules, does not record it.
    public func copyUnrecorded(
        _ item: PasteboardItem, store: HistoryStore, executable: String, arguments: [String], input: Data
    ) throws(ClipboardError) {
        guard kind.hasDisplay else {
            do {
                _ = try store.writePasteboard([item], to: PasteboardName.general.rawValue, history: nil)
            } catch {
                throw ClipboardError(error.message, cause: error)
            }
            return
        }
        try OwnerProcess.start(executable: executable, arguments: arguments, environment: environment, input: input)
    }

    /// Puts `item` on the clipboard and into the history (`metadata` says where from): headless, the store's
    /// `general` pasteboard; with a display, through the daemon, else through `fallback`. With `once`, only the
    /// first paste gets it; with `expire`, it is cleared after that long. Returns the history item's id.
    ///
    /// Watchers hear of it once, as `event`: `captured` for a copy (with `new` false when it repeated an
    /// item), `restored` when a past item is put back.
    @discardableResult
    public func copy(
        _ item: PasteboardItem, metadata: CaptureMetadata, once: Bool = false, expire: TimeInterval? = nil,
        store: HistoryStore, fallback: (Int64) -> Fallback
    ) throws(ClipboardError) -> Int64 {
        do {
            let record: RecordResult
            if kind.hasDisplay {
                record = try store.record(item, metadata: metadata)
                let asks = try store.asksBeforePaste(id: record.id)
                try deliver(
                    id: record.id, once: once, expire: expire, fallback: asks ? .askingItem : fallback(record.id))
            } else {
                guard let written = try store.writePasteboard([item], to: PasteboardName.general.rawValue, history: metadata).record
                else { return 0 }
                record = written
            }
            // Watchers hear of it from the store's change feed (`captured`), through the daemon.
            return record.id
        } catch let error as ClipboardError {
            throw error
        } catch let error as HistoryError {
            throw ClipboardError(error.message, cause: error)
        } catch {
            throw ClipboardError("\(error)")
        }
    }

    /// Puts history item `id` on the display's clipboard: through the daemon when it runs, else through `fallback`.
    public func deliver(
        id: Int64, once: Bool, expire: TimeInterval?, plain: Bool = false, fallback: Fallback
    ) throws(ClipboardError) {
        guard kind.hasDisplay else { return }
        do {
            try daemon.perform(.restore(id: id, once: once, expire: expire, plain: plain), timeout: 5)
            return
        } catch where error.code == .notRunning {
            // No daemon: an owner of our own.
        } catch {
            throw ClipboardError("The daemon could not take the clipboard: \(error.message)", cause: error)
        }
        switch fallback {
        case .ownerProcess(let executable, let arguments):
            try OwnerProcess.start(executable: executable, arguments: arguments, environment: environment)
        case .refuse(let message):
            throw ClipboardError(message)
        }
    }

    /// A paste stack: history items `ids` go on the clipboard one after another, each for one paste, in this order;
    /// the last one stays. Only the daemon counts pastes: without it, or without a display, this is refused.
    public func stack(ids: [Int64]) throws(ClipboardError) {
        guard kind.hasDisplay else {
            throw ClipboardError(
                "A paste stack needs a display: with none, pb's clipboard is in the store and nothing pastes from it. "
                    + "Copy the items joined instead (pb restore ID… --joined SEP).")
        }
        guard ids.count <= ControlRequest.stackLimit else {
            throw ClipboardError("A paste stack holds at most \(ControlRequest.stackLimit) items; \(ids.count) given.")
        }
        do {
            try daemon.perform(.stack(ids: ids), timeout: 5)
        } catch where error.code == .notRunning {
            throw ClipboardError(
                "A paste stack needs the daemon, which counts the pastes: start it with 'pb daemon' (or 'systemctl "
                    + "--user start pasteboard'), then try again.", cause: error)
        } catch {
            throw ClipboardError("The daemon could not start the paste stack: \(error.message)", cause: error)
        }
    }

    /// Leaves the clipboard empty: through the daemon when it runs, else directly; headless, in the store.
    public func clear(store: HistoryStore) throws(ClipboardError) {
        if kind.hasDisplay { return try clearDisplay() }
        do {
            _ = try store.writePasteboard([], to: PasteboardName.general.rawValue)
        } catch {
            throw ClipboardError(error.message, cause: error)
        }
    }

    private func clearDisplay() throws(ClipboardError) {
        do {
            try daemon.perform(.clear, timeout: 2)
            return
        } catch where error.code == .notRunning {
        } catch {
            throw ClipboardError("The daemon could not clear the clipboard: \(error.message)", cause: error)
        }
        try openBackend()?.clear(.clipboard)
    }

    // MARK: - The short-lived owner

    /// Owns the clipboard with `item` and serves pastes until another application copies, the first paste with
    /// `once`, or `deadline`. `ready` is called once the clipboard is ours. For `pb __serve` and the like.
    public func serve(
        _ item: PasteboardItem, once: Bool, until deadline: Date?, ready: () -> Void
    ) throws(ClipboardError) {
        guard let backend = try openBackend() else { throw ClipboardError("There is no display to serve on.") }
        guard backend.own(.clipboard, item: item, once: once) else {
            throw ClipboardError("another client holds the clipboard")
        }
        ready()
        backend.run(until: { !backend.owns(.clipboard) }, deadline: deadline)
        if backend.owns(.clipboard) { backend.disown(.clipboard) }
    }
}
