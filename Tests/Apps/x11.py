"""X11Desktop: Xvfb on a free display, openbox as the window manager, a private session bus; xdotool drives the
keyboard and the focus, xclip reads the clipboard as any X11 application would."""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import time

from harness import Desktop, SetupError, kill_group, require_tool, run, wait_until


class X11Desktop(Desktop):
    name = "x11"

    def __init__(self, width: int = 1280, height: int = 800):
        self.width = width
        self.height = height
        self.display: str | None = None
        self.processes: list[subprocess.Popen] = []
        self.home = ""
        self.runtime_dir = ""
        self.bus_address = ""

    # MARK: - Start and stop

    def start(self, workdir: str) -> None:
        for tool, package in (("Xvfb", "xvfb"), ("openbox", "openbox"), ("xdotool", "xdotool"), ("xclip", "xclip"),
                              ("xprop", "x11-utils"), ("dbus-daemon", "dbus")):
            require_tool(tool, package)
        self.home = os.path.join(workdir, "home")
        self.runtime_dir = os.path.join(workdir, "xdg-runtime")
        os.makedirs(self.home, exist_ok=True)
        os.makedirs(self.runtime_dir, mode=0o700, exist_ok=True)
        os.chmod(self.runtime_dir, 0o700)
        log = open(os.path.join(workdir, "x11.log"), "ab")
        try:
            self._start_xvfb(log)
            self._start_bus(workdir)
            self._start_openbox(log)
        except BaseException:
            self.stop()
            raise
        finally:
            log.close()

    def _start_xvfb(self, log) -> None:
        # -displayfd: Xvfb picks a free display number itself and writes it to the pipe once it accepts clients.
        read_end, write_end = os.pipe()
        process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-screen", "0", f"{self.width}x{self.height}x24", "-nolisten",
             "tcp", "-noreset"],
            pass_fds=(write_end,), stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        os.close(write_end)
        self.processes.append(process)
        number = b""
        deadline = time.monotonic() + 15
        os.set_blocking(read_end, False)
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            try:
                chunk = os.read(read_end, 16)
            except BlockingIOError:
                chunk = None
            if chunk == b"":
                break
            if chunk:
                number += chunk
            elif process.poll() is not None:
                break
            else:
                time.sleep(0.02)
        os.close(read_end)
        if not number.strip().isdigit():
            raise SetupError("Xvfb did not start within 15 s (see x11.log in the work directory)")
        self.display = ":" + number.strip().decode()

    def _start_bus(self, workdir: str) -> None:
        process = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        self.processes.append(process)
        ready, _, _ = select.select([process.stdout], [], [], 10)
        line = process.stdout.readline() if ready else b""
        if not line:
            raise SetupError("dbus-daemon --session did not print its address within 10 s")
        self.bus_address = line.decode().strip()

    def _start_openbox(self, log) -> None:
        config = os.path.join(self.home, ".config", "openbox")
        os.makedirs(config, exist_ok=True)
        process = subprocess.Popen(["openbox", "--sm-disable"], env=self.client_env(), stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=log, start_new_session=True)
        self.processes.append(process)

        def managed():
            if process.poll() is not None:
                raise SetupError("openbox exited at start (see x11.log in the work directory)")
            result = run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=self.client_env(), timeout=3)
            return result is not None and result.returncode == 0 and b"window id" in result.stdout

        if not wait_until(managed, 15, interval=0.1):
            raise SetupError("openbox did not take over the screen within 15 s")

    def stop(self) -> None:
        for process in reversed(self.processes):
            kill_group(process)
        self.processes = []

    # MARK: - Environments

    def client_env(self) -> dict[str, str]:
        if self.display is None:
            raise SetupError("the X11 desktop is not started")
        return {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": self.home,
            "LANG": "C.UTF-8",
            "DISPLAY": self.display,
            "XDG_RUNTIME_DIR": self.runtime_dir,
            "XDG_SESSION_TYPE": "x11",
            "DBUS_SESSION_BUS_ADDRESS": self.bus_address,
            "GDK_BACKEND": "x11",
            "GSK_RENDERER": "cairo",
            "QT_QPA_PLATFORM": "xcb",
            "MOZ_ENABLE_WAYLAND": "0",
            "NO_AT_BRIDGE": "1",
            "SAL_USE_VCLPLUGIN": "gen",
        }

    def pb_env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": self.home,
            "LANG": "C.UTF-8",
            "DISPLAY": self.display or "",
        }

    def pb_backend(self) -> str | None:
        return "x11"

    # MARK: - Readers

    def list_types(self, timeout: float = 3) -> list[str] | None:
        result = run(["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"], env=self.client_env(),
                     timeout=timeout)
        if result is None or result.returncode != 0:
            return None
        names = [line for line in result.stdout.decode("utf-8", "replace").splitlines() if line]
        return names or None

    def read(self, type_name: str, timeout: float = 5) -> bytes | None:
        result = run(["xclip", "-selection", "clipboard", "-t", type_name, "-o"], env=self.client_env(),
                     timeout=timeout)
        if result is None or result.returncode != 0:
            return None
        return result.stdout

    def ownership_marker(self) -> bytes | None:
        return self.read("TIMESTAMP", timeout=3)

    # MARK: - Keyboard and windows

    def key(self, chord: str) -> None:
        result = run(["xdotool", "key", "--clearmodifiers", chord], env=self.client_env(), timeout=5)
        if result is None or result.returncode != 0:
            raise SetupError(f"xdotool key {chord} failed")

    def type_text(self, text: str) -> None:
        result = run(["xdotool", "type", "--delay", "15", "--", text], env=self.client_env(),
                     timeout=10 + len(text) * 0.05)
        if result is None or result.returncode != 0:
            raise SetupError(f"xdotool type failed for {text!r}")

    def windows(self, title_substring: str) -> list[str]:
        """The managed windows (the window manager's _NET_CLIENT_LIST) whose title contains title_substring. The
        title is _NET_WM_NAME where set: Qt 5 updates only that one when a window's title changes, so
        `xdotool search --name` (WM_NAME) would not see the new title."""
        clients = run(["xprop", "-root", "-notype", "_NET_CLIENT_LIST"], env=self.client_env(), timeout=3)
        if clients is None or clients.returncode != 0:
            return []
        found = []
        for window in re.findall(r"0x[0-9a-fA-F]+", clients.stdout.decode()):
            name = run(["xdotool", "getwindowname", str(int(window, 16))], env=self.client_env(), timeout=3)
            if name is not None and name.returncode == 0 and title_substring in name.stdout.decode("utf-8", "replace"):
                found.append(str(int(window, 16)))
        return found

    def wait_window(self, title_substring: str, timeout: float = 30) -> None:
        if not wait_until(lambda: self.windows(title_substring), timeout, interval=0.2):
            raise SetupError(f"no window titled '*{title_substring}*' appeared within {timeout:.0f} s")

    def focus(self, title_substring: str, timeout: float = 10) -> None:
        def focused():
            ids = self.windows(title_substring)
            if not ids:
                return False
            window = ids[-1]
            run(["xdotool", "windowactivate", "--sync", window], env=self.client_env(), timeout=3)
            active = run(["xdotool", "getactivewindow"], env=self.client_env(), timeout=3)
            return active is not None and active.stdout.decode().strip() in ids

        if not wait_until(focused, timeout, interval=0.2):
            raise SetupError(f"could not give the focus to a window titled '*{title_substring}*' "
                             f"within {timeout:.0f} s")

    def screenshot(self, path: str) -> bool:
        if shutil.which("import") is None:
            return False
        result = run(["import", "-window", "root", path], env=self.client_env(), timeout=10)
        return result is not None and result.returncode == 0

    def active_title(self) -> str:
        result = run(["xdotool", "getactivewindow", "getwindowname"], env=self.client_env(), timeout=3)
        return "" if result is None else result.stdout.decode("utf-8", "replace").strip()
