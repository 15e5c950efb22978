#include "CX11.h"

static volatile int pb_last_x_error = 0;

static int pb_record_x_error(Display *display, XErrorEvent *event) {
    (void)display;
    pb_last_x_error = event->error_code;
    return 0;
}

void pb_x_install_error_handler(void) {
    XSetErrorHandler(pb_record_x_error);
}

int pb_x_take_last_error(void) {
    int code = pb_last_x_error;
    pb_last_x_error = 0;
    return code;
}
