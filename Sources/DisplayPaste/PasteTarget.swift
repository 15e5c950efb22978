import ClipboardBackend
import PasteboardControl
public import DisplayBackends
import WaylandPaste
import X11Paste

/// The window that gets the paste keystroke of `pb pick --paste` and `pasteboard-gtk --popup --paste`: remembered
/// when the picker or popup starts, typed into after the chosen item is on the clipboard. One implementation per
/// display server, chosen in `PasteTargets.focused(environment:)`: X11's gives the remembered window the focus
/// back and sends the keystroke through XTest; Wayland's types through a virtual keyboard into whatever window the
/// compositor focuses, since no client may choose (`needsFocusBack`).
public protocol PasteTarget: Sendable {
    /// Gives the remembered window the focus (where the display server lets a client) and types `keystroke`.
    func paste(_ keystroke: PasteKeystroke) throws(ClipboardError)
    /// True when the keys go to the window focused at the time of the paste, not to a remembered one: the picker's
    /// own window must have closed first, so that the compositor has given the focus back.
    var needsFocusBack: Bool { get }
}

/// The keystroke that pastes: Ctrl+V in most applications, Shift+Insert or Ctrl+Shift+V in terminals.
public enum PasteKeystroke: String, Sendable, CaseIterable {
    case ctrlV = "ctrl+v"
    case shiftInsert = "shift+insert"
    case ctrlShiftV = "ctrl+shift+v"

    /// The keys of the chord, as X keysym names, modifiers first.
    public var keysymNames: [String] {
        switch self {
        case .ctrlV: ["Control_L", "v"]
        case .shiftInsert: ["Shift_L", "Insert"]
        case .ctrlShiftV: ["Control_L", "Shift_L", "v"]
        }
    }
}

public enum PasteTargets {
    /// The window that has the keyboard focus now, on the display `environment` names, checked to be one pb can
    /// type into (so that a caller can refuse before it changes anything): the same detection as the clipboard's
    /// backend (`BackendKind.detect`: `PB_BACKEND`, else Wayland when `WAYLAND_DISPLAY` is set, else X11). On
    /// Wayland a virtual keyboard types (or KWin's fake input); a compositor with neither is an error, not a fall
    /// back to XWayland's XTest, whose keys would reach X11 windows only.
    public static func focused(environment: [String: String]) throws(ClipboardError) -> any PasteTarget {
        // One case per way of typing; a desktop with a way of its own (GNOME's Shell extension) is a case here.
        switch try Route(environment) {
        case .x11(let display):
            do {
                return X11PasteTarget(window: try X11FocusedWindow.current(display: display))
            } catch {
                throw ClipboardError(error.message, cause: error)
            }
        case .waylandKeyboard(let display):
            do {
                try VirtualKeyboard.check(display: display)
            } catch {
                throw ClipboardError(error.message, cause: error)
            }
            return WaylandPasteTarget(display: display)
        case .gnome:
            return try GnomePasteTarget.check(environment: environment)
        case .none:
            throw ClipboardError(
                "--paste needs a display to paste into (DISPLAY and WAYLAND_DISPLAY are unset, or PB_BACKEND=headless).")
        }
    }

    /// How the paste keystroke reaches the focused window.
    enum Route {
        /// XTest on this X display.
        case x11(display: String)
        /// A Wayland virtual keyboard (wlroots) or KWin's fake input, on this compositor.
        case waylandKeyboard(display: String)
        /// GNOME Wayland: only the Shell extension can type, asked by the daemon.
        case gnome
        /// No display to type into.
        case none

        init(_ environment: [String: String]) throws(ClipboardError) {
            let kind: BackendKind
            do {
                kind = try BackendKind.detect(environment)
            } catch {
                throw ClipboardError(error.message, cause: error)
            }
            switch kind {
            case .wayland where GnomeDesktop.isCurrent(environment): self = .gnome
            case .wayland(let display, _): self = .waylandKeyboard(display: display)
            case .x11(let display): self = .x11(display: display)
            case .headless: self = .none
            }
        }
    }
}

/// The X11 paste target: the focused window, and XTest key events.
struct X11PasteTarget: PasteTarget {
    let window: X11FocusedWindow
    var needsFocusBack: Bool { false }

    func paste(_ keystroke: PasteKeystroke) throws(ClipboardError) {
        do {
            try window.paste(keys: keystroke.keysymNames)
        } catch {
            throw ClipboardError(error.message, cause: error)
        }
    }
}

/// The Wayland paste target: a virtual keyboard (or KWin's fake input) typing into the window the compositor
/// focuses.
struct WaylandPasteTarget: PasteTarget {
    /// `WAYLAND_DISPLAY`: a socket name in `$XDG_RUNTIME_DIR` or a full path.
    let display: String
    var needsFocusBack: Bool { true }

    func paste(_ keystroke: PasteKeystroke) throws(ClipboardError) {
        do {
            try VirtualKeyboard.type(chord: keystroke.keysymNames, display: display)
        } catch {
            throw ClipboardError(error.message, cause: error)
        }
    }
}

/// The GNOME paste target: mutter lets no client type, so the daemon asks the Pasteboard Shell extension to type
/// into the window the shell focuses.
struct GnomePasteTarget: PasteTarget {
    let daemon: ControlClient
    var needsFocusBack: Bool { true }

    /// The target, once the daemon answers with the GNOME backend and its extension (else why not).
    static func check(environment: [String: String]) throws(ClipboardError) -> GnomePasteTarget {
        let daemon = ControlClient(runtime: RuntimeDirectory.standard(environment: environment))
        let reply: ControlReply
        do {
            reply = try daemon.perform(.status)
        } catch {
            throw ClipboardError(
                "--paste on GNOME needs the pb daemon and the Pasteboard GNOME Shell extension: start 'pb daemon' "
                    + "(\(error.message))", cause: error)
        }
        guard reply.backend == "gnome" else {
            throw ClipboardError(
                "--paste on GNOME needs the Pasteboard GNOME Shell extension, which the daemon does not use "
                    + "(\(reply.backend ?? "no") backend): run 'pb gnome-extension install', log out and in, and "
                    + "restart 'pb daemon'. Leave out --paste and paste with Ctrl+V.")
        }
        return GnomePasteTarget(daemon: daemon)
    }

    func paste(_ keystroke: PasteKeystroke) throws(ClipboardError) {
        let reply: ControlReply
        do {
            reply = try daemon.perform(.paste(key: keystroke.rawValue), timeout: 5)
        } catch {
            throw ClipboardError("The daemon could not type the paste key: \(error.message)", cause: error)
        }
        if !reply.ok { throw ClipboardError(reply.error ?? "The daemon could not type the paste key.") }
    }
}
