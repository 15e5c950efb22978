internal import CGtk

/// A toplevel window.
@MainActor
public final class Window: Widget {
    private var window: UnsafeMutablePointer<GtkWindow> { cast() }
    var gtkWindow: UnsafeMutablePointer<GtkWindow> { window }

    public init(title: String, width: Int, height: Int) {
        super.init(gtk_window_new())
        gtk_window_set_title(window, title)
        gtk_window_set_default_size(window, Int32(width), Int32(height))
    }

    public var title: String {
        get { gtk_window_get_title(window).map { String(cString: $0) } ?? "" }
        set { gtk_window_set_title(window, newValue) }
    }

    /// The window's content.
    public func setChild(_ child: Widget?) { gtk_window_set_child(window, child?.widget) }

    /// Keeps it above `parent` and, with `modal`, blocks input to `parent` meanwhile.
    public func setTransient(for parent: Window, modal: Bool) {
        gtk_window_set_transient_for(window, parent.window)
        gtk_window_set_modal(window, modal ? 1 : 0)
        gtk_window_set_destroy_with_parent(window, 1)
    }

    /// Whether the window manager draws a title bar and border (false for a popup).
    public var isDecorated: Bool {
        get { gtk_window_get_decorated(window) != 0 }
        set { gtk_window_set_decorated(window, newValue ? 1 : 0) }
    }

    public var isResizable: Bool {
        get { gtk_window_get_resizable(window) != 0 }
        set { gtk_window_set_resizable(window, newValue ? 1 : 0) }
    }

    /// The widget that gets the keyboard focus when the window is active.
    public func setFocus(_ widget: Widget) { gtk_window_set_focus(window, widget.widget) }

    /// The button that Enter activates when nothing else takes it.
    public func setDefaultWidget(_ widget: Widget) { gtk_window_set_default_widget(window, widget.widget) }

    /// Shows and raises it.
    public func present() { gtk_window_present(window) }

    /// Asks it to close, as its close button does (`onCloseRequest` may refuse).
    public func close() { gtk_window_close(window) }

    /// Removes it for good.
    public func destroy() { gtk_window_destroy(window) }

    /// Called when the user (or `close()`) asks to close it; return true to keep it open.
    public func onCloseRequest(_ body: @escaping @MainActor () -> Bool) {
        Signal.connect(pointer, "close-request", returning: body)
    }

    /// Called once, when the window's first frame has been painted (the frame clock's `after-paint`).
    public func onFirstFrame(_ body: @escaping @MainActor () -> Void) {
        Signal.connect(pointer, "realize", after: true) { [weak self] in
            guard let self, let clock = gtk_widget_get_frame_clock(self.widget) else { return }
            let clockPointer = UnsafeMutableRawPointer(clock)
            var connection: Signal.Connection?
            var fired = false
            connection = Signal.connect(clockPointer, "after-paint") {
                guard !fired else { return }
                fired = true
                body()
                connection?.disconnect()
            }
        }
    }

    /// Whether it is the active window (the one with the keyboard focus).
    public var isActive: Bool { gtk_window_is_active(window) != 0 }

    /// Called whenever it becomes or stops being the active window (`notify::is-active`).
    public func onActiveChange(_ body: @escaping @MainActor (Bool) -> Void) {
        Signal.connect(pointer, "notify::is-active", pointer: { [weak self] _ in
            guard let self else { return }
            body(self.isActive)
        })
    }

    /// Makes its surface now, without showing it, so that a later `present()` only maps it (a window kept
    /// ready, hidden, for a fast show).
    public func realize() { gtk_widget_realize(widget) }

    /// Whether it has a surface (made by `realize()` or the first `present()`).
    public var isRealized: Bool { gtk_widget_get_realized(widget) != 0 }

    /// Called once, when the next frame has been painted: after `present()` of a window realized before (a
    /// window shown again); `onFirstFrame` for a window not yet realized.
    public func onNextFrame(_ body: @escaping @MainActor () -> Void) {
        guard isRealized, let clock = gtk_widget_get_frame_clock(widget) else {
            onFirstFrame(body)
            return
        }
        var connection: Signal.Connection?
        var fired = false
        connection = Signal.connect(UnsafeMutableRawPointer(clock), "after-paint") {
            guard !fired else { return }
            fired = true
            body()
            connection?.disconnect()
        }
    }
}
