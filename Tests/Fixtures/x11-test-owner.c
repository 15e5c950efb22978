/*
 * x11-test-owner: a small, scriptable X11 selection owner for Pasteboard's integration tests and benchmarks.
 *
 * It takes a selection, prints one line "ready TIME" on stdout (TIME: the X server time of the ownership, read
 * from a PropertyNotify on its own window, never CurrentTime), then answers SelectionRequests until another
 * client takes the selection (then it exits 0) or a --exit-* condition holds.
 *
 * Build:   cc -O2 -o x11-test-owner x11-test-owner.c -lX11
 * Example: DISPLAY=:99 x11-test-owner --target text/html=page.html --target UTF8_STRING=page.txt \
 *              --exit-after-serving 2      # offer HTML and text, exit once a reader fetched both
 *
 * Usage:   x11-test-owner [options] --target NAME=FILE [--target NAME=FILE ...]
 *
 *   --target NAME=FILE        offer target NAME with the bytes of FILE (split at the last '=', so
 *                             "text/plain;charset=utf-8=/tmp/a.txt" works); order is kept in TARGETS
 *   --selection NAME          CLIPBOARD (default), PRIMARY or any selection atom name
 *   --secret                  also offer x-kde-passwordManagerHint, whose value is "secret"
 *   --stall                   take the selection but never answer a SelectionRequest
 *   --exit-after-serving N    exit 0 after N data conversions completed (TARGETS/TIMESTAMP do not count;
 *                             an INCR transfer counts when its last chunk was taken)
 *   --exit-after-ms N         exit 0 N milliseconds after taking the selection
 *   --incr-threshold BYTES    replies larger than this go out through INCR, in chunks of this size
 *                             (default 262144; capped below the server's maximum request size)
 *   --class NAME              WM_CLASS class of the owner window (default X11TestOwner)
 *   --verbose                 log each request and how it was answered on stderr
 *
 * Answers TARGETS, TIMESTAMP and every offered target; refuses MULTIPLE and anything else, and refuses requests
 * stamped before it took the selection (ICCCM 2.2). Exit status: 0 after losing the selection or an --exit-*
 * condition, 1 on a runtime failure (no display, ownership refused, unreadable file), 2 on a usage error.
 */
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TARGETS 64
#define MAX_TRANSFERS 32

struct offer {
    const char *name;
    Atom atom;
    unsigned char *data;
    size_t size;
};

/* A large reply in progress: one chunk per PropertyNotify(Delete) of the requestor's property. */
struct transfer {
    int active;
    Window requestor;
    Atom property;
    Atom type;
    const unsigned char *data;
    size_t size;
    size_t offset;
    int finished; /* the zero-length end marker was written; done when the reader deletes it */
};

static struct offer offers[MAX_TARGETS];
static int offer_count;
static struct transfer transfers[MAX_TRANSFERS];
static long served_limit = -1;
static long served;
static int verbose;

/* With --verbose: one line per request on stderr, e.g. "request UTF8_STRING from 0x200001: 12 bytes". */
static void trace(Display *display, const XSelectionRequestEvent *request, const char *outcome) {
    if (!verbose) return;
    char *name = XGetAtomName(display, request->target);
    fprintf(stderr, "request %s from 0x%lx at %lu: %s\n", name ? name : "?", (unsigned long)request->requestor,
            (unsigned long)request->time, outcome);
    if (name) XFree(name);
}

static const char usage_text[] =
    "usage: x11-test-owner [--selection NAME] [--secret] [--stall] [--exit-after-serving N]\n"
    "                      [--exit-after-ms N] [--incr-threshold BYTES] [--class NAME] [--verbose]\n"
    "                      --target NAME=FILE [--target NAME=FILE ...]\n";

static void usage(const char *message) {
    fprintf(stderr, "x11-test-owner: %s\n%s", message, usage_text);
    exit(2);
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        fprintf(stderr, "x11-test-owner: cannot read %s: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t capacity = 1 << 16, length = 0;
    unsigned char *data = malloc(capacity);
    for (;;) {
        if (!data) {
            fprintf(stderr, "x11-test-owner: out of memory reading %s\n", path);
            exit(1);
        }
        size_t count = fread(data + length, 1, capacity - length, file);
        length += count;
        if (count == 0) break;
        if (length == capacity) {
            capacity *= 2;
            data = realloc(data, capacity);
        }
    }
    if (ferror(file)) {
        fprintf(stderr, "x11-test-owner: error reading %s\n", path);
        exit(1);
    }
    fclose(file);
    *size = length;
    return data;
}

static long parse_number(const char *text, const char *option) {
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!text[0] || *end || value < 0) {
        char message[256];
        snprintf(message, sizeof message, "%s needs a non-negative whole number, not '%s'", option, text);
        usage(message);
    }
    return value;
}

/* A vanished requestor must not kill the owner: ignore protocol errors (BadWindow and the like). */
static int ignore_errors(Display *display, XErrorEvent *event) {
    (void)display;
    (void)event;
    return 0;
}

/* Exits 0 once every request sent so far has reached the server: XCloseDisplay waits for that (XSync), where
 * exit() right after XFlush can lose the last SelectionNotify when unread events make the socket close abort. */
static void finish(Display *display) {
    XCloseDisplay(display);
    exit(0);
}

static void count_served(Display *display) {
    served++;
    if (served_limit >= 0 && served >= served_limit) finish(display);
}

static void notify(Display *display, const XSelectionRequestEvent *request, Atom property) {
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

static void answer(Display *display, const XSelectionRequestEvent *request, Time owned_since, size_t chunk,
                   Atom targets_atom, Atom timestamp_atom, Atom incr_atom) {
    /* Obsolete clients pass None as the property: use the target atom (ICCCM 2.2). */
    Atom property = request->property != None ? request->property : request->target;
    if (request->time != CurrentTime && request->time < owned_since) {
        trace(display, request, "refused: stamped before we took the selection");
        notify(display, request, None);
        return;
    }
    if (request->target == targets_atom) {
        long atoms[MAX_TARGETS + 2];
        int count = 0;
        atoms[count++] = (long)targets_atom;
        atoms[count++] = (long)timestamp_atom;
        for (int i = 0; i < offer_count; i++) atoms[count++] = (long)offers[i].atom;
        XChangeProperty(display, request->requestor, property, XA_ATOM, 32, PropModeReplace, (unsigned char *)atoms,
                        count);
        trace(display, request, "targets");
        notify(display, request, property);
        return;
    }
    if (request->target == timestamp_atom) {
        long value = (long)owned_since;
        XChangeProperty(display, request->requestor, property, XA_INTEGER, 32, PropModeReplace,
                        (unsigned char *)&value, 1);
        trace(display, request, "timestamp");
        notify(display, request, property);
        return;
    }
    const struct offer *offer = NULL;
    for (int i = 0; i < offer_count; i++) {
        if (offers[i].atom == request->target) offer = &offers[i];
    }
    if (!offer) {
        trace(display, request, "refused: not offered");
        notify(display, request, None);
        return;
    }
    if (offer->size <= chunk) {
        XChangeProperty(display, request->requestor, property, request->target, 8, PropModeReplace, offer->data,
                        (int)offer->size);
        trace(display, request, "sent at once");
        notify(display, request, property);
        count_served(display);
        return;
    }
    struct transfer *slot = NULL;
    for (int i = 0; i < MAX_TRANSFERS && !slot; i++) {
        if (!transfers[i].active) slot = &transfers[i];
    }
    if (!slot) {
        trace(display, request, "refused: too many INCR transfers at once");
        notify(display, request, None);
        return;
    }
    *slot = (struct transfer){1, request->requestor, property, request->target, offer->data, offer->size, 0, 0};
    /* Ask for the requestor's PropertyNotify before announcing INCR, so no deletion is missed. */
    XSelectInput(display, request->requestor, PropertyChangeMask);
    long size = (long)offer->size;
    XChangeProperty(display, request->requestor, property, incr_atom, 32, PropModeReplace, (unsigned char *)&size,
                    1);
    trace(display, request, "INCR started");
    notify(display, request, property);
}

static void continue_transfer(Display *display, const XPropertyEvent *event, size_t chunk) {
    if (event->state != PropertyDelete) return;
    for (int i = 0; i < MAX_TRANSFERS; i++) {
        struct transfer *transfer = &transfers[i];
        if (!transfer->active || transfer->requestor != event->window || transfer->property != event->atom) continue;
        if (transfer->finished) {
            if (verbose) fprintf(stderr, "INCR to 0x%lx finished\n", (unsigned long)transfer->requestor);
            transfer->active = 0;
            XSelectInput(display, transfer->requestor, NoEventMask);
            XFlush(display);
            count_served(display);
            return;
        }
        size_t length = transfer->size - transfer->offset;
        if (length > chunk) length = chunk;
        XChangeProperty(display, transfer->requestor, transfer->property, transfer->type, 8, PropModeReplace,
                        transfer->data + transfer->offset, (int)length);
        transfer->offset += length;
        if (length == 0) transfer->finished = 1;
        XFlush(display);
        return;
    }
}

static long long now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
    const char *selection_name = "CLIPBOARD";
    const char *class_name = "X11TestOwner";
    int secret = 0, stall = 0;
    long exit_after_ms = -1;
    size_t chunk = 262144;
    const char *targets[MAX_TARGETS];
    int target_count = 0;

    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(option, "--secret")) {
            secret = 1;
        } else if (!strcmp(option, "--stall")) {
            stall = 1;
        } else if (!strcmp(option, "--verbose")) {
            verbose = 1;
        } else if (!strcmp(option, "--help") || !strcmp(option, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!value) {
            char message[256];
            snprintf(message, sizeof message, "unknown option or missing value: %s", option);
            usage(message);
        } else {
            i++;
            if (!strcmp(option, "--target")) {
                if (target_count == MAX_TARGETS - 1) usage("too many --target options");
                targets[target_count++] = value;
            } else if (!strcmp(option, "--selection")) {
                selection_name = value;
            } else if (!strcmp(option, "--exit-after-serving")) {
                served_limit = parse_number(value, option);
            } else if (!strcmp(option, "--exit-after-ms")) {
                exit_after_ms = parse_number(value, option);
            } else if (!strcmp(option, "--incr-threshold")) {
                chunk = (size_t)parse_number(value, option);
                if (chunk < 64) usage("--incr-threshold must be at least 64");
            } else if (!strcmp(option, "--class")) {
                class_name = value;
            } else {
                char message[256];
                snprintf(message, sizeof message, "unknown option: %s", option);
                usage(message);
            }
        }
    }
    if (target_count == 0 && !secret) usage("offer at least one --target NAME=FILE");

    Display *display = XOpenDisplay(NULL);
    if (!display) {
        fprintf(stderr, "x11-test-owner: cannot open display '%s'\n", XDisplayName(NULL));
        return 1;
    }
    XSetErrorHandler(ignore_errors);

    for (int i = 0; i < target_count; i++) {
        const char *separator = strrchr(targets[i], '=');
        if (!separator || separator == targets[i] || !separator[1]) usage("--target needs NAME=FILE");
        size_t length = (size_t)(separator - targets[i]);
        char *name = malloc(length + 1);
        if (!name) return 1;
        memcpy(name, targets[i], length);
        name[length] = 0;
        offers[offer_count].name = name;
        offers[offer_count].atom = XInternAtom(display, name, False);
        offers[offer_count].data = read_file(separator + 1, &offers[offer_count].size);
        offer_count++;
    }
    if (secret) {
        static unsigned char hint[] = "secret";
        offers[offer_count++] =
            (struct offer){"x-kde-passwordManagerHint", XInternAtom(display, "x-kde-passwordManagerHint", False),
                           hint, sizeof hint - 1};
    }

    /* Stay below the largest request the server accepts (in 4-byte units), with room for the header. */
    long max_units = XExtendedMaxRequestSize(display);
    if (max_units <= 0) max_units = XMaxRequestSize(display);
    size_t max_chunk = (size_t)max_units * 4 - 1024;
    if (chunk > max_chunk) chunk = max_chunk;

    Atom selection = XInternAtom(display, selection_name, False);
    Atom targets_atom = XInternAtom(display, "TARGETS", False);
    Atom timestamp_atom = XInternAtom(display, "TIMESTAMP", False);
    Atom incr_atom = XInternAtom(display, "INCR", False);
    Atom stamp_atom = XInternAtom(display, "X11_TEST_OWNER_STAMP", False);

    Window root = DefaultRootWindow(display);
    Window window = XCreateSimpleWindow(display, root, -10, -10, 1, 1, 0, 0, 0);
    XSelectInput(display, window, PropertyChangeMask);
    XClassHint hint = {(char *)"x11-test-owner", (char *)class_name};
    XSetClassHint(display, window, &hint);

    /* A real server timestamp: append nothing to a property of our window and read the PropertyNotify's time. */
    XChangeProperty(display, window, stamp_atom, XA_STRING, 8, PropModeAppend, (unsigned char *)"", 0);
    Time owned_since = CurrentTime;
    while (owned_since == CurrentTime) {
        XEvent event;
        XNextEvent(display, &event);
        if (event.type == PropertyNotify && event.xproperty.window == window && event.xproperty.atom == stamp_atom) {
            owned_since = event.xproperty.time;
        }
    }
    XSetSelectionOwner(display, selection, window, owned_since);
    if (XGetSelectionOwner(display, selection) != window) {
        fprintf(stderr, "x11-test-owner: could not take the %s selection\n", selection_name);
        return 1;
    }
    printf("ready %lu\n", (unsigned long)owned_since);
    fflush(stdout);

    long long deadline = exit_after_ms >= 0 ? now_ms() + exit_after_ms : -1;
    int fd = ConnectionNumber(display);
    for (;;) {
        while (XPending(display) > 0) {
            XEvent event;
            XNextEvent(display, &event);
            switch (event.type) {
            case SelectionRequest:
                if (stall) trace(display, &event.xselectionrequest, "ignored (--stall)");
                if (!stall) answer(display, &event.xselectionrequest, owned_since, chunk, targets_atom,
                                   timestamp_atom, incr_atom);
                break;
            case SelectionClear:
                if (verbose) fprintf(stderr, "lost the selection\n");
                if (event.xselectionclear.selection == selection) finish(display); /* another client copied */
                break;
            case PropertyNotify:
                continue_transfer(display, &event.xproperty, chunk);
                break;
            default:
                break;
            }
        }
        int timeout = -1;
        if (deadline >= 0) {
            long long left = deadline - now_ms();
            if (left <= 0) finish(display);
            timeout = (int)left;
        }
        struct pollfd descriptor = {fd, POLLIN, 0};
        if (poll(&descriptor, 1, timeout) < 0 && errno != EINTR) return 1;
        if (descriptor.revents & (POLLHUP | POLLERR)) return 1; /* the server went away */
    }
}
