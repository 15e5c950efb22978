internal import CGtk
internal import CGtkX11

/// The X11 desktop around the app's windows: the pointer, the focused window, placing a window (GTK 4 cannot), and
/// pasting into another window with XTest. Every call answers nil or false when GTK does not run on X11.
@MainActor
public enum X11Desktop {
    /// An X window of another application, to give the focus back to.
    public struct WindowID: Sendable, Equatable {
        let value: UInt
    }

    /// Where the pointer is on the screen.
    public static var pointer: (x: Int, y: Int)? {
        var x: Int32 = 0
        var y: Int32 = 0
        return pb_x11_pointer(&x, &y) ? (Int(x), Int(y)) : nil
    }

    /// The screen's size.
    public static var screenSize: (width: Int, height: Int)? {
        var width: Int32 = 0
        var height: Int32 = 0
        return pb_x11_screen_size(&width, &height) ? (Int(width), Int(height)) : nil
    }

    /// The window with the keyboard focus now (before ours opens), if X11 names one.
    public static var focusedWindow: WindowID? {
        let window = pb_x11_focused_window()
        return window == 0 ? nil : WindowID(value: window)
    }

    /// Places `window`'s top-left corner at x, y (after `present()`; a window manager may still move it).
    @discardableResult
    public static func move(_ window: Window, x: Int, y: Int) -> Bool {
        pb_x11_move_window(window.gtkWindow, Int32(x), Int32(y))
    }

    /// Focuses `target` and types Ctrl+V there through XTest: what `--paste` does after a copy.
    @discardableResult
    public static func paste(into target: WindowID?) -> Bool { pb_x11_paste_into(target?.value ?? 0) }
}
