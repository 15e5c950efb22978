/*
 * owner-storm: one process that takes the CLIPBOARD selection again and again at a fixed rate, each time with a
 * distinct text and from the next window of a small pool (so every change has a new owner window), for
 * bench/capture_bench.py.
 *
 * Build:   cc -O2 -o owner-storm bench/owner-storm.c -lX11
 *
 * Usage:   owner-storm --rate PER_SECOND --count N --prefix TEXT [--linger-ms MS] [--windows K] [--start-ms MS]
 *
 *   --rate PER_SECOND   changes per second (a fixed schedule: change i is due at start + i / rate)
 *   --count N           number of changes; the texts are "PREFIX-000000", "PREFIX-000001", ...
 *   --prefix TEXT       prefix of every text (make it unique per run)
 *   --linger-ms MS      keep serving the last text this long after the last change (default 500)
 *   --windows K         owner windows used round-robin (default 8; 1 means the same window re-takes it)
 *   --start-ms MS       wait this long before the first change (default 0)
 *
 * Each change: append nothing to a property of the next window and wait for its PropertyNotify (a real server
 * timestamp T, never CurrentTime), then XSetSelectionOwner(CLIPBOARD, window, T) and flush. CLOCK_REALTIME is
 * read just before XSetSelectionOwner and kept in microseconds.
 *
 * Serving: TARGETS, TIMESTAMP and UTF8_STRING of the latest text only. A request is refused (property None) as
 * stale when it was addressed to an earlier owner window or stamped before the latest ownership (ICCCM 2.2): the
 * content it asked for is gone, as it would be with a separate owner program that exited.
 *
 * Output, after the last change and the linger (nothing is printed during the storm):
 *   change INDEX SET_USEC SERVER_TIME TARGETS_SERVED DATA_SERVED REFUSED FIRST_DATA_USEC TEXT
 *   summary changes=N served=M refused=R lost_ownership=L late_max_us=U
 * DATA_SERVED counts UTF8_STRING conversions answered while this change was current; REFUSED counts stale
 * requests that arrived while it was current (they were asking for an earlier change). FIRST_DATA_USEC is the
 * CLOCK_REALTIME time (microseconds) of the first UTF8_STRING answer for this change, 0 when there was none.
 * Exit status: 0, 1 on a runtime failure (no display), 2 on a usage error.
 */
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_WINDOWS 64

struct change {
    long long set_usec;
    Time server_time;
    long targets_served;
    long data_served;
    long refused;
    long long first_data_usec;
};

static Display *display;
static Atom clipboard, targets_atom, timestamp_atom, utf8_atom, stamp_atom;
static Window windows[MAX_WINDOWS];
static struct change *changes;
static int current = -1; /* index of the change on the clipboard now */
static Window current_window = None;
static const char *prefix;
static char text[512];
static long lost_ownership;

static void usage(const char *message) {
    fprintf(stderr, "owner-storm: %s\n", message);
    fprintf(stderr, "usage: owner-storm --rate PER_SECOND --count N --prefix TEXT [--linger-ms MS] [--windows K] "
                    "[--start-ms MS]\n");
    exit(2);
}

static long number(const char *value, const char *option) {
    char *end = NULL;
    long result = strtol(value, &end, 10);
    if (!value[0] || *end || result < 0) {
        char message[256];
        snprintf(message, sizeof message, "%s needs a non-negative whole number, not '%s'", option, value);
        usage(message);
    }
    return result;
}

static long long clock_usec(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

/* A vanished requestor must not kill the owner: ignore protocol errors (BadWindow and the like). */
static int ignore_errors(Display *d, XErrorEvent *event) {
    (void)d;
    (void)event;
    return 0;
}

static void notify(const XSelectionRequestEvent *request, Atom property) {
    XEvent reply;
    memset(&reply, 0, sizeof reply);
    reply.xselection.type = SelectionNotify;
    reply.xselection.display = display;
    reply.xselection.requestor = request->requestor;
    reply.xselection.selection = request->selection;
    reply.xselection.target = request->target;
    reply.xselection.property = property;
    reply.xselection.time = request->time;
    XSendEvent(display, request->requestor, False, NoEventMask, &reply);
    XFlush(display);
}

static void answer(const XSelectionRequestEvent *request) {
    Atom property = request->property != None ? request->property : request->target;
    int stale = current < 0 || request->selection != clipboard || request->owner != current_window ||
                (request->time != CurrentTime && request->time < changes[current].server_time);
    if (stale) {
        if (current >= 0) changes[current].refused++;
        notify(request, None);
        return;
    }
    if (request->target == targets_atom) {
        long atoms[3] = {(long)targets_atom, (long)timestamp_atom, (long)utf8_atom};
        XChangeProperty(display, request->requestor, property, XA_ATOM, 32, PropModeReplace, (unsigned char *)atoms,
                        3);
        changes[current].targets_served++;
    } else if (request->target == timestamp_atom) {
        long value = (long)changes[current].server_time;
        XChangeProperty(display, request->requestor, property, XA_INTEGER, 32, PropModeReplace,
                        (unsigned char *)&value, 1);
    } else if (request->target == utf8_atom) {
        XChangeProperty(display, request->requestor, property, utf8_atom, 8, PropModeReplace, (unsigned char *)text,
                        (int)strlen(text));
        if (changes[current].data_served++ == 0) changes[current].first_data_usec = clock_usec(CLOCK_REALTIME);
    } else {
        notify(request, None);
        return;
    }
    notify(request, property);
}

/* Handles one event; returns the time of a PropertyNotify on `stamp_window` (our timestamp probe), else 0. */
static Time handle(XEvent *event, Window stamp_window) {
    switch (event->type) {
    case SelectionRequest:
        answer(&event->xselectionrequest);
        break;
    case SelectionClear:
        /* Our own next window took over (expected), or another client did (counted). */
        if (event->xselectionclear.window == current_window) lost_ownership++;
        break;
    case PropertyNotify:
        if (event->xproperty.window == stamp_window && event->xproperty.atom == stamp_atom)
            return event->xproperty.time;
        break;
    default:
        break;
    }
    return 0;
}

/* Serves requests until the monotonic clock reaches `until_usec`. */
static void serve_until(long long until_usec) {
    int fd = ConnectionNumber(display);
    for (;;) {
        while (XPending(display) > 0) {
            XEvent event;
            XNextEvent(display, &event);
            handle(&event, None);
        }
        long long left = until_usec - clock_usec(CLOCK_MONOTONIC);
        if (left <= 0) return;
        struct pollfd descriptor = {fd, POLLIN, 0};
        int timeout = (int)((left + 999) / 1000);
        if (poll(&descriptor, 1, timeout) < 0 && errno != EINTR) exit(1);
        if (descriptor.revents & (POLLHUP | POLLERR)) exit(1);
    }
}

/* A real server timestamp for `window`, serving requests that arrive meanwhile. */
static Time server_time(Window window) {
    XChangeProperty(display, window, stamp_atom, XA_STRING, 8, PropModeAppend, (unsigned char *)"", 0);
    XFlush(display);
    for (;;) {
        XEvent event;
        XNextEvent(display, &event);
        Time time = handle(&event, window);
        if (time != 0) return time;
    }
}

int main(int argc, char **argv) {
    long rate = -1, count = -1, linger_ms = 500, window_count = 8, start_ms = 0;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) usage("every option takes a value");
        i++;
        if (!strcmp(option, "--rate")) rate = number(value, option);
        else if (!strcmp(option, "--count")) count = number(value, option);
        else if (!strcmp(option, "--prefix")) prefix = value;
        else if (!strcmp(option, "--linger-ms")) linger_ms = number(value, option);
        else if (!strcmp(option, "--windows")) window_count = number(value, option);
        else if (!strcmp(option, "--start-ms")) start_ms = number(value, option);
        else usage("unknown option");
    }
    if (rate <= 0 || count <= 0 || !prefix) usage("--rate, --count and --prefix are required");
    if (window_count < 1 || window_count > MAX_WINDOWS) usage("--windows must be 1 to 64");
    if (strlen(prefix) > 400) usage("--prefix is too long");

    display = XOpenDisplay(NULL);
    if (!display) {
        fprintf(stderr, "owner-storm: cannot open display '%s'\n", XDisplayName(NULL));
        return 1;
    }
    XSetErrorHandler(ignore_errors);
    clipboard = XInternAtom(display, "CLIPBOARD", False);
    targets_atom = XInternAtom(display, "TARGETS", False);
    timestamp_atom = XInternAtom(display, "TIMESTAMP", False);
    utf8_atom = XInternAtom(display, "UTF8_STRING", False);
    stamp_atom = XInternAtom(display, "OWNER_STORM_STAMP", False);
    Window root = DefaultRootWindow(display);
    for (long i = 0; i < window_count; i++) {
        windows[i] = XCreateSimpleWindow(display, root, -10, -10, 1, 1, 0, 0, 0);
        XSelectInput(display, windows[i], PropertyChangeMask);
    }
    changes = calloc((size_t)count, sizeof *changes);
    if (!changes) return 1;
    XSync(display, False);

    long long period = 1000000 / rate;
    long long start = clock_usec(CLOCK_MONOTONIC) + start_ms * 1000;
    long long late_max = 0;
    for (long i = 0; i < count; i++) {
        long long due = start + i * period;
        serve_until(due);
        long long late = clock_usec(CLOCK_MONOTONIC) - due;
        if (late > late_max) late_max = late;
        Window window = windows[i % window_count];
        Time time = server_time(window);
        /* The text changes before the ownership: a request for the new owner must get the new text. */
        snprintf(text, sizeof text, "%s-%06ld", prefix, i);
        changes[i].server_time = time;
        changes[i].set_usec = clock_usec(CLOCK_REALTIME);
        current = (int)i;
        current_window = window;
        XSetSelectionOwner(display, clipboard, window, time);
        XFlush(display);
    }
    serve_until(clock_usec(CLOCK_MONOTONIC) + linger_ms * 1000);

    long served = 0, refused = 0;
    for (long i = 0; i < count; i++) {
        printf("change %ld %lld %lu %ld %ld %ld %lld %s-%06ld\n", i, changes[i].set_usec,
               (unsigned long)changes[i].server_time, changes[i].targets_served, changes[i].data_served,
               changes[i].refused, changes[i].first_data_usec, prefix, i);
        if (changes[i].data_served > 0) served++;
        refused += changes[i].refused;
    }
    printf("summary changes=%ld served=%ld refused=%ld lost_ownership=%ld late_max_us=%lld\n", count, served, refused,
           lost_ownership, late_max);
    fflush(stdout);
    XCloseDisplay(display);
    return 0;
}
