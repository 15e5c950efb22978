internal import CGtk
internal import CGtkObjects

/// A scrollable list (or strip) of rows from a `VirtualList`, with at most one selected row.
///
/// The selection is what the user chose with a click or the keys, never where the pointer passes: GTK 4.8's
/// single-click-activate mode selects the row under the pointer (so Delete, after a click on one row and the
/// pointer over another, deleted the other), and is not used; a click on a row activates it instead
/// (`activatesOnSingleClick`, see the factory's rows). The keyboard focus and the selection move together: a row
/// that takes the focus (the arrows, Tab) is selected, and a row selected otherwise takes the focus while the list
/// has it (else the list's own focus position goes there, so Tab into the list lands on the selected row).
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
        Signal.connect(self.selection, "notify::selected", pointer: { [weak self] _ in self?.focusFollowsSoon() })
    }

    private var isFollowing = false

    /// Brings the focus to the selected row at the loop's next turn (after the rows replaced with it are laid out).
    private func focusFollowsSoon() {
        guard !isFollowing else { return }
        isFollowing = true
        MainLoop.after(0) { [weak self] in
            guard let self else { return }
            self.isFollowing = false
            self.focusFollowsSelection()
        }
    }

    /// Rows are about to be replaced: until the loop has laid them out (a short while), a row taking the focus is
    /// not selected, since GTK moves the focus by itself to whichever row now sits where the focused one was; then
    /// the focus goes to the selected row.
    public func holdFocusSelection() {
        pb_list_hold_focus_select(widget, 1)
        holdGeneration += 1
        let generation = holdGeneration
        MainLoop.after(Self.focusHold) { [weak self] in
            guard let self, self.holdGeneration == generation else { return }
            pb_list_hold_focus_select(self.widget, 0)
            self.focusFollowsSelection()
        }
    }

    private var holdGeneration = 0
    /// How long `holdFocusSelection` holds: a frame or two.
    static let focusHold = 0.1

    /// The row with the keyboard focus, nil when none in this list has it.
    public var focusedPosition: Int? {
        let position = pb_list_focused_position(widget)
        return position == guint(GTK_INVALID_LIST_POSITION) ? nil : Int(position)
    }

    private func focusFollowsSelection() {
        guard let selected = selectedPosition else { return }
        if containsFocus {
            if focusedPosition != selected { _ = focusSlot(at: selected) }
        } else {
            // The list's focus position (where Tab into it lands) follows the row scrolled to.
            let variant = g_variant_new_uint32(guint32(selected))
            gtk_widget_activate_action_variant(widget, "list.scroll-to-item", variant)
        }
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

    /// Whether a click on a row (pressed and released there) activates it, otherwise a double click. Not GTK's
    /// `single-click-activate`, which selects the row under the pointer as it moves.
    public var activatesOnSingleClick: Bool {
        get { pb_list_get_activates_on_click(widget) != 0 }
        set { pb_list_set_activates_on_click(widget, newValue ? 1 : 0) }
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

    /// Scrolls the least needed to show the row at `position` (its anchor: a later layout keeps it in view).
    public func scroll(to position: Int) {
        gtk_widget_activate_action_variant(widget, "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
    }

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

    /// A click on a row with Shift (`extend`) or Ctrl (`toggle`) held: given to `body` (the position) instead of
    /// activating the row, to mark several rows.
    public func onModifiedClick(_ body: @escaping @MainActor (_ position: Int, _ extend: Bool, _ toggle: Bool) -> Void) {
        let box = CallbackBox<(Int, Bool, Bool), Void> { body($0.0, $0.1, $0.2) }
        let handler: PbListModifiedClick = { data, position, extend, toggle in
            let box = CallbackBox<(Int, Bool, Bool), Void>.from(data)
            MainActor.assumeIsolated { box.body((Int(position), extend != 0, toggle != 0)) }
        }
        pb_list_set_modified_click(widget, handler, box.retainedPointer(), releaseUserData)
    }

    /// The selected row changed (by keyboard, mouse, or `selectedPosition`).
    public func onSelectionChange(_ body: @escaping @MainActor () -> Void) {
        Signal.connect(selection, "notify::selected", pointer: { _ in body() })
    }
}
