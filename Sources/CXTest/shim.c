#include "CXTest.h"

static volatile int pb_xtest_last_error = 0;

static int pb_xtest_record_error(Display *display, XErrorEvent *event) {
    (void)display;
    pb_xtest_last_error = event->error_code;
    return 0;
}

static XErrorHandler pb_xtest_previous_handler = NULL;

void pb_xtest_install_error_handler(void) {
    XErrorHandler previous = XSetErrorHandler(pb_xtest_record_error);
    if (previous != pb_xtest_record_error) pb_xtest_previous_handler = previous;
}

void pb_xtest_restore_error_handler(void) {
    XSetErrorHandler(pb_xtest_previous_handler);
}

int pb_xtest_take_last_error(void) {
    int code = pb_xtest_last_error;
    pb_xtest_last_error = 0;
    return code;
}
