internal import CGtk

/// Scrolls a child larger than itself.
@MainActor
public final class ScrolledWindow: Widget {
    private var scrolled: OpaquePointer { opaque }
    private var child: Widget?

    public init(_ child: Widget? = nil) {
        super.init(gtk_scrolled_window_new())
        if let child { setChild(child) }
    }

    public func setChild(_ child: Widget) {
        self.child = child
        gtk_scrolled_window_set_child(scrolled, child.widget)
    }

    /// Which directions scroll (the others fit the child).
    public func setScrolling(horizontal: Bool, vertical: Bool) {
        gtk_scrolled_window_set_policy(
            scrolled, horizontal ? GTK_POLICY_AUTOMATIC : GTK_POLICY_NEVER,
            vertical ? GTK_POLICY_AUTOMATIC : GTK_POLICY_NEVER)
    }

    /// Whether the view shows the start of its content (within a pixel), across and down.
    public var isAtStart: Bool {
        [gtk_scrolled_window_get_vadjustment(scrolled), gtk_scrolled_window_get_hadjustment(scrolled)].allSatisfy {
            guard let adjustment = $0 else { return true }
            return gtk_adjustment_get_value(adjustment) - gtk_adjustment_get_lower(adjustment) < 1
        }
    }

    /// Moves back to the top-left corner.
    public func scrollToStart() {
        if let adjustment = gtk_scrolled_window_get_vadjustment(scrolled) {
            gtk_adjustment_set_value(adjustment, gtk_adjustment_get_lower(adjustment))
        }
        if let adjustment = gtk_scrolled_window_get_hadjustment(scrolled) {
            gtk_adjustment_set_value(adjustment, gtk_adjustment_get_lower(adjustment))
        }
    }

    /// Calls `body` whenever the view comes within half a screenful of the end of its content (or all of it shows), in
    /// either direction: after scrolling, and after the content changed size. A list that loads its rows as it is
    /// scrolled asks for more here.
    public func onNearEnd(_ body: @escaping @MainActor () -> Void) {
        for adjustment in [gtk_scrolled_window_get_vadjustment(scrolled), gtk_scrolled_window_get_hadjustment(scrolled)] {
            guard let adjustment else { continue }
            let check: @MainActor () -> Void = {
                let end = gtk_adjustment_get_upper(adjustment)
                let page = gtk_adjustment_get_page_size(adjustment)
                // An adjustment never laid out yet (page 0) says nothing about the view.
                guard page > 0 else { return }
                if end - (gtk_adjustment_get_value(adjustment) + page) <= page / 2 { body() }
            }
            let pointer = UnsafeMutableRawPointer(adjustment)
            Signal.connect(pointer, "value-changed", check)
            Signal.connect(pointer, "changed", check)
        }
    }
}
