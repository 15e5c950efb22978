// wayland-plain-compositor: a Wayland server offering a seat and no data-control protocol, as GNOME's mutter and
// weston do, for Pasteboard's tests of what `pb` says there.
//
//   XDG_RUNTIME_DIR=DIR wayland-plain-compositor NAME
//
// Listens on DIR/NAME, prints "ready", and serves until killed. Built by the tests with `-lwayland-server`.

#include <stdio.h>

#include <wayland-server.h>

static void bind_seat(struct wl_client *client, void *data, uint32_t version, uint32_t id) {
    (void)data;
    struct wl_resource *seat = wl_resource_create(client, &wl_seat_interface, version, id);
    if (seat == NULL) wl_client_post_no_memory(client);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: wayland-plain-compositor NAME\n");
        return 1;
    }
    struct wl_display *display = wl_display_create();
    if (display == NULL || wl_display_add_socket(display, argv[1]) != 0) {
        fprintf(stderr, "wayland-plain-compositor: cannot listen on %s\n", argv[1]);
        return 1;
    }
    wl_global_create(display, &wl_seat_interface, 1, NULL, bind_seat);
    printf("ready\n");
    fflush(stdout);
    wl_display_run(display);
    wl_display_destroy(display);
    return 0;
}
