public import DisplayBackends
public import FoundationEssentials
public import PasteboardModel
import ClipboardBackend
import PasteboardConfiguration
import PasteboardHistory

/// The real system pasteboard for any Swift program: `general` is the desktop clipboard (X11 `CLIPBOARD`) when
/// there is a display, else the headless store; every other name is a pasteboard kept in the store, shared by
/// every process of the user. `PasteboardKit` makes it the default server.
///
/// Writes go through `pb daemon` when it runs (it keeps serving after this program exits); otherwise this
/// program owns the clipboard on a background thread until something else is copied or it exits.
public final class SystemPasteboardServer: PasteboardServer {
    private let store: StorePasteboardServer
    private let location: StoreLocation
    private let clipboard: SystemClipboard
    private let display: BackendThread?
    private let environment: [String: String]

    /// Why the user's rules (`ignore-text`, `ignore-type`, `max-item-size`) keep `items` out of the history, or
    /// nil. The configuration is read at each write, so an edit applies at once; a broken file is an error.
    static func rejection(of items: [PasteboardItem], environment: [String: String]) throws -> String? {
        let rules = try Configuration.load(environment: environment).capture
        for item in items {
            if let reason = rules.rejection(of: item, application: nil) { return reason }
        }
        return nil
    }

    /// Chooses the clipboard from the environment (`DISPLAY`; `PB_BACKEND=headless` forces the store).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ClipboardError) {
        location = StoreLocation.standard(environment: environment)
        store = StorePasteboardServer(location: location) { items in
            try Self.rejection(of: items, environment: environment) == nil
        }
        clipboard = try SystemClipboard(environment: environment)
        self.environment = environment
        display = clipboard.kind.hasDisplay ? try BackendThread(kind: clipboard.kind) : nil
    }

    deinit { display?.stop() }

    /// Whether `general` is a display's clipboard (rather than the store).
    public var usesDisplay: Bool { display != nil }

    private func isGeneral(_ name: String) -> Bool { name == PasteboardName.general.rawValue }

    public func contents(of name: String) throws -> PasteboardContents {
        guard let display, isGeneral(name) else { return try store.contents(of: name) }
        let count = display.currentChangeCount
        switch display.perform({ backend in backend.read(.clipboard, timeout: 3, choose: nil) }) {
        case .item(let item, _): return PasteboardContents(items: [item], changeCount: count)
        case .empty, .failed(.empty): return PasteboardContents(items: [], changeCount: count)
        case .failed(.secret): throw PasteboardError(.unavailable, "The clipboard holds a concealed (secret) item.")
        case .failed(let reason): throw PasteboardError(.unavailable, "Could not read the clipboard: \(reason).")
        }
    }

    public func changeCount(of name: String) throws -> Int {
        guard let display, isGeneral(name) else { return try store.changeCount(of: name) }
        return display.currentChangeCount
    }

    public func write(_ items: [PasteboardItem], to name: String) throws -> Int {
        guard let display, isGeneral(name) else { return try store.write(items, to: name) }
        let before = display.currentChangeCount
        guard let item = items.first, !item.isEmpty else {
            display.perform { backend in backend.clear(.clipboard) }
            return display.waitForChange(after: before)
        }
        // An item the rules keep out of the history is owned here: a running daemon then sees another owner
        // and, by the same rules, does not record it either.
        if clipboard.daemon.isRunning, try Self.rejection(of: items, environment: environment) == nil {
            let history = try HistoryStore(location: location)
            let metadata = CaptureMetadata(source: ProcessInfo.processInfo.processName, selection: "clipboard")
            let record = try history.record(item, metadata: metadata)
            do {
                // Watchers hear of the copy from the store's change feed.
                try clipboard.daemon.perform(.restore(id: record.id), timeout: 5)
                return display.waitForChange(after: before)
            } catch {
                // The daemon went away meanwhile: own the clipboard here instead.
            }
        }
        let owned = display.perform { backend in backend.own(.clipboard, item: item, once: false) }
        guard owned else { throw PasteboardError(.unavailable, "Could not take the clipboard selection.") }
        return display.waitForChange(after: before)
    }

    public func create(_ name: String, persistent: Bool) throws { try store.create(name, persistent: persistent) }
    public func exists(_ name: String) throws -> Bool { try store.exists(name) }
    public func isPersistent(_ name: String) throws -> Bool { try store.isPersistent(name) }
    public func remove(_ name: String) throws { try store.remove(name) }

    public func changes(of name: String) -> AsyncStream<Int> {
        guard let display, isGeneral(name) else { return store.changes(of: name) }
        return display.changes()
    }
}

extension SystemPasteboardServer {
    /// The system pasteboard for this process's environment. When its display cannot be opened, `general`
    /// reports why on every use, and named pasteboards still live in the store.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> any PasteboardServer {
        do {
            return try SystemPasteboardServer(environment: environment)
        } catch {
            return UnavailableSystemPasteboard(
                store: StorePasteboardServer(location: StoreLocation.standard(environment: environment)), failure: error)
        }
    }
}
