internal import CGtk

/// Lays out its children in a row or a column.
@MainActor
public final class Box: Widget {
    private var box: UnsafeMutablePointer<GtkBox> { cast() }
    /// The children, kept alive with the box.
    private var children: [Widget] = []

    public init(_ orientation: Orientation, spacing: Int = 0) {
        super.init(gtk_box_new(orientation.gtk, Int32(spacing)))
    }

    public convenience init(_ orientation: Orientation, spacing: Int = 0, _ children: [Widget]) {
        self.init(orientation, spacing: spacing)
        for child in children { append(child) }
    }

    public func append(_ child: Widget) {
        children.append(child)
        gtk_box_append(box, child.widget)
    }

    public func remove(_ child: Widget) {
        children.removeAll { $0 === child }
        gtk_box_remove(box, child.widget)
    }
}
