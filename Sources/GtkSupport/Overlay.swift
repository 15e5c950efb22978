internal import CGtk

/// A child with other widgets shown above it.
@MainActor
public final class Overlay: Widget {
    private var overlay: OpaquePointer { opaque }
    private var children: [Widget] = []

    public init(_ child: Widget) {
        super.init(gtk_overlay_new())
        children.append(child)
        gtk_overlay_set_child(overlay, child.widget)
    }

    /// Shows `widget` above the child (placed by its alignment).
    public func addOverlay(_ widget: Widget) {
        children.append(widget)
        gtk_overlay_add_overlay(overlay, widget.widget)
    }
}
