internal import CGtk

/// One row slot of a list view, handed to a `ListFactory`'s setup and bind: its widget, its row's payload, and a
/// view object of the caller's kept with it.
@MainActor
public final class ListItem: Object {
    private var item: OpaquePointer { opaque }
    private static let viewKey = "pasteboard-view"

    /// Shows `widget` in the slot.
    public func setChild(_ widget: Widget) { gtk_list_item_set_child(item, widget.widget) }

    /// The position of the row it shows.
    public var position: Int { Int(gtk_list_item_get_position(item)) }

    /// The object `VirtualList`'s `row` closure returned for the row it shows.
    public var payload: AnyObject? { VirtualList.payload(ofRow: gtk_list_item_get_item(item)) }

    /// Keeps `view` with the slot (released with it); read back with `view`.
    public func attach(_ view: AnyObject) {
        g_object_set_data_full(
            pointer.assumingMemoryBound(to: GObject.self), Self.viewKey,
            Unmanaged.passRetained(view).toOpaque(), releaseUserData)
    }

    /// The object given to `attach(_:)`.
    public var view: AnyObject? {
        guard let data = g_object_get_data(pointer.assumingMemoryBound(to: GObject.self), Self.viewKey) else {
            return nil
        }
        return Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue()
    }
}
