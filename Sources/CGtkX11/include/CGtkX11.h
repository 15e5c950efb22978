#ifndef PASTEBOARD_CGTKX11_H
#define PASTEBOARD_CGTKX11_H

#include <gtk/gtk.h>
#include <stdbool.h>

// The X11 desktop around a GTK 4 window, for the popup: where the pointer is, which window has the focus, placing a
// window (GTK 4 has no gtk_window_move), and typing Ctrl+V into another window with XTest. Each returns false (or 0)
// when GTK does not run on X11 (Wayland), so the caller can say so.

/// The pointer's position on the screen of GTK's default display.
bool pb_x11_pointer(int *x, int *y);
/// The screen's size in pixels.
bool pb_x11_screen_size(int *width, int *height);
/// The X window that has the input focus now, or 0.
unsigned long pb_x11_focused_window(void);
/// Moves `window` (mapped or about to be) so its top-left corner is at x, y.
bool pb_x11_move_window(GtkWindow *window, int x, int y);
/// Gives `target` the input focus and types Ctrl+V with XTest (the paste shortcut of nearly every application).
bool pb_x11_paste_into(unsigned long target);

#endif
