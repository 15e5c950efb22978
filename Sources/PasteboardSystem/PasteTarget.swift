import X11Paste

/// The window that gets the paste keystroke of `pb pick --paste` and `pasteboard-gtk --popup --paste`: remembered
/// when the picker or popup starts, typed into after the chosen item is on the clipboard. One implementation per display server; X11's sends the keystroke
/// through XTest. Wayland's (the virtual-keyboard protocol, where the compositor offers it) plugs in here, in
/// `PasteTargets.focused(environment:)`.
public protocol PasteTarget: Sendable {
    /// Gives the remembered window the focus and types `keystroke` into it.
    func paste(_ keystroke: PasteKeystroke) throws(ClipboardError)
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
    /// The window that has the keyboard focus now, on the display `environment` names.
    public static func focused(environment: [String: String]) throws(ClipboardError) -> any PasteTarget {
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
            throw ClipboardError(
                "--paste cannot type into Wayland windows yet; choose without --paste and paste with Ctrl+V.")
        }
        guard let display = environment["DISPLAY"], !display.isEmpty else {
            throw ClipboardError("--paste needs a display to paste into (DISPLAY is not set).")
        }
        do {
            return X11PasteTarget(window: try X11FocusedWindow.current(display: display))
        } catch {
            throw ClipboardError(error.message, cause: error)
        }
    }
}

/// The X11 paste target: the focused window, and XTest key events.
struct X11PasteTarget: PasteTarget {
    let window: X11FocusedWindow

    func paste(_ keystroke: PasteKeystroke) throws(ClipboardError) {
        do {
            try window.paste(keys: keystroke.keysymNames)
        } catch {
            throw ClipboardError(error.message, cause: error)
        }
    }
}
