internal import CGtk

/// A scrollable list (or strip) of rows from a `VirtualList`, with at most one selected row.
@MainActor
public final class ListView: Widget {
    private var list: OpaquePointer { opaque }
    /// The GtkSingleSelection; `nonisolated(unsafe)` for `deinit`, as `Object.pointer`.
    nonisolated(unsafe) private let selection: UnsafeMutableRawPointer
    private var factory: ListFactory
    public let model: VirtualList

    public init(model: VirtualList, factory: ListFactory) {
        self.model = model
        self.factory = factory
        // gtk_single_selection_new and gtk_list_view_new take over the references they are given.
        let selection = gtk_single_selection_new(OpaquePointer(model.retainedForTransfer()))!
        gtk_single_selection_set_autoselect(selection, 0)
        gtk_single_selection_set_can_unselect(selection, 1)
        // A new selection model selects its first row (autoselect is on until just above): start with none.
        gtk_single_selection_set_selected(selection, guint(GTK_INVALID_LIST_POSITION))
        self.selection = UnsafeMutableRawPointer(selection)
        g_object_ref(self.selection)
        super.init(gtk_list_view_new(selection, OpaquePointer(factory.retainedForTransfer())))
    }

    deinit { g_object_unref(selection) }

    /// Rows side by side (a strip) or one above the other.
    public var orientation: Orientation {
        get { gtk_orientable_get_orientation(opaque) == GTK_ORIENTATION_HORIZONTAL ? .horizontal : .vertical }
        set { gtk_orientable_set_orientation(opaque, newValue.gtk) }
    }

    /// Replaces the row factory (all rows are made again).
    public func setFactory(_ factory: ListFactory) {
        self.factory = factory
        gtk_list_view_set_factory(list, OpaquePointer(factory.pointer))
    }

    /// Whether a single click activates a row (otherwise a double click).
    public var activatesOnSingleClick: Bool {
        get { gtk_list_view_get_single_click_activate(list) != 0 }
        set { gtk_list_view_set_single_click_activate(list, newValue ? 1 : 0) }
    }

    /// The selected row's position, nil for none.
    public var selectedPosition: Int? {
        get {
            let position = gtk_single_selection_get_selected(OpaquePointer(selection))
            return position == guint(GTK_INVALID_LIST_POSITION) ? nil : Int(position)
        }
        set {
            gtk_single_selection_set_selected(
                OpaquePointer(selection), newValue.map { guint($0) } ?? guint(GTK_INVALID_LIST_POSITION))
        }
    }

    /// Finds the widget a factory put in the slot showing `position`, if that row is laid out: set by the owner
    /// of the rows, for `focusRow(at:focus:)`.
    public var rowContent: (@MainActor (Int) -> Widget?)?

    /// Scrolls to the row at `position` and selects it; with `focus`, moves the keyboard focus to it too.
    ///
    /// GTK 4.8 has no call to focus a row (`gtk_list_view_scroll_to` is 4.12), and a plain `grab_focus` focuses
    /// the list, not a row, so the arrow keys then do nothing. The row's slot widget (the parent of what the
    /// factory put in it, found with `rowContent`) takes the focus instead, and the list follows it (GtkListView
    /// tracks the focused slot). A row scrolled into view is laid out at the loop's next turn: the focus waits.
    public func focusRow(at position: Int, focus: Bool = false) {
        let variant = g_variant_new_uint32(guint32(position))
        gtk_widget_activate_action_variant(widget, "list.scroll-to-item", variant)
        selectedPosition = position
        guard focus else { return }
        if focusSlot(at: position) { return }
        MainLoop.after(0) { [weak self] in
            guard let self, !self.focusSlot(at: position) else { return }
            // Not laid out even now: focus whichever row the list tracks.
            _ = gtk_widget_child_focus(self.widget, GTK_DIR_TAB_FORWARD)
        }
    }

    private func focusSlot(at position: Int) -> Bool {
        guard let content = rowContent?(position), let slot = gtk_widget_get_parent(content.widget),
            gtk_widget_get_parent(slot) == widget
        else { return false }
        return gtk_widget_grab_focus(slot) != 0
    }

    /// Enter or a click on a row (the position).
    public func onActivate(_ body: @escaping @MainActor (Int) -> Void) {
        Signal.connect(pointer, "activate", position: { body(Int($0)) })
    }

    /// The selected row changed (by keyboard, mouse, or `selectedPosition`).
    public func onSelectionChange(_ body: @escaping @MainActor () -> Void) {
        Signal.connect(selection, "notify::selected", pointer: { _ in body() })
    }
}
