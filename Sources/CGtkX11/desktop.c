#include "CGtkX11.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
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

unsigned long pb_x11_focused_window(void) {
#ifdef GDK_WINDOWING_X11
    Display *display = x11_display();
    if (display == NULL) return 0;
    Window focus = 0;
    int revert;
    XGetInputFocus(display, &focus, &revert);
    // PointerRoot (1) and None (0) name no window.
    return focus > 1 ? focus : 0;
#else
    return 0;
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

bool pb_x11_paste_into(unsigned long target) {
#ifdef GDK_WINDOWING_X11
    Display *display = x11_display();
    int event_base, error_base, major, minor;
    if (display == NULL || !XTestQueryExtension(display, &event_base, &error_base, &major, &minor)) return false;
    gdk_x11_display_error_trap_push(gdk_display_get_default());
    if (target != 0) XSetInputFocus(display, target, RevertToParent, CurrentTime);
    KeyCode control = XKeysymToKeycode(display, XK_Control_L);
    KeyCode v = XKeysymToKeycode(display, XK_v);
    XTestFakeKeyEvent(display, control, True, CurrentTime);
    XTestFakeKeyEvent(display, v, True, CurrentTime);
    XTestFakeKeyEvent(display, v, False, CurrentTime);
    XTestFakeKeyEvent(display, control, False, CurrentTime);
    XSync(display, False);
    // A target that vanished meanwhile gets nothing; that is not worth a crash.
    gdk_x11_display_error_trap_pop_ignored(gdk_display_get_default());
    return true;
#else
    (void)target;
    return false;
#endif
}
