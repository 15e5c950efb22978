internal import CGtk

/// Two children side by side with a handle between them that moves the split.
@MainActor
public final class Paned: Widget {
    private var paned: OpaquePointer { opaque }
    private var children: [Widget] = []

    public init(_ orientation: Orientation, start: Widget, end: Widget) {
        super.init(gtk_paned_new(orientation.gtk))
        children = [start, end]
        gtk_paned_set_start_child(paned, start.widget)
        gtk_paned_set_end_child(paned, end.widget)
        gtk_paned_set_shrink_start_child(paned, 0)
        gtk_paned_set_shrink_end_child(paned, 0)
    }

    /// Side by side (horizontal) or one above the other.
    public var orientation: Orientation {
        get { gtk_orientable_get_orientation(opaque) == GTK_ORIENTATION_HORIZONTAL ? .horizontal : .vertical }
        set { gtk_orientable_set_orientation(opaque, newValue.gtk) }
    }

    /// Whether the start child grows and shrinks with the paned (the end child always does).
    public var resizesStart: Bool {
        get { gtk_paned_get_resize_start_child(paned) != 0 }
        set { gtk_paned_set_resize_start_child(paned, newValue ? 1 : 0) }
    }

    /// The width or height the paned has now, along its orientation (0 before it is laid out).
    public var length: Int {
        Int(orientation == .horizontal ? gtk_widget_get_width(widget) : gtk_widget_get_height(widget))
    }

    /// Where the split is, in pixels from the start.
    public var position: Int {
        get { Int(gtk_paned_get_position(paned)) }
        set { gtk_paned_set_position(paned, Int32(newValue)) }
    }
}
