#!/usr/bin/python3
"""The pb GNOME Shell extension (contrib/gnome-shell/pasteboard@pasteboard.org) on a real headless GNOME Shell 43.

    /usr/bin/python3 Tests/Apps/gnome_extension.py [--workdir DIR]

A GTK 4 Wayland window copies text, HTML and a PNG; a client standing in for the pb daemon (it owns
org.pasteboard.Daemon on the session bus) receives OwnerChanged with the three types and the window's id, and reads
each type back through ReadType, byte for byte. Also checked: a client that is not the daemon is refused, the
serial, size and type checks of ReadType, Paste (its Ctrl+V is the key press that makes the window copy), and what
mutter offers once the window has exited. Prints PASS/FAIL per check and exits 1 on any failure or setup error.
"""

from __future__ import annotations

import argparse
import os
import select
import struct
import subprocess
import sys
import tempfile
import time
import zlib

if sys.executable != "/usr/bin/python3":  # python3-gi lives in the system Python
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)

import gnome  # noqa: E402
from harness import SetupError, kill_group  # noqa: E402

import gi  # noqa: E402
from gi.repository import Gio, GLib  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION = os.path.join(REPO, "contrib", "gnome-shell", "pasteboard@pasteboard.org")
OWNER = os.path.join(REPO, "Tests", "Fixtures", "gtk4-wayland-owner.py")
NAME, PATH, INTERFACE = "org.pasteboard.Shell", "/org/pasteboard/Shell", "org.pasteboard.Shell1"
APP_ID = "org.pasteboard.TestOwner"
TEXT = "Pasteboard on GNOME: text, HTML and a picture — ünïcode"
HTML = "<p><b>Pasteboard</b> on <i>GNOME</i></p>"


def png(width: int = 97, height: int = 61) -> bytes:
    """A small RGB PNG with a gradient, built by hand (the bytes the window offers unchanged)."""
    rows = b"".join(b"\0" + bytes(value for x in range(width)
                                          for value in ((x * 255) // width, (y * 255) // height, (x ^ y) & 0xFF))
                    for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class Checks:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


class Client:
    """A session-bus connection of its own, optionally owning org.pasteboard.Daemon, collecting OwnerChanged."""

    def __init__(self, address: str, daemon: bool):
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        self.bus = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
        self.signals: list[tuple[float, str, list[str], str, int, str]] = []
        self.bus.signal_subscribe(None, INTERFACE, "OwnerChanged", PATH, None, Gio.DBusSignalFlags.NONE,
                                  self._signal)
        if daemon:
            reply = self.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "RequestName", GLib.Variant("(su)", ("org.pasteboard.Daemon", 4)),
                                       GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 5000, None)
            if reply.unpack()[0] != 1:
                raise SetupError("could not own org.pasteboard.Daemon on the test bus")

    def _signal(self, _bus, _sender, _path, _interface, _name, parameters):
        selection, types, app_id, serial, origin = parameters.unpack()
        self.signals.append((time.monotonic(), selection, types, app_id, serial, origin))

    def call(self, method: str, signature: str, args: tuple, reply: str | None, fds: list[int] = ()):
        fd_list = None
        if fds:
            fd_list = Gio.UnixFDList.new()
            for fd in fds:
                fd_list.append(fd)  # a duplicate: the caller still owns fd
        try:
            result, _ = self.bus.call_with_unix_fd_list_sync(
                NAME, PATH, INTERFACE, method, GLib.Variant(signature, args),
                GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, 10000, fd_list, None)
        finally:
            if fd_list is not None:  # close the list's duplicates now, or the reader sees no end until collected
                for fd in fd_list.steal_fds():
                    os.close(fd)
        return result.unpack() if result is not None else None

    def error(self, method: str, signature: str, args: tuple, fds: list[int] = ()) -> str:
        """The D-Bus error name the call ends with, or '' when it succeeds."""
        try:
            self.call(method, signature, args, None, fds)
            return ""
        except GLib.Error as error:
            return Gio.DBusError.get_remote_error(error) or error.message

    def read_type(self, selection: str, serial: int, mime: str, limit: int) -> tuple[int, bytes]:
        reader, writer = os.pipe()
        try:
            (size,) = self.call("ReadType", "(susht)", (selection, serial, mime, 0, limit), "(t)", [writer])
            os.close(writer)
            writer = -1
            chunks = []
            while True:
                ready, _, _ = select.select([reader], [], [], 10)
                if not ready:
                    raise TimeoutError(f"no end of '{mime}' within 10 s")
                chunk = os.read(reader, 1 << 16)
                if not chunk:
                    return size, b"".join(chunks)
                chunks.append(chunk)
        finally:
            os.close(reader)
            if writer >= 0:
                os.close(writer)


def pump(predicate, timeout: float):
    """Runs the GLib main context (signals arrive there) until predicate() is truthy or timeout passes."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        while context.pending():
            context.iteration(False)
        value = predicate()
        if value:
            return value
        time.sleep(0.002)
    return None


def read_line(process: subprocess.Popen, wanted: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.1)
        if ready:
            line = process.stdout.readline()
            if not line:
                return False
            if line.decode().strip() == wanted:
                return True
        pump(lambda: False, 0.01)
    return False


def run_checks(session: gnome.GnomeSession, workdir: str, checks: Checks) -> None:
    address = session.env["DBUS_SESSION_BUS_ADDRESS"]
    daemon = Client(address, daemon=True)
    stranger = Client(address, daemon=False)
    owner_of = lambda: daemon.bus.call_sync(  # noqa: E731
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
        GLib.Variant("(s)", (NAME,)), GLib.VariantType("(b)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
    if not checks.check("the extension owns org.pasteboard.Shell", bool(pump(owner_of, 10))):
        return
    version = daemon.bus.call_sync(NAME, PATH, "org.freedesktop.DBus.Properties", "Get",
                                   GLib.Variant("(ss)", (INTERFACE, "Version")), GLib.VariantType("(v)"),
                                   Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
    checks.check("Version is 2", version == 2, str(version))
    denied = "org.freedesktop.DBus.Error.AccessDenied"
    for method, signature, args in [("GetSelection", "(s)", ("CLIPBOARD",)), ("Paste", "(s)", ("ctrl+v",)),
                                    ("Clear", "(su)", ("CLIPBOARD", 0))]:
        got = stranger.error(method, signature, args)
        checks.check(f"{method} from a client that is not the daemon is refused", got == denied, got)
    reader, writer = os.pipe()
    got = stranger.error("ReadType", "(susht)", ("CLIPBOARD", 0, "text/plain", 0, 100), [writer])
    os.close(writer)
    checks.check("ReadType from a client that is not the daemon is refused", got == denied, got)
    checks.check("a refused ReadType closes the descriptor", os.read(reader, 1) == b"")
    os.close(reader)

    picture = png()
    picture_path = os.path.join(workdir, "picture.png")
    with open(picture_path, "wb") as file:
        file.write(picture)
    applications = os.path.join(session.env["XDG_DATA_HOME"], "applications")
    os.makedirs(applications, exist_ok=True)
    with open(os.path.join(applications, APP_ID + ".desktop"), "w") as file:
        file.write(f"[Desktop Entry]\nType=Application\nName=Test owner\nExec=/usr/bin/true\n")
    env = dict(session.env, GDK_BACKEND="wayland", GSK_RENDERER="cairo")
    log = open(os.path.join(workdir, "owner.log"), "wb")
    owner = subprocess.Popen(["/usr/bin/python3", OWNER, "--text", TEXT, "--html", HTML, "--png", picture_path,
                              "--app-id", APP_ID],
                             env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                             start_new_session=True)
    try:
        started = time.monotonic()
        if not checks.check("the GTK 4 window is mapped", read_line(owner, "window", 20)):
            return
        print(f"  window mapped {time.monotonic() - started:.2f} s after start", flush=True)
        before = len(daemon.signals)
        pressed = time.monotonic()
        daemon.call("Paste", "(s)", ("ctrl+v",), None)
        if not checks.check("Paste's Ctrl+V reaches the focused window, which copies", read_line(owner, "ready", 10)):
            return
        wanted = {"text/plain;charset=utf-8", "text/html", "image/png"}
        signal = pump(lambda: next((s for s in daemon.signals[before:]
                                    if s[1] == "CLIPBOARD" and wanted <= set(s[2])), None), 5)
        if not checks.check("OwnerChanged(CLIPBOARD) lists text, HTML and PNG", signal is not None,
                            repr(daemon.signals[before:])):
            return
        at, selection, types, app_id, serial, origin = signal
        print(f"  OwnerChanged {(at - pressed) * 1000:.1f} ms after Paste; types {types}; app id '{app_id}'; "
              f"serial {serial}", flush=True)
        checks.check("OwnerChanged names the focused window's application", app_id == APP_ID, repr(app_id))
        checks.check("OwnerChanged says an application set the owner", origin == "application", repr(origin))
        checks.check("OwnerChanged reaches only the daemon", stranger.signals == [], repr(stranger.signals))
        current = daemon.call("GetSelection", "(s)", ("CLIPBOARD",), "(assus)")
        checks.check("GetSelection agrees with the signal", current == (types, app_id, serial, origin),
                     repr(current))
        devnull = os.open(os.devnull, os.O_WRONLY)
        expected = {"text/plain;charset=utf-8": TEXT.encode(), "text/html": HTML.encode(), "image/png": picture}
        for mime, data in expected.items():
            begun = time.monotonic()
            size, got = daemon.read_type("CLIPBOARD", serial, mime, 1 << 20)
            elapsed = (time.monotonic() - begun) * 1000
            checks.check(f"ReadType {mime} is byte-exact ({len(data)} bytes, {elapsed:.1f} ms)",
                         got == data and size == len(data), f"size {size}, {len(got)} bytes read")
        checks.check("ReadType with an old serial is Stale",
                     daemon.error("ReadType", "(susht)", ("CLIPBOARD", serial - 1, "text/html", 0, 100),
                                  [devnull]).endswith(".Stale"))
        checks.check("ReadType over max_bytes is TooLarge",
                     daemon.error("ReadType", "(susht)", ("CLIPBOARD", serial, "image/png", 0, len(picture) - 1),
                                  [devnull]).endswith(".TooLarge"))
        size, got = daemon.read_type("CLIPBOARD", serial, "image/png", len(picture))
        checks.check("ReadType at exactly max_bytes succeeds", got == picture and size == len(picture))
        checks.check("ReadType of a type not offered is NotOffered",
                     daemon.error("ReadType", "(susht)", ("CLIPBOARD", serial, "image/jpeg", 0, 100),
                                  [devnull]).endswith(".NotOffered"))
        os.close(devnull)
        checks.check("Paste of an unknown key is refused",
                     daemon.error("Paste", "(s)", ("ctrl+q",)).endswith(".UnknownKey"))

        before = len(daemon.signals)
        exited = time.monotonic()
        kill_group(owner)
        # mutter first reports no owner, then its own text copy as the new one
        after = pump(lambda: next((s for s in daemon.signals[before:] if s[1] == "CLIPBOARD" and s[2]), None), 5)
        if checks.check("the window's exit gives a new CLIPBOARD owner (mutter's copy)", after is not None):
            print(f"  {(after[0] - exited) * 1000:.1f} ms after the kill: types {after[2]}; app id '{after[3]}'",
                  flush=True)
            checks.check("mutter's copy after the exit has lost the HTML and the PNG",
                         "image/png" not in after[2] and "text/html" not in after[2], repr(after[2]))
            size, got = daemon.read_type("CLIPBOARD", after[4], "text/plain;charset=utf-8", 1 << 20) \
                if "text/plain;charset=utf-8" in after[2] else (0, b"")
            checks.check("mutter's copy keeps the text", got == TEXT.encode(), repr(got[:80]))
            checks.check("mutter's copy is reported as saved, with no application",
                         after[5] == "saved" and after[3] == "", repr(after[5:]))
            checks.check("Clear with an old serial is Stale",
                         daemon.error("Clear", "(su)", ("CLIPBOARD", after[4] - 1)).endswith(".Stale"))
            before = len(daemon.signals)
            daemon.call("Clear", "(su)", ("CLIPBOARD", after[4]), None)
            cleared = pump(lambda: next((s for s in daemon.signals[before:] if s[1] == "CLIPBOARD"), None), 5)
            checks.check("Clear makes an empty owner of the extension's", cleared is not None
                         and cleared[5] == "pasteboard", repr(cleared))
            if cleared is not None:
                size, got = daemon.read_type("CLIPBOARD", cleared[4], "text/plain;charset=utf-8", 1 << 20)
                checks.check("after Clear the clipboard's text is empty", size == 0 and got == b"", repr(got[:80]))
        offer_checks(daemon, stranger, picture, checks)
        print(f"  all signals: {[(s[1], s[2], s[3], s[4]) for s in daemon.signals]}", flush=True)
    finally:
        kill_group(owner)
        log.close()


def offer_checks(daemon: Client, stranger: Client, picture: bytes, checks: Checks) -> None:
    """Offer: one type handed over through a pipe, served from the shell's memory, read back byte for byte."""
    reader, writer = os.pipe()
    got = stranger.error("Offer", "(ssht)", ("CLIPBOARD", "image/png", 0, 3), [reader])
    os.close(reader)
    os.close(writer)
    checks.check("Offer from a client that is not the daemon is refused",
                 got == "org.freedesktop.DBus.Error.AccessDenied", got)
    before = len(daemon.signals)
    reader, writer = os.pipe()
    os.set_blocking(writer, False)
    written = os.write(writer, picture)  # the pipe holds 64 KiB: the whole picture goes in at once
    os.close(writer)
    daemon.call("Offer", "(ssht)", ("CLIPBOARD", "image/png", 0, len(picture)), None, [reader])
    os.close(reader)
    offered = pump(lambda: next((s for s in daemon.signals[before:] if s[1] == "CLIPBOARD"), None), 5)
    if not checks.check("Offer makes the extension the owner with that one type", offered is not None
                        and offered[2] == ["image/png"] and offered[5] == "pasteboard" and written == len(picture),
                        repr(offered)):
        return
    size, got = daemon.read_type("CLIPBOARD", offered[4], "image/png", 1 << 20)
    checks.check("the offered type reads back byte-exact", got == picture and size == len(picture))
    reader, writer = os.pipe()
    os.write(writer, b"short")
    os.close(writer)
    got = daemon.error("Offer", "(ssht)", ("CLIPBOARD", "text/plain", 0, 99), [reader])
    os.close(reader)
    checks.check("Offer of fewer bytes than announced fails", got.endswith(".Failed"), got)


def main() -> int:
    parser = argparse.ArgumentParser(description="Test the pb GNOME Shell extension on a headless GNOME Shell.")
    parser.add_argument("--workdir", help="keep the session's files (logs, home) here")
    args = parser.parse_args()
    gnome.enter_namespace(args.workdir)
    workdir = args.workdir or tempfile.mkdtemp(prefix="pb-gnome-")
    checks = Checks()
    session = gnome.GnomeSession(workdir, [EXTENSION])
    try:
        with session:
            print(f"  gnome-shell ready after {session.ready_after:.2f} s", flush=True)
            run_checks(session, workdir, checks)
    except SetupError as error:
        checks.check("the GNOME session starts", False, str(error))
    print(f"{checks.passed} passed, {checks.failed} failed", flush=True)
    if checks.failed:
        print(f"logs: {workdir}", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
