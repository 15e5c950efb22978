"""A GTK 3 window with one text entry, the receiving end of `pb pick --paste`: prints its X window id and
"ready" once shown, then the entry's text as JSON ("TEXT: ...") after every change."""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("GdkX11", "3.0")
from gi.repository import GdkX11, Gtk  # noqa: E402,F401  (GdkX11 gives the window its get_xid)

window = Gtk.Window(title="paste target")
entry = Gtk.Entry()
window.add(entry)
window.set_default_size(300, 40)


def changed(widget):
    print("TEXT: " + json.dumps(widget.get_text()), flush=True)


def mapped(*_):
    print("WINDOW: %d" % window.get_window().get_xid(), flush=True)
    print("ready", flush=True)


entry.connect("changed", changed)
window.connect("map-event", mapped)
window.connect("destroy", Gtk.main_quit)
window.show_all()
entry.grab_focus()
Gtk.main()
sys.exit(0)
