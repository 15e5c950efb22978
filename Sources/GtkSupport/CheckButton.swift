internal import CGtk

/// A check box with a label: on or off.
@MainActor
public final class CheckButton: Widget {
    private var check: UnsafeMutablePointer<GtkCheckButton> { cast() }

    /// `label` may hold a mnemonic (`_Record`); it is the box's accessible name too.
    public init(label: String) {
        super.init(gtk_check_button_new_with_mnemonic(label))
        setAccessibleLabel(String(label.filter { $0 != "_" }))
    }

    public var isActive: Bool {
        get { gtk_check_button_get_active(check) != 0 }
        set { gtk_check_button_set_active(check, newValue ? 1 : 0) }
    }

    public func onToggle(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "toggled", body) }
}

extension TextView {
    /// Lets the user edit the text, Tab still moving the focus on (keyboard-only use reaches what follows).
    public func makeEditable() {
        let view: UnsafeMutablePointer<GtkTextView> = cast()
        gtk_text_view_set_editable(view, 1)
        gtk_text_view_set_cursor_visible(view, 1)
        gtk_text_view_set_accepts_tab(view, 0)
    }
}
