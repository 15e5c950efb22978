internal import CGtk

/// Text on the screen.
@MainActor
public final class Label: Widget {
    private var label: OpaquePointer { opaque }

    public init(_ text: String = "") {
        super.init(gtk_label_new(text))
    }

    public var text: String {
        get { String(cString: gtk_label_get_text(label)) }
        set { gtk_label_set_text(label, newValue) }
    }

    /// Pango markup (`<b>…</b>`); escape user text with `Label.escapeMarkup(_:)`.
    public func setMarkup(_ markup: String) { gtk_label_set_markup(label, markup) }

    /// `text` with `&`, `<`, `>`, `'` and `"` escaped for markup.
    public static func escapeMarkup(_ text: String) -> String {
        guard let escaped = g_markup_escape_text(text, -1) else { return "" }
        defer { g_free(escaped) }
        return String(cString: escaped)
    }

    /// Cut with "…" at the end when too long, instead of growing.
    public func ellipsizeEnd() { gtk_label_set_ellipsize(label, PANGO_ELLIPSIZE_END) }

    /// Breaks into several lines to fit (by word, else by character).
    public func wrap(lines: Int = -1) {
        gtk_label_set_wrap(label, 1)
        gtk_label_set_wrap_mode(label, PANGO_WRAP_WORD_CHAR)
        gtk_label_set_lines(label, Int32(lines))
    }

    /// Horizontal position of the text: 0 left, 0.5 centre, 1 right.
    public var textAlignment: Float {
        get { gtk_label_get_xalign(label) }
        set { gtk_label_set_xalign(label, newValue) }
    }

    /// The width it asks for, in characters.
    public func setWidthChars(_ width: Int, max: Int) {
        gtk_label_set_width_chars(label, Int32(width))
        gtk_label_set_max_width_chars(label, Int32(max))
    }

    public var isSelectable: Bool {
        get { gtk_label_get_selectable(label) != 0 }
        set { gtk_label_set_selectable(label, newValue ? 1 : 0) }
    }
}
