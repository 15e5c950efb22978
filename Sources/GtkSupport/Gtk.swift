internal import CGtk
import Foundation

/// GTK itself: start-up and process-wide settings.
@MainActor
public enum Gtk {
    /// Why GTK could not start.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The program's name (`g_set_prgname`: the Wayland app id and X11 WM_CLASS, matched to the desktop file, and
    /// the accessibility tree's name of the application). Call before `initialize`.
    public static func setProgramName(_ name: String) {
        g_set_prgname(name)
    }

    /// The application's name for people: call after `initialize` (GDK names its X11 client leader window after
    /// the name set before, and a window search by title would then find that unmapped window too).
    public static func setApplicationName(_ name: String) {
        g_set_application_name(name)
    }

    /// Opens the display. Call once, on the main thread, before making any widget.
    public static func initialize() throws(StartError) {
        guard gtk_init_check() != 0 else {
            let environment = ProcessInfo.processInfo.environment
            let display =
                environment["WAYLAND_DISPLAY"].map { "WAYLAND_DISPLAY=\($0)" }
                ?? environment["DISPLAY"].map { "DISPLAY=\($0)" } ?? "neither DISPLAY nor WAYLAND_DISPLAY is set"
            throw StartError(
                description: "Cannot open the display (\(display)): run the app inside a graphical session.")
        }
    }

    /// Adds `css` to every widget on the default display, above the theme.
    public static func addStyleSheet(_ css: String) {
        let provider = gtk_css_provider_new()
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(
            gdk_display_get_default(), OpaquePointer(provider), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        g_object_unref(provider)
    }

    /// Asks the theme for its dark (or light) variant.
    public static func preferDarkTheme(_ dark: Bool) { pb_settings_prefer_dark(dark ? 1 : 0) }

    /// Whether the current theme is a dark one: the preference, or a theme named "…-dark" / "…:dark".
    public static var isDarkTheme: Bool {
        guard let settings = gtk_settings_get_default() else { return false }
        var prefersDark: gboolean = 0
        var name: UnsafeMutablePointer<gchar>?
        withUnsafeMutablePointer(to: &prefersDark) { dark in
            withUnsafeMutablePointer(to: &name) { themeName in
                pb_settings_get(settings, dark, themeName)
            }
        }
        defer { g_free(name) }
        let theme = name.map { String(cString: $0).lowercased() } ?? ""
        let environment = ProcessInfo.processInfo.environment["GTK_THEME"]?.lowercased() ?? ""
        return prefersDark != 0 || theme.hasSuffix("-dark") || environment.hasSuffix(":dark")
            || environment.hasSuffix("-dark")
    }
}
