#!/usr/bin/python3
"""GNOME capture benchmark: Pasteboard and GPaste 43 side by side, on one headless GNOME Shell 43 session.

GPaste (Debian `gpaste-2`, with its Shell extension `gnome-shell-extension-gpaste`) is GNOME's own clipboard
manager. Both managers are measured in the same session (same shell, same Xwayland, same copying application), one
after the other, never at once: each takes the clipboard over (GPaste re-serves its newest item, pb serves the
full item when the owner exits), so a second manager would record the first one's copies and race it for every
owner. The copying application is a GTK 4 Wayland window (PyGObject) that copies text + HTML + PNG, each copy
distinct, on a timer once it has the focus.

For each manager:
  1. latency: `--latency-copies` copies at 5 per second; from the window's `set_content` to the manager saying
     the item is in its history (GPaste: its `org.gnome.GPaste2.Update` signal; pb: the `captured` event of
     `pb watch`), both as the bench process receives them;
  2. what the clipboard offers once the window has exited (mutter re-offers its text-only copy unless the manager
     takes over), and whether a text-only item was added to the history then;
  3. types kept: the last latency copy is put back on the clipboard by the manager (GPaste `Select`, `pb restore`)
     and a GTK 4 Wayland reader reads text, HTML and PNG, compared byte for byte with what was copied;
  4. source application: whatever the manager records for the item (GPaste's history has no such field);
  5. copies captured at each of `--rates` (default 20 and 50 per second), `--copies` copies each.

Usage:
    /usr/bin/python3 bench/gnome_bench.py [--pb PATH] [--pb-extension DIR] [--copies N] [--rates 20,50]
        [--latency-copies N] [--managers gpaste,pb] [--markdown FILE] [--workdir DIR]

`--pb` is the pb binary (default .build/debug/pb, else .build/release/pb); pb runs with DISPLAY set to mutter's
Xwayland. `--pb-extension` is the pb Shell extension installed and enabled in the session (default the repository's
contrib/gnome-shell/pasteboard@pasteboard.org; `--pb-extension ''` for none), so that a pb with a GNOME backend is
measured with it. GPaste is set up as a user would have it, with two settings changed: `images-support` on (off by
default, then no image is kept) and `max-history-size` 1000 (100 by default, fewer than one run's copies).

The session comes from Tests/Apps/gnome.py (a private mount and net namespace, private buses); every process it
starts is stopped at the end. Needs: gnome-shell mutter gjs xwayland gsettings-desktop-schemas dbus-x11
gpaste-2 gnome-shell-extension-gpaste python3-gi gir1.2-gtk-4.0.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

if sys.executable != "/usr/bin/python3":  # python3-gi lives in the system Python
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Apps"))

import gi  # noqa: E402

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gio, GLib  # noqa: E402

GPASTE_UUID = "GPaste@gnome-shell-extensions.gnome.org"
GPASTE_NAME, GPASTE_PATH, GPASTE_INTERFACE = "org.gnome.GPaste", "/org/gnome/GPaste", "org.gnome.GPaste2"
TEXT_TYPE = "text/plain;charset=utf-8"
TYPES = [TEXT_TYPE, "text/html", "image/png"]
SHORT = {TEXT_TYPE: "text", "text/html": "html", "image/png": "png"}
PB_SHORT = {"public.utf8-plain-text": "text", "public.html": "html", "public.png": "png"}
COPIER_ID = "org.pasteboard.BenchCopier"


def log(message: str) -> None:
    print(f"[gnome_bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# MARK: - What each copy holds

def text_of(prefix: str, index: int) -> str:
    return f"gbench {prefix} {index:05d}"


def html_of(prefix: str, index: int) -> str:
    return f"<p><b>gbench</b> <i>{prefix}</i> {index:05d}</p>"


def png_of(prefix: str, index: int, width: int = 48, height: int = 32) -> bytes:
    """A small RGB PNG whose pixels depend on the copy, so that every copy's picture differs."""
    seed = zlib.crc32(f"{prefix}/{index}".encode())
    rows = b"".join(b"\0" + bytes(((x * 5 + seed) & 0xFF, (y * 7 + (seed >> 8)) & 0xFF, (x * y + (seed >> 16)) & 0xFF)[c]
                                  for x in range(width) for c in range(3))
                    for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def content_of(prefix: str, index: int) -> dict[str, bytes]:
    return {TEXT_TYPE: text_of(prefix, index).encode(), "text/html": html_of(prefix, index).encode(),
            "image/png": png_of(prefix, index)}


# MARK: - The GTK 4 clients (run as `gnome_bench.py copier|reader`, inside the session)

def copier_main(argv: list[str]) -> int:
    """Once its window is active, copies text + HTML + PNG `--count` times at `--rate` per second, each distinct;
    prints `copy INDEX MONOTONIC` after each set_content, `done` at the end, then serves the last copy until killed."""
    parser = argparse.ArgumentParser(prog="gnome_bench.py copier")
    parser.add_argument("--rate", type=float, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--prefix", required=True)
    args = parser.parse_args(argv)
    from gi.repository import Gdk, Gtk
    Gtk.init()
    display = Gdk.Display.get_default()
    if display is None:
        print("cannot open the Wayland display", file=sys.stderr)
        return 1
    clipboard = display.get_clipboard()
    loop = GLib.MainLoop()
    application = Gtk.Application(application_id=COPIER_ID, flags=Gio.ApplicationFlags.NON_UNIQUE)
    application.register(None)
    window = Gtk.ApplicationWindow(application=application, title="gnome-bench-copier")
    window.set_default_size(200, 60)
    window.set_child(Gtk.Label(label="copying"))
    window.connect("close-request", lambda *_: loop.quit())
    state = {"next": 0, "start": None}
    contents = [content_of(args.prefix, index) for index in range(args.count)]

    def tick() -> bool:
        now = time.monotonic()
        while state["next"] < args.count and now >= state["start"] + state["next"] / args.rate:
            index = state["next"]
            parts = [Gdk.ContentProvider.new_for_bytes(mime, GLib.Bytes.new(data))
                     for mime, data in contents[index].items() if mime != TEXT_TYPE]
            parts.append(Gdk.ContentProvider.new_for_value(text_of(args.prefix, index)))
            clipboard.set_content(Gdk.ContentProvider.new_union(parts))
            print(f"copy {index} {time.monotonic():.6f}", flush=True)
            state["next"] += 1
            now = time.monotonic()
        if state["next"] >= args.count:
            print("done", flush=True)
            return False
        delay = state["start"] + state["next"] / args.rate - time.monotonic()
        GLib.timeout_add(max(1, int(delay * 1000)), tick)
        return False

    def on_active(*_):
        if window.is_active() and state["start"] is None:
            print("active", flush=True)
            state["start"] = time.monotonic() + 0.3
            GLib.timeout_add(300, tick)
    window.connect("notify::is-active", on_active)
    window.present()
    loop.run()
    return 0


def reader_main(argv: list[str]) -> int:
    """Once its window is active, prints one JSON line: the clipboard's MIME types and, for text, HTML and PNG
    when offered, their bytes in base64."""
    del argv
    from gi.repository import Gdk, Gtk
    Gtk.init()
    display = Gdk.Display.get_default()
    clipboard = display.get_clipboard()
    loop = GLib.MainLoop()
    window = Gtk.Window(title="gnome-bench-reader")
    window.set_default_size(200, 60)
    window.connect("close-request", lambda *_: loop.quit())
    result: dict = {"types": [], "data": {}}
    state = {"begun": False}

    def read_next(pending: list[str]) -> None:
        if not pending:
            print(json.dumps(result), flush=True)
            loop.quit()
            return
        mime = pending[0]

        def done(source, outcome):
            try:
                stream, _ = source.read_finish(outcome)
                chunks = []
                while True:
                    chunk = stream.read_bytes(1 << 16, None).get_data()
                    if not chunk:
                        break
                    chunks.append(chunk)
                result["data"][mime] = base64.b64encode(b"".join(chunks)).decode()
            except GLib.Error as error:
                result.setdefault("errors", {})[mime] = error.message
            read_next(pending[1:])
        clipboard.read_async([mime], GLib.PRIORITY_DEFAULT, None, done)

    def begin() -> bool:
        formats = clipboard.get_formats()
        result["types"] = list(formats.get_mime_types() or [])
        read_next([mime for mime in TYPES if mime in result["types"]])
        return False

    def on_active(*_):
        if window.is_active() and not state["begun"]:
            state["begun"] = True
            GLib.timeout_add(400, begin)  # GdkClipboard learns the offer just after the focus
    window.connect("notify::is-active", on_active)
    GLib.timeout_add(15000, lambda: (print(json.dumps({"error": "never active"}), flush=True), loop.quit()))
    window.present()
    loop.run()
    return 0


# MARK: - The session side

class Lines:
    """Reads a process's output line by line on a thread, each line with its monotonic arrival time."""

    def __init__(self, stream):
        self.lines: list[tuple[float, str]] = []
        self.condition = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for raw in iter(stream.readline, b""):
            now = time.monotonic()
            with self.condition:
                self.lines.append((now, raw.decode("utf-8", "replace").rstrip("\n")))
                self.condition.notify_all()

    def wait(self, predicate, timeout: float):
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                found = next((line for line in self.lines if predicate(line[1])), None)
                if found or time.monotonic() >= deadline:
                    return found
                self.condition.wait(max(0.001, deadline - time.monotonic()))


def pump(seconds: float, until=None):
    """Runs the default GLib main context (D-Bus signals arrive there) for `seconds` or until until() is truthy."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        while context.pending():
            context.iteration(False)
        if until is not None and until():
            return True
        time.sleep(0.002)
    return False


class Bench:
    def __init__(self, session, workdir: str):
        self.session = session
        self.env = dict(session.env, GDK_BACKEND="wayland", GSK_RENDERER="cairo")
        self.workdir = workdir
        self.processes: list[subprocess.Popen] = []
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        self.bus = Gio.DBusConnection.new_for_address_sync(session.env["DBUS_SESSION_BUS_ADDRESS"], flags, None, None)

    def start(self, argv: list[str], name: str, stdout=subprocess.DEVNULL, env=None) -> subprocess.Popen:
        log_file = open(os.path.join(self.workdir, f"{name}.log"), "ab")
        process = subprocess.Popen(argv, env=env or self.env, stdin=subprocess.DEVNULL,
                                   stdout=log_file if stdout == "log" else stdout,
                                   stderr=log_file, start_new_session=True)
        log_file.close()
        self.processes.append(process)
        return process

    @staticmethod
    def stop(process: subprocess.Popen) -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(3)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self) -> None:
        for process in reversed(self.processes):
            self.stop(process)

    def call(self, name: str, path: str, interface: str, method: str, args=None, reply: str | None = None,
             timeout_ms: int = 10000):
        result = self.bus.call_sync(name, path, interface, method, args, GLib.VariantType(reply) if reply else None,
                                    Gio.DBusCallFlags.NONE, timeout_ms, None)
        return result.unpack() if result is not None else None

    def gsettings(self, schema: str, key: str, value: str) -> None:
        done = subprocess.run(["gsettings", "set", schema, key, value], env=self.env, capture_output=True, timeout=20)
        if done.returncode != 0:
            raise SystemExit(f"gsettings set {schema} {key} failed: {done.stderr.decode(errors='replace')}")

    def set_extensions(self, uuids: list[str]) -> None:
        self.gsettings("org.gnome.shell", "enabled-extensions", repr(uuids))

    def extension_state(self, uuid: str) -> tuple[float, str]:
        info = self.call("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions", "GetExtensionInfo",
                         GLib.Variant("(s)", (uuid,)), "(a{sv})")[0]
        return info.get("state", -1), info.get("error", "")

    def copy(self, rate: float, count: int, prefix: str, keep: bool = False):
        """Runs the copier; returns {index: monotonic time of its set_content}, and the still running copier when
        `keep` (killed otherwise, once its copies are done)."""
        copier = self.start(["/usr/bin/python3", os.path.abspath(__file__), "copier", "--rate", str(rate),
                             "--count", str(count), "--prefix", prefix], f"copier-{prefix}", stdout=subprocess.PIPE)
        lines = Lines(copier.stdout)
        seen = lambda wanted: lambda: any(line == wanted for _, line in list(lines.lines))  # noqa: E731
        if not pump(20, seen("active")):
            self.stop(copier)
            raise SystemExit(f"the copier window never became active: see {self.workdir}/copier-{prefix}.log")
        if not pump(count / rate + 30, seen("done")):
            self.stop(copier)
            raise SystemExit("the copier did not finish its copies")
        pump(1.5)  # the managers' late captures (signals are handled while pumping)
        with lines.condition:
            times = {int(line.split()[1]): float(line.split()[2]) for _, line in lines.lines if line.startswith("copy ")}
        if not keep:
            self.stop(copier)
            return times, None
        return times, copier

    def read_clipboard(self) -> dict:
        reader = self.start(["/usr/bin/python3", os.path.abspath(__file__), "reader"], "reader", stdout=subprocess.PIPE)
        try:
            out, _ = reader.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.stop(reader)
            return {"error": "reader timed out"}
        lines = [line for line in out.decode().splitlines() if line.startswith("{")]
        return json.loads(lines[-1]) if lines else {"error": "reader printed nothing"}


def kept_types(read: dict, expected: dict[str, bytes]) -> list[str]:
    """Which of text, HTML and PNG the clipboard offered byte-exact."""
    data = read.get("data", {})
    return [SHORT[mime] for mime in TYPES if mime in data and base64.b64decode(data[mime]) == expected[mime]]


def offered(read: dict) -> str:
    if "error" in read:
        return read["error"]
    types = [SHORT.get(mime) for mime in TYPES if mime in read.get("types", [])]
    return " + ".join(types) if types else "nothing"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))]


# MARK: - The managers

class GPaste:
    name = "GPaste 43.1"
    # gpaste-daemon is a GTK 3 X11 client: its one display connection is to Xwayland (checked with `ss -xp`)
    backend = "gpaste-daemon, an X11 client of Xwayland"

    def __init__(self, bench: Bench):
        self.bench = bench
        self.events: list[tuple[float, str]] = []
        self.pid = None

    def start(self) -> None:
        bench = self.bench
        bench.gsettings("org.gnome.GPaste", "images-support", "true")
        bench.gsettings("org.gnome.GPaste", "max-history-size", "1000")
        began = time.monotonic()
        # D-Bus activation starts the daemon with the bus's activation environment, which was set before mutter
        # started Xwayland: without DISPLAY and WAYLAND_DISPLAY gpaste-daemon exits with status 1 at once.
        bench.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                   "UpdateActivationEnvironment",
                   GLib.Variant("(a{ss})", ({key: bench.env[key] for key in ("DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY")},)))
        bench.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "StartServiceByName",
                   GLib.Variant("(su)", (GPASTE_NAME, 0)), "(u)")
        self.pid = bench.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "GetConnectionUnixProcessID", GLib.Variant("(s)", (GPASTE_NAME,)), "(u)")[0]
        version = bench.call(GPASTE_NAME, GPASTE_PATH, "org.freedesktop.DBus.Properties", "Get",
                             GLib.Variant("(ss)", (GPASTE_INTERFACE, "Version")), "(v)")[0]
        log(f"gpaste-daemon {version} up (pid {self.pid}) {time.monotonic() - began:.2f} s after activation")
        bench.set_extensions(bench.base_extensions + [GPASTE_UUID])
        if not pump(10, lambda: bench.extension_state(GPASTE_UUID)[0] == 1):
            raise SystemExit(f"the GPaste extension is not enabled: {bench.extension_state(GPASTE_UUID)}")
        bench.bus.signal_subscribe(None, GPASTE_INTERFACE, "Update", GPASTE_PATH, None,
                                   Gio.DBusSignalFlags.NONE, self.on_update)
        self.history()  # warm

    def history(self) -> list[tuple[str, str]]:
        return self.bench.call(GPASTE_NAME, GPASTE_PATH, GPASTE_INTERFACE, "GetRawHistory", None, "(a(ss))")[0]

    def on_update(self, *_):
        """An Update: the newest item, with the time the signal arrived (at 5 copies/s nothing newer comes before
        this call is answered)."""
        now = time.monotonic()
        try:
            _, value = self.bench.call(GPASTE_NAME, GPASTE_PATH, GPASTE_INTERFACE, "GetElementAtIndex",
                                       GLib.Variant("(t)", (0,)), "(ss)")
            self.events.append((now, value))
        except GLib.Error:
            pass

    def texts(self) -> dict[str, str]:
        """{text shown for an item: its uuid} over the whole history."""
        return {value: uuid for uuid, value in self.history()}

    def count(self) -> int:
        return len(self.history())

    def kinds(self, prefix: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        for uuid, value in self.history():
            if prefix not in value:
                continue
            kind = self.bench.call(GPASTE_NAME, GPASTE_PATH, GPASTE_INTERFACE, "GetElementKind",
                                   GLib.Variant("(s)", (uuid,)), "(s)")[0]
            counts[kind] = counts.get(kind, 0) + 1
        return counts

    def select(self, key: str) -> None:
        self.bench.call(GPASTE_NAME, GPASTE_PATH, GPASTE_INTERFACE, "Select", GLib.Variant("(s)", (key,)))

    def source(self, key: str) -> str:
        return "not recorded (GPaste's history has no source field)"

    def stop(self) -> None:
        bench = self.bench
        bench.set_extensions(bench.base_extensions)
        pump(5, lambda: bench.extension_state(GPASTE_UUID)[0] != 1)
        if self.pid:
            try:
                os.kill(self.pid, 15)
            except ProcessLookupError:
                pass


class Pb:
    name = "pb"

    def __init__(self, bench: Bench, binary: str):
        self.bench = bench
        self.binary = os.path.abspath(binary)
        self.events: list[tuple[float, str]] = []
        self.env = dict(bench.env)
        self.env["PB_RUNTIME_DIR"] = os.path.join(bench.env["XDG_RUNTIME_DIR"], "pb")
        os.makedirs(self.env["PB_RUNTIME_DIR"], mode=0o700, exist_ok=True)

    def start(self) -> None:
        bench = self.bench
        self.daemon = bench.start([self.binary, "daemon"], "pb-daemon", stdout="log", env=self.env)
        socket = os.path.join(self.env["PB_RUNTIME_DIR"], "control.sock")
        if not pump(15, lambda: os.path.exists(socket) or self.daemon.poll() is not None) or self.daemon.poll() is not None:
            raise SystemExit(f"pb daemon did not start: see {bench.workdir}/pb-daemon.log")
        self.watch = bench.start([self.binary, "watch"], "pb-watch", stdout=subprocess.PIPE, env=self.env)
        self.lines = Lines(self.watch.stdout)
        pump(0.5)
        with open(os.path.join(bench.workdir, "pb-daemon.log"), "rb") as file:
            first = file.read().decode(errors="replace").strip().splitlines()
        self.backend = re.sub(r",? pid \d+", "", first[0]) if first else "(no start line)"
        log(f"pb daemon up: {self.backend}")

    def history_json(self) -> list[dict]:
        done = subprocess.run([self.binary, "history", "--json", "--limit", "100000"], env=self.env,
                              capture_output=True, check=True, timeout=30)
        return json.loads(done.stdout)

    def refresh(self) -> None:
        """The captured events so far, as (arrival, text of the item)."""
        with self.lines.condition:
            captured = [(at, json.loads(line)) for at, line in self.lines.lines if '"captured"' in line]
        previews = {item["id"]: item["preview"] for item in self.history_json()}
        self.events = [(at, previews.get(event.get("id"), "")) for at, event in captured]

    def texts(self) -> dict[str, int]:
        return {item["preview"]: item["id"] for item in self.history_json()}

    def count(self) -> int:
        return len(self.history_json())

    def item(self, key: int) -> dict:
        return next((item for item in self.history_json() if item["id"] == key), {})

    def kinds(self, prefix: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.history_json():
            if prefix in item["preview"]:
                types = "+".join(sorted(PB_SHORT.get(name, name) for name in item["types"]))
                counts[types] = counts.get(types, 0) + 1
        return counts

    def select(self, key: int) -> None:
        subprocess.run([self.binary, "restore", str(key)], env=self.env, capture_output=True, check=True, timeout=30)

    def source(self, key: int) -> str:
        return self.item(key).get("source") or "none"

    def stop(self) -> None:
        self.bench.stop(self.watch)
        self.bench.stop(self.daemon)


# MARK: - The measurement

def measure(bench: Bench, manager, args) -> dict:
    result: dict = {"backend": manager.backend}
    tag = "gp" if isinstance(manager, GPaste) else "pb"
    prefix = f"{tag}-latency"
    log(f"{manager.name}: latency, {args.latency_copies} copies at 5/s")
    times, copier = bench.copy(5, args.latency_copies, prefix, keep=True)
    if isinstance(manager, Pb):
        manager.refresh()
    first: dict[str, float] = {}
    for at, text in manager.events:
        first.setdefault(text, at)
    latencies = [(first[text_of(prefix, index)] - at) * 1000 for index, at in times.items()
                 if text_of(prefix, index) in first]
    result["latency"] = (statistics.median(latencies), percentile(latencies, 0.9), max(latencies), len(latencies),
                         len(times)) if latencies else None
    last = args.latency_copies - 1
    count_before = manager.count()
    result["stored_types"] = manager.kinds(prefix)

    log(f"{manager.name}: the window exits")
    bench.stop(copier)
    pump(2)
    after_exit = bench.read_clipboard()
    result["after_exit"] = offered(after_exit)
    result["after_exit_kept"] = kept_types(after_exit, content_of(prefix, last))
    texts_after = manager.texts()
    result["new_items_on_exit"] = manager.count() - count_before

    key = texts_after.get(text_of(prefix, last))
    if key is None:
        result["kept"], result["source"] = None, "item not found"
    else:
        manager.select(key)
        pump(1)
        read = bench.read_clipboard()
        result["restore_offers"] = offered(read)
        result["kept"] = kept_types(read, content_of(prefix, last))
        result["source"] = manager.source(key)

    for rate in args.rates:
        prefix = f"{tag}-rate{rate}"
        log(f"{manager.name}: {args.copies} copies at {rate}/s")
        times, _ = bench.copy(rate, args.copies, prefix)
        span = max(times.values()) - min(times.values()) if len(times) > 1 else 0
        achieved = (len(times) - 1) / span if span > 0 else float(rate)
        texts = manager.texts()
        got = sum(1 for index in times if text_of(prefix, index) in texts)
        result[f"rate{rate}"] = (got, len(times), achieved)
        log(f"  {got}/{len(times)} captured (rate achieved {achieved:.1f}/s)")
    return result


def table(results: dict, args) -> str:
    names = list(results)
    out = [f"| GNOME Shell 43.9 headless, one session; {args.copies} copies per rate | " + " | ".join(names) + " |",
           "|---|" + "---|" * len(names)]

    def row(label, cell):
        out.append(f"| {label} | " + " | ".join(cell(results[name]) for name in names) + " |")

    def latency(r, which):
        if not r["latency"]:
            return "none seen"
        return f"{r['latency'][which]:.0f} ms"
    row("what sees the copies (pb: its daemon's start line)", lambda r: r["backend"])
    row(f"latency copy → in history, p50 (seen of {args.latency_copies}, at 5/s)",
        lambda r: f"{latency(r, 0)} ({r['latency'][3] if r['latency'] else 0}/{args.latency_copies})")
    row("latency, p90 / max", lambda r: f"{latency(r, 1)} / {latency(r, 2)}")
    for rate in args.rates:
        row(f"copies captured at {rate}/s (rate achieved)",
            lambda r, rate=rate: "{}/{} ({:.0f}/s)".format(*r[f"rate{rate}"]))
    row("what the history stores per text + HTML + PNG copy (items)", lambda r: ", ".join(f"{k} {v}" for k, v in r["stored_types"].items()) or "none")
    row("types the restored item offers byte-exact (of text, html, png)",
        lambda r: " + ".join(r["kept"]) if r["kept"] else "none")
    row(f"source application recorded (the copier is {COPIER_ID})", lambda r: r["source"])
    row("clipboard after the copying window exits", lambda r: r["after_exit"])
    row("items added when the window exits", lambda r: str(r["new_items_on_exit"]))
    return "\n".join(out)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "copier":
        return copier_main(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "reader":
        return reader_main(sys.argv[2:])
    default_pb = next((path for path in (os.path.join(ROOT, ".build", "debug", "pb"),
                                         os.path.join(ROOT, ".build", "release", "pb")) if os.path.exists(path)),
                      os.path.join(ROOT, ".build", "debug", "pb"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb", default=default_pb, help="the pb binary (default: %(default)s)")
    parser.add_argument("--pb-extension", default=os.path.join(ROOT, "contrib", "gnome-shell", "pasteboard@pasteboard.org"),
                        help="pb's Shell extension directory to install and enable ('' for none)")
    parser.add_argument("--copies", type=int, default=100, help="copies at each rate")
    parser.add_argument("--rates", default="20,50")
    parser.add_argument("--latency-copies", type=int, default=30)
    parser.add_argument("--managers", default="gpaste,pb", help="which, in this order")
    parser.add_argument("--markdown", help="also write the table to this file (not under /tmp: the session has a /tmp of its own)")
    parser.add_argument("--workdir", help="keep the session's files and logs here")
    args = parser.parse_args()
    args.rates = [int(rate) for rate in args.rates.split(",")]
    managers = args.managers.split(",")
    import gnome
    from harness import SetupError
    if "gpaste" in managers and (shutil.which("gpaste-client") is None
                                 or not os.path.isdir(f"/usr/share/gnome-shell/extensions/{GPASTE_UUID}")):
        raise SystemExit("GPaste is needed: apt-get install -y gpaste-2 gnome-shell-extension-gpaste")
    if "pb" in managers and not os.access(args.pb, os.X_OK):
        raise SystemExit(f"no pb binary at {args.pb}: swift build --product pb, or pass --pb PATH")
    markdown = os.path.abspath(args.markdown) if args.markdown else None
    gnome.enter_namespace(args.workdir)
    workdir = args.workdir or tempfile.mkdtemp(prefix="pb-gnome-bench-")
    extensions = [args.pb_extension] if args.pb_extension else []
    session = gnome.GnomeSession(workdir, extensions)
    results = {}
    try:
        with session:
            log(f"gnome-shell ready after {session.ready_after:.2f} s; DISPLAY={session.env['DISPLAY']}")
            applications = os.path.join(session.env["XDG_DATA_HOME"], "applications")
            os.makedirs(applications, exist_ok=True)
            with open(os.path.join(applications, COPIER_ID + ".desktop"), "w") as file:
                file.write("[Desktop Entry]\nType=Application\nName=Bench copier\nExec=/usr/bin/true\n")
            bench = Bench(session, workdir)
            bench.base_extensions = ["pasteboard-test@pasteboard.org"] + [os.path.basename(e.rstrip("/")) for e in extensions]
            try:
                for name in managers:
                    manager = GPaste(bench) if name == "gpaste" else Pb(bench, args.pb)
                    manager.start()
                    try:
                        results[manager.name] = measure(bench, manager, args)
                    finally:
                        manager.stop()
                        pump(1)
            finally:
                bench.close()
    except SetupError as error:
        raise SystemExit(f"gnome_bench: {error}")
    text = table(results, args)
    print("\n" + text)
    print("\nraw:", json.dumps(results))
    if markdown:
        with open(markdown, "w") as file:
            file.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
