public import ClipboardBackend
import X11Backend

/// Opens the display backend a `BackendKind` names: the one place that knows every backend.
public enum BackendFactory {
    /// The backend for `kind`, or nil for headless. It watches nothing until told to.
    public static func open(_ kind: BackendKind) throws(ClipboardError) -> (any ClipboardBackend)? {
        switch kind {
        case .headless:
            return nil
        case .x11(let display):
            do {
                return try X11Clipboard(displayName: display, watch: [])
            } catch {
                throw ClipboardError(error.message + " (set PB_BACKEND=headless to use the store instead)", cause: error)
            }
        }
    }
}
