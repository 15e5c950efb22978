"""The Wayland desktops of the fidelity suite: headless sway 1.7 (SwayDesktop) and headless KWin 5.27 (KWinDesktop).

Both run as a private compositor with no outputs to see and no input devices, on a socket that root's clients reach
by its full path (WAYLAND_DISPLAY is that path), with a private session bus. Applications run unchanged on either:
the drivers only call key(), type_text(), focus() and wait_window().

How each desktop is driven (what was tried, and what works):

- sway refuses to run as root ("Unable to drop root"): as root it runs as the unprivileged user `pbsway` (created
  when missing), with WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 and a runtime directory
  of its own. Keys: zwp_virtual_keyboard_v1, spoken by VirtualKeyboard below: one keyboard with one US keymap for
  the desktop's whole life (a seat without a keyboard gives no window the keyboard focus). `wtype` was tried
  first and is not used: each wtype process is a new keyboard with a keymap of its own, and the switch to it
  closes an open context menu (Firefox's Copy Image and Copy Link, opened with shift+F10, never copied), and in
  two runs of four an address typed into Firefox's location bar did not arrive whole.
  Focus and windows: `swaymsg` over the IPC socket (`[con_id=N] focus`, `-t get_tree`).

- KWin 5.27 offers no zwp_virtual_keyboard_v1 at all. Its own privileged protocols (org_kde_kwin_fake_input,
  org_kde_plasma_window_management ...) are offered only to a client whose executable (/proc/PID/exe) is the
  Exec= of an installed .desktop file that lists them in X-KDE-Wayland-Interfaces (found through KDE's service
  cache, ksycoca; when several files match, any one of them). So KWin runs with a private XDG_DATA_DIRS whose
  first entry holds such a file for this Python interpreter, listing org_kde_kwin_fake_input alone, plus one of
  the same name for each installed file with the same Exec= (Debian's python3.11.desktop, which would otherwise
  win half the time), and with a private XDG_CACHE_HOME, so that the cache is built afresh at start.
  KWIN_WAYLAND_NO_PERMISSION_CHECKS=1 offers the protocol too, but then KWin checksums the executable of every
  client that connects (SHA-256 of the file and of /proc/PID/exe, on its main thread): Chromium's 300 MB binary,
  once per connection, froze KWin for 3-4 s each time and delayed Chromium's window by about 10 s.
  Keys: org_kde_kwin_fake_input version 4 (`authenticate`, then `keyboard_key` with Linux evdev key codes, which
  KWin maps through its own keymap, US by default), spoken by FakeKeyboard below. The connection stays open for
  the desktop's life: it is the seat's keyboard, and without it no window has the keyboard focus.
  Focus and windows: a KWin script loaded over D-Bus (org.kde.kwin.Scripting.loadScript, then
  org.kde.kwin.Script.run on /<id>) sets `workspace.activeClient`; the script prints its answer, which arrives in
  KWin's log (category js). The packaged kwin_wayland carries file capabilities (cap_sys_resource) and exec of it
  fails with EPERM in a container: a plain copy (no extended attributes) runs.

XWayland, for the applications that have no Wayland backend here (LibreOffice without its GTK 3 plugin, PCManFM
on GTK 2), as a user on sway or KDE runs them: xwayland_env() gives their DISPLAY. sway starts it with
`xwayland force`; its XWayland lets in only sway's user, so a script run by sway adds root's clients
(`xhost +si:localuser:root`) and then writes the display's name where this module reads it. KWin starts it with
`--xwayland` and lets its own user in (root here, as the suite); the display is the `:N` argument of KWin's Xwayland
child. The same keyboards and focus paths reach an XWayland window (no xdotool is needed). Both compositors hand an
X11 window's copy on to the Wayland clipboard while an X11 window has the focus, and pb reads it there. KWin 5.27's
bridge differs from wlroots' in two ways the suite meets: a type the X11 owner refuses is answered only when KWin's
transfer timer ends it (after 0.4 to 10 s, with no bytes; wlroots closes the pipe at once), and when the X11 owner
exits its offer stays the Wayland selection, every read of it hanging (wlroots clears the selection). KWin's choice
of a display number also removes the socket file of an X server that holds that number without a lock file
(Xvfb -displayfd, as x11.py runs it): clients still reach that server by its abstract socket, but do not run the
X11 and KWin desktops at once.

Both keyboards speak the raw Wayland wire (WireConnection: no Wayland binding for Python is needed) and send
evdev key codes through a US keymap, so key() takes X keysym names that EVDEV lists, and type_text() types what a
US keyboard types (ASCII), on both desktops alike.

Readers: the type list comes from a data-control client of our own (DataControl below, zwlr_data_control_v1 over
the raw wire), because on KWin `wl-paste -l` waits forever on an empty clipboard (KWin sends no selection event to
a new data-control device when nothing is selected; DataControl takes "nothing by the end of a round trip" as
empty, which makes an empty clipboard as quick to see as a full one on both compositors). The bytes come from
`wl-paste -n -t TYPE`, as any reader gets them. DataControl.watch() also records when the selection changes, with
timestamps: the tool used to measure how long an application's own replacement leaves the clipboard empty.

Debian packages: sway wl-clipboard kwin-wayland dbus passwd (useradd) util-linux (runuser), xwayland and
x11-xserver-utils (xhost), and python3 (the standard library only).
"""

from __future__ import annotations

import array
import json
import os
import pwd
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import uuid

from harness import Desktop, SetupError, kill_group, require_tool, run, wait_until

# MARK: - The Wayland wire

def wire_string(text: str) -> bytes:
    encoded = text.encode("utf-8") + b"\0"
    return struct.pack("<I", len(encoded)) + encoded + b"\0" * (-len(encoded) % 4)


class WireError(Exception):
    pass


class WireConnection:
    """A minimal Wayland client connection: requests are packed by hand, events are parsed by the caller from
    (object, opcode, body) triples. Enough for a registry, a few globals and file descriptors sent along."""

    def __init__(self, path: str, timeout: float = 5):
        self.path = path
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(timeout)
        try:
            self.socket.connect(path)
        except OSError as error:
            self.socket.close()
            raise WireError(f"cannot connect to the Wayland socket {path}: {error.strerror}") from error
        self.next_id = 2
        self.buffer = b""
        self.globals: dict[str, tuple[int, int]] = {}
        self.registry = self.new_id()
        self.request(1, 1, struct.pack("<I", self.registry))  # wl_display.get_registry
        self.roundtrip(self._registry_event)

    def close(self) -> None:
        try:
            self.socket.close()
        except OSError:
            pass

    def new_id(self) -> int:
        value = self.next_id
        self.next_id += 1
        return value

    def request(self, obj: int, opcode: int, payload: bytes = b"", fds: list[int] | None = None) -> None:
        message = struct.pack("<IHH", obj, opcode, 8 + len(payload)) + payload
        if fds:
            self.socket.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        else:
            self.socket.sendall(message)

    def bind(self, interface: str, version: int) -> int:
        """Binds the global `interface` at `version` (at most what the compositor offers); its new object id."""
        if interface not in self.globals:
            raise WireError(f"the compositor at {self.path} offers no {interface}")
        name, offered = self.globals[interface]
        obj = self.new_id()
        self.request(self.registry, 0, struct.pack("<I", name) + wire_string(interface)
                     + struct.pack("<II", min(version, offered), obj))
        return obj

    def _registry_event(self, obj: int, opcode: int, body: bytes) -> None:
        if obj == self.registry and opcode == 0:
            name, length = struct.unpack_from("<II", body)
            interface = body[8:8 + length - 1].decode()
            version, = struct.unpack_from("<I", body, 8 + length + (-length % 4))
            self.globals.setdefault(interface, (name, version))

    def roundtrip(self, handler, deadline: float | None = None) -> None:
        """Sends wl_display.sync and hands every event to handler(obj, opcode, body) until its callback is done."""
        callback = self.new_id()
        self.request(1, 0, struct.pack("<I", callback))
        deadline = deadline or time.monotonic() + 5
        while True:
            for obj, opcode, body in self.read_events(deadline):
                if obj == 1 and opcode == 0:
                    failed, code = struct.unpack_from("<II", body)
                    length, = struct.unpack_from("<I", body, 8)
                    raise WireError(f"protocol error {code} on object {failed}: "
                                    f"{body[12:12 + length - 1].decode('utf-8', 'replace')}")
                if obj == callback:
                    return
                handler(obj, opcode, body)

    def read_events(self, deadline: float):
        """The complete events available now, waiting for at least one until deadline."""
        while True:
            events = []
            while len(self.buffer) >= 8:
                obj, opcode, size = struct.unpack_from("<IHH", self.buffer)
                if size < 8 or len(self.buffer) < size:
                    break
                events.append((obj, opcode, self.buffer[8:size]))
                self.buffer = self.buffer[size:]
            if events:
                return events
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WireError(f"the compositor at {self.path} did not answer in time")
            self.socket.settimeout(remaining)
            try:
                chunk = self.socket.recv(65536)
            except socket.timeout as error:
                raise WireError(f"the compositor at {self.path} did not answer in time") from error
            if not chunk:
                raise WireError(f"the compositor at {self.path} closed the connection")
            self.buffer += chunk


# MARK: - Data control: the type list, and selection timing


class DataControl:
    """A zwlr_data_control_manager_v1 client: lists what the clipboard offers, and watches it change."""

    def __init__(self, path: str, timeout: float = 5):
        self.connection = WireConnection(path, timeout)
        try:
            self.seat = self.connection.bind("wl_seat", 1)
            self.manager = self.connection.bind("zwlr_data_control_manager_v1", 1)
            self.device = self.connection.new_id()
            self.connection.request(self.manager, 1, struct.pack("<II", self.device, self.seat))
        except WireError:
            self.connection.close()
            raise
        self.offers: dict[int, list[str]] = {}
        self.selection: int | None = None   # the current offer; 0: empty
        self.generation = 0                 # counts selection events: a new one for every new owner
        self.events: list[tuple[float, list[str] | None]] = []

    def close(self) -> None:
        self.connection.close()

    def _event(self, obj: int, opcode: int, body: bytes) -> None:
        if obj == self.device and opcode == 0:              # data_offer(new_id)
            offer, = struct.unpack_from("<I", body)
            self.offers[offer] = []
        elif obj in self.offers and opcode == 0:            # offer.offer(mime_type)
            length, = struct.unpack_from("<I", body)
            self.offers[obj].append(body[4:4 + length - 1].decode("utf-8", "replace"))
        elif obj == self.device and opcode == 1:            # selection(offer or null)
            offer, = struct.unpack_from("<I", body)
            previous = self.selection
            self.selection = offer
            self.generation += 1
            if previous and previous != offer and previous in self.offers:
                self.connection.request(previous, 1)        # offer.destroy
                del self.offers[previous]
            self.events.append((time.time(), list(self.offers.get(offer, [])) if offer else None))
        elif obj == self.device and opcode == 2:            # finished
            raise WireError("the data-control device was cancelled by the compositor")

    def clear(self, timeout: float = 5) -> None:
        """Empties the clipboard (set_selection with no source, which data-control allows any client)."""
        self.connection.request(self.device, 0, struct.pack("<I", 0))  # set_selection(null)
        self.connection.roundtrip(self._event, time.monotonic() + timeout)

    def types(self, timeout: float = 5) -> list[str] | None:
        """The clipboard's type names after one round trip; None when nothing is selected (wlroots says so with a
        null selection, KWin by saying nothing)."""
        self.connection.roundtrip(self._event, time.monotonic() + timeout)
        if not self.selection:
            return None
        return list(self.offers.get(self.selection, [])) or None

    def watch(self, seconds: float) -> list[tuple[float, list[str] | None]]:
        """Records every selection event for `seconds`: (wall-clock time, type names or None when empty)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                for event in self.connection.read_events(deadline):
                    self._event(*event)
            except WireError as error:
                if "in time" in str(error):
                    break
                raise
        return self.events


# MARK: - Keys

# Linux evdev key codes (linux/input-event-codes.h) of a US keyboard, by X keysym name.
EVDEV = {
    "Escape": 1, "minus": 12, "equal": 13, "BackSpace": 14, "Tab": 15, "bracketleft": 26, "bracketright": 27,
    "Return": 28, "semicolon": 39, "apostrophe": 40, "grave": 41, "backslash": 43, "comma": 51, "period": 52,
    "slash": 53, "space": 57, "Home": 102, "Up": 103, "Page_Up": 104, "Prior": 104, "Left": 105, "Right": 106,
    "End": 107, "Down": 108, "Page_Down": 109, "Next": 109, "Insert": 110, "Delete": 111, "Menu": 127,
    "F11": 87, "F12": 88,
}
for _index, _letter in enumerate("qwertyuiop"):
    EVDEV[_letter] = 16 + _index
for _index, _letter in enumerate("asdfghjkl"):
    EVDEV[_letter] = 30 + _index
for _index, _letter in enumerate("zxcvbnm"):
    EVDEV[_letter] = 44 + _index
for _index, _digit in enumerate("1234567890"):
    EVDEV[_digit] = 2 + _index
for _index in range(10):
    EVDEV[f"F{_index + 1}"] = 59 + _index

MODIFIERS = {"ctrl": ("ctrl", 29), "control": ("ctrl", 29), "shift": ("shift", 42), "alt": ("alt", 56),
             "super": ("logo", 125), "logo": ("logo", 125), "win": ("logo", 125), "meta": ("logo", 125)}

# Characters a US keyboard types, as (keysym name of the key, with shift).
US_CHARACTERS = {" ": ("space", False), "\n": ("Return", False), "\t": ("Tab", False)}
for _plain, _name in (("-", "minus"), ("=", "equal"), ("[", "bracketleft"), ("]", "bracketright"),
                      (";", "semicolon"), ("'", "apostrophe"), ("`", "grave"), ("\\", "backslash"),
                      (",", "comma"), (".", "period"), ("/", "slash")):
    US_CHARACTERS[_plain] = (_name, False)
for _shifted, _name in zip('_+{}:"~|<>?', ["minus", "equal", "bracketleft", "bracketright", "semicolon",
                                          "apostrophe", "grave", "backslash", "comma", "period", "slash"]):
    US_CHARACTERS[_shifted] = (_name, True)
for _shifted, _digit in zip("!@#$%^&*()", "1234567890"):
    US_CHARACTERS[_shifted] = (_digit, True)
for _letter in "abcdefghijklmnopqrstuvwxyz":
    US_CHARACTERS[_letter] = (_letter, False)
    US_CHARACTERS[_letter.upper()] = (_letter, True)
for _digit in "1234567890":
    US_CHARACTERS[_digit] = (_digit, False)


def parse_chord(chord: str) -> tuple[list[str], str]:
    """("ctrl+shift+v") -> (["ctrl", "shift"], "v"): modifier names (lower case), then the key's keysym name."""
    parts = chord.split("+")
    if len(parts) > 1 and parts[-1] == "" and parts[-2] == "":
        parts = parts[:-2] + ["plus"]
    *modifiers, key = parts
    for modifier in modifiers:
        if modifier.lower() not in MODIFIERS:
            raise SetupError(f"unknown modifier '{modifier}' in the key chord '{chord}'")
    if not key:
        raise SetupError(f"no key in the key chord '{chord}'")
    return [modifier.lower() for modifier in modifiers], key


class Keyboard:
    """A keyboard of our own on the compositor's seat, for as long as its connection stays open: it types Linux
    evdev key codes, which the compositor maps through a US keymap."""

    # The modifier masks of a keymap built from xkeyboard-config's "complete" compat (real modifiers in X order).
    MASKS = {42: 0x1, 29: 0x4, 56: 0x8, 125: 0x40}   # Shift, Control, Mod1 (Alt), Mod4 (Super)

    connection: WireConnection

    def close(self) -> None:
        self.connection.close()

    def sync(self) -> None:
        """Returns once the compositor has handled every request sent so far."""
        self.connection.roundtrip(lambda *_: None)

    def press(self, code: int, pressed: bool) -> None:
        raise NotImplementedError

    def set_modifiers(self, mask: int) -> None:
        """Tells the compositor which modifiers are down, where it does not follow the modifier keys itself."""

    def chord(self, modifiers: list[int], code: int, pause: float = 0.02) -> None:
        """Presses the modifiers in order, then the key; releases them in reverse. Returns once the compositor has
        handled them all."""
        mask = 0
        for modifier in modifiers:
            self.press(modifier, True)
            mask |= self.MASKS.get(modifier, 0)
            self.set_modifiers(mask)
            time.sleep(pause)
        self.press(code, True)
        time.sleep(pause)
        self.press(code, False)
        for modifier in reversed(modifiers):
            time.sleep(pause)
            mask &= ~self.MASKS.get(modifier, 0)
            self.set_modifiers(mask)
            self.press(modifier, False)
        self.sync()


class FakeKeyboard(Keyboard):
    """org_kde_kwin_fake_input (KWin): KWin follows the modifier keys itself, through its own keymap."""

    def __init__(self, path: str):
        self.connection = WireConnection(path)
        try:
            if "org_kde_kwin_fake_input" not in self.connection.globals:
                raise SetupError(
                    "KWin does not offer org_kde_kwin_fake_input to this client: it does only to a program whose "
                    ".desktop file (Exec= its executable) lists it in X-KDE-Wayland-Interfaces, in KWin's "
                    "XDG_DATA_DIRS (see kwin.log for 'not in X-KDE-Wayland-Interfaces')")
            name, version = self.connection.globals["org_kde_kwin_fake_input"]
            if version < 4:
                raise SetupError(f"KWin's org_kde_kwin_fake_input is version {version}; keyboard_key needs 4")
            self.device = self.connection.bind("org_kde_kwin_fake_input", 4)
            self.connection.request(self.device, 0, wire_string("pb fidelity suite")
                                    + wire_string("drives test applications by keyboard"))
            self.sync()
        except BaseException:
            self.connection.close()
            raise

    def press(self, code: int, pressed: bool) -> None:
        self.connection.request(self.device, 10, struct.pack("<II", code, 1 if pressed else 0))


# A US keymap by reference to xkeyboard-config, which the compositor's libxkbcommon resolves.
US_KEYMAP = """xkb_keymap {
    xkb_keycodes { include "evdev+aliases(qwerty)" };
    xkb_types { include "complete" };
    xkb_compat { include "complete" };
    xkb_symbols { include "pc+us+inet(evdev)" };
};
"""


class VirtualKeyboard(Keyboard):
    """zwp_virtual_keyboard_v1 (wlroots): one keyboard with one keymap for the desktop's whole life. wlroots does
    not follow a virtual keyboard's modifier keys, so the modifier state is sent along."""

    def __init__(self, path: str):
        self.connection = WireConnection(path)
        try:
            seat = self.connection.bind("wl_seat", 1)
            manager = self.connection.bind("zwp_virtual_keyboard_manager_v1", 1)
            self.device = self.connection.new_id()
            self.connection.request(manager, 0, struct.pack("<II", seat, self.device))
            keymap = US_KEYMAP.encode() + b"\0"
            descriptor = os.memfd_create("pb-fidelity-keymap")
            try:
                os.write(descriptor, keymap)
                self.connection.request(self.device, 0, struct.pack("<II", 1, len(keymap)), fds=[descriptor])
            finally:
                os.close(descriptor)
            self.started = time.monotonic()
            self.sync()
        except WireError as error:
            self.connection.close()
            raise SetupError(f"cannot put a virtual keyboard on the seat: {error}") from error
        except BaseException:
            self.connection.close()
            raise

    def press(self, code: int, pressed: bool) -> None:
        milliseconds = int((time.monotonic() - self.started) * 1000) & 0xFFFFFFFF
        self.connection.request(self.device, 1, struct.pack("<III", milliseconds, code, 1 if pressed else 0))

    def set_modifiers(self, mask: int) -> None:
        self.connection.request(self.device, 2, struct.pack("<IIII", mask, 0, 0, 0))


def grant_keyboard(applications: str, data_dirs: list[str]) -> None:
    """Writes the .desktop files by which KWin offers org_kde_kwin_fake_input to this Python interpreter into
    `applications`, a directory of the first entry of KWin's XDG_DATA_DIRS. KWin takes the first installed .desktop
    file whose Exec= is the client's executable; Debian installs python3.11.desktop with that Exec= and no grant, so
    a file of the same name here, earlier in XDG_DATA_DIRS, replaces it (and one of our own name is added)."""
    executable = os.readlink("/proc/self/exe")
    names = {"pb-fidelity-keyboard.desktop"}
    for directory in data_dirs:
        folder = os.path.join(directory, "applications")
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith(".desktop"):
                continue
            try:
                with open(os.path.join(folder, entry), encoding="utf-8", errors="replace") as file:
                    lines = file.read().splitlines()
            except OSError:
                continue
            for line in lines:
                if line.startswith("Exec="):
                    command = line[len("Exec="):].split()
                    if command and os.path.realpath(command[0]) == executable:
                        names.add(entry)
                    break
    os.makedirs(applications, exist_ok=True)
    for name in names:
        with open(os.path.join(applications, name), "w") as file:
            file.write("[Desktop Entry]\nType=Application\nName=pb fidelity suite keyboard\n"
                       f"Exec={executable}\nX-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n")


# MARK: - What both desktops share


def connectable(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1)
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


class WaylandDesktop(Desktop):
    """A headless compositor, a private session bus, wl-paste and DataControl as readers."""

    compositor = "a Wayland compositor"

    def __init__(self, width: int = 1280, height: int = 800):
        self.width = width
        self.height = height
        self.processes: list[subprocess.Popen] = []
        self.socket_path = ""
        self.workdir = ""
        self.home = ""
        self.runtime_dir = ""      # the clients' (root's) runtime directory, not the compositor's
        self.bus_address = ""
        self.private_dir = ""      # the compositor's files, removed at stop
        self.logs: list = []
        self._data_control: DataControl | None = None
        self.keyboard: Keyboard | None = None
        self.x11_display: str | None = None
        self.settled: set[int] = set()   # processes whose windows had the focus once (see _settle)

    def _prepare(self, workdir: str) -> None:
        self.workdir = workdir
        self.home = os.path.join(workdir, "home")
        self.runtime_dir = os.path.join(workdir, "xdg-runtime")
        os.makedirs(self.home, exist_ok=True)
        os.makedirs(self.runtime_dir, mode=0o700, exist_ok=True)
        os.chmod(self.runtime_dir, 0o700)
        # Outside the work directory, whose parents an unprivileged compositor may not be allowed to enter.
        self.private_dir = tempfile.mkdtemp(prefix=f"pb-{self.name}-")
        os.chmod(self.private_dir, 0o755)

    def _log(self, name: str):
        log = open(os.path.join(self.workdir, name), "ab")
        self.logs.append(log)
        return log

    def _start_bus(self) -> None:
        address = "unix:path=" + os.path.join(self.private_dir, "bus")
        process = subprocess.Popen(["dbus-daemon", "--session", "--nofork", f"--address={address}"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=self._log(f"{self.name}-dbus.log"), start_new_session=True)
        self.processes.append(process)
        if not wait_until(lambda: process.poll() is not None or connectable(address[len("unix:path="):]), 10):
            raise SetupError("dbus-daemon --session did not accept connections within 10 s")
        if process.poll() is not None:
            raise SetupError(f"dbus-daemon --session exited at start (see {self.name}-dbus.log)")
        self.bus_address = address

    def _wait_socket(self, directory: str, process: subprocess.Popen, timeout: float, log_name: str) -> str:
        def found():
            if process.poll() is not None:
                raise SetupError(f"{self.compositor} exited at start: {self.log_tail(log_name)}")
            for name in sorted(os.listdir(directory)):
                path = os.path.join(directory, name)
                if name.startswith("wayland-") and not name.endswith(".lock") and connectable(path):
                    return path
            return None

        path = wait_until(found, timeout, interval=0.05)
        if path is None:
            raise SetupError(f"{self.compositor} did not accept Wayland clients within {timeout:.0f} s: "
                             f"{self.log_tail(log_name)}")
        return path

    def log_tail(self, name: str, lines: int = 15) -> str:
        try:
            with open(os.path.join(self.workdir, name), "rb") as file:
                return b"\n".join(file.read().splitlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self._data_control is not None:
            self._data_control.close()
            self._data_control = None
        self._stop_keyboard()
        for process in reversed(self.processes):
            kill_group(process)
        self.processes = []
        for log in self.logs:
            log.close()
        self.logs = []
        if self.private_dir:
            shutil.rmtree(self.private_dir, ignore_errors=True)
            self.private_dir = ""
        self.x11_display = None

    # MARK: Environments

    def client_env(self) -> dict[str, str]:
        if not self.socket_path:
            raise SetupError(f"the {self.name} desktop is not started")
        return {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": self.home,
            "LANG": "C.UTF-8",
            "WAYLAND_DISPLAY": self.socket_path,
            "XDG_RUNTIME_DIR": self.runtime_dir,
            "XDG_SESSION_TYPE": "wayland",
            "DBUS_SESSION_BUS_ADDRESS": self.bus_address,
            "GDK_BACKEND": "wayland",
            "GSK_RENDERER": "cairo",
            "QT_QPA_PLATFORM": "wayland",
            "MOZ_ENABLE_WAYLAND": "1",
            "NO_AT_BRIDGE": "1",
            "SAL_USE_VCLPLUGIN": "gtk3",
        }

    def pb_env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": self.home,
            "LANG": "C.UTF-8",
            "WAYLAND_DISPLAY": self.socket_path,
            "XDG_RUNTIME_DIR": self.runtime_dir,
        }

    def pb_backend(self) -> str | None:
        return "wayland"

    def _find_x11_display(self) -> str | None:
        """The XWayland display (":N") once root's clients may use it; None while it is not ready."""
        raise NotImplementedError

    def xwayland_env(self) -> dict[str, str] | None:
        """DISPLAY of the compositor's XWayland, and GDK and Qt on X11 (WAYLAND_DISPLAY stays, as in a user's
        session): the compositor hands an X11 window's copies on to the Wayland clipboard (sway only while an
        X11 window has the focus)."""
        if self.x11_display is None:
            display = wait_until(self._find_x11_display, 15, interval=0.05)
            if display is None:
                raise SetupError(f"the XWayland of {self.compositor} did not accept root's X11 clients within 15 s")
            self.x11_display = display
        return {"DISPLAY": self.x11_display, "GDK_BACKEND": "x11", "QT_QPA_PLATFORM": "xcb"}

    # MARK: Readers

    def data_control(self) -> DataControl:
        """The desktop's own data-control client, connected on first use."""
        if self._data_control is None:
            try:
                self._data_control = DataControl(self.socket_path)
            except WireError as error:
                raise SetupError(f"cannot read the {self.name} clipboard: {error}") from error
        return self._data_control

    def list_types(self, timeout: float = 3) -> list[str] | None:
        try:
            types = self.data_control().types(timeout)
        except WireError:
            if self._data_control is not None:
                self._data_control.close()
                self._data_control = None
            return None
        if types is None:
            # An empty clipboard is confirmed by a reader of its own: under load the long-lived client was seen to
            # report empty for seconds while every new reader (a paste is one) saw the owner that took over
            # (sway, after an application exited). When they disagree, the new reader is what a user gets, and the
            # long-lived client starts afresh.
            try:
                control = DataControl(self.socket_path)
                try:
                    fresh = control.types(timeout)
                finally:
                    control.close()
            except WireError:
                return None
            if fresh is not None and self._data_control is not None:
                self._data_control.close()
                self._data_control = None
            return fresh
        return types

    def clear_clipboard(self) -> None:
        try:
            self.data_control().clear()
        except WireError as error:
            raise SetupError(f"cannot empty the {self.name} clipboard: {error}") from error

    def ownership_marker(self) -> bytes | None:
        """How many selection events the desktop's data-control client has seen: a new owner (an application's new
        data source, even with the same content) always sends one."""
        try:
            control = self.data_control()
            control.types(3)
            return str(control.generation).encode()
        except WireError:
            if self._data_control is not None:
                self._data_control.close()
                self._data_control = None
            return None

    def read(self, type_name: str, timeout: float = 5) -> bytes | None:
        result = run(["wl-paste", "-n", "-t", type_name], env=self.client_env(), timeout=timeout)
        if result is None or result.returncode != 0:
            return None
        return result.stdout

    def diagnose_empty(self) -> str:
        """What readers of their own see when the desktop's reader saw an empty clipboard: a new data-control
        client (and how long the compositor took to answer it), and `wl-paste --list-types`."""
        started = time.monotonic()
        try:
            control = DataControl(self.socket_path)
            try:
                fresh = control.types(3)
            finally:
                control.close()
            seen = f"a new reader sees {fresh} (the compositor answered in {time.monotonic() - started:.2f} s)"
        except WireError as error:
            seen = f"a new reader failed: {error}"
        result = run(["wl-paste", "--list-types"], env=self.client_env(), timeout=3)
        listed = "timed out" if result is None else (result.stdout or result.stderr).decode("utf-8", "replace")
        return seen + "; wl-paste --list-types: " + " ".join(listed.split())

    def watch_selection(self, seconds: float) -> list[tuple[float, list[str] | None]]:
        """Every selection change for `seconds` on a data-control device of its own: (time, types or None)."""
        control = DataControl(self.socket_path)
        try:
            control.types()
            return control.watch(seconds)
        finally:
            control.close()

    # MARK: Keyboard

    # Keys sent at once after a new window first has the focus were lost now and then: Chromium (1 copy in 6) and
    # LibreOffice on XWayland (1 in 6) had taken the window's focus, by the compositor's account, but did nothing
    # with the first Ctrl+A, Ctrl+C; after this pause, 16 of 16 landed. Paid once per application process.
    FIRST_FOCUS_SETTLE = 0.5

    def _settle(self, pid: int | None) -> None:
        """Waits FIRST_FOCUS_SETTLE the first time a window of process pid has the focus."""
        if pid and pid not in self.settled:
            self.settled.add(pid)
            time.sleep(self.FIRST_FOCUS_SETTLE)

    def _keyboard(self) -> Keyboard:
        if self.keyboard is None:
            raise SetupError(f"the {self.name} desktop is not started")
        return self.keyboard

    def _stop_keyboard(self) -> None:
        if self.keyboard is not None:
            self.keyboard.close()
            self.keyboard = None

    def key(self, chord: str) -> None:
        modifiers, key = parse_chord(chord)
        codes = [MODIFIERS[modifier][1] for modifier in modifiers]
        if len(key) == 1 and key in US_CHARACTERS:    # "A" is shift+a, "?" shift+slash
            key, shifted = US_CHARACTERS[key]
            if shifted and MODIFIERS["shift"][1] not in codes:
                codes.append(MODIFIERS["shift"][1])
        if key not in EVDEV:
            raise SetupError(f"the key '{key}' of '{chord}' has no evdev code in wayland.EVDEV (the keyboard sends "
                             "key codes through a US keymap, not key symbols)")
        try:
            self._keyboard().chord(codes, EVDEV[key])
        except (WireError, OSError) as error:
            raise SetupError(f"the {self.name} keyboard could not press {chord}: {error}") from error

    def type_text(self, text: str) -> None:
        keyboard = self._keyboard()
        for character in text:
            if character not in US_CHARACTERS:
                raise SetupError(f"cannot type {character!r} on {self.name}: the keyboard types through a US keymap")
            name, shifted = US_CHARACTERS[character]
            try:
                keyboard.chord([MODIFIERS["shift"][1]] if shifted else [], EVDEV[name], pause=0.008)
            except (WireError, OSError) as error:
                raise SetupError(f"the {self.name} keyboard could not type {text!r}: {error}") from error


# MARK: - sway


class SwayDesktop(WaylandDesktop):
    """Headless sway 1.7, as the unprivileged user `pbsway` when run as root; a virtual keyboard of our own and
    swaymsg drive it."""

    name = "sway"
    compositor = "headless sway"
    user = "pbsway"

    def __init__(self, width: int = 1280, height: int = 800):
        super().__init__(width, height)
        self.ipc_socket = ""
        self.x11_display_file = ""

    def _find_x11_display(self) -> str | None:
        try:
            with open(self.x11_display_file) as file:
                return file.read().strip() or None
        except OSError:
            return None

    def start(self, workdir: str) -> None:
        for tool, package in (("sway", "sway"), ("swaymsg", "sway"), ("wl-paste", "wl-clipboard"),
                              ("dbus-daemon", "dbus"), ("Xwayland", "xwayland"), ("xhost", "x11-xserver-utils")):
            require_tool(tool, package)
        self._prepare(workdir)
        try:
            self._start_sway()
            self._start_bus()
            self._keep_keyboard()
        except BaseException:
            self.stop()
            raise

    def _start_sway(self) -> None:
        as_root = os.geteuid() == 0
        if as_root:
            require_tool("runuser", "util-linux")
            self._create_user()
        sway_runtime = os.path.join(self.private_dir, "run")
        os.makedirs(sway_runtime, mode=0o700)
        config = os.path.join(self.private_dir, "sway.config")
        # XWayland lets in only sway's user: the script adds root's clients (xhost), then says the display.
        self.x11_display_file = os.path.join(sway_runtime, "x11-display")
        ready = os.path.join(self.private_dir, "xwayland-ready.sh")
        with open(ready, "w") as file:
            file.write("for attempt in $(seq 150); do xhost +si:localuser:root >/dev/null 2>&1 && break; "
                       "sleep 0.1; done\n"
                       f'echo "$DISPLAY" > "{self.x11_display_file}.new" && '
                       f'mv "{self.x11_display_file}.new" "{self.x11_display_file}"\n')
        os.chmod(ready, 0o644)
        with open(config, "w") as file:
            file.write("# the fidelity suite's compositor: no bar, no key bindings\n"
                       "xwayland force\n"
                       f"exec sh {ready}\n"
                       f"output HEADLESS-1 resolution {self.width}x{self.height}\n"
                       "focus_on_window_activation focus\n")
        os.chmod(config, 0o644)
        if as_root:
            account = pwd.getpwnam(self.user)
            os.chown(sway_runtime, account.pw_uid, account.pw_gid)
        environment = [f"XDG_RUNTIME_DIR={sway_runtime}", "WLR_BACKENDS=headless", "WLR_RENDERER=pixman",
                       "WLR_LIBINPUT_NO_DEVICES=1", "PATH=/usr/bin:/bin"]
        argv = (["runuser", "-u", self.user, "--"] if as_root else []) + ["env", "-i"] + environment \
            + ["sway", "-c", config]
        log = self._log("sway.log")
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        self.processes.append(process)
        self.socket_path = self._wait_socket(sway_runtime, process, 15, "sway.log")

        def ipc():
            names = [name for name in os.listdir(sway_runtime) if name.startswith("sway-ipc.")]
            return os.path.join(sway_runtime, names[0]) if names else None

        self.ipc_socket = wait_until(ipc, 5) or ""
        if not self.ipc_socket:
            raise SetupError(f"headless sway started without an IPC socket: {self.log_tail('sway.log')}")

    def _create_user(self) -> None:
        try:
            pwd.getpwnam(self.user)
            return
        except KeyError:
            pass
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        result = run([useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", self.user], timeout=30)
        try:
            pwd.getpwnam(self.user)  # another test may have created it meanwhile (useradd then exits 9)
        except KeyError:
            detail = "timed out" if result is None else result.stderr.decode("utf-8", "replace").strip()
            raise SetupError(f"could not create the user {self.user} that sway runs as (sway refuses root): "
                             f"{detail}") from None

    def _keep_keyboard(self) -> None:
        # One virtual keyboard for the desktop's life: the seat then has a keyboard, and windows get the focus.
        self.keyboard = VirtualKeyboard(self.socket_path)

        def seat_has_keyboard():
            result = self.swaymsg(["-t", "get_inputs"])
            return any(entry.get("type") == "keyboard" for entry in (result or []))

        if not wait_until(seat_has_keyboard, 5, interval=0.05):
            raise SetupError("sway's seat got no keyboard from our virtual keyboard within 5 s")

    def swaymsg(self, arguments: list[str], timeout: float = 5):
        """swaymsg -r with arguments: its JSON answer, or None when it failed."""
        result = run(["swaymsg", "-s", self.ipc_socket, "-r"] + arguments, env=self.client_env(), timeout=timeout)
        if result is None or result.returncode != 0:
            return None
        try:
            return json.loads(result.stdout)
        except json.JSONDecodeError:
            return None

    def windows(self) -> list[dict]:
        """Every application window: {"id", "name", "focused", "pid", "app_id", "shell"}."""
        tree = self.swaymsg(["-t", "get_tree"])
        found = []

        def walk(node):
            if node.get("type") in ("con", "floating_con") and node.get("pid"):
                found.append({key: node.get(key) for key in ("id", "name", "focused", "pid", "app_id", "shell")})
            for child in node.get("nodes", []) + node.get("floating_nodes", []):
                walk(child)

        if tree:
            walk(tree)
        return found

    def wait_window(self, title_substring: str, timeout: float = 30) -> None:
        if not wait_until(lambda: [w for w in self.windows() if title_substring in (w["name"] or "")], timeout,
                          interval=0.1):
            titles = [w["name"] for w in self.windows()]
            raise SetupError(f"no window titled '*{title_substring}*' appeared on sway within {timeout:.0f} s "
                             f"(windows: {titles})")

    def focus(self, title_substring: str, timeout: float = 10) -> None:
        def focused():
            matching = [w for w in self.windows() if title_substring in (w["name"] or "")]
            if not matching:
                return None
            chosen = next((w for w in matching if w["focused"]), None)
            if chosen is None:
                self.swaymsg([f"[con_id={matching[-1]['id']}] focus"])
            return chosen

        window = wait_until(focused, timeout, interval=0.1)
        if not window:
            raise SetupError(f"could not give the focus to a window titled '*{title_substring}*' on sway within "
                             f"{timeout:.0f} s (windows: {[w['name'] for w in self.windows()]})")
        self._settle(window["pid"])
        if window.get("shell") == "xwayland":
            # wlroots hands an X11 window's copy on to Wayland only while its X11 window manager has an active
            # surface. After LibreOffice's start, Ctrl+C now and then filled the X11 CLIPBOARD (xclip read it) and
            # nothing reached Wayland, though sway showed the window focused (3 to 4 starts of 10); taking the
            # focus away and giving it back activated the window again, and the copy landed at once (4 of 4).
            # Done whenever an X11 window is given the focus: then 9 starts of 10 copied at once (the runner makes
            # a first copy that did not land once more, through here).
            self.swaymsg(["focus parent"])
            self.swaymsg([f"[con_id={window['id']}] focus"])

    def active_title(self) -> str:
        return next((w["name"] or "" for w in self.windows() if w["focused"]), "")

    def stop(self) -> None:
        # sway itself first (its id is in its IPC socket's name), so that it stops its XWayland and removes the
        # display's lock file; killed with runuser's whole group, it leaves a stale lock behind.
        sway = self.ipc_socket.rsplit(".", 2)[-2] if self.ipc_socket.endswith(".sock") else ""
        if sway.isdigit():
            try:
                os.kill(int(sway), signal.SIGTERM)
            except OSError:
                pass

            def gone():
                try:
                    os.kill(int(sway), 0)
                    return False
                except ProcessLookupError:
                    return True
                except OSError:
                    return False

            wait_until(gone, 3, interval=0.02)
        self.ipc_socket = ""
        super().stop()


# MARK: - KWin


class KWinDesktop(WaylandDesktop):
    """Headless KWin 5.27 (`kwin_wayland --virtual`) with a private session bus; fake input and KWin scripts
    drive it."""

    name = "kwin"
    compositor = "headless KWin"

    def __init__(self, width: int = 1280, height: int = 800):
        super().__init__(width, height)
        self.kwin_log = "kwin.log"
        self.script_count = 0
        self.refused: set[tuple[int, str]] = set()  # (selection generation, type) that KWin did not answer

    def start(self, workdir: str) -> None:
        for tool, package in (("kwin_wayland", "kwin-wayland"), ("wl-paste", "wl-clipboard"),
                              ("dbus-daemon", "dbus"), ("dbus-send", "dbus"), ("Xwayland", "xwayland")):
            require_tool(tool, package)
        self._prepare(workdir)
        try:
            self._start_bus()
            self._start_kwin()
        except BaseException:
            self.stop()
            raise

    def _start_kwin(self) -> None:
        # A plain copy: the packaged binary's file capabilities make exec fail with EPERM in a container.
        binary = os.path.join(self.private_dir, "kwin_wayland")
        shutil.copyfile(shutil.which("kwin_wayland"), binary)
        os.chmod(binary, 0o755)
        kwin_runtime = os.path.join(self.private_dir, "run")
        os.makedirs(kwin_runtime, mode=0o700)
        config = os.path.join(self.private_dir, "config")
        os.makedirs(config)
        # The grant of org_kde_kwin_fake_input to this interpreter (see the module's documentation).
        data_dirs = os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
        grant_keyboard(os.path.join(self.private_dir, "share", "applications"), data_dirs.split(":"))
        environment = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": self.home,
            "LANG": "C.UTF-8",
            "XDG_RUNTIME_DIR": kwin_runtime,
            "XDG_CONFIG_HOME": config,
            "XDG_CACHE_HOME": os.path.join(self.private_dir, "cache"),
            "XDG_DATA_DIRS": os.path.join(self.private_dir, "share") + ":" + data_dirs,
            "DBUS_SESSION_BUS_ADDRESS": self.bus_address,
            # A KWin script answers by print() (category js); KWIN_UTILS says which grants KWin found.
            "QT_LOGGING_RULES": "js.debug=true;KWIN_UTILS.debug=true;kwin_xwl.debug=true",
        }
        socket_name = "wayland-pb-" + uuid.uuid4().hex[:8]
        log = self._log(self.kwin_log)
        process = subprocess.Popen(
            [binary, "--virtual", "--no-lockscreen", "--no-global-shortcuts", "--xwayland", "--width",
             str(self.width), "--height", str(self.height), "--socket", socket_name],
            env=environment, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        self.processes.append(process)
        self.socket_path = self._wait_socket(kwin_runtime, process, 20, self.kwin_log)
        # Scripting answers once KWin has taken its name on the bus.
        if not wait_until(lambda: self._dbus(["/Scripting", "org.freedesktop.DBus.Peer.Ping"]) is not None, 10,
                          interval=0.1):
            raise SetupError(f"KWin did not answer on its session bus within 10 s: {self.log_tail(self.kwin_log)}")
        try:
            self.keyboard = FakeKeyboard(self.socket_path)
        except WireError as error:
            raise SetupError(f"cannot put a fake keyboard on KWin's seat: {error}") from error

    def _find_x11_display(self) -> str | None:
        """The display KWin's Xwayland serves: the `:N` argument of KWin's Xwayland child process."""
        kwin = self.processes[-1].pid if self.processes else 0
        try:
            with open(f"/proc/{kwin}/task/{kwin}/children") as file:
                children = file.read().split()
        except OSError:
            return None
        for child in children:
            try:
                with open(f"/proc/{child}/cmdline", "rb") as file:
                    argv = [part.decode("utf-8", "replace") for part in file.read().split(b"\0")]
            except OSError:
                continue
            if argv and os.path.basename(argv[0]) == "Xwayland":
                display = next((part for part in argv[1:] if part.startswith(":") and part[1:].isdigit()), None)
                # KWin lets its own user (root here, as the suite) in; the display answers once it is ready.
                if display and connectable("\0/tmp/.X11-unix/X" + display[1:]):
                    return display
        return None

    def _dbus(self, arguments: list[str], timeout: float = 5) -> str | None:
        """dbus-send to org.kde.KWin on the private bus: its printed reply, or None when the call failed."""
        path, method, *values = arguments
        result = run(["dbus-send", f"--bus={self.bus_address}", "--print-reply", "--dest=org.kde.KWin", path,
                      method] + values, env=self.client_env(), timeout=timeout)
        if result is None or result.returncode != 0:
            return None
        return result.stdout.decode("utf-8", "replace")

    def script(self, body: str, timeout: float = 5) -> str:
        """Runs a KWin script whose last act is `answer(text)`; the text it answered."""
        self.script_count += 1
        token = f"pb-answer-{os.getpid()}-{self.script_count}"
        plugin = f"pb-fidelity-{self.script_count}"
        path = os.path.join(self.private_dir, plugin + ".js")
        with open(path, "w") as file:
            file.write(f"function answer(text) {{ print({json.dumps(token + ' ')} + text); }}\n{body}\n")
        log_path = os.path.join(self.workdir, self.kwin_log)
        offset = os.path.getsize(log_path)  # the answer comes after this
        reply = self._dbus(["/Scripting", "org.kde.kwin.Scripting.loadScript", f"string:{path}", f"string:{plugin}"])
        try:
            if reply is None or "int32" not in reply:
                raise SetupError(f"KWin did not load a script over D-Bus: {self.log_tail(self.kwin_log)}")
            script_id = reply.split("int32")[-1].split()[0]
            if self._dbus([f"/{script_id}", "org.kde.kwin.Script.run"]) is None:
                raise SetupError(f"KWin did not run script {script_id} over D-Bus")

            def answered():
                with open(log_path, "rb") as file:
                    file.seek(offset)
                    for line in reversed(file.read().decode("utf-8", "replace").splitlines()):
                        if token + " " in line:
                            return line.split(token + " ", 1)[1]
                return None

            text = wait_until(answered, timeout, interval=0.02)
            if text is None:
                raise SetupError(f"a KWin script gave no answer within {timeout:.0f} s: "
                                 f"{self.log_tail(self.kwin_log)}")
            return text
        finally:
            self._dbus(["/Scripting", "org.kde.kwin.Scripting.unloadScript", f"string:{plugin}"])
            os.remove(path)

    def windows(self) -> list[dict]:
        """Every window KWin manages: {"caption", "active", "pid"}."""
        answer = self.script("""
            var found = [];
            var clients = workspace.clientList();
            for (var i = 0; i < clients.length; i++) {
                found.push({caption: clients[i].caption, active: workspace.activeClient === clients[i],
                            pid: clients[i].pid});
            }
            answer(JSON.stringify(found));
        """)
        return json.loads(answer)

    def wait_window(self, title_substring: str, timeout: float = 30) -> None:
        if not wait_until(lambda: [w for w in self.windows() if title_substring in w["caption"]], timeout,
                          interval=0.2):
            raise SetupError(f"no window titled '*{title_substring}*' appeared on KWin within {timeout:.0f} s "
                             f"(windows: {[w['caption'] for w in self.windows()]})")

    def focus(self, title_substring: str, timeout: float = 10) -> None:
        body = """
            var wanted = %s, chosen = null;
            var clients = workspace.clientList();
            for (var i = 0; i < clients.length; i++) {
                if (clients[i].caption.indexOf(wanted) >= 0) chosen = clients[i];
            }
            if (chosen !== null && workspace.activeClient !== chosen) workspace.activeClient = chosen;
            var active = workspace.activeClient;
            answer(JSON.stringify(active ? {caption: active.caption, pid: active.pid} : null));
        """ % json.dumps(title_substring)

        def focused():
            active = json.loads(self.script(body))
            return active if active is not None and title_substring in active["caption"] else None

        window = wait_until(focused, timeout, interval=0.1)
        if not window:
            raise SetupError(f"could not give the focus to a window titled '*{title_substring}*' on KWin within "
                             f"{timeout:.0f} s (windows: {[w['caption'] for w in self.windows()]})")
        self._settle(window["pid"])

    def active_title(self) -> str:
        return next((w["caption"] for w in self.windows() if w["active"]), "")

    # KWin 5.27 answers a type that an XWayland owner refuses to convert only when its own transfer timer (5 s,
    # ending a transfer at its second tick) ends it, with no bytes: seen after 0.4 to 10 s (PCManFM's
    # application/x-kde-cutselection; every type of Writer's second copy, now and then, with or without pb); and an
    # exited XWayland owner's offer stays the selection, every read of it hanging. Every answered read here took
    # less than 0.25 s. So a read with nothing after REFUSED_AFTER, or with no bytes after LATE_EMPTY, is taken as
    # refused (None, whichever way KWin's timer fell); once one type of an offer was refused, the others get
    # REFUSED_AFTER_ONE; and a refused type is not asked again for the same offer.
    REFUSED_AFTER = 2.0
    LATE_EMPTY = 0.3
    REFUSED_AFTER_ONE = 0.5

    def read(self, type_name: str, timeout: float = 5) -> bytes | None:
        try:
            control = self.data_control()
            control.types(3)
            offer = control.generation
        except WireError:
            offer = None
        if offer is not None and (offer, type_name) in self.refused:
            return None
        limit = self.REFUSED_AFTER_ONE if any(key[0] == offer for key in self.refused) else self.REFUSED_AFTER
        started = time.monotonic()
        data = super().read(type_name, min(timeout, limit))
        elapsed = time.monotonic() - started
        if (data is None and elapsed >= limit - 0.1) or (data == b"" and elapsed >= self.LATE_EMPTY):
            if offer is not None:
                self.refused.add((offer, type_name))
            return None
        return data
