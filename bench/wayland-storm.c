/*
 * wayland-storm: one long-lived Wayland client that sets a new data-control selection again and again at a fixed
 * rate, each time a new source with a distinct text, for bench/wayland_bench.py. (One `wl-copy` per change cannot
 * go beyond about 50 changes a second on a loaded machine: each is a process start and a connection.)
 *
 * Build:   cc -O2 -o wayland-storm bench/wayland-storm.c Sources/CWayland/interfaces.c \
 *              -I Sources/CWayland/include -lwayland-client
 *
 * Usage:   wayland-storm --rate PER_SECOND --count N --prefix TEXT [--linger-ms MS] [--start-ms MS]
 *
 *   --rate PER_SECOND   changes per second (a fixed schedule: change i is due at start + i / rate)
 *   --count N           number of changes; the texts are "PREFIX-000000", "PREFIX-000001", ...
 *   --prefix TEXT       prefix of every text (make it unique per run)
 *   --linger-ms MS      keep serving the last text this long after the last change (default 1000)
 *   --start-ms MS       wait this long before the first change (default 0)
 *
 * Each change: a new source offering text/plain and text/plain;charset=utf-8 (what wl-copy -t text/plain offers
 * too), then set_selection and a flush; CLOCK_REALTIME is read just before set_selection, in microseconds. The
 * source replaced by it stays alive, serving its own text, until the compositor cancels it, so a read asked for
 * before the change is still answered. Each answer is the text and a newline, written whole (a text is short).
 * Uses ext_data_control_manager_v1 when the compositor offers it, else zwlr_data_control_manager_v1.
 *
 * Output, after the linger (nothing is printed during the storm):
 *   change INDEX SET_USEC SERVED FIRST_SERVED_USEC TEXT
 *   summary changes=N served=M unread=U late_max_us=L
 * SERVED counts the reads answered for this change (by whichever client asked); a change nobody read is not
 * readable by anyone afterwards. FIRST_SERVED_USEC is the time of its first answer, 0 when none. late_max_us is the
 * most a change was set after its due time. Exit status: 0, 1 on a runtime failure, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "CWayland.h"

struct change {
    struct wl_proxy *source;
    long long set_usec;
    long long first_served_usec;
    int served;
    char text[96];
};

static struct change *changes;
static struct wl_proxy *seat;
static struct wl_proxy *manager;
static const struct pb_data_control_protocol *protocol;
static uint32_t seat_name, wlr_name, ext_name, wlr_version, ext_version;

static long long now_usec(int clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

static int registry_event(const void *impl, void *target, uint32_t opcode, const struct wl_message *message,
                          union wl_argument *args) {
    (void)impl;
    (void)target;
    (void)message;
    if (opcode != PB_WL_REGISTRY_EVENT_GLOBAL) return 0;
    if (strcmp(args[1].s, "wl_seat") == 0 && seat_name == 0) seat_name = args[0].u;
    if (strcmp(args[1].s, "zwlr_data_control_manager_v1") == 0) {
        wlr_name = args[0].u;
        wlr_version = args[2].u;
    }
    if (strcmp(args[1].s, "ext_data_control_manager_v1") == 0) {
        ext_name = args[0].u;
        ext_version = args[2].u;
    }
    return 0;
}

/* A source's events: `send` (write the text and close) or `cancelled` (replaced: destroy it). */
static int source_event(const void *impl, void *target, uint32_t opcode, const struct wl_message *message,
                        union wl_argument *args) {
    (void)impl;
    (void)message;
    struct change *change = wl_proxy_get_user_data(target);
    if (opcode == PB_DC_SOURCE_EVENT_CANCELLED) {
        pb_dc_destroy(target, PB_DC_SOURCE_DESTROY);
        change->source = NULL;
        return 0;
    }
    int fd = args[1].h;
    char line[100];
    int length = snprintf(line, sizeof line, "%s\n", change->text);
    /* A fresh pipe holds far more than one short line: this never waits on the reader. */
    int offset = 0;
    while (offset < length) {
        ssize_t written = write(fd, line + offset, (size_t)(length - offset));
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) break;
        offset += (int)written;
    }
    close(fd);
    if (change->served++ == 0) change->first_served_usec = now_usec(CLOCK_REALTIME);
    return 0;
}

/* Dispatches what arrives until `deadline_usec` (CLOCK_MONOTONIC); 0 or -1 when the connection broke. */
static int dispatch_until(struct wl_display *display, long long deadline_usec) {
    for (;;) {
        while (wl_display_prepare_read(display) != 0) {
            if (wl_display_dispatch_pending(display) < 0) return -1;
        }
        if (wl_display_flush(display) < 0 && errno != EAGAIN) {
            wl_display_cancel_read(display);
            return -1;
        }
        long long left = deadline_usec - now_usec(CLOCK_MONOTONIC);
        struct pollfd socket = {.fd = wl_display_get_fd(display), .events = POLLIN};
        int ready = left > 0 ? poll(&socket, 1, (int)((left + 999) / 1000)) : poll(&socket, 1, 0);
        if (ready > 0) {
            if (wl_display_read_events(display) < 0) return -1;
        } else {
            wl_display_cancel_read(display);
        }
        if (wl_display_dispatch_pending(display) < 0) return -1;
        if (left <= 0 || now_usec(CLOCK_MONOTONIC) >= deadline_usec) return 0;
    }
}

static int usage(const char *message) {
    fprintf(stderr, "wayland-storm: %s\nusage: wayland-storm --rate PER_SECOND --count N --prefix TEXT "
                    "[--linger-ms MS] [--start-ms MS]\n", message);
    return 2;
}

int main(int argc, char **argv) {
    double rate = 0;
    long count = 0;
    long linger_ms = 1000, start_ms = 0;
    const char *prefix = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) return usage("every option takes a value");
        if (strcmp(argv[i], "--rate") == 0) rate = atof(argv[++i]);
        else if (strcmp(argv[i], "--count") == 0) count = atol(argv[++i]);
        else if (strcmp(argv[i], "--prefix") == 0) prefix = argv[++i];
        else if (strcmp(argv[i], "--linger-ms") == 0) linger_ms = atol(argv[++i]);
        else if (strcmp(argv[i], "--start-ms") == 0) start_ms = atol(argv[++i]);
        else return usage("unknown option");
    }
    if (rate <= 0 || rate > 100000) return usage("--rate must be between 0 and 100000");
    if (count <= 0 || count > 1000000) return usage("--count must be between 1 and 1000000");
    if (prefix == NULL || strlen(prefix) > 64) return usage("--prefix is needed, at most 64 bytes");
    if (linger_ms < 0 || start_ms < 0) return usage("--linger-ms and --start-ms must not be negative");
    signal(SIGPIPE, SIG_IGN); /* a reader that closed its end early */

    changes = calloc((size_t)count, sizeof *changes);
    if (changes == NULL) return 1;
    struct wl_display *display = wl_display_connect(NULL);
    if (display == NULL) {
        fprintf(stderr, "wayland-storm: cannot connect to the compositor (WAYLAND_DISPLAY)\n");
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_proxy_add_dispatcher((struct wl_proxy *)registry, registry_event, NULL, NULL);
    if (wl_display_roundtrip(display) < 0 || seat_name == 0 || (wlr_name == 0 && ext_name == 0)) {
        fprintf(stderr, "wayland-storm: the compositor offers no seat or no data-control\n");
        return 1;
    }
    if (ext_name != 0) {
        protocol = &pb_ext_data_control;
        manager = pb_wl_registry_bind(registry, ext_name, protocol->manager, 1);
    } else {
        protocol = &pb_wlr_data_control;
        manager = pb_wl_registry_bind(registry, wlr_name, protocol->manager, wlr_version < 2 ? wlr_version : 2);
    }
    seat = pb_wl_registry_bind(registry, seat_name, &wl_seat_interface, 1);
    struct wl_proxy *device = pb_dc_get_data_device(manager, protocol, seat);
    if (wl_display_roundtrip(display) < 0) return 1;
    /* The device's events (offers of other clients' selections) are not needed: they are left undispatched. */

    long long start = now_usec(CLOCK_MONOTONIC) + start_ms * 1000;
    if (dispatch_until(display, start) < 0) return 1;
    long long late_max = 0;
    for (long i = 0; i < count; i++) {
        long long due = start + (long long)((double)i * 1000000.0 / rate);
        if (dispatch_until(display, due) < 0) return 1;
        long long late = now_usec(CLOCK_MONOTONIC) - due;
        if (late > late_max) late_max = late;
        struct change *change = &changes[i];
        snprintf(change->text, sizeof change->text, "%s-%06ld", prefix, i);
        change->source = pb_dc_create_data_source(manager, protocol);
        wl_proxy_add_dispatcher(change->source, source_event, NULL, change);
        pb_dc_source_offer(change->source, "text/plain");
        pb_dc_source_offer(change->source, "text/plain;charset=utf-8");
        change->set_usec = now_usec(CLOCK_REALTIME);
        pb_dc_device_set_selection(device, change->source, 0);
        if (wl_display_flush(display) < 0 && errno != EAGAIN) return 1;
    }
    if (dispatch_until(display, now_usec(CLOCK_MONOTONIC) + linger_ms * 1000) < 0) return 1;

    long served = 0, unread = 0;
    for (long i = 0; i < count; i++) {
        struct change *change = &changes[i];
        printf("change %ld %lld %d %lld %s\n", i, change->set_usec, change->served, change->first_served_usec,
               change->text);
        served += change->served;
        if (change->served == 0) unread++;
    }
    printf("summary changes=%ld served=%ld unread=%ld late_max_us=%lld\n", count, served, unread, late_max);
    wl_display_disconnect(display);
    return 0;
}
