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

/// A search field: a find icon, a clear button, and `onSearch` a moment after typing stops.
@MainActor
public final class SearchEntry: Entry {
    public override init(placeholder: String) {
        super.init(taking: gtk_search_entry_new())
        pb_object_set_string(pointer, "placeholder-text", placeholder)
    }

    /// The text to search for changed (GTK waits about 150 ms after the last key).
    public func onSearch(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "search-changed", body) }

    /// Escape pressed in the field.
    public func onStop(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "stop-search", body) }
}
