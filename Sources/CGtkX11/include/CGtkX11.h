#ifndef PASTEBOARD_CGTKX11_H
#define PASTEBOARD_CGTKX11_H

#include <gtk/gtk.h>
#include <stdbool.h>

// The X11 desktop around a GTK 4 window, for the popup: where the pointer is and placing a window (GTK 4 has no
// gtk_window_move). Each returns false when GTK does not run on X11 (Wayland), so the caller can say so. The paste
// after the popup goes through PasteboardSystem's PasteTargets, like pb pick's.

/// The pointer's position on the screen of GTK's default display.
bool pb_x11_pointer(int *x, int *y);
/// The screen's size in pixels.
bool pb_x11_screen_size(int *width, int *height);
/// Moves `window` (mapped or about to be) so its top-left corner is at x, y.
bool pb_x11_move_window(GtkWindow *window, int x, int y);

#endif
