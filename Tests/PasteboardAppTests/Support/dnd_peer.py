#!/usr/bin/python3
"""A GTK 4 window for drag-and-drop tests: its top half is a drag source of text, its bottom half a drop target.

Usage: dnd_peer.py TITLE TEXT
Prints "ready" once shown; for each drop, "formats MIME MIME ..." (what the drag offered), then "drop text T",
"drop image WxH" or "drop files PATH ...".
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, GLib, GObject, Gtk  # noqa: E402


def main():
    title, text = sys.argv[1], sys.argv[2]
    loop = GLib.MainLoop()
    window = Gtk.Window(title=title)
    window.set_default_size(300, 200)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    source = Gtk.Label(label="drag me")
    source.set_size_request(300, 100)
    drag = Gtk.DragSource()
    drag.set_actions(Gdk.DragAction.COPY)
    drag.connect("prepare", lambda *_: Gdk.ContentProvider.new_for_value(text))
    source.add_controller(drag)
    target = Gtk.Label(label="drop here")
    target.set_size_request(300, 100)
    drop = Gtk.DropTarget.new(GObject.TYPE_NONE, Gdk.DragAction.COPY)
    drop.set_gtypes([Gdk.FileList, Gdk.Texture, GObject.TYPE_STRING])

    def dropped(target, value, x, y):
        formats = target.get_current_drop().get_formats().get_mime_types() or []
        print("formats " + " ".join(formats), flush=True)
        if isinstance(value, str):
            print("drop text " + value.replace("\n", "\\n"), flush=True)
        elif isinstance(value, Gdk.Texture):
            print(f"drop image {value.get_width()}x{value.get_height()}", flush=True)
        else:
            print("drop files " + " ".join(f.get_path() or f.get_uri() for f in value.get_files()), flush=True)
        return True

    drop.connect("drop", dropped)
    target.add_controller(drop)
    box.append(source)
    box.append(target)
    window.set_child(box)
    window.connect("close-request", lambda *_: loop.quit())
    window.present()
    GLib.timeout_add(300, lambda: print("ready", flush=True) and False)
    loop.run()


if __name__ == "__main__":
    main()
