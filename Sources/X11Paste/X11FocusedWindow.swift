internal import CXTest
public import TextSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The X11 window that has the keyboard focus, remembered so that a paste keystroke can be sent to it later
/// through XTest (`pb pick --paste`: the window focused before the picker ran gets the chosen item).
///
/// ```swift
/// let target = try X11FocusedWindow.current(display: ":0")
/// // … put the chosen item on the clipboard …
/// try target.paste(keys: ["Control_L", "v"])
/// ```
public struct X11FocusedWindow: Sendable, Equatable {
    public let displayName: String
    /// The window's XID; 0 when the focus follows the pointer (the keystroke goes wherever it points).
    public let window: UInt

    public init(displayName: String, window: UInt) {
        self.displayName = displayName
        self.window = window
    }

    /// The window focused now on `display`; throws when the X server has no XTest to type the paste with.
    public static func current(display name: String) throws(X11PasteError) -> X11FocusedWindow {
        let display = try open(name)
        defer { XCloseDisplay(display) }
        try requireXTest(display, name: name)
        var focus: Window = 0
        var revert: Int32 = 0
        XGetInputFocus(display, &focus, &revert)
        // None (0) and PointerRoot (1): no window holds the focus itself.
        return X11FocusedWindow(displayName: name, window: focus <= 1 ? 0 : focus)
    }

    /// Gives the window the focus back (it may have lost it to the picker's terminal) and sends `keys` as one
    /// chord: each pressed in order, then released in reverse. Key names are X keysym names (`Control_L`,
    /// `Shift_L`, `Insert`, `v`).
    public func paste(keys: [String]) throws(X11PasteError) {
        let display = try Self.open(displayName)
        defer { XCloseDisplay(display) }
        try Self.requireXTest(display, name: displayName)
        var codes: [KeyCode] = []
        for name in keys {
            let symbol = XStringToKeysym(name)
            let code = symbol == 0 ? 0 : XKeysymToKeycode(display, symbol)
            guard code != 0 else { throw X11PasteError("The key \(name) is not on the keyboard of \(displayName).") }
            codes.append(code)
        }
        pb_xtest_install_error_handler()
        defer { pb_xtest_restore_error_handler() }
        _ = pb_xtest_take_last_error()
        if window != 0 {
            try focus(display)
        }
        waitForModifiersReleased(display)
        for code in codes { XTestFakeKeyEvent(display, UInt32(code), 1, 0) }
        for code in codes.reversed() { XTestFakeKeyEvent(display, UInt32(code), 0, 0) }
        XSync(display, 0)
        let code = pb_xtest_take_last_error()
        guard code == 0 else { throw X11PasteError("The X server refused the paste keystroke (X error \(code)).") }
    }

    /// Focuses `window` and waits (at most half a second) until the server says it has the focus. A window
    /// manager is asked too (`_NET_ACTIVE_WINDOW`), since it may otherwise give the focus back to the terminal.
    private func focus(_ display: OpaquePointer) throws(X11PasteError) {
        var attributes = XWindowAttributes()
        guard XGetWindowAttributes(display, Window(window), &attributes) != 0, pb_xtest_take_last_error() == 0 else {
            throw X11PasteError("The window that had the focus (0x\(String(window, radix: 16))) is gone.")
        }
        let root = XDefaultRootWindow(display)
        var message = XEvent()
        message.xclient.type = ClientMessage
        message.xclient.window = Window(topLevel(display, of: Window(window), root: root))
        message.xclient.message_type = XInternAtom(display, "_NET_ACTIVE_WINDOW", 0)
        message.xclient.format = 32
        message.xclient.data.l.0 = 2  // source: a pager or tool acting for the user
        message.xclient.data.l.1 = Int(CurrentTime)
        XSendEvent(display, root, 0, SubstructureRedirectMask | SubstructureNotifyMask, &message)
        XSetInputFocus(display, Window(window), RevertToParent, Time(CurrentTime))
        XSync(display, 0)
        _ = pb_xtest_take_last_error()  // the window may not be viewable yet; the wait below tells
        for _ in 0..<50 {
            var focus: Window = 0
            var revert: Int32 = 0
            XGetInputFocus(display, &focus, &revert)
            if focus == window { return }
            usleep(10_000)
        }
        throw X11PasteError(
            "The window 0x\(String(window, radix: 16)) did not take the focus back, so nothing was pasted.")
    }

    /// Waits (at most a second) until no modifier is held: Alt still down from the picker's Alt-Enter would turn
    /// Ctrl+V into Ctrl+Alt+V.
    private func waitForModifiersReleased(_ display: OpaquePointer) {
        let modifiers = UInt32(ShiftMask | ControlMask | Mod1Mask | Mod4Mask)
        let root = XDefaultRootWindow(display)
        for _ in 0..<100 {
            var rootReturn: Window = 0
            var child: Window = 0
            var rootX: Int32 = 0
            var rootY: Int32 = 0
            var x: Int32 = 0
            var y: Int32 = 0
            var mask: UInt32 = 0
            guard XQueryPointer(display, root, &rootReturn, &child, &rootX, &rootY, &x, &y, &mask) != 0 else { return }
            if mask & modifiers == 0 { return }
            usleep(10_000)
        }
    }

    /// The child of the root window that holds `window`: what a window manager manages.
    private func topLevel(_ display: OpaquePointer, of window: Window, root: Window) -> Window {
        var current = window
        for _ in 0..<64 {
            var rootReturn: Window = 0
            var parent: Window = 0
            var children: UnsafeMutablePointer<Window>?
            var count: UInt32 = 0
            guard XQueryTree(display, current, &rootReturn, &parent, &children, &count) != 0 else { return current }
            if let children { XFree(children) }
            if parent == root || parent == 0 { return current }
            current = parent
        }
        return current
    }

    private static func requireXTest(_ display: OpaquePointer, name: String) throws(X11PasteError) {
        var event: Int32 = 0
        var error: Int32 = 0
        var major: Int32 = 0
        var minor: Int32 = 0
        guard XTestQueryExtension(display, &event, &error, &major, &minor) != 0 else {
            throw X11PasteError("The X server on \(name) has no XTest extension, so pb cannot type the paste.")
        }
    }

    private static func open(_ name: String) throws(X11PasteError) -> OpaquePointer {
        guard let display = XOpenDisplay(name) else {
            throw X11PasteError("Cannot open the X display \(name) to paste.")
        }
        return display
    }
}

/// Why the paste keystroke could not be sent.
public struct X11PasteError: ActionableError {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}
