#ifndef PASTEBOARD_CXTEST_H
#define PASTEBOARD_CXTEST_H

// XTest, for synthetic key presses (pb pick --paste), in a module of its own so that nothing else links libXtst.

#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <X11/extensions/XTest.h>

/// Installs an X error handler that records the last error instead of exiting the process, until
/// pb_xtest_restore_error_handler puts the previous one back.
void pb_xtest_install_error_handler(void);
void pb_xtest_restore_error_handler(void);

/// The error code of the last X error since the previous call (0 for none), and clears it.
int pb_xtest_take_last_error(void);

#endif
