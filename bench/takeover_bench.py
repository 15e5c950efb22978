#!/usr/bin/env python3
"""Take-over benchmark: does a clipboard manager make an application's clipboard worse than no manager at all?

The other party is a real GTK 4 window that replaces its own copy again and again (Tests/Fixtures/gtk4-wayland-owner.py
--again: every key press copies "copy N" as text and HTML), the case `wl-copy` never shows. The same scenario runs
with no manager, with a peer, with pb taking over at once (`take-over-delay = 0`, pb's rule before this benchmark),
and with pb as shipped (`take-over-delay = 200ms`), each measured alone on a fresh compositor:
  1. copies lost: after each of `--copies` key presses (and a pause longer than the delay), what a reader pastes
     must be that copy; and with pb, how many items the history holds (it must be each copy once);
  2. how long the clipboard is empty after the application exits: from its SIGTERM to the first paste that gives
     its last copy again, polled every 5 ms, for at most 3 s ("never" without a manager that takes over).

Desktops: headless sway (wlr data-control; peer `wl-paste --watch cat`, cliphist's and clipman's mechanism), and X11
under Xvfb (peer CopyQ). Usage:
    python3 bench/takeover_bench.py [--pb PATH] [--copies N] [--desktops sway,x11]
As root, sway runs as the user `pbsway` (created when missing). Needs sway, wl-clipboard, wtype, xvfb, xdotool,
xclip, copyq and python3-gi with GTK 4. Every process it starts and its directory are removed at the end.
"""
import argparse, json, os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wayland_bench import Lines, Session, environment, log, start_sway  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OWNER = os.path.join(ROOT, "Tests", "Fixtures", "gtk4-wayland-owner.py")
SETTLE = 0.5  # longer than pb's default delay: a take-over would have happened by then


class Wayland:
    name = "sway"
    peer = "wl-paste --watch cat"

    def __init__(self, session):
        self.session = session
        self.sway, self.socket = start_sway(session)

    def env(self, name):
        return environment(self.session, self.socket, name)

    def window_env(self, env):
        return dict(env, GDK_BACKEND="wayland", GSK_RENDERER="cairo", NO_AT_BRIDGE="1")

    def start_keyboard(self, env):
        # A keyboard that stays on the seat, so that every press lands on the focused window.
        return self.session.start(["wtype", "-s", "86400000", "-k", "F24"], env)

    def press(self, env, window):
        subprocess.run(["wtype", "-k", "Return"], env=env, timeout=10, check=True)

    def paste(self, env):
        try:
            result = subprocess.run(["wl-paste", "-n", "-t", "text/plain;charset=utf-8"], env=env, timeout=3,
                                    capture_output=True)
        except subprocess.TimeoutExpired:
            return None
        return result.stdout.decode("utf-8", "replace") if result.returncode == 0 else None

    def start_peer(self, env):
        return self.session.start(["wl-paste", "--watch", "cat"], env)

    def close(self):
        self.session.stop(self.sway)


class X11:
    name = "x11"
    peer = "CopyQ"

    def __init__(self, session):
        self.session = session
        self.display = ":%d" % (60 + os.getpid() % 30)
        self.xvfb = session.start(["Xvfb", self.display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"], dict(os.environ))
        deadline = time.time() + 10
        while not os.path.exists("/tmp/.X11-unix/X" + self.display[1:]):
            if time.time() > deadline:
                raise SystemExit("Xvfb did not start")
            time.sleep(0.05)

    def env(self, name):
        home = os.path.join(self.session.dir, name)
        for sub in ("data", "config", "run", "home"):
            os.makedirs(os.path.join(home, sub), exist_ok=True)
        os.chmod(os.path.join(home, "run"), 0o700)
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DISPLAY": self.display, "LANG": "C.UTF-8",
                "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config", "XDG_RUNTIME_DIR": home + "/run",
                "PB_RUNTIME_DIR": home + "/run", "HOME": home + "/home", "QT_QPA_PLATFORM": "xcb"}

    def window_env(self, env):
        return dict(env, GDK_BACKEND="x11", GSK_RENDERER="cairo", NO_AT_BRIDGE="1")

    def start_keyboard(self, env):
        return None

    def press(self, env, window):
        ids = subprocess.run(["xdotool", "search", "--name", "gtk4-wayland-owner"], env=env, capture_output=True,
                             text=True, timeout=10).stdout.split()
        if not ids:
            raise SystemExit("the GTK 4 window is not on the X display")
        subprocess.run(["xdotool", "windowfocus", "--sync", ids[-1]], env=env, timeout=10, capture_output=True)
        subprocess.run(["xdotool", "key", "--window", ids[-1], "Return"], env=env, timeout=10, check=True)

    def paste(self, env):
        try:
            result = subprocess.run(["xclip", "-selection", "clipboard", "-t", "UTF8_STRING", "-o"], env=env,
                                    timeout=3, capture_output=True)
        except subprocess.TimeoutExpired:
            return None
        return result.stdout.decode("utf-8", "replace") if result.returncode == 0 else None

    def start_peer(self, env):
        log_path = os.path.join(self.session.dir, "copyq.log")
        peer = self.session.start(["copyq"], env, stderr=open(log_path, "w"))
        deadline = time.time() + 30
        while time.time() < deadline and peer.poll() is None:
            probe = subprocess.run(["copyq", "eval", "--", "print(size())"], env=env, capture_output=True, timeout=10)
            if probe.returncode == 0:
                return peer
            time.sleep(0.2)
        raise SystemExit("CopyQ did not start: " + open(log_path).read()[-2000:])

    def close(self):
        self.session.stop(self.xvfb)


def run(desktop, manager, args):
    """One scenario on `desktop` with `manager` (None, "peer", or a pb take-over delay): copies lost, history size,
    and how long the clipboard stays empty after the window exits."""
    session = desktop.session
    label = {None: "no manager", "peer": desktop.peer}.get(manager, "pb, take-over-delay = %s" % manager)
    env = desktop.env("run-%s-%s" % (desktop.name, str(manager).replace(" ", "")))
    started = []
    if manager == "peer":
        started.append(desktop.start_peer(env))
    elif manager is not None:
        os.makedirs(env["XDG_CONFIG_HOME"] + "/pasteboard", exist_ok=True)
        with open(env["XDG_CONFIG_HOME"] + "/pasteboard/config", "w") as file:
            file.write("take-over-delay = %s\n" % manager)
        daemon = session.start([args.pb, "daemon"], env, stdout=subprocess.PIPE)
        started.append(daemon)
        if not Lines(daemon).wait(lambda line: "Pasteboard daemon" in line, 15):
            raise SystemExit("pb daemon did not start")
    keyboard = desktop.start_keyboard(env)
    window = session.start(["/usr/bin/python3", OWNER, "--again"], desktop.window_env(env), stdout=subprocess.PIPE)
    lines = Lines(window)
    if not lines.wait(lambda line: line == "window", 20):
        raise SystemExit("the GTK 4 window did not show on %s" % desktop.name)
    time.sleep(0.3)
    lost = 0
    for index in range(1, args.copies + 1):
        desktop.press(env, window)
        if not lines.wait(lambda line: line == "copied %d" % index, 10):
            raise SystemExit("the GTK 4 window did not copy a %dth time on %s" % (index, desktop.name))
        time.sleep(SETTLE)
        if desktop.paste(env) != "copy %d" % index:
            lost += 1
    items = None
    if manager not in (None, "peer"):
        history = subprocess.run([args.pb, "history", "--json", "--limit", "1000"], env=env, capture_output=True,
                                 timeout=30)
        items = len(json.loads(history.stdout or b"[]"))
    window.terminate()
    gone = time.time()
    window.wait(10)
    empty = None
    while time.time() - gone < 3:
        if desktop.paste(env) == "copy %d" % args.copies:
            empty = (time.time() - gone) * 1000
            break
        time.sleep(0.005)
    for process in [keyboard] + started:
        if process is not None:
            session.stop(process)
    if manager == "peer" and desktop.name == "x11":
        subprocess.run(["copyq", "exit"], env=env, capture_output=True, timeout=10)
    return {"desktop": desktop.name, "manager": label, "copies": args.copies, "lost": lost, "items": items,
            "empty_ms": empty}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build", "release", "pb"))
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--desktops", default="sway,x11")
    args = parser.parse_args()
    if not os.access(args.pb, os.X_OK):
        raise SystemExit("no pb at %s: run 'make build' or give --pb" % args.pb)
    results = []
    for name in args.desktops.split(","):
        for manager in [None, "peer", "0", "200ms"]:
            session = Session()
            try:
                desktop = {"sway": Wayland, "x11": X11}[name](session)
                log("%s: %s" % (name, manager))
                results.append(run(desktop, manager, args))
            finally:
                session.close()
    print("| desktop | manager | copies lost | history items | clipboard empty after the app exits |")
    print("|---|---|---|---|---|")
    for result in results:
        empty = "never: its last copy is not served" if result["empty_ms"] is None else "%.0f ms" % result["empty_ms"]
        items = "–" if result["items"] is None else "%d of %d" % (result["items"], result["copies"])
        print("| %s | %s | %d of %d | %s | %s |" % (result["desktop"], result["manager"], result["lost"],
                                                   result["copies"], items, empty))


if __name__ == "__main__":
    main()
