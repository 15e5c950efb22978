#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
// Interface descriptions of the two data-control protocols, from their published specifications: for every
// request and event its name and signature (`n` new object, `o` object, `?` may be null, `s` string, `h` file
// descriptor, a leading digit the version that added it), and the interface of each object argument.

#include "CWayland.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>

// MARK: - wlr-data-control-unstable-v1 (manager and device version 2)

static const struct wl_interface *wlr_types[] = {
    NULL,
    NULL,
    &zwlr_data_control_source_v1_interface,  // 2: create_data_source
    &zwlr_data_control_device_v1_interface,  // 3: get_data_device
    &wl_seat_interface,
    &zwlr_data_control_source_v1_interface,  // 5: set_selection, set_primary_selection
    &zwlr_data_control_offer_v1_interface,   // 6: data_offer, selection, primary_selection
};

static const struct wl_message wlr_manager_requests[] = {
    {"create_data_source", "n", wlr_types + 2},
    {"get_data_device", "no", wlr_types + 3},
    {"destroy", "", wlr_types + 0},
};

const struct wl_interface zwlr_data_control_manager_v1_interface = {
    "zwlr_data_control_manager_v1", 2, 3, wlr_manager_requests, 0, NULL,
};

static const struct wl_message wlr_device_requests[] = {
    {"set_selection", "?o", wlr_types + 5},
    {"destroy", "", wlr_types + 0},
    {"set_primary_selection", "2?o", wlr_types + 5},
};

static const struct wl_message wlr_device_events[] = {
    {"data_offer", "n", wlr_types + 6},
    {"selection", "?o", wlr_types + 6},
    {"finished", "", wlr_types + 0},
    {"primary_selection", "2?o", wlr_types + 6},
};

const struct wl_interface zwlr_data_control_device_v1_interface = {
    "zwlr_data_control_device_v1", 2, 3, wlr_device_requests, 4, wlr_device_events,
};

static const struct wl_message wlr_source_requests[] = {
    {"offer", "s", wlr_types + 0},
    {"destroy", "", wlr_types + 0},
};

static const struct wl_message wlr_source_events[] = {
    {"send", "sh", wlr_types + 0},
    {"cancelled", "", wlr_types + 0},
};

const struct wl_interface zwlr_data_control_source_v1_interface = {
    "zwlr_data_control_source_v1", 1, 2, wlr_source_requests, 2, wlr_source_events,
};

static const struct wl_message wlr_offer_requests[] = {
    {"receive", "sh", wlr_types + 0},
    {"destroy", "", wlr_types + 0},
};

static const struct wl_message wlr_offer_events[] = {
    {"offer", "s", wlr_types + 0},
};

const struct wl_interface zwlr_data_control_offer_v1_interface = {
    "zwlr_data_control_offer_v1", 1, 2, wlr_offer_requests, 1, wlr_offer_events,
};

const struct pb_data_control_protocol pb_wlr_data_control = {
    &zwlr_data_control_manager_v1_interface, &zwlr_data_control_device_v1_interface,
    &zwlr_data_control_source_v1_interface, &zwlr_data_control_offer_v1_interface, 2, 2,
};

// MARK: - ext-data-control-v1 (version 1, primary selection included)

static const struct wl_interface *ext_types[] = {
    NULL,
    NULL,
    &ext_data_control_source_v1_interface,  // 2: create_data_source
    &ext_data_control_device_v1_interface,  // 3: get_data_device
    &wl_seat_interface,
    &ext_data_control_source_v1_interface,  // 5: set_selection, set_primary_selection
    &ext_data_control_offer_v1_interface,   // 6: data_offer, selection, primary_selection
};

static const struct wl_message ext_manager_requests[] = {
    {"create_data_source", "n", ext_types + 2},
    {"get_data_device", "no", ext_types + 3},
    {"destroy", "", ext_types + 0},
};

const struct wl_interface ext_data_control_manager_v1_interface = {
    "ext_data_control_manager_v1", 1, 3, ext_manager_requests, 0, NULL,
};

static const struct wl_message ext_device_requests[] = {
    {"set_selection", "?o", ext_types + 5},
    {"destroy", "", ext_types + 0},
    {"set_primary_selection", "?o", ext_types + 5},
};

static const struct wl_message ext_device_events[] = {
    {"data_offer", "n", ext_types + 6},
    {"selection", "?o", ext_types + 6},
    {"finished", "", ext_types + 0},
    {"primary_selection", "?o", ext_types + 6},
};

const struct wl_interface ext_data_control_device_v1_interface = {
    "ext_data_control_device_v1", 1, 3, ext_device_requests, 4, ext_device_events,
};

static const struct wl_message ext_source_requests[] = {
    {"offer", "s", ext_types + 0},
    {"destroy", "", ext_types + 0},
};

static const struct wl_message ext_source_events[] = {
    {"send", "sh", ext_types + 0},
    {"cancelled", "", ext_types + 0},
};

const struct wl_interface ext_data_control_source_v1_interface = {
    "ext_data_control_source_v1", 1, 2, ext_source_requests, 2, ext_source_events,
};

static const struct wl_message ext_offer_requests[] = {
    {"receive", "sh", ext_types + 0},
    {"destroy", "", ext_types + 0},
};

static const struct wl_message ext_offer_events[] = {
    {"offer", "s", ext_types + 0},
};

const struct wl_interface ext_data_control_offer_v1_interface = {
    "ext_data_control_offer_v1", 1, 2, ext_offer_requests, 1, ext_offer_events,
};

const struct pb_data_control_protocol pb_ext_data_control = {
    &ext_data_control_manager_v1_interface, &ext_data_control_device_v1_interface,
    &ext_data_control_source_v1_interface, &ext_data_control_offer_v1_interface, 1, 1,
};

// MARK: - epoll and pipes

int pb_wl_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    // The source writes as it likes (wl-copy and toolkits write blocking): only our end is non-blocking.
    if (pb_set_nonblocking(fds[0]) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    return 0;
}

int pb_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}
