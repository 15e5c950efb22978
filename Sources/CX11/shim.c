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

int pb_x_has_client_ids(Display *display) {
    int event_base = 0, error_base = 0, major = 0, minor = 0;
    if (!XResQueryExtension(display, &event_base, &error_base)) return 0;
    if (!XResQueryVersion(display, &major, &minor)) return 0;
    return major > 1 || (major == 1 && minor >= 2);
}

long pb_x_client_pid(Display *display, XID resource) {
    XResClientIdSpec spec = { .client = resource, .mask = XRES_CLIENT_ID_PID_MASK };
    long count = 0;
    XResClientIdValue *values = NULL;
    if (XResQueryClientIds(display, 1, &spec, &count, &values) != Success) return -1;
    long pid = -1;
    for (long index = 0; index < count; index++) {
        if (XResGetClientIdType(&values[index]) == XRES_CLIENT_ID_PID) {
            pid = (long)XResGetClientPid(&values[index]);
            break;
        }
    }
    XResClientIdsDestroy(count, values);
    return pid;
}
