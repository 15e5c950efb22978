internal import CGtk

/// A button that stays pressed or released.
@MainActor
public final class ToggleButton: Button {
    private var toggle: UnsafeMutablePointer<GtkToggleButton> { cast() }

    public override init(icon: String, tooltip: String) {
        super.init(taking: gtk_toggle_button_new())
        gtk_button_set_icon_name(cast(), icon)
        self.tooltip = tooltip
        setAccessibleLabel(tooltip)
    }

    public var isActive: Bool {
        get { gtk_toggle_button_get_active(toggle) != 0 }
        set { gtk_toggle_button_set_active(toggle, newValue ? 1 : 0) }
    }

    public func onToggle(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "toggled", body) }
}
