#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
// Interface descriptions of virtual-keyboard-unstable-v1, from its published specification (same notation as
// interfaces.c: `u` unsigned, `h` file descriptor, `o` object, `n` new object).

#include "CVirtualKeyboard.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const struct wl_interface *vk_types[] = {
    NULL,
    NULL,
    NULL,
    NULL,
    &wl_seat_interface,  // 4: create_virtual_keyboard
    &zwp_virtual_keyboard_v1_interface,
};

static const struct wl_message vk_manager_requests[] = {
    {"create_virtual_keyboard", "on", vk_types + 4},
};

const struct wl_interface zwp_virtual_keyboard_manager_v1_interface = {
    "zwp_virtual_keyboard_manager_v1", 1, 1, vk_manager_requests, 0, NULL,
};

static const struct wl_message vk_keyboard_requests[] = {
    {"keymap", "uhu", vk_types + 0},
    {"key", "uuu", vk_types + 0},
    {"modifiers", "uuuu", vk_types + 0},
    {"destroy", "", vk_types + 0},
};

const struct wl_interface zwp_virtual_keyboard_v1_interface = {
    "zwp_virtual_keyboard_v1", 1, 4, vk_keyboard_requests, 0, NULL,
};

// org_kde_kwin_fake_input up to version 4 (`f` fixed-point; a leading digit is the version a request came in).
static const struct wl_message fake_input_requests[] = {
    {"authenticate", "ss", vk_types + 0},
    {"pointer_motion", "ff", vk_types + 0},
    {"button", "uu", vk_types + 0},
    {"axis", "uf", vk_types + 0},
    {"touch_down", "2uff", vk_types + 0},
    {"touch_motion", "2uff", vk_types + 0},
    {"touch_up", "2u", vk_types + 0},
    {"touch_cancel", "2", vk_types + 0},
    {"touch_frame", "2", vk_types + 0},
    {"pointer_motion_absolute", "3ff", vk_types + 0},
    {"keyboard_key", "4uu", vk_types + 0},
};

const struct wl_interface org_kde_kwin_fake_input_interface = {
    "org_kde_kwin_fake_input", 4, 11, fake_input_requests, 0, NULL,
};

int pb_vk_keymap_file(const char *data, uint32_t size) {
    int fd = memfd_create("pasteboard-keymap", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    uint32_t written = 0;
    while (written < size) {
        ssize_t n = write(fd, data + written, size - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int saved = n < 0 ? errno : EIO;
            close(fd);
            errno = saved;
            return -1;
        }
        written += (uint32_t)n;
    }
    // The compositor maps it read-only; sealed, nobody can change it under the compositor's feet.
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

uint32_t pb_vk_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint32_t)((uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u);
}
