#!/usr/bin/python3
"""selection_gap: how an application replaces its own clipboard content on a Wayland desktop, as a clipboard
manager sees it.

An application copies again and again (Ctrl+C; the browsers on a page whose copy handler puts new text on the
clipboard each time) while a data-control client of our own records every selection event. For each copy it
prints the events that followed the key press (EMPTY: the selection went empty; offer(N): a new owner offering N
types), the milliseconds from the empty selection to the next offer, and whether the copy reached a reader.
With --pb, `pb daemon` runs meanwhile, as the fidelity suite runs it.

    /usr/bin/python3 Tests/Apps/wayland-fixtures/selection_gap.py --desktop sway --app gtk4 --copies 12 [--pb]

Applications: gtk4 and qt5 (the suite's copier windows), firefox, chromium. Exits 1 when a copy did not land.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
APPS_DIR = os.path.dirname(HERE)
sys.path.insert(0, APPS_DIR)
sys.path.insert(0, os.path.join(APPS_DIR, "fixtures"))

import copier_content  # noqa: E402
from harness import PbDaemon, SetupError, kill_group, require_tool  # noqa: E402
from wayland import KWinDesktop, SwayDesktop  # noqa: E402

TITLE = "selection-gap"
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>selection-gap page</title></head><body>
<p>Some text to select.</p>
<script>
var copies = 0;
document.addEventListener("copy", function (event) {
    copies++;
    event.clipboardData.setData("text/plain", APP + " copy " + copies);
    event.clipboardData.setData("text/html", "<b>" + APP + " copy " + copies + "</b>");
    event.preventDefault();
});
</script></body></html>
"""
FIREFOX_PREFERENCES = """user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.aboutwelcome.enabled", false);
"""


def expected_text(app: str, index: int) -> bytes | None:
    """What a reader gets as text after the index-th copy (None: the GTK window's picture)."""
    if app in ("firefox", "chromium"):
        return f"{app} copy {index}".encode()
    if app == "gtk4" and index == copier_content.IMAGE_COPY:
        return None
    return copier_content.text(app, index).encode()


def application(app: str, workdir: str) -> list[str]:
    if app in ("gtk4", "qt5"):
        return ["/usr/bin/python3", os.path.join(APPS_DIR, "fixtures", f"copier-{app}.py"), "--title", TITLE]
    page = os.path.join(workdir, "page.html")
    with open(page, "w") as file:
        file.write(PAGE.replace("APP", repr(app)))
    profile = os.path.join(workdir, f"{app}-profile")
    os.makedirs(profile)
    if app == "firefox":
        with open(os.path.join(profile, "user.js"), "w") as file:
            file.write(FIREFOX_PREFERENCES)
        return [require_tool("firefox-esr", "firefox-esr"), "--no-remote", "--profile", profile, "file://" + page]
    argv = [require_tool("chromium", "chromium"), "--ozone-platform=wayland", f"--user-data-dir={profile}",
            "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--password-store=basic"]
    if os.geteuid() == 0:
        argv.append("--no-sandbox")
    return argv + ["file://" + page]


def landed(desktop, app: str, index: int) -> bool:
    types = desktop.list_types()
    expected = expected_text(app, index)
    if expected is None:
        return bool(types) and any(name.startswith("image/") for name in types)
    for name in ("text/plain;charset=utf-8", "text/plain"):
        if types and name in types:
            return desktop.read(name) == expected
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--desktop", choices=("sway", "kwin"), required=True)
    parser.add_argument("--app", choices=("gtk4", "qt5", "firefox", "chromium"), required=True)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between copies")
    parser.add_argument("--pb", action="store_true", help="run pb daemon meanwhile")
    args = parser.parse_args()

    desktop = SwayDesktop() if args.desktop == "sway" else KWinDesktop()
    workdir = tempfile.mkdtemp(prefix="selection-gap-")
    process = None
    daemon = None
    events: list = []
    try:
        desktop.start(os.path.join(workdir, "desktop"))
        if args.pb:
            daemon = PbDaemon(desktop, os.path.join(workdir, "pb"))
            os.makedirs(daemon.workdir)
            daemon.start()
        log = open(os.path.join(workdir, "application.log"), "wb")
        process = subprocess.Popen(application(args.app, workdir), env=desktop.client_env(), stdout=log,
                                   stderr=log, start_new_session=True)
        log.close()
        desktop.wait_window(TITLE, 60)
        desktop.focus(TITLE)
        if args.app in ("firefox", "chromium"):
            time.sleep(2)        # the page's script runs once it has loaded
            desktop.key("ctrl+a")
        watch_seconds = args.copies * (args.interval + 0.3) + 2
        watcher = threading.Thread(target=lambda: events.extend(desktop.watch_selection(watch_seconds)))
        watcher.start()
        time.sleep(0.3)
        presses = []
        results = []
        for index in range(1, args.copies + 1):
            presses.append(time.time())
            desktop.key("ctrl+c")
            time.sleep(args.interval)
            results.append(landed(desktop, args.app, index))
        watcher.join()
        presses.append(float("inf"))
        for index in range(args.copies):
            seen = [(at, types) for at, types in events if presses[index] <= at < presses[index + 1]]
            shown = ", ".join(("EMPTY" if types is None else f"offer({len(types)})")
                              + f" +{(at - presses[index]) * 1000:.2f} ms" for at, types in seen)
            empties = [at for at, types in seen if types is None]
            after = [at for at, types in seen if types is not None and empties and at >= empties[0]]
            gap = f"{(after[0] - empties[0]) * 1000:.3f} ms" if after else "-"
            print(f"copy {index + 1}: {'landed' if results[index] else 'LOST'}; {shown}; empty to next offer: {gap}")
        if daemon is not None:
            print("pb daemon's log:")
            print("\n".join(line for line in daemon.log_tail(40).splitlines() if "pb daemon:" in line))
        print(f"{args.desktop} {args.app}{' with pb' if args.pb else ''}: {sum(results)} of {args.copies} landed")
        return 0 if all(results) else 1
    except SetupError as error:
        print(f"setup: {error}", file=sys.stderr)
        return 1
    finally:
        if process is not None:
            kill_group(process, grace=5)
        if daemon is not None:
            daemon.stop()
        desktop.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
