/// Which clipboard this process uses, from its environment.
public enum BackendKind: Equatable, Sendable {
    /// The X11 `CLIPBOARD` selection on this display.
    case x11(display: String)
    /// A Wayland compositor's selections, through its data-control protocol. `fallbackX11` is the XWayland
    /// display to use instead when the compositor has no data-control (GNOME), when `DISPLAY` is set too.
    case wayland(display: String, fallbackX11: String?)
    /// No display: the `general` pasteboard lives in the history store.
    case headless

    /// `PB_BACKEND` (`x11`, `wayland`, `headless`, `auto`) wins; else `WAYLAND_DISPLAY` means Wayland (with
    /// `DISPLAY` as its fallback); else `DISPLAY` means X11; else headless.
    public static func detect(_ environment: [String: String]) throws(BackendError) -> BackendKind {
        let display = environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        let wayland = environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        switch environment["PB_BACKEND"] {
        case "headless": return .headless
        case "x11":
            guard let display else { throw BackendError("PB_BACKEND=x11 but DISPLAY is not set.") }
            return .x11(display: display)
        case "wayland":
            guard let wayland else { throw BackendError("PB_BACKEND=wayland but WAYLAND_DISPLAY is not set.") }
            return .wayland(display: wayland, fallbackX11: nil)
        case nil, "", "auto":
            if let wayland { return .wayland(display: wayland, fallbackX11: display) }
            return display.map { .x11(display: $0) } ?? .headless
        case let other?:
            throw BackendError("PB_BACKEND='\(other)' is not a backend; use \(names.joined(separator: ", ")).")
        }
    }

    /// The names `PB_BACKEND` and `pb daemon --backend` accept.
    public static let names = ["x11", "wayland", "headless", "auto"]

    public var name: String {
        switch self {
        case .x11: return "x11"
        case .wayland: return "wayland"
        case .headless: return "headless"
        }
    }

    /// Whether the clipboard is a display server's (rather than the store).
    public var hasDisplay: Bool { self != .headless }
}
