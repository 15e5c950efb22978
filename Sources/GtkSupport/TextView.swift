internal import CGtk

/// Text of any length, wrapped, selectable; read-only unless `isEditable`.
@MainActor
public final class TextView: Widget {
    private var view: UnsafeMutablePointer<GtkTextView> { cast() }

    public init() {
        super.init(gtk_text_view_new())
        gtk_text_view_set_editable(view, 0)
        gtk_text_view_set_cursor_visible(view, 0)
        gtk_text_view_set_wrap_mode(view, GTK_WRAP_WORD_CHAR)
        gtk_text_view_set_left_margin(view, 8)
        gtk_text_view_set_right_margin(view, 8)
        gtk_text_view_set_top_margin(view, 8)
        gtk_text_view_set_bottom_margin(view, 8)
    }

    /// Whether the user can change the text (with a cursor), or only read and select it.
    public var isEditable: Bool {
        get { gtk_text_view_get_editable(view) != 0 }
        set {
            gtk_text_view_set_editable(view, newValue ? 1 : 0)
            gtk_text_view_set_cursor_visible(view, newValue ? 1 : 0)
        }
    }

    public var text: String {
        get {
            guard let buffer = gtk_text_view_get_buffer(view) else { return "" }
            var start = GtkTextIter()
            var end = GtkTextIter()
            gtk_text_buffer_get_bounds(buffer, &start, &end)
            guard let text = gtk_text_buffer_get_text(buffer, &start, &end, 0) else { return "" }
            defer { g_free(text) }
            return String(cString: text)
        }
        set {
            // NUL-terminated: a text holding NUL shows up to it (GtkTextBuffer cannot hold NUL anyway).
            gtk_text_buffer_set_text(gtk_text_view_get_buffer(view), newValue, -1)
        }
    }
}
