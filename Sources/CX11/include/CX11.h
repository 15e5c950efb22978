#ifndef PASTEBOARD_CX11_H
#define PASTEBOARD_CX11_H

#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/Xfixes.h>
#include <X11/extensions/XRes.h>

// Xlib reports protocol errors through a process-wide handler whose default exits the process. These install a
// handler that records the last error instead, so a vanished window never kills the daemon.

/// Installs the recording error handler (idempotent).
void pb_x_install_error_handler(void);

/// The error code of the last X error since the previous call (0 for none), and clears it.
int pb_x_take_last_error(void);

/// Whether the server's X-Resource extension answers client-id queries (version 1.2 or later).
int pb_x_has_client_ids(Display *display);

/// The process id of the client that owns `resource` (any XID it created, such as a selection owner window), from
/// XResQueryClientIds; -1 when the server does not know it (a client on another host) or an error occurred.
/// The X server learns it from the local socket's peer credentials, so the client cannot lie about it.
long pb_x_client_pid(Display *display, XID resource);

/// The name the peer of the Unix socket with inode `inode` is bound to (an abstract name starts with '@'), written
/// into `name` with a terminating NUL; returns its length, or -1 when the kernel does not say (no such socket, no
/// peer, an unnamed peer, no sock_diag). A client's connection to an X server has the server's socket as its peer,
/// named like "@/tmp/.X11-unix/X0".
int pb_unix_peer_name(unsigned int inode, char *name, int size);

/// The XFixes selection event inside a generic event.
static inline XFixesSelectionNotifyEvent *pb_x_fixes_event(XEvent *event) {
    return (XFixesSelectionNotifyEvent *)event;
}

/// XChangeProperty for 8-bit data.
static inline int pb_x_set_bytes(Display *display, Window window, Atom property, Atom type, const unsigned char *bytes, int count, int mode) {
    return XChangeProperty(display, window, property, type, 8, mode, bytes, count);
}

/// XChangeProperty for 32-bit data (an array of C long, as Xlib requires).
static inline int pb_x_set_longs(Display *display, Window window, Atom property, Atom type, const long *values, int count) {
    return XChangeProperty(display, window, property, type, 32, PropModeReplace, (const unsigned char *)values, count);
}

#endif
