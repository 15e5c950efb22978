internal import CGtk

/// A one-line text field.
@MainActor
public class Entry: Widget {
    /// The GtkEditable interface every text field implements.
    var editable: OpaquePointer { opaque }

    public init(placeholder: String) {
        super.init(gtk_entry_new())
        gtk_entry_set_placeholder_text(cast(), placeholder)
    }

    init(taking pointer: UnsafeMutableRawPointer?) { super.init(pointer) }

    public var text: String {
        get { String(cString: gtk_editable_get_text(editable)) }
        set { gtk_editable_set_text(editable, newValue) }
    }

    /// Enter pressed in the field.
    public func onActivate(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "activate", body) }

    /// The text changed (typing, pasting, or `text` set).
    public func onChange(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "changed", body) }
}
