internal import CGtk
internal import CGtkX11

/// The X11 desktop around the app's windows: the pointer and placing a window (GTK 4 cannot). Every call answers
/// nil or false when GTK does not run on X11.
@MainActor
public enum X11Desktop {
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

    /// Places `window`'s top-left corner at x, y (after `present()`; a window manager may still move it).
    @discardableResult
    public static func move(_ window: Window, x: Int, y: Int) -> Bool {
        pb_x11_move_window(window.gtkWindow, Int32(x), Int32(y))
    }
}
