#!/usr/bin/env python3
"""The Pasteboard History window on a big history, side by side with CopyQ in the same run.

Generates N items (default 100,000; the generator of history_bench.py), imports them with `pb import`, then on a
private Xvfb measures, for pasteboard-gtk:

  - process start to the first drawn frame (the app logs it from the frame clock's after-paint signal),
  - resident memory at that point and after scrolling (End to the oldest item, then paging back),
  - how long End (the oldest item, a window read from deep in the store) and a search take to show,

and, when `copyq` is installed, CopyQ holding the same number of items: server start to its history window shown
(`copyq show`), `copyq show` again with the server running, and its resident memory.

Usage: python3 bench/app_bench.py [--items N] [--runs R] [--app PATH] [--pb PATH] [--workdir DIR] [--no-copyq]
Build first: swift build -c release --product pasteboard-gtk && swift build -c release --product pb
"""
import argparse, json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import history_bench  # noqa: E402  (the same generated history)


def rss_mb(pid, field="VmRSS"):
    """Resident memory in MB: all of it (VmRSS) or the process's own (RssAnon, without mapped libraries)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return float("nan")


def maps_gl(pid):
    """Whether an OpenGL implementation (Mesa's libLLVM, a DRI driver, GLX or EGL) is mapped into process `pid`."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            text = maps.read()
    except FileNotFoundError:
        return None
    return any(name in text for name in ("libLLVM", "_dri.so", "libGLX_mesa", "libEGL_mesa"))


def children(pid):
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        return [int(p) for p in out]
    except FileNotFoundError:
        return []


def wait_for(predicate, timeout, step=0.002):
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None


class Display:
    def __init__(self, first=None):
        self.number = first if first is not None else 150 + os.getpid() % 40
        while os.path.exists(f"/tmp/.X11-unix/X{self.number}") or os.path.exists(f"/tmp/.X{self.number}-lock"):
            self.number += 1
        self.name = f":{self.number}"
        self.process = subprocess.Popen(["Xvfb", self.name, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for(lambda: os.path.exists(f"/tmp/.X11-unix/X{self.number}"), 10):
            sys.exit("Xvfb did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait()


class App:
    """One run of pasteboard-gtk, timed from spawn to its first frame."""

    def __init__(self, binary, env, log, arguments=(), ready="first frame"):
        self.log = log
        if os.path.exists(log):
            os.unlink(log)
        # The renderer is the app's own choice (cairo, GL left closed: Sources/GtkSupport/RendererPolicy.swift), as a
        # user gets it; GSK_RENDERER or GDK_DEBUG in the bench's environment override it, as they would for a user.
        env = dict(env, PASTEBOARD_GTK_TEST_LOG=log, GTK_A11Y="none")
        self.start = time.perf_counter()
        self.process = subprocess.Popen([binary, *arguments], env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        if not self.wait(ready, 30):
            sys.exit(f"pasteboard-gtk logged no '{ready}' within 30 s")
        self.first_frame_ms = (time.perf_counter() - self.start) * 1000

    def lines(self):
        try:
            with open(self.log) as f:
                return [line.rstrip("\n").split(" ", 1)[1] for line in f if " " in line]
        except FileNotFoundError:
            return []

    def wait(self, text, timeout, after=0, prefix=False):
        def found():
            for line in self.lines()[after:]:
                if (line.startswith(text) if prefix else line == text):
                    return True
            return False
        return wait_for(found, timeout)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(10)


def xdotool(env, *args):
    subprocess.run(["xdotool", *args], env=env, check=True, stdout=subprocess.DEVNULL)


def previewed_id(lines):
    """The item the last "preview text ID …" / "preview image ID" line shows, if any."""
    for line in reversed(lines):
        if line.startswith("preview text ") or line.startswith("preview image "):
            parts = line.split(" ")
            if len(parts) > 2 and parts[2].isdigit():
                return int(parts[2])
    return None


def scroll_rows(env, app, ranks, target):
    """Page Down through the list until the selected row is `target` rows deep (or no progress); rows reached."""
    reached, stalled = 0, 0
    while reached < target and stalled < 5:
        xdotool(env, "key", "--delay", "15", "--repeat", "20", "Page_Down")
        time.sleep(0.2)
        rank = ranks.get(previewed_id(app.lines()), reached)
        stalled = stalled + 1 if rank <= reached else 0
        reached = max(reached, rank)
    return reached


def measure_keystrokes(env, app, queries, records=None):
    """Each key of each query typed alone: key press to the filtered list's next frame ("search drawn …"). With
    `records`, also each key's time to its search done ("search done …", logged by an app whose searches run off the
    main thread and show what they found first; for one that searches on the main thread, drawn is done)."""
    latencies, missed = [], 0
    for query in queries:
        xdotool(env, "key", "ctrl+f")
        for count in range(1, len(query) + 1):
            mark = len(app.lines())
            t0 = time.perf_counter()
            xdotool(env, "type", "--delay", "0", query[count - 1])
            if app.wait(f"search drawn {query[:count]}", 60, after=mark):
                drawn = (time.perf_counter() - t0) * 1000
                latencies.append(drawn)
                if records is not None:
                    done = drawn
                    if app.logs_search_done and app.wait(f"search done {query[:count]}", 60, after=mark):
                        done = (time.perf_counter() - t0) * 1000
                    records.append((query[:count], drawn, done))
            else:
                missed += 1
            time.sleep(0.25)  # a person's pace: each key is its own search
        # Cleared before the next query: waiting for this clear's own frame (an earlier "search drawn " line, the
        # first query's, once let the next query be typed while the app was still busy).
        mark = len(app.lines())
        xdotool(env, "key", "ctrl+a", "BackSpace")
        app.wait("search drawn ", 60, after=mark)
        time.sleep(0.3)
    return latencies, missed


def percentile(values, fraction):
    """The value below which `fraction` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * len(ordered) + 0.5)) - 1))]


def measure_search_keys(args, env):
    """`--keys-only`: the search field alone, for the app before (`--before`) and after, one after the other on the same
    store and display: every key of `--queries` typed alone, from the key to the filtered list drawn, and to the
    search done. Returns {label: [(typed, drawn ms, done ms)]}."""
    log = os.path.join(args.work, "keys-log.txt")
    results = {}
    apps = ([("before", args.before)] if args.before else []) + [("after", args.app)]
    for run in range(args.runs):
        for label, binary in apps:
            app = App(binary, env, log)
            # main's app searches on its main thread: its list drawn is its search done, and it logs no "search done".
            app.logs_search_done = label != "before"
            time.sleep(1)
            xdotool(env, "search", "--sync", "--onlyvisible", "--name", "^Pasteboard History$", "windowfocus", "--sync")
            records = results.setdefault(label, [])
            latencies, missed = measure_keystrokes(env, app, args.queries.split(","), records)
            if missed:
                print(f"  {label}, run {run + 1}: {missed} keys without a frame", file=sys.stderr)
            app.stop()
    return results


def print_search_keys(results, count, rare):
    """The side-by-side table of `--keys-only`."""
    labels = list(results)
    print(f"\n{count:,} items; each key typed alone; load average at the end {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores\n")
    print("| key typed in search | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))

    def row(name, pick):
        print(f"| {name} | " + " | ".join(pick(results[label]) for label in labels) + " |")

    row("keys measured", lambda r: str(len(r)))
    for name, fraction in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
        row(f"to the filtered list drawn, {name}", lambda r, f=fraction: f"{percentile([d for _, d, _ in r], f):.0f} ms")
    row("to the filtered list drawn, max", lambda r: f"{max(d for _, d, _ in r):.0f} ms")
    row(f"rare keys ({', '.join(rare)}) to the list drawn, max",
        lambda r: f"{max([d for t, d, _ in r if t in rare] or [float('nan')]):.0f} ms")
    for name, fraction in (("p50", 0.5), ("p99", 0.99)):
        row(f"to the search done, {name}", lambda r, f=fraction: f"{percentile([d for _, _, d in r], f):.0f} ms")
    row(f"rare keys ({', '.join(rare)}) to the search done, max",
        lambda r: f"{max([d for t, _, d in r if t in rare] or [float('nan')]):.0f} ms")
    for label in labels:
        print(f"\n{label}, every key (typed: drawn/done ms): "
              + ", ".join(f"{t!r}: {d:.0f}/{e:.0f}" for t, d, e in results[label]), end="")
    print()


def measure_app(args, env, newest, oldest, ranks):
    log = os.path.join(args.work, "app-log.txt")
    frames, idle, idle_anon, scrolled, scrolled_anon, end_ms, search_ms = [], [], [], [], [], [], []
    deep, deep_anon, deep_rows, keys, keys_missed = [], [], [], [], 0
    gl_mapped = []
    for run in range(args.runs):
        app = App(args.app, env, log)
        frames.append(app.first_frame_ms)
        time.sleep(1)
        gl_mapped.append(maps_gl(app.process.pid))
        idle.append(rss_mb(app.process.pid))
        idle_anon.append(rss_mb(app.process.pid, "RssAnon"))
        xdotool(env, "search", "--sync", "--onlyvisible", "--name", "^Pasteboard History$", "windowfocus", "--sync")
        xdotool(env, "mousemove", "1270", "790")
        # Into the list, then End: the oldest item, read from the far end of the store.
        xdotool(env, "key", "ctrl+t")  # the vertical list pages further per key than the strip
        app.wait("layout list", 10)
        xdotool(env, "key", "ctrl+f", "Down")
        app.wait(f"preview text {newest} ", 10, prefix=True)
        # Scrolling through 10,000 rows from the top (thumbnails decoded and cached on the way), then memory.
        deep_rows.append(scroll_rows(env, app, ranks, args.scroll_rows))
        time.sleep(1)
        deep.append(rss_mb(app.process.pid))
        deep_anon.append(rss_mb(app.process.pid, "RssAnon"))
        mark = len(app.lines())
        t0 = time.perf_counter()
        xdotool(env, "key", "End")
        if app.wait(f"preview text {oldest} ", 20, after=mark, prefix=True):
            end_ms.append((time.perf_counter() - t0) * 1000)
        for _ in range(30):
            xdotool(env, "key", "Page_Up")
        time.sleep(1)
        scrolled.append(rss_mb(app.process.pid))
        scrolled_anon.append(rss_mb(app.process.pid, "RssAnon"))
        mark = len(app.lines())
        t0 = time.perf_counter()
        xdotool(env, "key", "ctrl+f")
        xdotool(env, "type", "--delay", "0", "zebra")
        if app.wait("search zebra", 20, after=mark):
            search_ms.append((time.perf_counter() - t0) * 1000)
        xdotool(env, "key", "ctrl+a", "BackSpace")
        app.wait("search drawn ", 10, after=mark)
        latencies, missed = measure_keystrokes(env, app, args.queries.split(","))
        keys += latencies
        keys_missed += missed
        xdotool(env, "key", "ctrl+t")  # back to the strip for the next run
        app.wait("layout strip", 10)
        app.stop()
    return frames, (idle, idle_anon), (scrolled, scrolled_anon), end_ms, search_ms, (deep, deep_anon), deep_rows, \
        (keys, keys_missed), gl_mapped


def focus_and_close_popup(env, app, mark):
    xdotool(env, "search", "--sync", "--onlyvisible", "--name", "^Pasteboard Popup$", "windowfocus", "--sync")
    xdotool(env, "key", "Escape")
    if not app.wait("popup closed: escape", 10, after=mark):
        sys.exit("the popup did not close on Escape")


def measure_popup(args, env):
    """The popup: spawn of the requesting command to the popup's next frame. Today's path (`--popup --once`: GTK
    starts in that process), then a resident instance (`pasteboard-gtk --background`) asked by `pb popup` and by
    `pasteboard-gtk --popup`. Also the resident's context switches while hidden (wake-ups)."""
    log = os.path.join(args.work, "popup-log.txt")
    once = []
    for _ in range(args.runs):
        popup = App(args.app, env, log, ["--popup", "--once"])
        once.append(popup.first_frame_ms)
        focus_and_close_popup(env, popup, 0)
        popup.process.wait(10)

    # As it runs for a user: with the daemon, whose events keep the hidden popup current.
    daemon = subprocess.Popen([args.pb, "daemon", "--quiet"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    if not wait_for(lambda: os.path.exists(os.path.join(env["PB_RUNTIME_DIR"], "control.sock")), 15):
        sys.exit("pb daemon did not start")
    resident_log = os.path.join(args.work, "resident-log.txt")
    resident = App(args.app, env, resident_log, ["--background"], ready="popup resident")
    if not resident.wait("popup follows the daemon", 10):
        sys.exit("the resident popup does not follow the daemon")
    requesters = {"pb popup": [args.pb, "popup"], "pasteboard-gtk --popup": [args.app, "--popup"]}
    asked = {name: [] for name in requesters}
    for _ in range(args.runs):
        for name, argv in requesters.items():
            mark = len(resident.lines())
            t0 = time.perf_counter()
            subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if not resident.wait("popup drawn", 10, after=mark):
                sys.exit(f"{name}: the resident popup was not drawn")
            asked[name].append((time.perf_counter() - t0) * 1000)
            focus_and_close_popup(env, resident, mark)
            time.sleep(0.3)
    time.sleep(3)  # the closed popup's last work (its rows laid out again while hidden) is done
    before = context_switches(resident.process.pid)
    time.sleep(args.idle)
    wakeups = switches_since(before, context_switches(resident.process.pid))
    memory = (rss_mb(resident.process.pid), rss_mb(resident.process.pid, "RssAnon"))
    resident.stop()
    daemon.terminate()
    daemon.wait(10)
    return once, asked, wakeups, memory


def context_switches(pid):
    """Voluntary and involuntary context switches of each of a process's threads, by thread id."""
    counts = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as status:
                counts[task] = sum(int(line.split()[1]) for line in status if "ctxt_switches:" in line)
        except FileNotFoundError:
            pass  # the thread ended meanwhile
    return counts


def switches_since(before, after):
    """Context switches between two snapshots: growth of threads in both, all of a new thread's, one per ended one."""
    return sum(count - before.get(task, 0) for task, count in after.items()) + len(set(before) - set(after))


def copyq(args, env, count):
    """CopyQ with `count` items: server start to its window shown, show again, memory."""
    cq = shutil.which("copyq")
    if cq is None or args.no_copyq:
        return None
    cenv = dict(env, QT_QPA_PLATFORM="xcb", XDG_CONFIG_HOME=os.path.join(args.work, "copyq-config"),
                XDG_DATA_HOME=os.path.join(args.work, "copyq-data"), HOME=os.path.join(args.work, "copyq-home"))
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "HOME"):
        os.makedirs(cenv[key], exist_ok=True)

    def run(*argv, timeout=600):
        return subprocess.run([cq, *argv], env=cenv, capture_output=True, text=True, timeout=timeout)

    def start_server():
        process = subprocess.Popen([cq], env=cenv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        def answers():
            try:
                return run("eval", "--", "print(size())", timeout=5).returncode == 0
            except subprocess.TimeoutExpired:
                return False  # still starting (a loaded machine): ask again
        if not wait_for(answers, 60, 0.05):
            sys.exit("CopyQ's server did not answer")
        return process

    def visible():
        out = subprocess.run(["xdotool", "search", "--onlyvisible", "--class", "copyq"], env=cenv,
                             capture_output=True, text=True).stdout.split()
        return out or None

    server = start_server()
    # CopyQ keeps at most 10,000 items in a tab (its maxitems setting stops there).
    target = min(count, 10000)
    run("config", "maxitems", str(target))
    have = int(run("eval", "--", "print(size())").stdout or 0)
    if have < target:
        print(f"  filling CopyQ with {target - have:,} items ...", file=sys.stderr)
        script = "for (var i = %d; i < %d; ++i) add('item ' + i + ' of the generated history');" % (have, target)
        run("eval", "--", script, timeout=1800)
    items = int(run("eval", "--", "print(size())").stdout or 0)
    run("exit")
    server.wait(30)

    cold, warm, menu, memory, memory_anon = [], [], [], [], []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        server = start_server()
        run("show")
        if wait_for(visible, 30):
            cold.append((time.perf_counter() - t0) * 1000)
        time.sleep(1)
        processes = [server.pid] + children(server.pid)
        memory.append(sum(rss_mb(p) for p in processes))
        memory_anon.append(sum(rss_mb(p, "RssAnon") for p in processes))
        run("hide")
        wait_for(lambda: not visible(), 10)
        t0 = time.perf_counter()
        run("show")
        if wait_for(visible, 30):
            warm.append((time.perf_counter() - t0) * 1000)
        # CopyQ's own popup: `copyq menu`, the item menu at the pointer.
        run("hide")
        wait_for(lambda: not visible(), 10)
        t0 = time.perf_counter()
        run("menu")
        if wait_for(visible, 30):
            menu.append((time.perf_counter() - t0) * 1000)
        xdotool(cenv, "key", "Escape")
        run("exit")
        server.wait(30)
    return items, cold, warm, menu, (memory, memory_anon)


def map_keys(env, keys):
    """Gives each non-ASCII key a keycode of its own on the display's keymap. Without, `xdotool type` maps a spare
    keycode for the moment of the key and maps it back, and GTK, reading the keymap when told it changed, sometimes
    sees the key after that: the key was lost (seen with ø, in either app, as the first such key an app got)."""
    spare = 200
    for key in keys:
        if key.isascii():
            continue
        if shutil.which("xmodmap") is None:
            sys.exit("xmodmap is required for non-ASCII keys (apt-get install -y x11-xserver-utils)")
        # Latin-1 has keysyms of its own (ø is oslash, 0xf8), which xdotool looks for; the rest are Unicode keysyms.
        keysym = f"0x{ord(key):04x}" if ord(key) < 0x100 else f"U{ord(key):04X}"
        subprocess.run(["xmodmap", "-e", f"keycode {spare} = {keysym} {keysym}"], env=env, check=True)
        spare += 1


def seed_rare(jsonl, rare):
    """Appends each rare key, as part of a word, to 10 text items spread evenly over the generated history (their
    letters are otherwise in a third of the items or more): a search for one finds a few items, deep in the history."""
    if not rare:
        return
    with open(jsonl) as f:
        lines = f.readlines()
    step = max(1, len(lines) // 10)
    for number, key in enumerate(rare):
        for index in range(7 + number * step // len(rare), len(lines), step):
            item = json.loads(lines[index])
            representation = item["representations"][0]
            if "text" in representation:
                representation["text"] += f" x{key}y"
                lines[index] = json.dumps(item) + "\n"
    with open(jsonl, "w") as f:
        f.writelines(lines)


def median(values):
    return statistics.median(values) if values else float("nan")


def memory(pair):
    return f"{median(pair[0]):.1f} MB ({median(pair[1]):.1f} MB own)"


def print_popup_rows(once, asked, wakeups, memory, idle, peer):
    """The popup's rows: each requester of the resident popup, today's path, and the hidden resident's cost."""
    for name, values in asked.items():
        print(f"| popup at the pointer drawn: `{name}`, resident popup | {median(values):.0f} ms | {peer} |")
        peer = ""
    print(f"| popup at the pointer drawn: `pasteboard-gtk --popup --once` (no resident: GTK starts) | "
          f"{median(once):.0f} ms | |")
    print(f"| resident popup hidden: context switches in {idle:.0f} s, memory | {wakeups} ({memory[0]:.1f} MB, "
          f"{memory[1]:.1f} MB own) | |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--app", default=os.path.join(ROOT, ".build/release/pasteboard-gtk"))
    ap.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"))
    ap.add_argument("--workdir", default=None, help="reuse the generated history here (kept between runs)")
    ap.add_argument("--no-copyq", action="store_true")
    ap.add_argument("--idle", type=float, default=10, help="seconds the hidden resident popup is watched for wake-ups")
    ap.add_argument("--popup-only", action="store_true", help="only the popup rows (and CopyQ's)")
    ap.add_argument("--scroll-rows", type=int, default=10_000, help="rows to page through before measuring memory")
    ap.add_argument("--display", type=int, default=None, help="the first X display number to try (default: by pid)")
    ap.add_argument("--queries", default=None,
                    help="queries typed a key at a time (comma-separated; default zebra,http,the, and with --keys-only "
                         "also the rare keys and q, z)")
    ap.add_argument("--keys-only", action="store_true",
                    help="only the search keys, before (--before) and after, side by side, p50/p90/p99")
    ap.add_argument("--before", default=None, help="with --keys-only: the pasteboard-gtk to compare with (main's)")
    ap.add_argument("--rare", default="ø,@",
                    help="keys the generated history holds in few items (seeded into 10 items each, spread over the "
                         "history): a search for one reads the whole history")
    args = ap.parse_args()
    rare = args.rare.split(",") if args.rare else []
    if args.queries is None:
        args.queries = "zebra,http,the" + ("," + ",".join(rare + ["q", "z", "qu"]) if args.keys_only else "")
    for path in (args.app, args.pb):
        if not os.path.exists(path):
            sys.exit(f"{path} is not built: swift build -c release --product pasteboard-gtk && swift build -c release --product pb")
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is required (apt-get install -y xvfb xdotool)")
    args.work = args.workdir or tempfile.mkdtemp(prefix="pb-app-bench-")
    os.makedirs(args.work, exist_ok=True)

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(XDG_DATA_HOME=os.path.join(args.work, "data"), XDG_CONFIG_HOME=os.path.join(args.work, "config"),
               XDG_STATE_HOME=os.path.join(args.work, "state"), PB_RUNTIME_DIR=os.path.join(args.work, "run"),
               XDG_RUNTIME_DIR=os.path.join(args.work, "run"), HOME=os.path.join(args.work, "home"), LANG="C.UTF-8")
    for key in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME"):
        os.makedirs(env[key], exist_ok=True)
    os.makedirs(env["PB_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    db = os.path.join(env["XDG_DATA_HOME"], "pasteboard", "history.sqlite")
    if not os.path.exists(db):
        jsonl = os.path.join(args.work, "history.jsonl")
        print(f"generating and importing {args.items:,} items in {args.work} ...", file=sys.stderr)
        history_bench.generate(jsonl, os.path.join(args.work, "text.txt"), args.items)
        seed_rare(jsonl, rare)
        subprocess.run([args.pb, "import", jsonl], env=env, check=True, stdout=subprocess.DEVNULL)
    listing = json.loads(subprocess.run([args.pb, "history", "--json", "--limit", "1"], env=env, check=True,
                                        capture_output=True, text=True).stdout)
    newest = listing[0]["id"]
    oldest = int(subprocess.run(["sqlite3", db, "SELECT id FROM items ORDER BY position LIMIT 1"],
                                capture_output=True, text=True, check=True).stdout)
    count = int(subprocess.run(["sqlite3", db, "SELECT count(*) FROM items"], capture_output=True, text=True,
                               check=True).stdout)
    # Each item's row in the list (newest first), for the first rows that scrolling passes.
    listed = subprocess.run(["sqlite3", db, f"SELECT id FROM items ORDER BY position DESC LIMIT {args.scroll_rows + 2000}"],
                            capture_output=True, text=True, check=True).stdout.split()
    ranks = {int(item): rank for rank, item in enumerate(listed)}

    display = Display(args.display)
    env["DISPLAY"] = display.name
    map_keys(env, rare)
    if args.keys_only:
        try:
            results = measure_search_keys(args, env)
        finally:
            display.stop()
        print_search_keys(results, count, rare)
        return
    try:
        if args.popup_only:
            frames, idle, scrolled, end_ms, search_ms = [], ([], []), ([], []), [], []
            deep, deep_rows, keys, gl_mapped = ([], []), [], ([], 0), []
        else:
            frames, idle, scrolled, end_ms, search_ms, deep, deep_rows, keys, gl_mapped = measure_app(
                args, env, newest, oldest, ranks)
        popup_once, popup_asked, popup_wakeups, popup_memory = measure_popup(args, env)
        peer = copyq(args, env, count)
    finally:
        display.stop()

    renderer = "GSK_RENDERER=" + os.environ.get("GSK_RENDERER", "(the app's choice: cairo)")
    print(f"\n{count:,} items, {args.runs} runs each, medians (Xvfb, {renderer})\n")
    print("| measurement | pasteboard-gtk | CopyQ |")
    print("|---|---:|---:|")
    if peer:
        items, cold, warm, menu, peer_memory = peer
        note = "" if items == count else f" (CopyQ holds {items:,})"
        print(f"| start to the history window drawn{note} | {median(frames):.0f} ms | {median(cold):.0f} ms (server start + `copyq show`) |")
        print(f"| window shown again, process running | | {median(warm):.0f} ms (`copyq show`) |")
        print(f"| resident memory, window shown | {memory(idle)} | {memory(peer_memory)} (server and its children) |")
        menu_ms = f"{median(menu) if menu else float('nan'):.0f} ms (`copyq menu`, server running, until mapped)"
        print_popup_rows(popup_once, popup_asked, popup_wakeups, popup_memory, args.idle, menu_ms)
    else:
        print(f"| start to the history window drawn | {median(frames):.0f} ms | not installed |")
        print(f"| resident memory, window shown | {memory(idle)} | |")
        print_popup_rows(popup_once, popup_asked, popup_wakeups, popup_memory, args.idle, "")
    print(f"| resident memory after paging through {median(deep_rows):,.0f} rows from the top (thumbnails cached) | "
          f"{memory(deep)} | |")
    print(f"| resident memory after End and 30 × Page Up | {memory(scrolled)} | |")
    key_values = sorted(keys[0])
    p90 = key_values[int(len(key_values) * 0.9)] if key_values else float("nan")
    print(f"| search: a key typed to the filtered list drawn, p50 (p90) over {len(key_values)} keys"
          f"{f', {keys[1]} without a frame' if keys[1] else ''} | {median(key_values):.0f} ms ({p90:.0f} ms) | |")
    print(f"| End: the oldest item selected and previewed | {median(end_ms):.0f} ms | |")
    print(f"| search \"zebra\" typed, filtered list shown | {median(search_ms):.0f} ms | |")
    for name, values in popup_asked.items():
        print(f"\n{name} to the resident popup drawn, every run: {', '.join(f'{v:.0f}' for v in values)} ms", end="")
    print(f"\nsearch keys, every one (ms): {', '.join(f'{v:.0f}' for v in keys[0])}", end="")
    print(f"\nOpenGL mapped into the window's process, each run: {', '.join(str(v) for v in gl_mapped)}", end="")
    print(f"\n`--popup --once`, every run: {', '.join(f'{v:.0f}' for v in popup_once)} ms")
    print(f"first frame, every run: {', '.join(f'{v:.0f}' for v in frames)} ms; "
          f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("'own' is RssAnon: memory not backed by files (mapped libraries such as Mesa's libLLVM, which software GL "
          "under Xvfb loads, are the rest).")


if __name__ == "__main__":
    main()
