#include "CGtkX11.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#ifdef GDK_WINDOWING_X11
/// GDK's own Xlib connection, when the default display is an X11 one.
static Display *x11_display(void) {
    GdkDisplay *display = gdk_display_get_default();
    if (display == NULL || !GDK_IS_X11_DISPLAY(display)) return NULL;
    return gdk_x11_display_get_xdisplay(display);
}
#endif

bool pb_x11_pointer(int *x, int *y) {
#ifdef GDK_WINDOWING_X11
    Display *display = x11_display();
    if (display == NULL) return false;
    Window root, child;
    int window_x, window_y;
    unsigned int mask;
    return XQueryPointer(display, DefaultRootWindow(display), &root, &child, x, y, &window_x, &window_y, &mask);
#else
    return false;
#endif
}

bool pb_x11_screen_size(int *width, int *height) {
#ifdef GDK_WINDOWING_X11
    Display *display = x11_display();
    if (display == NULL) return false;
    *width = DisplayWidth(display, DefaultScreen(display));
    *height = DisplayHeight(display, DefaultScreen(display));
    return true;
#else
    return false;
#endif
}

bool pb_x11_move_window(GtkWindow *window, int x, int y) {
#ifdef GDK_WINDOWING_X11
    Display *display = x11_display();
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (display == NULL || surface == NULL) return false;
    XMoveWindow(display, gdk_x11_surface_get_xid(surface), x, y);
    XFlush(display);
    return true;
#else
    return false;
#endif
}
