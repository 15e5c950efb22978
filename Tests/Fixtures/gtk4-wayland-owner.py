#!/usr/bin/python3
"""gtk4-wayland-owner: copies with GTK 4 on Wayland once it is given a key press, then serves until killed.

A Wayland client may set the clipboard only with the serial of an input event it received: a window that never
had input cannot copy (a headless compositor has no keyboard). This one shows a window and copies when a key
reaches it, as a user pressing Ctrl-C would; the tests press one with `wtype` (the virtual-keyboard protocol).
Prints "window" once the window is mapped, "ready" once the copy is made.

    GDK_BACKEND=wayland GSK_RENDERER=cairo /usr/bin/python3 gtk4-wayland-owner.py --html '<b>hi</b>' --text hi
    GDK_BACKEND=wayland GSK_RENDERER=cairo /usr/bin/python3 gtk4-wayland-owner.py --image picture.png

Options: as owner_common (--text, --html, --image, --noise, --uris, --secret; --selection is ignored),
--app-id ID: the window's Wayland app_id, --png FILE: offer FILE's bytes as image/png unchanged, next to --text and --html (one copy of three types whose
bytes a reader can compare exactly; --image re-encodes the picture and offers it alone), and --again: every key press copies anew ("copy N" as text and HTML), replacing the window's own copy, as an editor
does; prints "copied N" after each (the case wl-copy never shows: there, every copy is a new source).
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, GLib, GObject, Gtk  # noqa: E402

import owner_common  # noqa: E402


def provider(args):
    if args.image or args.noise:
        if args.image:
            texture = Gdk.Texture.new_from_filename(args.image)
        else:
            width, height, pixels = owner_common.noise(args.noise)
            texture = Gdk.MemoryTexture.new(width, height, Gdk.MemoryFormat.R8G8B8, GLib.Bytes.new(pixels), width * 3)
        return Gdk.ContentProvider.new_for_value(GObject.Value(Gdk.Texture, texture))
    parts = []
    if args.png:
        with open(args.png, "rb") as file:
            parts.append(Gdk.ContentProvider.new_for_bytes("image/png", GLib.Bytes.new(file.read())))
    for mime, data in owner_common.offers(args):
        if mime.startswith("x-special/"):
            continue
        parts.append(Gdk.ContentProvider.new_for_bytes(mime, GLib.Bytes.new(data)))
    if args.text is not None:
        parts.append(Gdk.ContentProvider.new_for_value(args.text))
    return parts[0] if len(parts) == 1 else Gdk.ContentProvider.new_union(parts)


def main():
    parser = argparse.ArgumentParser(description="Copy with GTK 4 on Wayland at the first key press.")
    owner_common.add_arguments(parser)
    parser.add_argument("--png", help="a PNG file whose bytes to offer as image/png, unchanged")
    parser.add_argument("--app-id", help="the window's Wayland app_id (the program name), e.g. org.example.App")
    parser.add_argument("--again", action="store_true", help="copy anew at every key press")
    args = parser.parse_args()
    if args.app_id:
        # GTK 4 names the xdg toplevel (mutter's WM class) after the program name, "GTK Application" without one.
        GLib.set_prgname(args.app_id)
    Gtk.init()
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    display = Gdk.Display.get_default()
    if display is None:
        print("cannot open the display", file=sys.stderr)
        sys.exit(1)
    window = Gtk.Window(title="gtk4-wayland-owner")
    window.set_default_size(200, 60)
    window.set_child(Gtk.Label(label="press a key to copy"))
    copied = []

    def on_key(*_):
        if args.again:
            count = len(copied) + 1
            text = "copy %d" % count
            html = Gdk.ContentProvider.new_for_bytes("text/html", GLib.Bytes.new(("<b>%s</b>" % text).encode()))
            display.get_clipboard().set_content(Gdk.ContentProvider.new_union([html, Gdk.ContentProvider.new_for_value(text)]))
            copied.append(True)
            print("copied %d" % count, flush=True)
        elif not copied:
            display.get_clipboard().set_content(provider(args))
            copied.append(True)
            GLib.timeout_add(100, owner_common.say_ready)
        return True

    keys = Gtk.EventControllerKey()
    keys.connect("key-pressed", on_key)
    window.add_controller(keys)
    if args.app_id:
        gi.require_version("GdkWayland", "4.0")
        from gi.repository import GdkWayland

        def name_surface(*_):
            surface = window.get_surface()
            if isinstance(surface, GdkWayland.WaylandToplevel):
                surface.set_application_id(args.app_id)
        window.connect("realize", name_surface)
    window.connect("map", lambda *_: GLib.timeout_add(200, lambda: print("window", flush=True) or False))
    window.connect("close-request", lambda *_: loop.quit())
    window.present()
    loop.run()


if __name__ == "__main__":
    main()
