#ifndef PASTEBOARD_CWAYLAND_H
#define PASTEBOARD_CWAYLAND_H

#include <stdint.h>
#include <wayland-client.h>

// The two data-control protocols, which let a client that has no surface watch and set a seat's selections:
// wlroots' `zwlr_data_control_manager_v1` (wlr-protocols, unstable, version 2 adds the primary selection) and
// its standardised successor `ext_data_control_manager_v1` (wayland-protocols staging, version 1, primary
// selection included). Their requests and events are the same, in the same order, so one set of wrappers below
// serves both: the interfaces passed in choose the protocol.
//
// Debian 12 ships neither protocol's XML; the descriptions in interfaces.c are written from the published
// specifications (names, versions, requests and events with their argument signatures).

extern const struct wl_interface zwlr_data_control_manager_v1_interface;
extern const struct wl_interface zwlr_data_control_device_v1_interface;
extern const struct wl_interface zwlr_data_control_source_v1_interface;
extern const struct wl_interface zwlr_data_control_offer_v1_interface;

extern const struct wl_interface ext_data_control_manager_v1_interface;
extern const struct wl_interface ext_data_control_device_v1_interface;
extern const struct wl_interface ext_data_control_source_v1_interface;
extern const struct wl_interface ext_data_control_offer_v1_interface;

/// The interfaces of one data-control protocol.
struct pb_data_control_protocol {
    const struct wl_interface *manager;
    const struct wl_interface *device;
    const struct wl_interface *source;
    const struct wl_interface *offer;
    /// The highest manager version this code speaks.
    uint32_t max_version;
    /// The lowest manager version with the primary selection.
    uint32_t primary_since;
};

extern const struct pb_data_control_protocol pb_wlr_data_control;
extern const struct pb_data_control_protocol pb_ext_data_control;

/// The core interfaces, as Swift sees them (the library exports them as data symbols).
static inline const struct wl_interface *pb_wl_seat_interface(void) { return &wl_seat_interface; }

// Opcodes, in the order of the specifications.
enum {
    PB_DC_MANAGER_CREATE_DATA_SOURCE = 0,
    PB_DC_MANAGER_GET_DATA_DEVICE = 1,
    PB_DC_MANAGER_DESTROY = 2,
    PB_DC_DEVICE_SET_SELECTION = 0,
    PB_DC_DEVICE_DESTROY = 1,
    PB_DC_DEVICE_SET_PRIMARY_SELECTION = 2,
    PB_DC_DEVICE_EVENT_DATA_OFFER = 0,
    PB_DC_DEVICE_EVENT_SELECTION = 1,
    PB_DC_DEVICE_EVENT_FINISHED = 2,
    PB_DC_DEVICE_EVENT_PRIMARY_SELECTION = 3,
    PB_DC_SOURCE_OFFER = 0,
    PB_DC_SOURCE_DESTROY = 1,
    PB_DC_SOURCE_EVENT_SEND = 0,
    PB_DC_SOURCE_EVENT_CANCELLED = 1,
    PB_DC_OFFER_RECEIVE = 0,
    PB_DC_OFFER_DESTROY = 1,
    PB_DC_OFFER_EVENT_OFFER = 0,
    PB_WL_REGISTRY_EVENT_GLOBAL = 0,
    PB_WL_REGISTRY_EVENT_GLOBAL_REMOVE = 1,
};

// wl_proxy_marshal_flags is variadic, which Swift cannot call: one wrapper per request.

/// wl_registry.bind: a new proxy for global `name` with `interface` at `version`.
static inline struct wl_proxy *pb_wl_registry_bind(
    struct wl_registry *registry, uint32_t name, const struct wl_interface *interface, uint32_t version) {
    return wl_proxy_marshal_flags((struct wl_proxy *)registry, WL_REGISTRY_BIND, interface, version, 0, name,
                                  interface->name, version, NULL);
}

/// manager.create_data_source.
static inline struct wl_proxy *pb_dc_create_data_source(struct wl_proxy *manager,
                                                        const struct pb_data_control_protocol *protocol) {
    return wl_proxy_marshal_flags(manager, PB_DC_MANAGER_CREATE_DATA_SOURCE, protocol->source,
                                  wl_proxy_get_version(manager), 0, NULL);
}

/// manager.get_data_device for `seat`.
static inline struct wl_proxy *pb_dc_get_data_device(struct wl_proxy *manager,
                                                     const struct pb_data_control_protocol *protocol,
                                                     struct wl_proxy *seat) {
    return wl_proxy_marshal_flags(manager, PB_DC_MANAGER_GET_DATA_DEVICE, protocol->device,
                                  wl_proxy_get_version(manager), 0, NULL, seat);
}

/// device.set_selection (primary: device.set_primary_selection); a NULL source clears the selection.
static inline void pb_dc_device_set_selection(struct wl_proxy *device, struct wl_proxy *source, int primary) {
    wl_proxy_marshal_flags(device, primary ? PB_DC_DEVICE_SET_PRIMARY_SELECTION : PB_DC_DEVICE_SET_SELECTION, NULL,
                           wl_proxy_get_version(device), 0, source);
}

/// source.offer: one more MIME type the source serves.
static inline void pb_dc_source_offer(struct wl_proxy *source, const char *mime_type) {
    wl_proxy_marshal_flags(source, PB_DC_SOURCE_OFFER, NULL, wl_proxy_get_version(source), 0, mime_type);
}

/// offer.receive: asks the source to write `mime_type` into `fd` (the write end of a pipe; close it afterwards).
static inline void pb_dc_offer_receive(struct wl_proxy *offer, const char *mime_type, int32_t fd) {
    wl_proxy_marshal_flags(offer, PB_DC_OFFER_RECEIVE, NULL, wl_proxy_get_version(offer), 0, mime_type, fd);
}

/// The destructor request of any data-control object (`opcode`), which also frees the proxy.
static inline void pb_dc_destroy(struct wl_proxy *proxy, uint32_t opcode) {
    wl_proxy_marshal_flags(proxy, opcode, NULL, wl_proxy_get_version(proxy), WL_MARSHAL_FLAG_DESTROY);
}

/// wl_seat.release (version 5) or, for an older seat, just the proxy.
static inline void pb_wl_seat_release(struct wl_proxy *seat) {
    if (wl_proxy_get_version(seat) >= WL_SEAT_RELEASE_SINCE_VERSION) {
        wl_proxy_marshal_flags(seat, WL_SEAT_RELEASE, NULL, wl_proxy_get_version(seat), WL_MARSHAL_FLAG_DESTROY);
    } else {
        wl_proxy_destroy(seat);
    }
}

// Readiness of the pipes: SystemSupport's EventPoll (CSystemShim's pb_epoll_*).

/// A pipe for a source to write into: both ends close-on-exec, the read end (fds[0]) non-blocking; 0 or -1.
int pb_wl_pipe(int fds[2]);
/// Makes `fd` non-blocking; 0 or -1.
int pb_set_nonblocking(int fd);

#endif
