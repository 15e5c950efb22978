public import ClipboardBackend
public import DisplayBackends
import WaylandBackend
import X11Backend

/// Opens the display backend a `BackendKind` names: the one place that knows every backend.
public enum BackendFactory {
    /// The backend for `kind`, or nil for headless. It watches nothing until told to.
    ///
    /// A Wayland compositor without data-control (GNOME) falls back to its XWayland display when `DISPLAY` is set
    /// too: X11 clients' copies are seen there.
    public static func open(_ kind: BackendKind) throws(ClipboardError) -> (any ClipboardBackend)? {
        switch kind {
        case .headless:
            return nil
        case .x11(let display):
            return try openX11(display)
        case .wayland(let display, let fallback):
            do {
                return try WaylandClipboard(displayName: display)
            } catch where error.code == .noDataControl && fallback != nil {
                return try openX11(fallback!)  // checked just above
            } catch {
                throw ClipboardError(error.message + " (set PB_BACKEND=headless to use the store instead)", cause: error)
            }
        }
    }

    /// Whether `error` (from `open`) says the Wayland compositor has no data-control protocol.
    public static func lacksDataControl(_ error: ClipboardError) -> Bool {
        (error.cause as? WaylandError)?.code == .noDataControl
    }

    private static func openX11(_ display: String) throws(ClipboardError) -> any ClipboardBackend {
        do {
            return try X11Clipboard(displayName: display, watch: [])
        } catch {
            throw ClipboardError(error.message + " (set PB_BACKEND=headless to use the store instead)", cause: error)
        }
    }
}
