// wayland-test-source: a scriptable Wayland clipboard source for Pasteboard's tests, over wlr data-control.
//
//   wayland-test-source [--type MIME]... [--file MIME PATH]... [--data TEXT] [--never-write | --write-forever]
//                       [--primary]
//
// Offers every --type (default text/plain;charset=utf-8) with TEXT as the bytes of each, and every --file type
// with the bytes of PATH, sets itself as the clipboard (or PRIMARY) and prints "ready"; then "sent MIME" for each
// request it answers. Hostile behaviours:
//   --never-write     keeps each reader's pipe open and never writes to it (a stalled source);
//   --write-forever   writes to each reader without end (a forked child per reader, which dies of SIGPIPE when
//                     the reader closes its end).
// Exits 0 when another client takes the selection (cancelled), 1 on errors. Built by the tests with
// `cc wayland-test-source.c ../../Sources/CWayland/interfaces.c -I../../Sources/CWayland/include -lwayland-client`.

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "CWayland.h"

static const char *data = "wayland-test-source";
static const char *file_types[16];
static char *file_data[16];
static size_t file_lengths[16];
static int file_count = 0;
static int never_write = 0;
static int write_forever = 0;
static int done = 0;
static struct wl_proxy *seat = NULL;
static struct wl_proxy *manager = NULL;
static uint32_t manager_version = 0;

static int registry_event(const void *impl, void *target, uint32_t opcode, const struct wl_message *message,
                          union wl_argument *args) {
    (void)impl;
    (void)message;
    if (opcode != PB_WL_REGISTRY_EVENT_GLOBAL) return 0;
    struct wl_registry *registry = target;
    if (strcmp(args[1].s, "wl_seat") == 0 && seat == NULL) {
        seat = pb_wl_registry_bind(registry, args[0].u, &wl_seat_interface, 1);
    } else if (strcmp(args[1].s, "zwlr_data_control_manager_v1") == 0) {
        manager_version = args[2].u < 2 ? args[2].u : 2;
        manager = pb_wl_registry_bind(registry, args[0].u, &zwlr_data_control_manager_v1_interface, manager_version);
    }
    return 0;
}

static int source_event(const void *impl, void *target, uint32_t opcode, const struct wl_message *message,
                        union wl_argument *args) {
    (void)impl;
    (void)target;
    (void)message;
    if (opcode == PB_DC_SOURCE_EVENT_CANCELLED) {
        done = 1;
        return 0;
    }
    int fd = args[1].h;
    if (never_write) return 0;  // the descriptor stays open, unwritten, until this process exits
    if (write_forever) {
        if (fork() == 0) {
            signal(SIGPIPE, SIG_DFL);
            char chunk[65536];
            memset(chunk, 'x', sizeof chunk);
            for (;;) {
                if (write(fd, chunk, sizeof chunk) < 0) _exit(0);
            }
        }
        close(fd);
        return 0;
    }
    const char *bytes = data;
    size_t length = strlen(data);
    for (int i = 0; i < file_count; i++) {
        if (strcmp(args[0].s, file_types[i]) == 0) {
            bytes = file_data[i];
            length = file_lengths[i];
        }
    }
    printf("sent %s\n", args[0].s);
    fflush(stdout);
    size_t offset = 0;
    while (offset < length) {
        ssize_t written = write(fd, bytes + offset, length - offset);
        if (written <= 0) break;
        offset += (size_t)written;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    const char *types[64];
    int type_count = 0;
    int primary = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--type") == 0 && i + 1 < argc && type_count < 64) {
            types[type_count++] = argv[++i];
        } else if (strcmp(argv[i], "--file") == 0 && i + 2 < argc && type_count < 64 && file_count < 16) {
            const char *type = argv[++i];
            FILE *file = fopen(argv[++i], "rb");
            if (file == NULL) {
                fprintf(stderr, "wayland-test-source: cannot open %s\n", argv[i]);
                return 1;
            }
            static char buffer[16][65536];
            file_lengths[file_count] = fread(buffer[file_count], 1, sizeof buffer[0], file);
            fclose(file);
            file_data[file_count] = buffer[file_count];
            file_types[file_count++] = type;
            types[type_count++] = type;
        } else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
            data = argv[++i];
        } else if (strcmp(argv[i], "--never-write") == 0) {
            never_write = 1;
        } else if (strcmp(argv[i], "--write-forever") == 0) {
            write_forever = 1;
        } else if (strcmp(argv[i], "--primary") == 0) {
            primary = 1;
        } else {
            fprintf(stderr, "wayland-test-source: unknown argument %s\n", argv[i]);
            return 1;
        }
    }
    if (type_count == 0) types[type_count++] = "text/plain;charset=utf-8";
    signal(SIGCHLD, SIG_IGN);  // forked writers are reaped by the kernel
    signal(SIGPIPE, SIG_IGN);

    struct wl_display *display = wl_display_connect(NULL);
    if (display == NULL) {
        fprintf(stderr, "wayland-test-source: cannot connect to the compositor\n");
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_proxy_add_dispatcher((struct wl_proxy *)registry, registry_event, NULL, NULL);
    wl_display_roundtrip(display);
    if (seat == NULL || manager == NULL) {
        fprintf(stderr, "wayland-test-source: the compositor offers no seat or no zwlr data-control\n");
        return 1;
    }
    struct wl_proxy *device = pb_dc_get_data_device(manager, &pb_wlr_data_control, seat);
    struct wl_proxy *source = pb_dc_create_data_source(manager, &pb_wlr_data_control);
    wl_proxy_add_dispatcher(source, source_event, NULL, NULL);
    for (int i = 0; i < type_count; i++) pb_dc_source_offer(source, types[i]);
    if (primary && manager_version < 2) {
        fprintf(stderr, "wayland-test-source: the compositor has no primary selection in data-control\n");
        return 1;
    }
    pb_dc_device_set_selection(device, source, primary);
    wl_display_roundtrip(display);
    printf("ready\n");
    fflush(stdout);
    while (!done && wl_display_dispatch(display) >= 0) {
    }
    wl_display_disconnect(display);
    return 0;
}
