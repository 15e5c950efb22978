#!/usr/bin/python3
"""`pb restore ID --paste` on real desktops: a GTK 4 entry has the keyboard focus, pb puts a past item back on the
clipboard and types the paste keystroke, and the entry shows the item's text.

    swift build --product pb
    /usr/bin/python3 Tests/Apps/restore_paste.py --desktop all      # x11, sway, kwin; or one of them

Per desktop (the fidelity suite's: Xvfb + openbox, headless sway, headless KWin 5.27), with `pb daemon` running:
- `pb restore OLDER --paste` types Ctrl+V: the entry shows the older item, which is back on top of the history;
- `pb restore NEWER --paste --paste-key shift+insert`: the entry shows both texts.
On KWin, which offers no virtual keyboard, pb types through org_kde_kwin_fake_input, which KWin grants by the
.desktop file `make install` installs (contrib/pb-paste.desktop, its Exec= set to this pb). A copy of pb at another
path has no grant: it must exit 1 saying what to install, before changing the clipboard or the history.

Prints PASS/FAIL per desktop with the reasons and how long each paste took; exits 1 on any failure or missing tool.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import PbDaemon, SetupError, kill_group, pb_binary, repository_root, wait_until  # noqa: E402
from wayland import KWinDesktop, SwayDesktop  # noqa: E402
from x11 import X11Desktop  # noqa: E402

ENTRY = os.path.join(repository_root(), "Tests", "Fixtures", "gtk4-wayland-entry.py")
GRANT = os.path.join(repository_root(), "contrib", "pb-paste.desktop")
TITLE = "pb-restore-paste-target"
OLDER = "restored ✓ by pb restore --paste"
NEWER = " and a newer item"


class GrantedKWinDesktop(KWinDesktop):
    """KWin with pb's shipped .desktop grant installed for this pb (as `make install` does), in its data dirs."""

    def _start_kwin(self) -> None:
        applications = os.path.join(self.private_dir, "share", "applications")
        os.makedirs(applications, exist_ok=True)
        with open(GRANT, encoding="utf-8") as file:
            lines = file.read().splitlines()
        executable = os.path.realpath(pb_binary())
        with open(os.path.join(applications, "pb-paste.desktop"), "w", encoding="utf-8") as file:
            file.write("\n".join(f"Exec={executable}" if line.startswith("Exec=") else line for line in lines) + "\n")
        super()._start_kwin()


DESKTOPS = {"x11": X11Desktop, "sway": SwayDesktop, "kwin": GrantedKWinDesktop}


def texts(path: str) -> list[str]:
    with open(path, "rb") as file:
        lines = file.read().decode("utf-8", "replace").splitlines()
    return [json.loads(line[6:]) for line in lines if line.startswith("TEXT: ")]


def top_id(daemon: PbDaemon) -> int:
    return daemon.history()[0]["id"]


def restore_paste(daemon: PbDaemon, arguments: list[str], binary: str | None = None):
    """Runs `pb restore ... --paste`; (result, seconds)."""
    started = time.monotonic()
    result = subprocess.run([binary or daemon.binary, "restore"] + arguments, env=daemon.env(),
                            capture_output=True, timeout=30)
    return result, time.monotonic() - started


def scenario(name: str, workdir: str) -> list[str]:
    problems: list[str] = []
    desktop = DESKTOPS[name]()
    entry = None
    daemon = None
    try:
        started = time.monotonic()
        desktop.start(os.path.join(workdir, "desktop"))
        daemon = PbDaemon(desktop, os.path.join(workdir, "pb"))
        daemon.start()
        print(f"  {name}: desktop and daemon up in {time.monotonic() - started:.2f} s")
        for text in (OLDER, NEWER):
            copied = subprocess.run([daemon.binary, "copy"], input=text.encode(), env=daemon.env(),
                                    capture_output=True, timeout=20)
            if copied.returncode != 0:
                raise SetupError(f"pb copy failed: {copied.stderr.decode(errors='replace')}")
        older, newer = top_id(daemon) - 1, top_id(daemon)

        log_path = os.path.join(workdir, "entry.log")
        log = open(log_path, "wb")
        entry = subprocess.Popen(["/usr/bin/python3", ENTRY, TITLE], env=desktop.client_env(), stdout=log,
                                 stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        desktop.wait_window(TITLE)
        desktop.focus(TITLE)

        # A copy of pb at another path: on KWin it has no grant, and must refuse before changing anything.
        if name == "kwin":
            ungranted = os.path.join(workdir, "pb-ungranted")
            shutil.copyfile(daemon.binary, ungranted)
            os.chmod(ungranted, 0o755)
            result, seconds = restore_paste(daemon, [str(older), "--paste"], binary=ungranted)
            message = result.stderr.decode("utf-8", "replace")
            if result.returncode != 1 or "X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input" not in message:
                problems.append(f"a pb without KWin's grant: exit {result.returncode}, {message!r}")
            if top_id(daemon) != newer:
                problems.append("a refused --paste restored the item anyway")
            print(f"  {name}: without the grant, exit {result.returncode} in {seconds:.2f} s: {message.strip()}")

        before = time.monotonic()
        result, seconds = restore_paste(daemon, [str(older), "--paste"])
        if result.returncode != 0:
            problems.append(f"pb restore {older} --paste: exit {result.returncode}, "
                            f"{result.stderr.decode('utf-8', 'replace')!r}")
        shown = wait_until(lambda: OLDER in texts(log_path), 10, interval=0.01)
        print(f"  {name}: ctrl+v: pb restore --paste took {seconds:.3f} s, "
              f"in the entry after {time.monotonic() - before:.3f} s")
        if not shown:
            problems.append(f"the entry did not show the restored item: {texts(log_path)}")
        if top_id(daemon) != older:
            problems.append(f"item {older} is not on top of the history after its restore")

        before = time.monotonic()
        result, seconds = restore_paste(daemon, [str(newer), "--paste", "--paste-key", "shift+insert"])
        if result.returncode != 0:
            problems.append(f"pb restore {newer} --paste --paste-key shift+insert: exit {result.returncode}, "
                            f"{result.stderr.decode('utf-8', 'replace')!r}")
        shown = wait_until(lambda: OLDER + NEWER in texts(log_path), 10, interval=0.01)
        print(f"  {name}: shift+insert: pb restore --paste took {seconds:.3f} s, "
              f"in the entry after {time.monotonic() - before:.3f} s")
        if not shown:
            problems.append(f"the entry did not show the second item after shift+insert: {texts(log_path)}")
    except (SetupError, subprocess.TimeoutExpired, OSError) as error:
        problems.append(f"setup: {error}")
    finally:
        if entry is not None:
            kill_group(entry)
        if daemon is not None:
            if problems:
                print(daemon.log_tail(15))
            daemon.stop()
        desktop.stop()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description="pb restore --paste into a focused GTK 4 entry, on real desktops.")
    parser.add_argument("--desktop", choices=tuple(DESKTOPS) + ("all",), default="all")
    parser.add_argument("--workdir", help="keep the work files here (default: a temporary directory, removed)")
    args = parser.parse_args()
    names = list(DESKTOPS) if args.desktop == "all" else [args.desktop]
    root = args.workdir or tempfile.mkdtemp(prefix="pb-restore-paste-")
    failed = 0
    try:
        for name in names:
            workdir = os.path.join(root, name)
            os.makedirs(workdir, exist_ok=True)
            started = time.monotonic()
            problems = scenario(name, workdir)
            verdict = "PASS" if not problems else "FAIL"
            print(f"{verdict} restore --paste on {name} ({time.monotonic() - started:.1f} s)")
            for problem in problems:
                print(f"    {problem}")
            failed += bool(problems)
    finally:
        if not args.workdir:
            shutil.rmtree(root, ignore_errors=True)
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
