#!/usr/bin/python3
"""gtk4-wayland-entry: a GTK 4 window with one text entry under GDK_BACKEND=wayland, the receiving end of a paste
typed through the virtual-keyboard protocol. Prints "ready" once the window is mapped, "focus" each time the
entry's window gains the keyboard focus, then the entry's text as JSON ("TEXT: ...") after every change.

    GDK_BACKEND=wayland GSK_RENDERER=cairo /usr/bin/python3 gtk4-wayland-entry.py [TITLE]
"""
import json
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import GLib, Gtk  # noqa: E402


def main():
    Gtk.init()
    loop = GLib.MainLoop()
    window = Gtk.Window(title=sys.argv[1] if len(sys.argv) > 1 else "paste target")
    window.set_default_size(300, 40)
    entry = Gtk.Entry()
    window.set_child(entry)
    entry.connect("changed", lambda widget: print("TEXT: " + json.dumps(widget.get_text()), flush=True))
    window.connect("map", lambda *_: print("ready", flush=True))

    def active(*_):
        if window.is_active():
            print("focus", flush=True)

    window.connect("notify::is-active", active)
    window.connect("close-request", lambda *_: loop.quit())
    window.present()
    entry.grab_focus()
    loop.run()


main()
