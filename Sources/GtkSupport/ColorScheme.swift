internal import CGtk

/// Follows the desktop's light or dark preference: GNOME's `org.gnome.desktop.interface color-scheme`
/// ("prefer-dark"), which GTK 4.8 alone does not read (libadwaita does), when that schema is installed. Without it,
/// GTK's own settings (`gtk-application-prefer-dark-theme`, `GTK_THEME=Adwaita:dark`) decide.
@MainActor
public final class ColorScheme {
    private static let schema = "org.gnome.desktop.interface"
    private static let key = "color-scheme"
    /// The GSettings object; `nonisolated(unsafe)` for `deinit`, as `Object.pointer`.
    nonisolated(unsafe) private var settings: UnsafeMutableRawPointer?

    public init() {}

    /// Applies the preference now and whenever it changes; `changed` is told whether the theme is now dark.
    public func follow(_ changed: @escaping @MainActor (Bool) -> Void) {
        guard let source = g_settings_schema_source_get_default(),
            let schema = g_settings_schema_source_lookup(source, Self.schema, 1)
        else { return }
        let hasKey = g_settings_schema_has_key(schema, Self.key) != 0
        g_settings_schema_unref(schema)
        guard hasKey, let settings = g_settings_new(Self.schema) else { return }
        self.settings = UnsafeMutableRawPointer(settings)
        let apply: @MainActor () -> Void = {
            guard let value = g_settings_get_string(settings, Self.key) else { return }
            defer { g_free(value) }
            let dark = String(cString: value) == "prefer-dark"
            Gtk.preferDarkTheme(dark)
            changed(Gtk.isDarkTheme)
        }
        Signal.connect(UnsafeMutableRawPointer(settings), "changed::\(Self.key)", pointer: { _ in apply() })
        apply()
    }

    deinit {
        if let settings { g_object_unref(settings) }
    }
}
