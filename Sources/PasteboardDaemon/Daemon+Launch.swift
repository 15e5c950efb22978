public import ClipboardBackend
public import PasteboardConfiguration
import PasteboardControl
import PasteboardHistory
public import DisplayBackends

extension Daemon {
    /// Opens the display's backend, then runs a daemon for the user `environment` describes until it is stopped:
    /// what `pb daemon` does. `onReady` gets the backend in use, in words (`X11 backend on :0`).
    ///
    /// `open` opens a client's backend for `kind` (the client clipboard layer's `BackendFactory.open`, handed in by
    /// `pb`: the daemon imports no client layer); on GNOME the daemon opens its own (`GnomeClipboard`).
    public static func launch(
        environment: [String: String], backend kind: BackendKind, configuration: Configuration,
        open: (BackendKind) throws(ClipboardError) -> (any ClipboardBackend)?,
        log: @escaping (String) -> Void, onReady: (String) -> Void
    ) throws(DaemonError) {
        let backend = try openBackend(kind, environment: environment, open: open)
        let daemon = Daemon(
            location: StoreLocation.standard(environment: environment),
            runtime: RuntimeDirectory.standard(environment: environment), configuration: configuration, backend: backend,
            log: log)
        daemon.readConfiguration = { () throws(ConfigurationError) in try Configuration.load(environment: environment) }
        let shown = describe(kind, backend)
        try daemon.run { onReady(shown) }
    }

    /// The daemon's backend for `kind`. On a GNOME Wayland session (no data-control there), the GNOME backend: the
    /// Pasteboard Shell extension when it runs, Xwayland otherwise.
    static func openBackend(
        _ kind: BackendKind, environment: [String: String],
        open: (BackendKind) throws(ClipboardError) -> (any ClipboardBackend)?
    ) throws(DaemonError) -> (any ClipboardBackend)? {
        if case .wayland(_, let xwayland) = kind, GnomeDesktop.isCurrent(environment) {
            do {
                return try GnomeClipboard(environment: environment, xwayland: xwayland)
            } catch {
                throw DaemonError(error.message + " (set PB_BACKEND=headless to use the store instead)", cause: error)
            }
        }
        do {
            return try open(kind)
        } catch {
            throw DaemonError(error.message, cause: error)
        }
    }

    /// The backend really in use, in words for the start line.
    static func describe(_ kind: BackendKind, _ backend: (any ClipboardBackend)?) -> String {
        if let summary = backend?.summary { return summary }
        switch kind {
        case .headless: return "headless backend"
        case .x11(let display): return "X11 backend on \(display)"
        case .wayland(let display, let fallback):
            if backend?.name == "x11" {
                return "X11 backend on XWayland \(fallback ?? "") (the compositor \(display) has no data-control)"
            }
            return "Wayland backend on \(display)"
        }
    }
}
