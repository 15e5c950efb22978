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
 * Hostile behaviours, for testing that a reader (the daemon) survives misbehaving owners:
 *
 *   --reply-type NAME         answer every data conversion with a property of type NAME instead of the target
 *   --reply-format 8|16|32    ... and of this format (default 8; the bytes are cut to whole units)
 *   --targets-type NAME       answer TARGETS with a property of type NAME, format 8, holding the target names
 *                             as text instead of a list of atoms
 *   --bogus-targets N         list N more targets in TARGETS whose atom numbers the server never handed out
 *   --many-targets N          offer N more targets application/x-pb-hostile-00000, ... each holding "x"
 *   --incr-stall-after N      stop sending INCR chunks after N of them (keep the selection, answer nothing more)
 *   --die-after-chunks N      exit at once (status 3, without closing the display) after sending N INCR chunks
 *                             in total
 *   --endless                 send every data reply through INCR and never end it: chunks keep coming
 *   --incr-announce BYTES     the size announced in the INCR property (default: the real size); with --endless
 *                             "1 GiB" is --incr-announce 1073741824
 *   --huge-property BYTES     answer data conversions without INCR, with one property of BYTES bytes built by
 *                             appending chunks (the X server holds it all)
 *   --huge-wm-class BYTES     make the owner window's WM_CLASS property BYTES long (readers look it up)
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
    int endless;  /* --endless: never finishes */
    long chunks;  /* chunks sent so far */
};

static struct offer offers[MAX_TARGETS];
static int offer_count;
static struct transfer transfers[MAX_TRANSFERS];
static long served_limit = -1;
static long served;
static int verbose;

/* Hostile behaviours (see the comment at the top). */
static Atom reply_type = None;
static int reply_format = 8;
static Atom targets_type = None;
static long bogus_targets;
static long many_targets;
static Atom *many_atoms;
static long incr_stall_after = -1;
static long die_after_chunks = -1;
static long chunks_sent;
static int endless;
static long long incr_announce = -1;
static long long huge_property = -1;
static long long huge_wm_class = -1;
static unsigned char *pattern; /* chunk-sized filler for --endless and --huge-property */
static unsigned char many_data[] = "x";

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
    "                      [--reply-type NAME] [--reply-format 8|16|32] [--targets-type NAME]\n"
    "                      [--bogus-targets N] [--many-targets N] [--incr-stall-after N]\n"
    "                      [--die-after-chunks N] [--endless] [--incr-announce BYTES] [--huge-property BYTES]\n"
    "                      [--huge-wm-class BYTES]\n"
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

/* Writes `size` bytes as a property of `format` (8, 16 or 32; cut to whole units) and type `type`. */
static void put_data(Display *display, Window window, Atom property, Atom type, int format,
                     const unsigned char *data, size_t size, int mode) {
    if (format == 8) {
        XChangeProperty(display, window, property, type, 8, mode, data, (int)size);
    } else if (format == 16) {
        size_t count = size / 2;
        short *units = calloc(count + 1, sizeof *units);
        if (!units) exit(1);
        memcpy(units, data, count * 2);
        XChangeProperty(display, window, property, type, 16, mode, (unsigned char *)units, (int)count);
        free(units);
    } else {
        /* Xlib takes format-32 data as an array of C long. */
        size_t count = size / 4;
        long *units = calloc(count + 1, sizeof *units);
        if (!units) exit(1);
        for (size_t i = 0; i < count; i++) {
            unsigned int value;
            memcpy(&value, data + i * 4, 4);
            units[i] = (long)value;
        }
        XChangeProperty(display, window, property, type, 32, mode, (unsigned char *)units, (int)count);
        free(units);
    }
}

/* The offer a data request asks for: one of --target, or one of --many-targets. */
static int find_offer(Atom target, struct offer *found) {
    for (int i = 0; i < offer_count; i++) {
        if (offers[i].atom == target) *found = offers[i];
    }
    if (found->atom != None) return 1;
    for (long i = 0; i < many_targets; i++) {
        if (many_atoms[i] == target) {
            *found = (struct offer){"(many)", target, many_data, sizeof many_data - 1};
            return 1;
        }
    }
    return 0;
}

static void answer_targets(Display *display, const XSelectionRequestEvent *request, Atom property,
                           Atom targets_atom, Atom timestamp_atom) {
    size_t total = 2 + (size_t)offer_count + (size_t)many_targets + (size_t)bogus_targets;
    long *atoms = calloc(total, sizeof *atoms);
    if (!atoms) exit(1);
    size_t count = 0;
    atoms[count++] = (long)targets_atom;
    atoms[count++] = (long)timestamp_atom;
    for (int i = 0; i < offer_count; i++) atoms[count++] = (long)offers[i].atom;
    for (long i = 0; i < many_targets; i++) atoms[count++] = (long)many_atoms[i];
    /* Atoms are 29-bit numbers handed out upwards from 1: these were never handed out. */
    for (long i = 0; i < bogus_targets; i++) atoms[count++] = (long)(0x1FFFF000 - i);
    if (targets_type != None) {
        /* The names as text, where a list of atoms belongs. */
        size_t length = 0, capacity = 4096;
        char *text = malloc(capacity);
        if (!text) exit(1);
        for (size_t i = 0; i < count; i++) {
            char *name = XGetAtomName(display, (Atom)atoms[i]);
            if (!name) continue;
            size_t needed = strlen(name) + 1;
            while (length + needed > capacity) {
                capacity *= 2;
                text = realloc(text, capacity);
                if (!text) exit(1);
            }
            memcpy(text + length, name, needed - 1);
            text[length + needed - 1] = '\n';
            length += needed;
            XFree(name);
        }
        XChangeProperty(display, request->requestor, property, targets_type, 8, PropModeReplace,
                        (unsigned char *)text, (int)length);
        free(text);
        trace(display, request, "targets as text (--targets-type)");
    } else {
        XChangeProperty(display, request->requestor, property, XA_ATOM, 32, PropModeReplace, (unsigned char *)atoms,
                        (int)count);
        trace(display, request, "targets");
    }
    free(atoms);
    notify(display, request, property);
}

/* --huge-property: the whole reply in one property, appended chunk by chunk. */
static void answer_huge(Display *display, const XSelectionRequestEvent *request, Atom property, size_t chunk) {
    long long left = huge_property;
    int mode = PropModeReplace;
    do {
        size_t length = left > (long long)chunk ? chunk : (size_t)left;
        XChangeProperty(display, request->requestor, property, request->target, 8, mode, pattern, (int)length);
        mode = PropModeAppend;
        left -= (long long)length;
    } while (left > 0);
    trace(display, request, "sent at once as one huge property (--huge-property)");
    notify(display, request, property);
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
        answer_targets(display, request, property, targets_atom, timestamp_atom);
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
    struct offer offer = {NULL, None, NULL, 0};
    if (!find_offer(request->target, &offer)) {
        trace(display, request, "refused: not offered");
        notify(display, request, None);
        return;
    }
    if (huge_property >= 0) {
        answer_huge(display, request, property, chunk);
        return;
    }
    if (offer.size <= chunk && !endless) {
        Atom type = reply_type != None ? reply_type : request->target;
        put_data(display, request->requestor, property, type, reply_format, offer.data, offer.size,
                 PropModeReplace);
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
    *slot = (struct transfer){1, request->requestor, property, request->target, offer.data, offer.size, 0, 0,
                              endless, 0};
    /* Ask for the requestor's PropertyNotify before announcing INCR, so no deletion is missed. */
    XSelectInput(display, request->requestor, PropertyChangeMask);
    long size = incr_announce >= 0 ? (long)incr_announce : (long)offer.size;
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
        if (incr_stall_after >= 0 && transfer->chunks >= incr_stall_after) {
            if (verbose) fprintf(stderr, "INCR to 0x%lx stalled (--incr-stall-after)\n", (unsigned long)transfer->requestor);
            return;
        }
        Atom type = reply_type != None ? reply_type : transfer->type;
        if (transfer->endless) {
            put_data(display, transfer->requestor, transfer->property, type, reply_format, pattern, chunk,
                     PropModeReplace);
        } else {
            size_t length = transfer->size - transfer->offset;
            if (length > chunk) length = chunk;
            put_data(display, transfer->requestor, transfer->property, type, reply_format,
                     transfer->data + transfer->offset, length, PropModeReplace);
            transfer->offset += length;
            if (length == 0) transfer->finished = 1;
        }
        transfer->chunks++;
        chunks_sent++;
        XFlush(display);
        if (die_after_chunks >= 0 && chunks_sent >= die_after_chunks) {
            if (verbose) fprintf(stderr, "dying after %ld chunks (--die-after-chunks)\n", chunks_sent);
            XSync(display, False);
            _Exit(3); /* no XCloseDisplay: the connection just drops, as when a program crashes */
        }
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
    const char *reply_type_name = NULL, *targets_type_name = NULL;
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
        } else if (!strcmp(option, "--endless")) {
            endless = 1;
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
            } else if (!strcmp(option, "--reply-type")) {
                reply_type_name = value;
            } else if (!strcmp(option, "--reply-format")) {
                reply_format = (int)parse_number(value, option);
                if (reply_format != 8 && reply_format != 16 && reply_format != 32) usage("--reply-format is 8, 16 or 32");
            } else if (!strcmp(option, "--targets-type")) {
                targets_type_name = value;
            } else if (!strcmp(option, "--bogus-targets")) {
                bogus_targets = parse_number(value, option);
                if (bogus_targets > 4096) usage("--bogus-targets is at most 4096");
            } else if (!strcmp(option, "--many-targets")) {
                many_targets = parse_number(value, option);
                if (many_targets > 100000) usage("--many-targets is at most 100000");
            } else if (!strcmp(option, "--incr-stall-after")) {
                incr_stall_after = parse_number(value, option);
            } else if (!strcmp(option, "--die-after-chunks")) {
                die_after_chunks = parse_number(value, option);
            } else if (!strcmp(option, "--incr-announce")) {
                incr_announce = parse_number(value, option);
            } else if (!strcmp(option, "--huge-property")) {
                huge_property = parse_number(value, option);
            } else if (!strcmp(option, "--huge-wm-class")) {
                huge_wm_class = parse_number(value, option);
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

    /* The hostile behaviours' atoms and filler, made before taking the selection. */
    if (reply_type_name) reply_type = XInternAtom(display, reply_type_name, False);
    if (targets_type_name) targets_type = XInternAtom(display, targets_type_name, False);
    if (many_targets > 0) {
        char **names = calloc((size_t)many_targets, sizeof *names);
        many_atoms = calloc((size_t)many_targets, sizeof *many_atoms);
        if (!names || !many_atoms) return 1;
        for (long i = 0; i < many_targets; i++) {
            names[i] = malloc(48);
            if (!names[i]) return 1;
            snprintf(names[i], 48, "application/x-pb-hostile-%05ld", i);
        }
        XInternAtoms(display, names, (int)many_targets, False, many_atoms); /* one round trip for all */
        for (long i = 0; i < many_targets; i++) free(names[i]);
        free(names);
    }
    pattern = malloc(chunk);
    if (!pattern) return 1;
    for (size_t i = 0; i < chunk; i++) pattern[i] = (unsigned char)('a' + i % 26);

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
    for (long long left = huge_wm_class, mode = PropModeReplace; left > 0; mode = PropModeAppend) {
        size_t length = left > (long long)chunk ? chunk : (size_t)left;
        XChangeProperty(display, window, XA_WM_CLASS, XA_STRING, 8, (int)mode, pattern, (int)length);
        left -= (long long)length;
    }

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
