internal import CGtk

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
