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

    /// Moves back to the top-left corner.
    public func scrollToStart() {
        if let adjustment = gtk_scrolled_window_get_vadjustment(scrolled) {
            gtk_adjustment_set_value(adjustment, gtk_adjustment_get_lower(adjustment))
        }
        if let adjustment = gtk_scrolled_window_get_hadjustment(scrolled) {
            gtk_adjustment_set_value(adjustment, gtk_adjustment_get_lower(adjustment))
        }
    }
}
