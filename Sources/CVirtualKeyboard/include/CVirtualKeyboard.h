#ifndef PASTEBOARD_CVIRTUALKEYBOARD_H
#define PASTEBOARD_CVIRTUALKEYBOARD_H

#include <stdint.h>
#include <wayland-client.h>

// virtual-keyboard-unstable-v1 (`zwp_virtual_keyboard_manager_v1`, version 1), which lets a client type into the
// window a seat's keyboard focus is on: sway and other wlroots compositors offer it (wtype uses it). Debian 12's
// wayland-protocols does not ship it; the descriptions in virtual_keyboard.c are written from the published
// specification.

extern const struct wl_interface zwp_virtual_keyboard_manager_v1_interface;
extern const struct wl_interface zwp_virtual_keyboard_v1_interface;

// Opcodes, in the order of the specification.
enum {
    PB_VK_MANAGER_CREATE_VIRTUAL_KEYBOARD = 0,
    PB_VK_KEYMAP = 0,
    PB_VK_KEY = 1,
    PB_VK_MODIFIERS = 2,
    PB_VK_DESTROY = 3,
};

// The core requests the keyboard needs from libwayland-client, kept here so that this module stands apart from the
// clipboard backend's CWayland, as CXTest does from CX11.

/// wl_registry's `global` event.
enum { PB_VK_REGISTRY_EVENT_GLOBAL = 0 };

/// wl_seat's interface, as Swift sees it.
static inline const struct wl_interface *pb_vk_seat_interface(void) { return &wl_seat_interface; }

/// wl_registry.bind: a new proxy for global `name` with `interface` at `version`.
static inline struct wl_proxy *pb_vk_registry_bind(
    struct wl_registry *registry, uint32_t name, const struct wl_interface *interface, uint32_t version) {
    return wl_proxy_marshal_flags((struct wl_proxy *)registry, WL_REGISTRY_BIND, interface, version, 0, name,
                                  interface->name, version, NULL);
}

/// wl_seat.release (version 5) or, for an older seat, just the proxy.
static inline void pb_vk_seat_release(struct wl_proxy *seat) {
    if (wl_proxy_get_version(seat) >= WL_SEAT_RELEASE_SINCE_VERSION) {
        wl_proxy_marshal_flags(seat, WL_SEAT_RELEASE, NULL, wl_proxy_get_version(seat), WL_MARSHAL_FLAG_DESTROY);
    } else {
        wl_proxy_destroy(seat);
    }
}

/// The manager's interface, as Swift sees it.
static inline const struct wl_interface *pb_vk_manager_interface(void) {
    return &zwp_virtual_keyboard_manager_v1_interface;
}

/// manager.create_virtual_keyboard: a new keyboard on `seat`.
static inline struct wl_proxy *pb_vk_create(struct wl_proxy *manager, struct wl_proxy *seat) {
    return wl_proxy_marshal_flags(manager, PB_VK_MANAGER_CREATE_VIRTUAL_KEYBOARD, &zwp_virtual_keyboard_v1_interface,
                                  wl_proxy_get_version(manager), 0, seat, NULL);
}

/// keyboard.keymap: the keymap in `fd` (`size` bytes, format 1: xkb v1 text, NUL-terminated), before any key.
static inline void pb_vk_keymap(struct wl_proxy *keyboard, uint32_t format, int32_t fd, uint32_t size) {
    wl_proxy_marshal_flags(keyboard, PB_VK_KEYMAP, NULL, wl_proxy_get_version(keyboard), 0, format, fd, size);
}

/// keyboard.key: `key` (a Linux evdev code: the keymap's keycode minus 8) pressed (state 1) or released (0) at
/// `time` milliseconds.
static inline void pb_vk_key(struct wl_proxy *keyboard, uint32_t time, uint32_t key, uint32_t state) {
    wl_proxy_marshal_flags(keyboard, PB_VK_KEY, NULL, wl_proxy_get_version(keyboard), 0, time, key, state);
}

/// keyboard.modifiers: the modifier state the focused client sees (masks of the keymap's modifier indices).
static inline void pb_vk_modifiers(struct wl_proxy *keyboard, uint32_t depressed, uint32_t latched, uint32_t locked,
                                   uint32_t group) {
    wl_proxy_marshal_flags(keyboard, PB_VK_MODIFIERS, NULL, wl_proxy_get_version(keyboard), 0, depressed, latched,
                           locked, group);
}

/// keyboard.destroy, which also frees the proxy.
static inline void pb_vk_destroy(struct wl_proxy *keyboard) {
    wl_proxy_marshal_flags(keyboard, PB_VK_DESTROY, NULL, wl_proxy_get_version(keyboard), WL_MARSHAL_FLAG_DESTROY);
}

/// The manager has no destructor request: only the proxy is freed.
static inline void pb_vk_manager_destroy(struct wl_proxy *manager) { wl_proxy_destroy(manager); }

// org_kde_kwin_fake_input (KWin's own protocol, version 4 for keys), which KWin 5.27 offers instead of the
// virtual keyboard, and only to a program whose installed .desktop file lists it in X-KDE-Wayland-Interfaces.
// Plasma's protocol files are not packaged in Debian 12; the description in virtual_keyboard.c is written from the
// published specification.

extern const struct wl_interface org_kde_kwin_fake_input_interface;

enum {
    PB_FAKE_INPUT_AUTHENTICATE = 0,
    PB_FAKE_INPUT_KEYBOARD_KEY = 10,
};

/// The fake-input interface, as Swift sees it.
static inline const struct wl_interface *pb_fake_input_interface(void) { return &org_kde_kwin_fake_input_interface; }

/// fake_input.authenticate: asks for permission, naming the program and why (KWin grants it by the .desktop file).
static inline void pb_fake_input_authenticate(struct wl_proxy *input, const char *application, const char *reason) {
    wl_proxy_marshal_flags(input, PB_FAKE_INPUT_AUTHENTICATE, NULL, wl_proxy_get_version(input), 0, application,
                           reason);
}

/// fake_input.keyboard_key (version 4): Linux evdev `key` pressed (state 1) or released (0); KWin follows the
/// modifiers through its own keymap.
static inline void pb_fake_input_key(struct wl_proxy *input, uint32_t key, uint32_t state) {
    wl_proxy_marshal_flags(input, PB_FAKE_INPUT_KEYBOARD_KEY, NULL, wl_proxy_get_version(input), 0, key, state);
}

/// An anonymous, sealed memory file holding `size` bytes of `data` (for the keymap), or -1 (errno set).
int pb_vk_keymap_file(const char *data, uint32_t size);

/// Milliseconds of CLOCK_MONOTONIC, the clock input events are stamped with, wrapped to 32 bits.
uint32_t pb_vk_now_ms(void);

#endif
