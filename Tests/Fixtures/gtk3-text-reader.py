"""Reads one target of the CLIPBOARD selection as a GTK 3 application pastes text, and prints one JSON line: the
type the owner's reply says it is ("type") and the text GTK decodes from it ("text", null when GTK cannot), which
for STRING and COMPOUND_TEXT goes through Xlib's converters.

Usage: gtk3-text-reader.py TARGET"""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

target = sys.argv[1]
clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
data = clipboard.wait_for_contents(Gdk.Atom.intern(target, False))
if data is None or data.get_length() < 0:
    print(json.dumps({"type": None, "text": None}), flush=True)
    sys.exit(1)
print(json.dumps({"type": data.get_data_type().name(), "text": data.get_text()}), flush=True)
