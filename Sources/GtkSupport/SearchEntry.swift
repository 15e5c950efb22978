internal import CGtk

/// A search field: a find icon, a clear button, and `onSearch` a moment after typing stops.
@MainActor
public final class SearchEntry: Entry {
    public override init(placeholder: String) {
        super.init(taking: gtk_search_entry_new())
        pb_object_set_string(pointer, "placeholder-text", placeholder)
    }

    /// How long `onSearch` waits after the last key, in milliseconds (GTK's default: 150).
    public var searchDelay: Int {
        get { Int(gtk_search_entry_get_search_delay(searchEntry)) }
        set { gtk_search_entry_set_search_delay(searchEntry, guint(max(0, newValue))) }
    }

    /// GtkSearchEntry is an opaque struct in GTK's headers: Swift sees an OpaquePointer.
    private var searchEntry: OpaquePointer { OpaquePointer(pointer) }

    /// The text to search for changed (after `searchDelay`).
    public func onSearch(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "search-changed", body) }

    /// Escape pressed in the field.
    public func onStop(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "stop-search", body) }
}
