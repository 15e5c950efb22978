#!/usr/bin/python3
"""gtk3-owner: copies with GTK 3's own clipboard code, then keeps serving until killed (SIGTERM: exit 0).

A peer for Pasteboard's X11 tests: what a GTK 3 application (gedit, Nautilus, GIMP 2.10) offers is what this
offers, because the conversions are GTK's. Prints "ready" on stdout once the copy is made.

Run with the system Python (Debian's python3-gi and gir1.2-gtk-3.0):

    DISPLAY=:99 /usr/bin/python3 gtk3-owner.py --text 'hello'
    DISPLAY=:99 /usr/bin/python3 gtk3-owner.py --image shot.png          # gtk_clipboard_set_image
    DISPLAY=:99 /usr/bin/python3 gtk3-owner.py --noise 2000x1500         # a generated picture, slow to encode
    DISPLAY=:99 /usr/bin/python3 gtk3-owner.py --html '<b>hi</b>' --text hi
    DISPLAY=:99 /usr/bin/python3 gtk3-owner.py --uris file:///etc/hosts  # as Nautilus copies files
    DISPLAY=:99 /usr/bin/python3 gtk3-owner.py --text hunter2 --secret   # as KeePassXC marks a password

Options: --selection clipboard|primary; --text, --html, --image, --noise, --uris (repeatable), --secret.
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import Gdk, GdkPixbuf, GLib, Gtk  # noqa: E402

import owner_common  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description="Copy with GTK 3 and keep serving.")
    owner_common.add_arguments(parser)
    args = parser.parse_args()
    atom = Gdk.SELECTION_PRIMARY if args.selection == "primary" else Gdk.SELECTION_CLIPBOARD
    clipboard = Gtk.Clipboard.get(atom)
    window = Gtk.Window()  # never shown; owns the selection for the custom-target path
    window.realize()

    if args.image or args.noise:
        pixbuf = load_pixbuf(args)
        clipboard.set_image(pixbuf)  # GTK offers every writable gdk-pixbuf format, encoded on request
    elif args.html is None and not args.uris and not args.secret:
        clipboard.set_text(args.text or "", -1)
    else:
        # Several targets of one's own: the widget selection API that GTK 3 applications use for HTML and files.
        offers = owner_common.offers(args)
        for target, _ in offers:
            Gtk.selection_add_target(window, atom, Gdk.Atom.intern(target, False), 0)
        payloads = dict(offers)

        def on_get(_widget, selection_data, _info, _time):
            target = selection_data.get_target().name()
            if target in payloads:
                selection_data.set(selection_data.get_target(), 8, payloads[target])
            elif target in ("UTF8_STRING", "STRING", "TEXT") and args.text is not None:
                selection_data.set_text(args.text, -1)

        window.connect("selection-get", on_get)
        if args.text is not None:
            for target in ("UTF8_STRING", "STRING", "TEXT"):
                Gtk.selection_add_target(window, atom, Gdk.Atom.intern(target, False), 0)
        if not Gtk.selection_owner_set(window, atom, Gdk.CURRENT_TIME):
            print("could not take the selection", file=sys.stderr)
            sys.exit(1)

    def on_owner_change(_clipboard, event):
        owner_common.log(f"owner change, reason {event.reason}")

    clipboard.connect("owner-change", on_owner_change)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, Gtk.main_quit)
    GLib.idle_add(owner_common.say_ready)
    Gtk.main()


def load_pixbuf(args):
    if args.image:
        return GdkPixbuf.Pixbuf.new_from_file(args.image)
    width, height, pixels = owner_common.noise(args.noise)
    return GdkPixbuf.Pixbuf.new_from_bytes(
        GLib.Bytes.new(pixels), GdkPixbuf.Colorspace.RGB, False, 8, width, height, width * 3)


if __name__ == "__main__":
    main()
