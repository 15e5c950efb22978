#!/usr/bin/python3
"""gtk4-owner: copies with GTK 4's GdkClipboard, then keeps serving until killed (SIGTERM: exit 0).

A peer for Pasteboard's X11 tests: GTK 4 encodes a texture into every format it can on request, and serves the
MIME types of a content provider as a GTK 4 application does. Prints "ready" on stdout once the copy is made.

Run with the system Python (Debian's python3-gi and gir1.2-gtk-4.0), with GSK_RENDERER=cairo under Xvfb:

    DISPLAY=:99 /usr/bin/python3 gtk4-owner.py --text 'hello'
    DISPLAY=:99 /usr/bin/python3 gtk4-owner.py --noise 1920x1080        # a texture copy
    DISPLAY=:99 /usr/bin/python3 gtk4-owner.py --html '<b>hi</b>' --text hi
    DISPLAY=:99 /usr/bin/python3 gtk4-owner.py --uris file:///etc/hosts
    DISPLAY=:99 /usr/bin/python3 gtk4-owner.py --text hunter2 --secret  # hint offered as GTK 4 offers it
    DISPLAY=:99 /usr/bin/python3 gtk4-owner.py --entry 'meeting notes'  # a window with a focused entry

With --entry, nothing is copied: the window shows a GtkEntry holding the text with the cursor at its start, for
a test to select in it with xdotool (GTK 4 then owns PRIMARY). "ready" comes once the window is mapped.

Options: --selection clipboard|primary; --text, --html, --image, --noise, --uris (repeatable), --secret, --entry.
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, GLib, GObject, Gtk  # noqa: E402

import owner_common  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description="Copy with GTK 4 and keep serving.")
    owner_common.add_arguments(parser)
    parser.add_argument("--entry", help="show an entry holding this text instead of copying")
    args = parser.parse_args()
    Gtk.init()
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    display = Gdk.Display.get_default()
    if display is None:
        print("cannot open the display", file=sys.stderr)
        sys.exit(1)

    if args.entry is not None:
        window = show_entry(args.entry)
        window.connect("close-request", lambda *_: loop.quit())
    else:
        clipboard = display.get_primary_clipboard() if args.selection == "primary" else display.get_clipboard()
        clipboard.set_content(provider(args))
        GLib.idle_add(owner_common.say_ready)
    loop.run()


def provider(args):
    if args.image or args.noise:
        return Gdk.ContentProvider.new_for_value(GObject.Value(Gdk.Texture, texture(args)))
    parts = []
    if args.html is not None:
        parts.append(Gdk.ContentProvider.new_for_bytes("text/html", GLib.Bytes.new(args.html.encode("utf-8"))))
    if args.uris:
        files = Gdk.FileList.new_from_array([Gio_file(uri) for uri in args.uris])
        value = GObject.Value(Gdk.FileList, files)
        parts.append(Gdk.ContentProvider.new_for_value(value))
    if args.secret:
        # As a GTK 4 password field or application would: the hint is one more MIME type of the union.
        parts.append(Gdk.ContentProvider.new_for_bytes("x-kde-passwordManagerHint", GLib.Bytes.new(b"secret")))
    if args.text is not None:
        parts.append(Gdk.ContentProvider.new_for_value(args.text))
    return parts[0] if len(parts) == 1 else Gdk.ContentProvider.new_union(parts)


def Gio_file(uri):
    from gi.repository import Gio

    return Gio.File.new_for_uri(uri)


def texture(args):
    if args.image:
        return Gdk.Texture.new_from_filename(args.image)
    width, height, pixels = owner_common.noise(args.noise)
    return Gdk.MemoryTexture.new(width, height, Gdk.MemoryFormat.R8G8B8, GLib.Bytes.new(pixels), width * 3)


def show_entry(text):
    window = Gtk.Window(title="gtk4-owner entry")
    window.set_default_size(300, 60)
    entry = Gtk.Entry()
    entry.set_text(text)
    window.set_child(entry)

    def on_map(*_):
        entry.grab_focus()
        entry.set_position(0)
        # A moment for the window to be mapped on the server before a test types into it.
        GLib.timeout_add(300, owner_common.say_ready)

    window.connect("map", on_map)
    window.present()
    return window


if __name__ == "__main__":
    main()
