internal import CGtk

/// A search field: a find icon and a clear button. Search on the entry's `onChange`, as the key is handled: GTK's
/// own `search-changed` comes from a timeout even with no delay, one frame after the typed character is drawn.
@MainActor
public final class SearchEntry: Entry {
    public override init(placeholder: String) {
        super.init(taking: gtk_search_entry_new())
        pb_object_set_string(pointer, "placeholder-text", placeholder)
    }

    /// Escape pressed in the field.
    public func onStop(_ body: @escaping @MainActor () -> Void) { Signal.connect(pointer, "stop-search", body) }
}
