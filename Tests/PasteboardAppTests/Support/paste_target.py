#!/usr/bin/python3
"""A GTK 3 window with one text field, the place `pasteboard-gtk --popup --paste` pastes into.

Prints "ready" once the window is shown, then the field's text on every change, one line each.
Usage: paste_target.py TITLE
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def main():
    title = sys.argv[1] if len(sys.argv) > 1 else "Paste Target"
    window = Gtk.Window(title=title)
    window.set_default_size(400, 80)
    entry = Gtk.Entry()
    entry.connect("changed", lambda field: print("text " + field.get_text(), flush=True))
    window.add(entry)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    entry.grab_focus()
    GLib.idle_add(lambda: print("ready", flush=True) and False)
    Gtk.main()


if __name__ == "__main__":
    main()
