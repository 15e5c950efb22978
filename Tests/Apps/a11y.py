#!/usr/bin/python3
"""Pasteboard History through a screen reader's eyes: the accessibility tree read over AT-SPI (python3-pyatspi).

    /usr/bin/python3 Tests/Apps/a11y.py [--app PATH] [--pb PATH] [--workdir DIR]

On Xvfb + openbox with a private session bus (which starts the AT-SPI bus on demand), a store of a text, a link
and a picture, it opens the main window, its settings window (Ctrl+,) and the popup and walks each tree. It fails on any control a user can reach
(a button, entry, list, list item, combo box, scroll bar, or anything focusable) whose name is empty or only a GTK
class name ("GtkEntry"), and checks the names that matter: the application, the window, the entries, and rows named
by title, kind and time (an image row as an image with its size). Prints PASS/FAIL per check; exits 1 on any
failure or setup error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

if sys.executable != "/usr/bin/python3":  # python3-pyatspi lives in the system Python
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)

from harness import SetupError, kill_group, wait_until  # noqa: E402
from x11 import X11Desktop  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INTERACTIVE = {"push button", "toggle button", "check box", "radio button", "combo box", "text", "entry",
               "password text", "list", "list item", "table", "table cell", "menu item", "slider", "spin button",
               "scroll bar", "page tab", "tree", "tree item", "link"}
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a73000000164944415478da63f8cfc0f09f"
    "8181e13f0303c37f0600290007f9c1a2a0a70000000049454e44ae426082")


def unnamed(name: str) -> bool:
    return not name.strip() or name.startswith("Gtk") or name == "(None)"


def walk(node, depth=0, out=None):
    import pyatspi
    out = [] if out is None else out
    try:
        states = node.getState()
        out.append((depth, node.getRoleName(), node.name or "", node.description or "",
                    states.contains(pyatspi.STATE_FOCUSABLE), states.contains(pyatspi.STATE_SHOWING)))
        for index in range(node.childCount):
            child = node.getChildAtIndex(index)
            if child is not None:
                walk(child, depth + 1, out)
    except Exception as error:  # a node gone while walking: the next walk sees the tree as it is
        out.append((depth, "gone", str(error), "", False, False))
    return out


def application(name: str):
    import pyatspi
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is not None and (app.name == name or app.description == "Pasteboard History"):
            return app
    return None


class Checks:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
        self.passed += ok
        self.failed += not ok
        return ok


def check_tree(label: str, nodes, checks: Checks) -> None:
    missing = [f"{role} {name!r}" for _, role, name, _, focusable, showing in nodes
               if showing and (role in INTERACTIVE or focusable) and unnamed(name)]
    checks.check(f"{label}: every control has a name", not missing, "; ".join(missing[:20]))


def check_settings(desktop: X11Desktop, app, checks: Checks) -> None:
    """Ctrl+, opens the settings window: every control in it is named, and each one a user edits or presses takes
    the keyboard focus (Tab reaches it)."""
    desktop.focus("Pasteboard History")
    desktop.key("ctrl+comma")

    def settings():
        for index in range(app.childCount):
            frame = app.getChildAtIndex(index)
            if frame is not None and frame.name == "Pasteboard Settings":
                nodes = walk(frame)
                return nodes if any(n[1] == "check box" for n in nodes) else None
        return None
    nodes = wait_until(settings, 10, 0.2)
    if not checks.check("Ctrl+, opens the settings window on the accessibility bus", nodes is not None):
        return
    check_tree("settings window", nodes, checks)
    names = {name for _, _, name, _, _, _ in nodes}
    checks.check("the settings fields are named as their rows say",
                 {"Keep at most (items)", "Images: forget after", "Ignore applications (separated by commas)",
                  "Ignore text matching (one per line)", "Apply", "Close"} <= names,
                 repr(sorted(names)[:40]))
    unreachable = [f"{role} {name!r}" for _, role, name, _, focusable, showing in nodes
                   if role in {"entry", "text", "check box", "push button"} and not focusable]
    checks.check("every settings control takes the keyboard focus", not unreachable, "; ".join(unreachable[:20]))


def frame_named(app, title: str):
    for index in range(app.childCount):
        frame = app.getChildAtIndex(index)
        if frame is not None and frame.name == title:
            return frame
    return None


def check_marks_edit_and_shortcuts(desktop: X11Desktop, app, checks: Checks) -> None:
    """Marked rows say so and the marks bar is named; the edit bar (Ctrl+E) is named; the shortcuts window (Ctrl+?)
    has no unnamed control."""
    desktop.focus("Pasteboard History")
    for chord in ("ctrl+f", "Down", "ctrl+space", "shift+Right"):
        desktop.key(chord)

    def marked():
        window = frame_named(app, "Pasteboard History")
        nodes = walk(window) if window is not None else []
        rows = [name for _, role, name, _, _, _ in nodes if role == "list item" and ", marked " in name]
        return nodes if len(rows) == 2 else None
    nodes = wait_until(marked, 10, 0.2)
    if checks.check("marked rows say they are marked, with their place", nodes is not None):
        names = {name for _, _, name, _, _, _ in nodes}
        checks.check("the marks bar is named", {"2 items marked", "Paste One by One", "Copy Joined", "Unmark All",
                                                 "Separator for joined copy"} <= names, repr(sorted(names)[:60]))
        check_tree("main window with marks", nodes, checks)
    desktop.key("Escape")
    desktop.key("ctrl+e")

    def editing():
        window = frame_named(app, "Pasteboard History")
        nodes = walk(window) if window is not None else []
        return nodes if any(name == "Copy Edited" for _, _, name, _, _, _ in nodes) else None
    nodes = wait_until(editing, 10, 0.2)
    if checks.check("Ctrl+E shows the named edit bar", nodes is not None):
        check_tree("main window while editing", nodes, checks)
    desktop.key("Escape")
    desktop.key("ctrl+question")
    shortcuts = wait_until(lambda: frame_named(app, "Keyboard Shortcuts"), 10, 0.2)
    if checks.check("Ctrl+? opens the keyboard shortcuts window", shortcuts is not None):
        check_tree("keyboard shortcuts window", walk(shortcuts), checks)
    desktop.key("Escape")


def main() -> int:
    parser = argparse.ArgumentParser(description="Read Pasteboard History's accessibility tree over AT-SPI.")
    parser.add_argument("--app", default=os.path.join(REPO, ".build", "debug", "pasteboard-gtk"))
    parser.add_argument("--pb", default=os.path.join(REPO, ".build", "debug", "pb"))
    parser.add_argument("--workdir")
    args = parser.parse_args()
    checks = Checks()
    workdir = args.workdir or tempfile.mkdtemp(prefix="pb-a11y-")
    os.makedirs(workdir, exist_ok=True)
    try:
        import pyatspi  # noqa: F401
    except ImportError:
        print("FAIL python3-pyatspi is needed: apt-get install python3-pyatspi at-spi2-core", flush=True)
        return 1
    desktop = X11Desktop()
    app = None
    try:
        desktop.start(workdir)
        env = desktop.client_env()
        env.pop("NO_AT_BRIDGE", None)
        env.update({"XDG_DATA_HOME": os.path.join(workdir, "data"), "XDG_CONFIG_HOME": os.path.join(workdir, "config"),
                    "PB_RUNTIME_DIR": os.path.join(workdir, "pb-run")})
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = env["DBUS_SESSION_BUS_ADDRESS"]
        os.environ["DISPLAY"] = env["DISPLAY"]
        store = dict(env, PB_BACKEND="headless")
        for text in ("the meeting notes", "https://example.org/page"):
            subprocess.run([args.pb, "copy"], input=text.encode(), env=store, check=True, timeout=30)
        subprocess.run([args.pb, "copy", "--type", "public.png"], input=PNG, env=store, check=True, timeout=30)
        log = open(os.path.join(workdir, "app.log"), "wb")
        app = subprocess.Popen([args.app], env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                               start_new_session=True)
        found = wait_until(lambda: application("pasteboard-history"), 20, 0.2)
        if not checks.check("the app is on the accessibility bus", found is not None):
            return 1
        nodes = wait_until(lambda: [n for n in walk(found) if n[1] == "list item"] and walk(found), 10, 0.2) or []
        checks.check("the application is Pasteboard History", found.description == "Pasteboard History"
                     and found.name == "pasteboard-history", f"{found.name!r} / {found.description!r}")
        names = {name for _, _, name, _, _, _ in nodes}
        checks.check("the window is named", "Pasteboard History" in
                     {name for _, role, name, _, _, _ in nodes if role == "frame"})
        checks.check("the copy and address fields are named", {"Text to copy", "Web address to copy from",
                                                                "Search history"} <= names)
        rows = [name for _, role, name, _, _, _ in nodes if role == "list item"]
        checks.check("a text row is named by its title, kind and time",
                     any(name.startswith("the meeting notes, Text, now") for name in rows), repr(rows))
        checks.check("a link row says it is a link", any(name.startswith("https://example.org/page, Link, now")
                                                         for name in rows), repr(rows))
        checks.check("an image row says it is an image and its size",
                     any(name.startswith("Image, now · ") and name.endswith(" B") for name in rows), repr(rows))
        check_tree("main window", nodes, checks)
        check_marks_edit_and_shortcuts(desktop, found, checks)
        check_settings(desktop, found, checks)
        kill_group(app)
        app = subprocess.Popen([args.app, "--popup"], env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                               start_new_session=True)
        popup = wait_until(lambda: (lambda a: a if a is not None and
                                    any(n[1] == "list item" for n in walk(a)) else None)(
            application("pasteboard-history")), 20, 0.2)
        if checks.check("the popup is on the accessibility bus", popup is not None):
            check_tree("popup", walk(popup), checks)
    except SetupError as error:
        checks.check("the desktop starts", False, str(error))
    finally:
        if app is not None:
            kill_group(app)
        desktop.stop()
    print(f"{checks.passed} passed, {checks.failed} failed", flush=True)
    if checks.failed:
        print(f"logs: {workdir}", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
