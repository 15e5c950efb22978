internal import CGtk

/// A push button with a label or an icon.
@MainActor
public class Button: Widget {
    private var button: UnsafeMutablePointer<GtkButton> { cast() }

    public init(label: String) {
        super.init(gtk_button_new_with_mnemonic(label))
        // GTK 4.8 names it after its label with the mnemonic's underscore and the label's text both ("_Copy
        // Copy"): without the first, the name is the text.
        pb_accessible_reset_label(OpaquePointer(pointer))
    }

    /// A button showing a themed icon ("edit-copy-symbolic"), with `tooltip` as its description.
    public init(icon: String, tooltip: String) {
        super.init(gtk_button_new_from_icon_name(icon))
        self.tooltip = tooltip
        setAccessibleLabel(tooltip)
    }

    init(taking pointer: UnsafeMutableRawPointer?) { super.init(pointer) }

    public var label: String {
        get { gtk_button_get_label(button).map { String(cString: $0) } ?? "" }
        set { gtk_button_set_label(button, newValue) }
    }

    public func setIcon(_ name: String) { gtk_button_set_icon_name(button, name) }

    /// Without a frame until hovered.
    public func makeFlat() { gtk_button_set_has_frame(button, 0) }

    public func onClick(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "clicked", body) }
}
