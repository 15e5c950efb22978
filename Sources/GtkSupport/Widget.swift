internal import CGtk
internal import CGtkObjects

/// A GtkWidget: visibility, sensitivity, focus, style classes, size and alignment.
@MainActor
public class Widget: Object {
    var widget: UnsafeMutablePointer<GtkWidget> { cast() }

    /// Where a widget sits in the space it is given.
    public enum Alignment: Sendable {
        case fill, start, end, center

        var gtk: GtkAlign {
            switch self {
            case .fill: GTK_ALIGN_FILL
            case .start: GTK_ALIGN_START
            case .end: GTK_ALIGN_END
            case .center: GTK_ALIGN_CENTER
            }
        }
    }

    public var isVisible: Bool {
        get { gtk_widget_get_visible(widget) != 0 }
        set { gtk_widget_set_visible(widget, newValue ? 1 : 0) }
    }

    /// Whether it reacts to input (false greys it out).
    public var isSensitive: Bool {
        get { gtk_widget_get_sensitive(widget) != 0 }
        set { gtk_widget_set_sensitive(widget, newValue ? 1 : 0) }
    }

    /// Whether the keyboard focus is on it or on a widget inside it.
    public var containsFocus: Bool {
        guard let root = gtk_widget_get_root(widget), let focus = gtk_root_get_focus(root) else { return false }
        return focus == widget || gtk_widget_is_ancestor(focus, widget) != 0
    }

    /// Whether it receives pointer events (false lets clicks through to what is below, such as a list row).
    public var isTargetable: Bool {
        get { gtk_widget_get_can_target(widget) != 0 }
        set { gtk_widget_set_can_target(widget, newValue ? 1 : 0) }
    }

    /// Moves the keyboard focus here; false when it cannot take it.
    @discardableResult
    public func grabFocus() -> Bool { gtk_widget_grab_focus(widget) != 0 }

    public var tooltip: String? {
        get { gtk_widget_get_tooltip_text(widget).map { String(cString: $0) } }
        set { gtk_widget_set_tooltip_text(widget, newValue) }
    }

    public func addStyleClass(_ name: String) { gtk_widget_add_css_class(widget, name) }
    public func removeStyleClass(_ name: String) { gtk_widget_remove_css_class(widget, name) }

    /// Adds or removes a style class.
    public func setStyleClass(_ name: String, _ isOn: Bool) {
        if isOn { addStyleClass(name) } else { removeStyleClass(name) }
    }

    /// The smallest size it asks for (-1: its natural size).
    public func setSizeRequest(width: Int = -1, height: Int = -1) {
        gtk_widget_set_size_request(widget, Int32(width), Int32(height))
    }

    /// Measures and lays the widget out at `width` × `height` now, shown or not: its styles, text layouts (and
    /// fonts) and, for lists, row widgets are made ahead of the first show. (GTK lays out a hidden widget like a
    /// shown one; it only draws mapped ones.)
    public func layOut(width: Int, height: Int) {
        var minimum: Int32 = 0
        var natural: Int32 = 0
        gtk_widget_measure(widget, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, nil, nil)
        gtk_widget_measure(widget, GTK_ORIENTATION_VERTICAL, Int32(width), &minimum, &natural, nil, nil)
        var allocation = GtkAllocation(x: 0, y: 0, width: Int32(width), height: Int32(height))
        gtk_widget_size_allocate(widget, &allocation, -1)
    }

    public var expandsHorizontally: Bool {
        get { gtk_widget_get_hexpand(widget) != 0 }
        set { gtk_widget_set_hexpand(widget, newValue ? 1 : 0) }
    }

    public var expandsVertically: Bool {
        get { gtk_widget_get_vexpand(widget) != 0 }
        set { gtk_widget_set_vexpand(widget, newValue ? 1 : 0) }
    }

    public var horizontalAlignment: Alignment {
        get { .fill }
        set { gtk_widget_set_halign(widget, newValue.gtk) }
    }

    public var verticalAlignment: Alignment {
        get { .fill }
        set { gtk_widget_set_valign(widget, newValue.gtk) }
    }

    /// The same margin on all four sides.
    public func setMargins(_ margin: Int) {
        gtk_widget_set_margin_top(widget, Int32(margin))
        gtk_widget_set_margin_bottom(widget, Int32(margin))
        gtk_widget_set_margin_start(widget, Int32(margin))
        gtk_widget_set_margin_end(widget, Int32(margin))
    }

    /// An accessible name for screen readers (GTK_ACCESSIBLE_PROPERTY_LABEL).
    public func setAccessibleLabel(_ label: String) {
        pb_accessible_set_label(OpaquePointer(pointer), label)
    }

    /// The accessible name of a list row: this widget (a `ListFactory` row) and the list's slot holding it, which
    /// is what a screen reader reads as the list item.
    public func setAccessibleRowLabel(_ label: String) {
        pb_row_set_accessible_label(widget, label)
    }

    /// Parts GTK builds inside a widget, named after their class unless named.
    public enum InnerPart {
        /// The button that opens a drop-down.
        case toggleButton
        /// The scroll bars of a scrolled window.
        case scrollbar
        /// The slot showing the chosen entry inside a drop-down's button.
        case listItem
    }

    /// Names every `part` inside this widget.
    public func setAccessibleLabel(_ label: String, ofInner part: InnerPart) {
        let type = switch part {
        case .toggleButton: gtk_toggle_button_get_type()
        case .scrollbar: gtk_scrollbar_get_type()
        case .listItem: g_type_from_name("GtkListItemWidget")
        }
        guard type != 0 else { return }  // a GTK without that class
        pb_accessible_label_descendants(widget, type, label)
    }

    /// Runs `action` when the key combination `trigger` ("<Control>f", "Delete") is pressed while the focus is
    /// inside this widget (`.local`) or anywhere in its window (`.global`, for a window). `action` returns false to
    /// let the key go on to other handlers.
    public func addShortcut(
        _ trigger: String, scope: ShortcutScope = .local, capturing: Bool = false,
        _ action: @escaping @MainActor () -> Bool
    ) {
        Shortcuts.add(trigger, to: widget, scope: scope, capturing: capturing, action)
    }
}
