#ifndef PASTEBOARD_CGTK_SHIM_H
#define PASTEBOARD_CGTK_SHIM_H

#include <gtk/gtk.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib-unix.h>

// What Swift cannot import from GTK 4 and GLib: function-like macros (g_signal_connect, G_CALLBACK, the cast and
// type-check macros) and variadic functions (g_object_new, g_object_set). Each wrapper is a plain function.

/// g_signal_connect_data with a destroy-notify for the user data (g_signal_connect is a macro). The handler is
/// a C function of the signal's signature, passed as a generic pointer (what G_CALLBACK does).
static inline gulong pb_signal_connect(gpointer instance, const char *signal, void *handler, gpointer data,
                                       GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, (GCallback)handler, data, destroy, (GConnectFlags)0);
}

/// g_signal_connect_data, the handler run after the default one (G_CONNECT_AFTER).
static inline gulong pb_signal_connect_after(gpointer instance, const char *signal, void *handler, gpointer data,
                                             GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, (GCallback)handler, data, destroy, G_CONNECT_AFTER);
}

/// Whether `instance` is a GObject of `type` or a subtype (G_TYPE_CHECK_INSTANCE_TYPE).
static inline gboolean pb_is_a(gpointer instance, GType type) {
    return instance != NULL && G_TYPE_CHECK_INSTANCE_TYPE(instance, type);
}

/// g_object_set for one boolean property (g_object_set is variadic).
static inline void pb_object_set_boolean(gpointer object, const char *property, gboolean value) {
    g_object_set(object, property, value, NULL);
}

/// g_object_set for one string property.
static inline void pb_object_set_string(gpointer object, const char *property, const char *value) {
    g_object_set(object, property, value, NULL);
}

/// g_object_new for a type without construct properties (g_object_new is variadic).
static inline gpointer pb_object_new(GType type) {
    return g_object_new(type, NULL);
}

/// The GtkSettings property that chooses the dark variant of the theme.
static inline void pb_settings_prefer_dark(gboolean dark) {
    GtkSettings *settings = gtk_settings_get_default();
    if (settings != NULL) g_object_set(settings, "gtk-application-prefer-dark-theme", dark, NULL);
}

/// The dark-variant preference and the theme's name (g_object_get is variadic); free the name with g_free.
static inline void pb_settings_get(GtkSettings *settings, gboolean *prefers_dark, gchar **theme_name) {
    g_object_get(settings, "gtk-application-prefer-dark-theme", prefers_dark, "gtk-theme-name", theme_name, NULL);
}

/// Sets an accessible's label (gtk_accessible_update_property is variadic).
static inline void pb_accessible_set_label(GtkAccessible *accessible, const char *label) {
    gtk_accessible_update_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

/// Takes an accessible's label away, so that its name comes from its content again.
static inline void pb_accessible_reset_label(GtkAccessible *accessible) {
    gtk_accessible_reset_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL);
}

/// Watches `fd` for input, a hang-up or an error on GLib's default context (g_unix_fd_add_full).
static inline guint pb_watch_fd(int fd, GUnixFDSourceFunc function, gpointer data, GDestroyNotify destroy) {
    return g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, (GIOCondition)(G_IO_IN | G_IO_HUP | G_IO_ERR), function, data,
                              destroy);
}

/// The G_SOURCE_REMOVE / G_SOURCE_CONTINUE values as functions' results.
static inline gboolean pb_source_remove(void) { return G_SOURCE_REMOVE; }

#endif
