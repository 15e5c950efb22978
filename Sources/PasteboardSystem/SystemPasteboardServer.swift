public import Foundation
public import PasteboardModel
import PasteboardDaemon
import PasteboardHistory
import X11Backend

/// The real system pasteboard for any Swift program: `general` is the desktop clipboard (X11 `CLIPBOARD`) when
/// there is a display, else the headless store; every other name is a pasteboard kept in the store, shared by
/// every process of the user.
///
/// ```swift
/// import PasteboardSystem
/// Pasteboard.useSystemPasteboard()
/// try Pasteboard.general.setString("hello")      // pastes into any application
/// ```
///
/// On X11, writes go through `pb daemon` when it runs (it keeps serving after this program exits); otherwise
/// this program owns the clipboard on a background thread until something else is copied or it exits.
public final class SystemPasteboardServer: PasteboardServer {
    private let store: StorePasteboardServer
    private let location: StoreLocation
    private let runtime: RuntimeDirectory
    private let x11: X11ClipboardThread?

    /// Chooses the backend from the environment (`DISPLAY`; `PB_BACKEND=headless` forces the store).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        location = StoreLocation.standard(environment: environment)
        runtime = RuntimeDirectory.standard(environment: environment)
        store = StorePasteboardServer(location: location)
        let display = environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        if let display, environment["PB_BACKEND"] != "headless" {
            x11 = try X11ClipboardThread(display: display)
        } else {
            x11 = nil
        }
    }

    /// Whether `general` is the X11 clipboard (rather than the store).
    public var usesDisplay: Bool { x11 != nil }

    private func isGeneral(_ name: String) -> Bool { name == PasteboardName.general.rawValue }

    public func contents(of name: String) throws -> PasteboardContents {
        guard let x11, isGeneral(name) else { return try store.contents(of: name) }
        let count = x11.currentChangeCount
        let result = x11.perform { clipboard in clipboard.read(.clipboard) }
        switch result {
        case .item(let item, _): return PasteboardContents(items: [item], changeCount: count)
        case .empty: return PasteboardContents(items: [], changeCount: count)
        case .failed(let reason):
            if reason == .empty { return PasteboardContents(items: [], changeCount: count) }
            if reason == .secret { throw PasteboardError(.unavailable, "The clipboard holds a concealed (secret) item.") }
            throw PasteboardError(.unavailable, "Could not read the clipboard: \(reason).")
        }
    }

    public func changeCount(of name: String) throws -> Int {
        guard let x11, isGeneral(name) else { return try store.changeCount(of: name) }
        return x11.currentChangeCount
    }

    public func write(_ items: [PasteboardItem], to name: String) throws -> Int {
        guard let x11, isGeneral(name) else { return try store.write(items, to: name) }
        let before = x11.currentChangeCount
        guard let item = items.first, !item.isEmpty else {
            x11.perform { clipboard in clipboard.clearSelection(.clipboard) }
            return x11.waitForChange(after: before)
        }
        let daemon = DaemonClient(runtime: runtime)
        if daemon.isRunning {
            let history = try HistoryStore(location: location)
            let record = try history.record(item, metadata: CaptureMetadata(source: ProcessInfo.processInfo.processName, selection: "clipboard"))
            if daemon.request(["command": "restore", "id": record.id], timeout: 5)?["ok"] as? Bool == true {
                return x11.waitForChange(after: before)
            }
        }
        let owned = x11.perform { clipboard in clipboard.own(.clipboard, item: item) }
        guard owned else { throw PasteboardError(.unavailable, "Could not take the clipboard selection.") }
        return x11.waitForChange(after: before)
    }

    public func create(_ name: String, persistent: Bool) throws { try store.create(name, persistent: persistent) }
    public func exists(_ name: String) throws -> Bool { try store.exists(name) }
    public func isPersistent(_ name: String) throws -> Bool { try store.isPersistent(name) }
    public func remove(_ name: String) throws { try store.remove(name) }

    public func changes(of name: String) -> AsyncStream<Int> {
        guard let x11, isGeneral(name) else { return store.changes(of: name) }
        return x11.changes()
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
