"""The differential fidelity suite's framework: the Desktop contract, the pb daemon of a run, snapshots of what a
reader gets, and their comparison.

A scenario (a desktop, an application, a number of copies) runs twice: without a clipboard manager and with
`pb daemon`. After each copy the runner takes a snapshot (the offered type names, then each type's bytes); with pb
every copy must land exactly as without it, and after the application exits pb must serve every type it offered.
Everything here runs under the system Python (/usr/bin/python3) and needs no package beyond the standard library.
"""

from __future__ import annotations

import base64
import dataclasses
import fnmatch
import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from typing import Callable

# MARK: - Errors and processes


class SetupError(Exception):
    """A desktop, tool or application could not be started or driven. The message says what is missing and how to
    get it; the runner counts it as a failure, never as a skip."""


def require_tool(name: str, package: str) -> str:
    """The path of the program `name`, or a SetupError naming the Debian package that provides it."""
    path = shutil.which(name)
    if path is None:
        raise SetupError(f"'{name}' is not installed (Debian package {package}): apt-get install {package}")
    return path


def run(argv: list[str], env: dict[str, str] | None = None, timeout: float = 5,
        input: bytes | None = None) -> subprocess.CompletedProcess | None:
    """Runs argv to completion with stdout and stderr captured; None when it did not finish within timeout (it is
    killed then, with its process group)."""
    process = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = process.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process)
        return None
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def kill_group(process: subprocess.Popen, grace: float = 3) -> None:
    """Stops a process started with start_new_session=True, and everything it started: SIGTERM, then SIGKILL."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    for stream in (process.stdout, process.stderr, process.stdin):
        if stream is not None:
            stream.close()


def wait_until(predicate: Callable[[], object], timeout: float, interval: float = 0.05):
    """Polls predicate until it returns something truthy (returned) or timeout passes (None)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)


# MARK: - The Desktop contract


class Desktop:
    """A display server with a window manager, its clipboard readers and a keyboard. Subclassed by X11Desktop
    (x11.py) and by SwayDesktop and KWinDesktop (wayland.py)."""

    name: str = "desktop"

    def start(self, workdir: str) -> None:
        """Starts the display server and window manager within 30 s, or raises SetupError with a clear message."""
        raise NotImplementedError

    def stop(self) -> None:
        """Kills everything start() started."""
        raise NotImplementedError

    def client_env(self) -> dict[str, str]:
        """The environment for applications and readers (DISPLAY / WAYLAND_DISPLAY, XDG_RUNTIME_DIR, GDK_BACKEND,
        QT_QPA_PLATFORM, MOZ_ENABLE_WAYLAND ...)."""
        raise NotImplementedError

    def pb_env(self) -> dict[str, str]:
        """The environment for `pb daemon` on this desktop (before the run's private store directories)."""
        raise NotImplementedError

    def list_types(self, timeout: float = 3) -> list[str] | None:
        """The type names a reader sees offered on the clipboard, in the owner's order; None when it is empty."""
        raise NotImplementedError

    def read(self, type_name: str, timeout: float = 5) -> bytes | None:
        """The bytes a reader gets for type_name; None when the read fails or times out."""
        raise NotImplementedError

    def key(self, chord: str) -> None:
        """Sends a key chord ("ctrl+c", "ctrl+a", "Return", "ctrl+q", "shift+F10", "Down") to the focused window."""
        raise NotImplementedError

    def type_text(self, text: str) -> None:
        """Types text into the focused window."""
        raise NotImplementedError

    def focus(self, title_substring: str, timeout: float = 10) -> None:
        """Gives the keyboard focus to the window whose title contains title_substring (SetupError if none)."""
        raise NotImplementedError

    def wait_window(self, title_substring: str, timeout: float = 30) -> None:
        """Waits until a window whose title contains title_substring is mapped (SetupError if none in time)."""
        raise NotImplementedError

    # Optional, with defaults: a desktop may do better.

    def ownership_marker(self) -> bytes | None:
        """Something that changes whenever the clipboard gets a new owner, even with the same content (on X11 the
        owner's TIMESTAMP target), or None when the desktop has no such thing. The runner uses it to see that a
        copy of unchanged content has landed."""
        return None

    def pb_backend(self) -> str | None:
        """The value for `pb daemon --backend` on this desktop, or None for pb's own choice."""
        return None

    def screenshot(self, path: str) -> bool:
        """Saves a picture of the screen to path (PNG), for a failure's report; False when the desktop cannot."""
        return False

    def clear_clipboard(self) -> None:
        """Empties the clipboard, so that each pass of a scenario starts alike. Nothing to do where an exited
        owner's copy goes with it (X11, sway); KWin keeps an exited XWayland owner's offer."""

    def xwayland_env(self) -> dict[str, str] | None:
        """On a Wayland desktop with XWayland: the environment for an X11-only application (DISPLAY set, GDK and
        Qt on X11), whose copies the compositor hands on to Wayland. None on X11 itself (client_env() is already
        X11) and on a Wayland desktop without XWayland."""
        return None

    def is_wayland(self) -> bool:
        env = self.client_env()
        return bool(env.get("WAYLAND_DISPLAY")) and not env.get("DISPLAY")


# MARK: - Type tables

# X11 protocol targets: they describe the selection, not its content, and every owner answers them its own way.
# They are left out of the type lists compared and never read.
META_TARGETS = {
    "TARGETS": "the list of targets itself",
    "TIMESTAMP": "the time the owner took the selection: new for every owner",
    "MULTIPLE": "a request for several targets at once (ICCCM)",
    "SAVE_TARGETS": "the clipboard manager protocol (ICCCM)",
    "DELETE": "asks the owner to delete the selection",
    "INSERT_SELECTION": "asks the owner to insert another selection",
    "INSERT_PROPERTY": "asks the owner to insert a property",
}

# X11-only text targets: after the application exits, pb may serve them derived from the UTF-8 text.
X11_LEGACY_TEXT_TARGETS = ("STRING", "TEXT", "COMPOUND_TEXT")

# Types whose bytes change on every request for the same copy, or whose name changes from run to run: (application
# or "*", type-name pattern (fnmatch), name varies between runs, reason). Their names are compared, their bytes
# are not (but they must not be empty). A type seen to change between two reads of one copy that is missing here
# is reported as a failure, so that this table stays complete.
VOLATILE_TYPES = [
    ("libreoffice-*", "application/x-openoffice-embed-source-xml*", False,
     "a zip of the selection as a document, with the time of the request inside"),
    ("libreoffice-*", "application/x-openoffice-link*", False, "a link to the document's temporary URL"),
    ("libreoffice-*", "application/x-libreoffice-internal-id-*", True,
     "the type name carries the process id; the bytes change on every request"),
    ("libreoffice-*", "text/rtf", False, "RTF with the time of the request inside"),
    ("libreoffice-*", "text/richtext", False, "RTF with the time of the request inside"),
    ("libreoffice-*", "text/html", False, "HTML whose images point at new temporary files on every request"),
    ("libreoffice-*", "PIXMAP", False, "the id of an X pixmap the application creates for the copy"),
    ("chromium", "chromium/x-internal-source-rfh-token", False,
     "a token naming the page's frame, new for every page load"),
    ("epiphany", "org.webkitgtk.WebKit.custom-pasteboard-data", False,
     "begins with the page's origin, which for a file:// page is 'null:' and a UUID new on every page load"),
]


# Types the suite lists but never reads, because reading them changes how the application behaves: (application,
# type-name pattern, reason). Their names are compared; pb reads them as any reader may, and the runner sees what
# that does (the application's exit is compared with and without pb).
UNREAD_TYPES = [
    ("libreoffice-writer", "application/x-openoffice-link*",
     "once it is read, Writer no longer exits on Quit (it keeps serving the link)"),
]


# Types pb does not serve after the application exits (nor on restore), by design, each with its reason: (application
# or "*", type-name pattern, reason). Only these may be missing then; everything else must come back by name.
NOT_KEPT_BY_DESIGN = [
    ("chromium", "chromium/x-internal-source-rfh-token",
     "pb never reads it: a token naming the page's frame, new on every page load (VolatileMarkers)"),
    ("libreoffice-*", "application/x-openoffice-link*",
     "pb never reads it: reading it makes Writer insert a bookmark into the document (VolatileMarkers)"),
    ("*", "PIXMAP", "the id of an X pixmap of the application's, which the X server frees when it exits"),
]

# The other encodings of a picture an application offers with image/png: conversions it makes on request. pb keeps
# the PNG (lossless) and serves that; keeping a dozen encodings of every picture would multiply the history's size.
PICTURE_ALIASES = ("text/ico", "application/ico", "application/x-qt-image")

BY_DESIGN = "by design: "


def not_kept_reason(app: str, type_name: str, reference: "Snapshot") -> str | None:
    """Why pb may leave type_name of app out after the exit and on restore, or None."""
    for app_pattern, type_pattern, reason in NOT_KEPT_BY_DESIGN:
        if fnmatch.fnmatchcase(app, app_pattern) and fnmatch.fnmatchcase(type_name, type_pattern):
            return reason
    lower = type_name.lower()
    is_picture = (lower.startswith("image/") and not lower.startswith("image/svg")) or lower in PICTURE_ALIASES
    if is_picture and lower != "image/png" and "image/png" in reference.data:
        return "another encoding of the picture, which the application converts on request; pb keeps the PNG"
    if reference.data.get(type_name) == b"":
        return "offered empty: pb keeps no empty representation (GTK answers a conversion it failed with none)"
    return None


def decode_compound_text(data: bytes) -> str | None:
    """The text of X11 Compound Text made of ASCII, Latin-1 (its initial state) and UTF-8 segments (ESC % G … ESC %
    @), as pb and Xlib write it; None for other character sets."""
    text, index, utf8 = [], 0, None
    while index < len(data):
        if data[index] == 0x1B:
            escape = data[index + 1:index + 3]
            if escape == b"%G" and utf8 is None:
                utf8 = bytearray()
            elif escape == b"%@" and utf8 is not None:
                try:
                    text.append(bytes(utf8).decode("utf-8"))
                except UnicodeDecodeError:
                    return None
                utf8 = None
            elif escape in (b"-A", b"(B"):
                pass
            else:
                return None
            index += 3
            continue
        if utf8 is not None:
            utf8.append(data[index])
        else:
            text.append(bytes([data[index]]).decode("latin-1"))
        index += 1
    return None if utf8 is not None else "".join(text)


def unread_reason(app: str, type_name: str) -> str | None:
    """Why the suite does not read type_name of app, or None."""
    for app_pattern, type_pattern, reason in UNREAD_TYPES:
        if fnmatch.fnmatchcase(app, app_pattern) and fnmatch.fnmatchcase(type_name, type_pattern):
            return reason
    return None


def volatile_reason(app: str, type_name: str) -> str | None:
    """Why type_name of app changes on every request, or None when it should not."""
    for app_pattern, type_pattern, _, reason in VOLATILE_TYPES:
        if fnmatch.fnmatchcase(app, app_pattern) and fnmatch.fnmatchcase(type_name, type_pattern):
            return reason
    return None


def comparable_name(app: str, type_name: str) -> str:
    """type_name with its run-specific part replaced by the table's pattern (a process id in a type name)."""
    for app_pattern, type_pattern, name_varies, _ in VOLATILE_TYPES:
        if name_varies and fnmatch.fnmatchcase(app, app_pattern) and fnmatch.fnmatchcase(type_name, type_pattern):
            return type_pattern
    return type_name


# MARK: - Snapshots


@dataclasses.dataclass
class Snapshot:
    """What a reader got at one moment: the offered type names (None: the clipboard was empty) and each content
    type's bytes (None: the read failed or timed out)."""

    types: list[str] | None
    data: dict[str, bytes | None]
    taken_at: float
    seconds: float

    def content_types(self) -> list[str]:
        return [name for name in (self.types or []) if name not in META_TARGETS]

    def digest(self) -> dict[str, object]:
        """A JSON-friendly summary: per type its size and SHA-256."""
        summary: dict[str, object] = {}
        for name in self.content_types():
            value = self.data.get(name)
            summary[name] = None if value is None else {"size": len(value),
                                                        "sha256": hashlib.sha256(value).hexdigest()}
        return summary


def snapshot(desktop: Desktop, list_timeout: float = 3, read_timeout: float = 5,
             skip: Callable[[str], bool] | None = None) -> Snapshot:
    """Lists the clipboard's types, then reads each content type (meta targets are not read). skip(name) -> True
    leaves a type unread (its data is then missing from the snapshot, not None)."""
    started = time.monotonic()
    types = desktop.list_types(timeout=list_timeout)
    data: dict[str, bytes | None] = {}
    for name in types or []:
        if name in META_TARGETS or (skip is not None and skip(name)):
            continue
        data[name] = desktop.read(name, timeout=read_timeout)
    return Snapshot(types, data, time.time(), time.monotonic() - started)


# The types whose bytes show a new copy when the owner and the type list stay the same (GTK 4 replaces its own
# content without taking the selection again), in the order tried; only the first one offered is read.
FINGERPRINT_TYPES = ("UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "text/uri-list", "image/png")


def fingerprint(desktop: Desktop) -> tuple:
    """What changes when a copy lands: the ownership marker (when the desktop has one), the type list, and the
    bytes of the first FINGERPRINT_TYPES type offered."""
    marker = desktop.ownership_marker()
    types = desktop.list_types(timeout=3)
    content = None
    for name in FINGERPRINT_TYPES:
        if types and name in types:
            content = desktop.read(name, timeout=3)
            break
    return (marker, tuple(types) if types else None, content)


def wait_for_copy(desktop: Desktop, before: tuple, timeout: float = 10) -> float | None:
    """Waits until the clipboard's fingerprint differs from `before`; the seconds it took, or None on timeout."""
    started = time.monotonic()
    changed = wait_until(lambda: fingerprint(desktop) != before, timeout, interval=0.03)
    return None if changed is None else time.monotonic() - started


# MARK: - Comparison


# The note of a type the application lists but does not serve (GTK 4 lists image/x-MS-bmp and fails to convert to
# it): nothing can be kept of it, so its absence is no fault.
UNREADABLE = "unreadable from the application"


@dataclasses.dataclass
class TypeResult:
    """One offered type, compared: did the other side offer it under the same name, with the same bytes?"""

    name: str
    name_kept: bool
    bytes_equal: bool | None     # None: not compared (volatile, or not offered)
    size_expected: int | None
    size_observed: int | None
    note: str = ""

    def ok(self) -> bool:
        """Kept with its bytes; a type the application listed but could not serve need not be kept, nor one pb
        leaves out by design (NOT_KEPT_BY_DESIGN)."""
        is_excused = self.note == UNREADABLE or self.note.startswith(BY_DESIGN)
        return (self.name_kept or is_excused) and self.bytes_equal is not False

    def as_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def legacy_text_derivations(reference: Snapshot) -> set[bytes]:
    """The bytes an X11-only text target may have when served derived from the copy's UTF-8 text."""
    derived: set[bytes] = set()
    for name in ("UTF8_STRING", "text/plain;charset=utf-8", "text/plain"):
        raw = reference.data.get(name)
        if raw is None:
            continue
        derived.add(raw)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        # STRING is Latin-1; TEXT and COMPOUND_TEXT may be answered as STRING or UTF8_STRING (ICCCM 2.7.1).
        derived.add(text.encode("latin-1", errors="replace"))
        derived.add(text.encode("utf-8"))
    return derived


def copy_text(reference: Snapshot) -> str | None:
    """The copy's UTF-8 text, or None."""
    for name in ("UTF8_STRING", "text/plain;charset=utf-8"):
        try:
            return reference.data[name].decode("utf-8")
        except (KeyError, AttributeError, UnicodeDecodeError):
            continue
    return None


def is_derived_legacy_text(name: str, got: bytes | None, reference: Snapshot) -> bool:
    """Whether got, served for an X11-only text target, is the copy's text converted as ICCCM says: STRING in
    Latin-1 (other characters as '?'), TEXT and COMPOUND_TEXT as Compound Text (or Latin-1 or UTF-8). Applications'
    own conversions differ (GTK 4.8 answers COMPOUND_TEXT with UTF-8 read as Latin-1 and a NUL), so the bytes are
    compared by meaning."""
    text = copy_text(reference)
    if got is None or text is None:
        return False
    if got in legacy_text_derivations(reference):
        return True
    return name != "STRING" and decode_compound_text(got) == text


def compare(app: str, reference: Snapshot, observed: Snapshot, *, after_exit: bool = False,
            unstable: set[str] | frozenset[str] = frozenset()) -> list[TypeResult]:
    """Per content type of reference: is it in observed under the same name, with the same bytes?

    Types of VOLATILE_TYPES, and unstable ones (seen to change between two reads of one copy), are compared by name
    only, whether or not their bytes happen to match, so that the verdict does not change from run to run.
    after_exit: X11-only text targets may be derived from the UTF-8 text. Types observed offers beyond reference
    are listed too, with name_kept False and the note "extra"."""
    results: list[TypeResult] = []
    observed_names = {comparable_name(app, name): name for name in observed.content_types()}
    derivations = legacy_text_derivations(reference) if after_exit else set()
    for name in reference.content_types():
        expected = reference.data.get(name)
        match = observed_names.get(comparable_name(app, name))
        if name not in reference.data:
            note = "not read: " + (unread_reason(app, name) or "")
            got = observed.data.get(match) if match is not None else None
            excuse = not_kept_reason(app, name, reference) if after_exit and match is None else None
            if excuse:
                note = BY_DESIGN + excuse
            elif match is None:
                note = "not offered; " + note
            results.append(TypeResult(name, match is not None, None, None, size(got), note))
            continue
        if match is None and expected is None:
            results.append(TypeResult(name, False, None, None, None, UNREADABLE))
            continue
        if match is None:
            excuse = not_kept_reason(app, name, reference) if after_exit else None
            note = BY_DESIGN + excuse if excuse else "not offered"
            results.append(TypeResult(name, False, None, size(expected), None, note))
            continue
        got = observed.data.get(match)
        reason = volatile_reason(app, name)
        if reason is None and name in unstable:
            reason = "changes between two reads of one copy"
        if reason is not None and expected is None and got is None:
            # Unreadable on both sides (KWin's bridge now and then answers no type of a copy, with pb or without).
            results.append(TypeResult(name, True, None, None, None, UNREADABLE))
        elif reason is not None:
            equal = None if got else False
            note = "volatile: " + reason if got else "volatile, and empty or unreadable"
            results.append(TypeResult(name, True, equal, size(expected), size(got), note))
        elif expected is None:
            results.append(TypeResult(name, True, None, None, size(got), UNREADABLE))
        elif got == expected:
            results.append(TypeResult(name, True, True, size(expected), size(got)))
        elif after_exit and name in X11_LEGACY_TEXT_TARGETS and (
                got in derivations or is_derived_legacy_text(name, got, reference)):
            results.append(TypeResult(name, True, True, size(expected), size(got), "derived from the UTF-8 text"))
        else:
            results.append(TypeResult(name, True, False, size(expected), size(got), describe_difference(expected, got)))
    reference_names = {comparable_name(app, name) for name in reference.content_types()}
    for name in observed.content_types():
        if comparable_name(app, name) not in reference_names:
            results.append(TypeResult(name, False, None, None, size(observed.data.get(name)), "extra"))
    return results


def size(value: bytes | None) -> int | None:
    return None if value is None else len(value)


def describe_difference(expected: bytes, got: bytes | None) -> str:
    if got is None:
        return "unreadable"
    for index, (a, b) in enumerate(zip(expected, got)):
        if a != b:
            return f"{len(expected)} B expected, {len(got)} B got, first difference at byte {index}"
    return f"{len(expected)} B expected, {len(got)} B got (one is a prefix of the other)"


def problems(results: list[TypeResult]) -> list[str]:
    """One line per type that was not kept exactly."""
    lines = []
    for result in results:
        if result.ok():
            continue
        if result.note == "extra":
            lines.append(f"{result.name}: offered with pb but not without")
        elif not result.name_kept:
            lines.append(f"{result.name}: missing ({result.note})")
        elif result.bytes_equal is False:
            lines.append(f"{result.name}: bytes differ ({result.note})")
    return lines


def unstable_types(first: Snapshot, second: Snapshot) -> set[str]:
    """Types whose bytes differed between two reads of one copy."""
    return {name for name in first.content_types()
            if first.data.get(name) is not None and second.data.get(name) is not None
            and first.data.get(name) != second.data.get(name)}


# MARK: - The pb daemon of a run


def repository_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pb_binary() -> str:
    """$PB_BINARY, else the repository's .build/debug/pb; SetupError if it is not there."""
    path = os.environ.get("PB_BINARY") or os.path.join(repository_root(), ".build", "debug", "pb")
    if not os.access(path, os.X_OK):
        raise SetupError(f"no pb binary at {path}: run 'swift build --product pb' or set PB_BINARY")
    return path


class PbDaemon:
    """`pb daemon` with a store, configuration and runtime directory of its own under workdir, and the `pb`
    commands that read its history."""

    def __init__(self, desktop: Desktop, workdir: str):
        self.desktop = desktop
        self.binary = pb_binary()
        self.workdir = workdir
        self.store_dir = os.path.join(workdir, "store")
        self.runtime_dir = os.path.join(workdir, "runtime")
        self.config_dir = os.path.join(workdir, "config")
        self.data_dir = os.path.join(workdir, "data")
        self.process: subprocess.Popen | None = None
        self.log_path = os.path.join(workdir, "daemon.log")
        self._log = None

    def env(self) -> dict[str, str]:
        env = dict(self.desktop.pb_env())
        env.update({
            "PB_STORE_DIR": self.store_dir,
            "PB_RUNTIME_DIR": self.runtime_dir,
            "XDG_CONFIG_HOME": self.config_dir,
            "XDG_DATA_HOME": self.data_dir,
            "HOME": self.workdir,
        })
        env.pop("PB_CONFIG", None)
        return env

    def start(self, timeout: float = 15) -> None:
        for directory in (self.store_dir, self.runtime_dir, self.config_dir, self.data_dir):
            os.makedirs(directory, mode=0o700, exist_ok=True)
        argv = [self.binary, "daemon"]
        backend = self.desktop.pb_backend()
        if backend:
            argv += ["--backend", backend]
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(argv, env=self.env(), stdin=subprocess.DEVNULL, stdout=self._log,
                                        stderr=self._log, start_new_session=True)
        socket_ready = wait_until(self._answers, timeout, interval=0.1)
        if not socket_ready:
            self.stop()
            raise SetupError(f"pb daemon did not answer within {timeout:.0f} s; its log:\n{self.log_tail()}")

    def _answers(self) -> bool:
        if self.process is None or self.process.poll() is not None:
            raise SetupError(f"pb daemon exited at start; its log:\n{self.log_tail()}")
        # The daemon listens once its store is open: a `pb history` run earlier would create the same new store at
        # the same time, a race that pb loses now and then (the daemon exits: "an SQLite database of another
        # application (tables ; user_version 1)"), which is not what this suite tests.
        if not os.path.exists(os.path.join(self.runtime_dir, "control.sock")):
            return False
        result = self.pb(["history", "--json", "--limit", "1"], timeout=5)
        return result.returncode == 0

    def stop(self) -> None:
        if self.process is not None:
            kill_group(self.process)
            self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            with open(self.log_path, "rb") as file:
                return b"\n".join(file.read().splitlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    def pb(self, arguments: list[str], timeout: float = 10) -> subprocess.CompletedProcess:
        result = run([self.binary] + arguments, env=self.env(), timeout=timeout)
        if result is None:
            raise SetupError(f"'pb {' '.join(arguments)}' did not finish within {timeout:.0f} s")
        return result

    def history(self) -> list[dict]:
        """`pb history --json`: newest first."""
        result = self.pb(["history", "--json", "--limit", "1000"])
        if result.returncode != 0:
            raise SetupError(f"pb history failed: {result.stderr.decode('utf-8', 'replace').strip()}")
        return json.loads(result.stdout)

    def export(self) -> list[dict]:
        """`pb export`: every item with every representation's bytes, oldest first. Each item gains "bytes": a list
        of (type, bytes) pairs."""
        result = self.pb(["export"], timeout=30)
        if result.returncode != 0:
            raise SetupError(f"pb export failed: {result.stderr.decode('utf-8', 'replace').strip()}")
        items = []
        for line in result.stdout.splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            pairs = []
            for representation in item.get("representations", []):
                if "text" in representation:
                    pairs.append((representation["type"], representation["text"].encode("utf-8")))
                else:
                    pairs.append((representation["type"], base64.b64decode(representation.get("base64", ""))))
            item["bytes"] = pairs
            items.append(item)
        return items

    def items(self) -> list[dict]:
        """The history, newest first, each item with its id (from `pb history`) and its bytes (from `pb export`),
        paired by creation time."""
        exported = {(item["created"], item["lastCopied"]): item for item in self.export()}
        merged = []
        for entry in self.history():
            full = exported.get((entry["created"], entry["lastCopied"]), {})
            merged.append(dict(entry, bytes=full.get("bytes", [])))
        return merged

    def restore(self, item_id: int) -> None:
        result = self.pb(["restore", str(item_id)])
        if result.returncode != 0:
            raise SetupError(f"pb restore {item_id} failed: {result.stderr.decode('utf-8', 'replace').strip()}")

    def files_containing(self, needles: list[bytes]) -> list[str]:
        """The files of the run's store, runtime, configuration and data directories that contain any needle."""
        found = []
        for top in (self.store_dir, self.runtime_dir, self.config_dir, self.data_dir):
            for directory, _, names in os.walk(top):
                for name in names:
                    path = os.path.join(directory, name)
                    try:
                        with open(path, "rb") as file:
                            content = file.read()
                    except OSError:
                        continue
                    if any(needle in content for needle in needles):
                        found.append(os.path.relpath(path, self.workdir))
        return found


def secret_needles(secret: str) -> list[bytes]:
    """The forms a secret text could take on disk: UTF-8, UTF-16 (both orders)."""
    return [secret.encode("utf-8"), secret.encode("utf-16-le"), secret.encode("utf-16-be")]
