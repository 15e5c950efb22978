#!/usr/bin/env python3
"""Wayland capture benchmark: Pasteboard (`pb daemon`) and `wl-paste --watch cat` side by side in one run, on a
private headless sway (wlr data-control).

`wl-paste --watch CMD` is what cliphist and clipman are built on: it runs CMD with each new selection on its
standard input. Each watcher is measured alone on the compositor, driven by the same changes, each a distinct text:
  1. latency from `wl-copy`'s start to the change being committed (pb: the `committed` time of its `captured`
     event, as `pb watch` prints it; the peer: the moment `cat`'s output arrives), p50/p99, over `--copies`
     copies; and the same from the moment a long-lived source set the selection (`bench/wayland-storm.c`, at
     10 changes/s), which leaves out wl-copy's start-up;
  2. completeness at 20/50/100 changes per second, driven by `wayland-storm` (one process setting a new
     data-control source at each tick, so the rate is really reached): how many of the distinct texts each one
     got, out of all, and out of those it asked the source for (the storm counts the reads it answered, and the
     watcher is the only reader: a change replaced before the watcher's request reached the compositor cannot
     be read any more, by it or anyone slower);
  3. idle cost with nothing happening: wake-ups (voluntary context switches) and CPU over `--idle` seconds, both
     watchers at once after a few changes.

Usage: python3 bench/wayland_bench.py [--pb PATH] [--copies N] [--idle SECONDS] [--rates 20,50,100] [--seconds S]
As root it runs sway as the user `pbsway` (created when missing), as the tests do. Needs sway, wl-clipboard, cc and
libwayland-dev. Every process it starts and its temporary directory are removed at the end, also on Ctrl-C.
"""
import argparse, json, os, pwd, shutil, signal, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")
USER = "pbsway"


def log(message):
    print(f"[wayland_bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))]


class Session:
    """The temporary directory and every process started; `close()` stops them by pid and removes the directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="pb-wlbench-")
        os.chmod(self.dir, 0o755)
        self.processes = []

    def start(self, argv, env, **kwargs):
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        process = subprocess.Popen(argv, env=env, start_new_session=True, **kwargs)
        self.processes.append(process)
        return process

    def stop(self, process):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(3)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self):
        for process in reversed(self.processes):
            self.stop(process)
        shutil.rmtree(self.dir, ignore_errors=True)


def start_sway(session):
    runtime = os.path.join(session.dir, "sway-run")
    os.mkdir(runtime, 0o700)
    config = os.path.join(session.dir, "sway.config")
    with open(config, "w") as file:
        file.write("# benchmark compositor\n")
    os.chmod(config, 0o644)
    env = ["XDG_RUNTIME_DIR=" + runtime, "WLR_BACKENDS=headless", "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1"]
    argv = ["env", "-i", "PATH=/usr/bin:/bin"] + env + ["sway", "-c", config]
    if os.getuid() == 0:
        try:
            pwd.getpwnam(USER)
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)
        account = pwd.getpwnam(USER)
        os.chown(runtime, account.pw_uid, account.pw_gid)
        argv = ["runuser", "-u", USER, "--"] + argv
    sway = session.start(argv, os.environ.copy())
    deadline = time.time() + 15
    while time.time() < deadline:
        names = [n for n in os.listdir(runtime) if n.startswith("wayland-") and not n.endswith(".lock")]
        if names:
            return sway, os.path.join(runtime, names[0])
        time.sleep(0.05)
    raise SystemExit("sway did not start")


def environment(session, socket, name):
    home = os.path.join(session.dir, name)
    for sub in ("data", "config", "run", "home"):
        os.makedirs(os.path.join(home, sub), exist_ok=True)
    os.chmod(os.path.join(home, "run"), 0o700)
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "WAYLAND_DISPLAY": socket, "LANG": "C.UTF-8",
            "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config", "XDG_RUNTIME_DIR": home + "/run",
            "PB_RUNTIME_DIR": home + "/run", "HOME": home + "/home"}


class Lines:
    """Reads a process's standard output line by line on a thread, each line with the time it arrived."""

    def __init__(self, process):
        self.lines = []
        self.condition = threading.Condition()
        threading.Thread(target=self.read, args=(process.stdout,), daemon=True).start()

    def read(self, stream):
        for raw in iter(stream.readline, b""):
            now = time.time()
            with self.condition:
                self.lines.append((now, raw.decode("utf-8", "replace").rstrip("\n")))
                self.condition.notify_all()

    def wait(self, predicate, timeout):
        deadline = time.time() + timeout
        with self.condition:
            while True:
                found = next((line for line in self.lines if predicate(line[1])), None)
                if found or time.time() >= deadline:
                    return found
                self.condition.wait(max(0.001, deadline - time.time()))


def copy(env, text):
    """`wl-copy -t text/plain` of TEXT and a newline (so that `cat` ends the line): it forks a server and returns;
    the server exits when replaced. (The type is given: without one wl-copy runs xdg-mime, a quarter second.)"""
    subprocess.run(["wl-copy", "-t", "text/plain"], input=(text + "\n").encode(), env=env, check=True)


class PbWatcher:
    name = "pb daemon"

    def __init__(self, session, env, pb):
        self.env, self.pb, self.session = env, pb, session
        self.daemon = session.start([pb, "daemon", "--quiet"], env)
        while not os.path.exists(env["PB_RUNTIME_DIR"] + "/control.sock"):
            time.sleep(0.02)
        self.watch = session.start([pb, "watch"], env, stdout=subprocess.PIPE)
        self.lines = Lines(self.watch)
        time.sleep(0.3)
        self.pid = self.daemon.pid

    def committed(self, index, timeout):
        """The commit time of the index-th captured event since start (1-based), or None."""
        events = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lines.condition:
                events = [json.loads(l) for _, l in self.lines.lines if '"captured"' in l]
            if len(events) >= index:
                return events[index - 1].get("committed")
            time.sleep(0.001)
        return None

    def texts(self):
        result = subprocess.run([self.pb, "history", "--json", "--limit", "100000"], env=self.env,
                                capture_output=True, check=True)
        return {item["preview"].strip() for item in json.loads(result.stdout)}

    def close(self):
        self.session.stop(self.watch)
        self.session.stop(self.daemon)


class WlPasteWatcher:
    name = "wl-paste --watch cat"

    def __init__(self, session, env):
        self.session = session
        self.process = session.start(["wl-paste", "--type", "text/plain", "--watch", "cat"], env, stdout=subprocess.PIPE)
        self.lines = Lines(self.process)
        time.sleep(0.3)
        self.pid = self.process.pid

    def arrived(self, text, timeout):
        found = self.lines.wait(lambda line: line == text, timeout)
        return found[0] if found else None

    def texts(self):
        with self.lines.condition:
            return {line for _, line in self.lines.lines}

    def close(self):
        self.session.stop(self.process)


def proc_counters(pid):
    with open(f"/proc/{pid}/status") as file:
        status = dict(line.split(":", 1) for line in file if ":" in line)
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return int(status["voluntary_ctxt_switches"]), (int(fields[11]) + int(fields[12])) / CLK_TCK


def build_storm(session):
    binary = os.path.join(session.dir, "wayland-storm")
    module = os.path.join(ROOT, "Sources", "CWayland")
    subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE", "-O2", "-o", binary, os.path.join(ROOT, "bench", "wayland-storm.c"),
                    os.path.join(module, "interfaces.c"), "-I", os.path.join(module, "include"), "-lwayland-client"],
                   check=True)
    return binary


def storm(binary, env, rate, count, prefix):
    """Runs wayland-storm; returns {text: (set time in s, times served)} and its summary line."""
    result = subprocess.run([binary, "--rate", str(rate), "--count", str(count), "--prefix", prefix, "--linger-ms", "1500"],
                            env=env, capture_output=True, check=True, timeout=count / rate + 60)
    changes, summary = {}, ""
    for line in result.stdout.decode().splitlines():
        fields = line.split()
        if fields[0] == "change":
            changes[fields[5]] = (int(fields[2]) / 1e6, int(fields[3]))
        elif fields[0] == "summary":
            summary = line
    return changes, summary


def arrival_times(watcher, texts, timeout):
    """The time each of `texts` was committed (pb) or arrived (the peer), for those that did."""
    deadline = time.time() + timeout
    while True:
        if isinstance(watcher, PbWatcher):
            with watcher.lines.condition:
                events = [json.loads(l) for _, l in watcher.lines.lines if '"captured"' in l]
            committed = {event["id"]: event.get("committed") for event in events}
            result = subprocess.run([watcher.pb, "history", "--json", "--limit", "100000"], env=watcher.env,
                                    capture_output=True, check=True)
            times = {item["preview"].strip(): committed.get(item["id"]) for item in json.loads(result.stdout)}
        else:
            with watcher.lines.condition:
                times = {line: at for at, line in watcher.lines.lines}
        found = {text: times[text] for text in texts if times.get(text) is not None}
        if len(found) == len(texts) or time.time() >= deadline:
            return found
        time.sleep(0.2)


def measure(watcher, env, args, tag, binary):
    results = {}
    copy(env, f"{tag}-warmup")
    time.sleep(0.5)
    latencies = []
    base = 1 if isinstance(watcher, PbWatcher) else 0
    for index in range(args.copies):
        text = f"{tag}-latency-{index}"
        copy_start = time.time()
        copy(env, text)
        if isinstance(watcher, PbWatcher):
            done = watcher.committed(index + 1 + base, 5)
        else:
            done = watcher.arrived(text, 5)
        if done is not None:
            latencies.append((done - copy_start) * 1000)
        time.sleep(0.02)
    if not latencies:
        raise SystemExit(f"{watcher.name} saw none of the copies")
    results["latency"] = (statistics.median(latencies), percentile(latencies, 0.99), len(latencies))
    changes, _ = storm(binary, env, 10, args.copies, f"{tag}-storm10")
    arrived = arrival_times(watcher, list(changes), 10)
    direct = [(arrived[text] - changes[text][0]) * 1000 for text in arrived]
    if not direct:
        raise SystemExit(f"{watcher.name} saw none of the storm's changes at 10/s")
    results["storm_latency"] = (statistics.median(direct), percentile(direct, 0.99), len(direct), len(changes))
    for rate in args.rates:
        count = int(rate * args.seconds)
        changes, summary = storm(binary, env, rate, count, f"{tag}-rate{rate}")
        times = sorted(at for at, _ in changes.values())
        achieved = (count - 1) / (times[-1] - times[0]) if count > 1 and times[-1] > times[0] else float(rate)
        got = set(arrival_times(watcher, list(changes), 3))
        asked = {text for text, (_, served) in changes.items() if served > 0}
        results[f"rate{rate}"] = (len(got), count, len(got & asked), len(asked), achieved)
        log(f"  {watcher.name} at {rate}/s: {len(got)}/{count}, {len(got & asked)}/{len(asked)} of those asked for; {summary}")
    return results


def idle(watchers, env, binary, seconds):
    """Wake-ups and CPU of every watcher over `seconds` with nothing happening, after a few changes."""
    storm(binary, env, 20, 20, "idle-before")
    time.sleep(2)
    before = {watcher.name: proc_counters(watcher.pid) for watcher in watchers}
    time.sleep(seconds)
    after = {watcher.name: proc_counters(watcher.pid) for watcher in watchers}
    return {name: (after[name][0] - before[name][0], after[name][1] - before[name][1]) for name in before}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"))
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--idle", type=float, default=60)
    parser.add_argument("--rates", default="20,50,100")
    parser.add_argument("--seconds", type=float, default=3, help="how long each rate is driven")
    args = parser.parse_args()
    args.rates = [int(rate) for rate in args.rates.split(",")]
    for tool in ("sway", "wl-copy", "wl-paste", "cc"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed: apt-get install -y sway wl-clipboard gcc libwayland-dev")
    session = Session()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        binary = build_storm(session)
        _, socket = start_sway(session)
        log(f"sway on {socket}")
        table = {}
        for name in ("pb", "peer"):
            env = environment(session, socket, name)
            subprocess.run(["wl-copy", "--clear"], env=env)
            watcher = PbWatcher(session, env, args.pb) if name == "pb" else WlPasteWatcher(session, env)
            log(f"measuring {watcher.name}")
            table[watcher.name] = measure(watcher, env, args, name, binary)
            watcher.close()
        log(f"idle, both watchers, {args.idle:g} s")
        watchers = [PbWatcher(session, environment(session, socket, "pb-idle"), args.pb),
                    WlPasteWatcher(session, environment(session, socket, "peer-idle"))]
        for name, counters in idle(watchers, environment(session, socket, "idle"), binary, args.idle).items():
            table[name]["idle"] = counters
        for watcher in watchers:
            watcher.close()
        names = list(table)
        print(f"\n| (one run, {args.copies} copies, {args.seconds:g} s per rate, idle {args.idle:g} s) | "
              + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        row = lambda label, cell: print(f"| {label} | " + " | ".join(cell(table[n]) for n in names) + " |")
        row("latency `wl-copy` start → committed, p50", lambda r: f"{r['latency'][0]:.1f} ms")
        row("latency, p99", lambda r: f"{r['latency'][1]:.1f} ms")
        row("latency selection set → committed (10/s), p50 (changes seen)",
            lambda r: f"{r['storm_latency'][0]:.2f} ms ({r['storm_latency'][2]}/{r['storm_latency'][3]})")
        row("latency selection set → committed, p99", lambda r: f"{r['storm_latency'][1]:.2f} ms")
        for rate in args.rates:
            row(f"at {rate}/s: recorded / changes; recorded / asked for (rate achieved)",
                lambda r, rate=rate: "{}/{}; {}/{} ({:.0f}/s)".format(*r[f"rate{rate}"]))
        row(f"idle wake-ups in {args.idle:g} s", lambda r: str(r["idle"][0]))
        row(f"idle CPU in {args.idle:g} s", lambda r: f"{r['idle'][1]:.2f} s")
        print("\nraw:", json.dumps(table))
    finally:
        session.close()


if __name__ == "__main__":
    main()
