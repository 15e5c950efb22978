#!/usr/bin/python3
"""A headless GNOME Shell 43 session for tests: GnomeSession, and a command that runs one command inside it.

    /usr/bin/python3 Tests/Apps/gnome.py run [--workdir DIR] [--extension DIR]... -- COMMAND [ARG]...

prints the session's variables (WAYLAND_DISPLAY, DISPLAY, XAUTHORITY, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR),
runs COMMAND with them, stops the session and exits with COMMAND's status (1 when the session could not start).

How it runs (see "GNOME facts" in the design notes for why):

- Mutter always starts Xwayland on display :0 (and :1), with no option to choose, so the session lives in a
  private mount and network namespace: enter_namespace() re-executes this program under `unshare --mount --net`
  and mounts a private tmpfs on /tmp (with /tmp/.X11-unix, mode 1777); the network namespace hides the host's
  abstract X11 sockets. A --workdir under the host's /tmp is bound back at the same path.
- A private session bus, and a second session bus given as DBUS_SYSTEM_BUS_ADDRESS (without a system bus the shell
  dies in loginManager.js). HOME, XDG_RUNTIME_DIR and the XDG data, config and cache directories are private; the
  settings live in dconf there (dconf-service, started by the private bus).
- org.gnome.shell disable-user-extensions false, enabled-extensions the test extension plus those given; the
  crash guard $XDG_RUNTIME_DIR/gnome-shell-disable-extensions is removed before the start.
- `gnome-shell --headless --wayland --virtual-monitor 1280x800 --wayland-display NAME`, with the test extension
  (gnome-extensions/pasteboard-test@pasteboard.org): at startup-complete it hides the overview and creates a
  Clutter virtual keyboard (without both, no window ever gets the focus, and mutter ignores a client's copy), then
  writes $XDG_RUNTIME_DIR/pasteboard-test-ready, which start() waits for.
- DISPLAY and XAUTHORITY are the display and the -auth argument of the shell's Xwayland child.
- Every process started for the session carries PB_GNOME_SESSION=<token> in its environment; stop() ends the shell
  and the buses, then any process left with that token (Xwayland, dconf-service, clients).

Debian packages: gnome-shell mutter gjs xwayland gsettings-desktop-schemas dbus-x11 (`--no-install-recommends`),
dbus, util-linux (unshare, mount), python3.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import SetupError, kill_group, require_tool, wait_until  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_EXTENSION = os.path.join(HERE, "gnome-extensions", "pasteboard-test@pasteboard.org")
INSIDE_MARK = "PB_GNOME_NAMESPACE"
TOKEN_VARIABLE = "PB_GNOME_SESSION"
WAYLAND_NAME = "wayland-gnome"
EXPORTED = ["WAYLAND_DISPLAY", "DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]


# MARK: - The namespace

def enter_namespace(workdir: str | None) -> None:
    """Re-executes this process inside `unshare --mount --net` (it does not return there), or, when already inside,
    gives it a private /tmp, binding back what lies under the host's /tmp and is needed inside: workdir, and the
    repository itself (its scripts, the extension, the built pb), when it was checked out there."""
    if os.environ.get(INSIDE_MARK) != "1":
        unshare = require_tool("unshare", "util-linux")
        env = dict(os.environ, **{INSIDE_MARK: "1"})
        argv = [unshare, "--mount", "--net", "--fork", "--kill-child", "--", sys.executable] + sys.argv
        try:
            completed = subprocess.run(argv, env=env)
        except KeyboardInterrupt:
            sys.exit(130)
        sys.exit(completed.returncode)
    wanted = [os.path.dirname(os.path.dirname(HERE))]
    if workdir is not None:
        workdir = os.path.abspath(workdir)
        os.makedirs(workdir, exist_ok=True)
        wanted.append(workdir)
    # Outer directories first, so that one inside another is bound over it, not hidden by it.
    kept = [(path, os.open(path, os.O_RDONLY | os.O_DIRECTORY)) for path in sorted(set(wanted), key=len)
            if path == "/tmp" or path.startswith("/tmp/")]
    mount = require_tool("mount", "mount")
    subprocess.run([mount, "--make-rprivate", "/"], check=True)
    subprocess.run([mount, "-t", "tmpfs", "-o", "mode=1777", "tmpfs", "/tmp"], check=True)
    os.mkdir("/tmp/.X11-unix")
    os.chmod("/tmp/.X11-unix", 0o1777)
    for path, descriptor in kept:
        os.makedirs(path, exist_ok=True)
        subprocess.run([mount, "--no-canonicalize", "--bind", f"/proc/self/fd/{descriptor}", path], check=True,
                       pass_fds=(descriptor,))
        os.close(descriptor)


# MARK: - The session

class GnomeSession:
    """A headless gnome-shell with its buses, inside the namespace of enter_namespace(). `env` is the environment
    for clients once start() has returned: the variables in EXPORTED plus the private HOME and XDG directories."""

    def __init__(self, workdir: str, extensions: list[str] = (), size: str = "1280x800", before_shell=None):
        """`before_shell(env)` runs once the buses and settings are up, before the shell starts (to install an
        extension the way a user would, for the shell to load it)."""
        self.before_shell = before_shell
        self.workdir = os.path.abspath(workdir)
        self.extensions = [os.path.abspath(path) for path in extensions]
        self.size = size
        self.token = uuid.uuid4().hex
        self.processes: list[subprocess.Popen] = []
        self.logs = []
        self.env: dict[str, str] = {}
        self.started_at = 0.0
        self.ready_after = 0.0

    def start(self, timeout: float = 30) -> None:
        shell = require_tool("gnome-shell", "gnome-shell")
        dbus_daemon = require_tool("dbus-daemon", "dbus")
        gsettings = require_tool("gsettings", "libglib2.0-bin")
        if shutil.which("Xwayland") is None:
            raise SetupError("'Xwayland' is not installed (Debian package xwayland): apt-get install xwayland")
        home = os.path.join(self.workdir, "home")
        runtime = os.path.join(self.workdir, "runtime")
        for path in (home, runtime):
            os.makedirs(path, exist_ok=True)
        os.chmod(runtime, 0o700)
        base = {key: value for key, value in os.environ.items()
                if key in ("PATH", "LANG", "LC_ALL", "TERM", "TZ")}
        base.setdefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        base.update({
            TOKEN_VARIABLE: self.token, "HOME": home, "XDG_RUNTIME_DIR": runtime,
            "XDG_DATA_HOME": os.path.join(home, ".local", "share"), "XDG_CONFIG_HOME": os.path.join(home, ".config"),
            "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_SESSION_TYPE": "wayland",
            "XDG_CURRENT_DESKTOP": "GNOME", "NO_AT_BRIDGE": "1", "GSK_RENDERER": "cairo",
        })
        self.env = dict(base)
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self._bus(dbus_daemon, "session")
        self.env["DBUS_SYSTEM_BUS_ADDRESS"] = self._bus(dbus_daemon, "system")
        extensions_dir = os.path.join(base["XDG_DATA_HOME"], "gnome-shell", "extensions")
        os.makedirs(extensions_dir, exist_ok=True)
        uuids = []
        for source in [TEST_EXTENSION] + self.extensions:
            name = os.path.basename(source.rstrip("/"))
            shutil.copytree(source, os.path.join(extensions_dir, name), dirs_exist_ok=True)
            uuids.append(name)
        settings = [("disable-user-extensions", "false"), ("enabled-extensions", repr(uuids)),
                    ("welcome-dialog-last-shown-version", "'999'")]
        for key, value in settings:
            done = subprocess.run([gsettings, "set", "org.gnome.shell", key, value], env=self.env,
                                  capture_output=True, timeout=20)
            if done.returncode != 0:
                raise SetupError(f"gsettings set org.gnome.shell {key} failed: {done.stderr.decode(errors='replace')}")
        if self.before_shell is not None:
            self.before_shell(self.env)
        ready = os.path.join(runtime, "pasteboard-test-ready")
        for stale in (os.path.join(runtime, "gnome-shell-disable-extensions"), ready):
            if os.path.exists(stale):
                os.remove(stale)
        log = open(os.path.join(self.workdir, "gnome-shell.log"), "wb")
        self.logs.append(log)
        self.started_at = time.monotonic()
        self.shell = subprocess.Popen(
            [shell, "--headless", "--wayland", "--virtual-monitor", self.size,
             "--wayland-display", WAYLAND_NAME],
            env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(self.shell)
        if not wait_until(lambda: os.path.exists(ready) or self.shell.poll() is not None, timeout):
            raise SetupError(f"gnome-shell did not finish starting within {timeout:g} s: see {log.name}")
        if self.shell.poll() is not None:
            raise SetupError(f"gnome-shell exited with status {self.shell.returncode} at start: see {log.name}")
        self.ready_after = time.monotonic() - self.started_at
        xwayland = wait_until(self._xwayland, 10)
        if xwayland is None:
            raise SetupError(f"gnome-shell started no Xwayland within 10 s: see {log.name}")
        self.env["WAYLAND_DISPLAY"] = WAYLAND_NAME
        self.env["DISPLAY"], self.env["XAUTHORITY"] = xwayland

    def _bus(self, dbus_daemon: str, name: str) -> str:
        log = open(os.path.join(self.workdir, f"dbus-{name}.log"), "wb")
        self.logs.append(log)
        process = subprocess.Popen([dbus_daemon, "--session", "--nofork", "--nopidfile", "--print-address=1"],
                                   env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                   start_new_session=True)
        self.processes.append(process)
        line = process.stdout.readline().decode().strip()
        if not line:
            raise SetupError(f"dbus-daemon for the {name} bus printed no address: see {log.name}")
        return line

    def _xwayland(self) -> tuple[str, str] | None:
        """(DISPLAY, XAUTHORITY) of the shell's Xwayland child, once it runs."""
        for pid in self._children(self.shell.pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as file:
                    argv = [part.decode() for part in file.read().split(b"\0") if part]
            except OSError:
                continue
            if not argv or os.path.basename(argv[0]) != "Xwayland":
                continue
            display = next((part for part in argv[1:] if part.startswith(":")), None)
            auth = argv[argv.index("-auth") + 1] if "-auth" in argv[:-1] else None
            if display and auth:
                return display, auth
        return None

    @staticmethod
    def _children(parent: int) -> list[int]:
        result = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as file:
                    fields = file.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                result.append(int(entry))
        return result

    def _tagged(self) -> list[int]:
        """The processes whose environment carries this session's token (started for it, or by what was)."""
        mark = f"{TOKEN_VARIABLE}={self.token}".encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as file:
                    if mark in file.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                continue
        return found

    def stop(self) -> None:
        for process in reversed(self.processes):
            kill_group(process)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            left = self._tagged()
            for pid in left:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            if left:
                wait_until(lambda: not self._tagged(), 3)
        for log in self.logs:
            log.close()
        self.logs = []

    def __enter__(self) -> GnomeSession:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_) -> None:
        self.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description="Run a command inside a headless GNOME Shell 43 session.")
    sub = parser.add_subparsers(dest="command", required=True)
    runner = sub.add_parser("run", help="start the session, run COMMAND in it, stop the session")
    runner.add_argument("--workdir", help="keep the session's files (logs, home) here; default: a temporary dir")
    runner.add_argument("--extension", action="append", default=[], help="an extension directory to install too")
    runner.add_argument("argv", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not argv:
        parser.error("run needs a COMMAND after --")
    enter_namespace(args.workdir)
    workdir = args.workdir or tempfile.mkdtemp(prefix="pb-gnome-")
    session = GnomeSession(workdir, args.extension)
    try:
        with session:
            for key in EXPORTED:
                print(f"{key}={session.env[key]}", flush=True)
            print(f"# gnome-shell ready after {session.ready_after:.2f} s", flush=True)
            return subprocess.run(argv, env=session.env).returncode
    except SetupError as error:
        print(f"gnome.py: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
