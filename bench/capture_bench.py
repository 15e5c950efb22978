#!/usr/bin/env python3
"""X11 capture benchmark: Pasteboard (`pb daemon`) and CopyQ side by side in one run, on a private Xvfb.

Measures, for each manager alone on the display (the other one is not running then):
  1. latency from an owner change to the item being in the history, p50/p99, (a) with an in-process owner
     (bench/owner-storm.c: exact XSetSelectionOwner time) and (b) driven by `xclip -i` (from xclip's start);
     the floor is an `xclip -i` + `xclip -o` round trip measured before any manager runs;
  2. completeness at 20/50/100/200 changes per second, every change a distinct text from a new owner window;
then, with both running and nothing happening: RSS, CPU seconds and wake-ups (voluntary context switches).

Usage: python3 bench/capture_bench.py [--pb PATH] [--quick] [--idle SECONDS] [--rates 20,50,100,200] [--keep]
Needs Xvfb, xclip, copyq, cc and Xlib headers (libx11-dev). Prints Markdown tables (paste them into the README)
and the raw numbers. Every process it starts and its temporary directory are removed at the end, also on Ctrl-C.
"""
import argparse, json, os, random, shutil, signal, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")
CQ_LIST = 'var a=ItemSelection().selectAll().itemsFormat(mimeText); for (var i=0;i<a.length;i++) print(str(a[i])+"\\n")'
CQ_CLEAR = 'ItemSelection().selectAll().removeAll()'


def log(message):
    print(f"[capture_bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def percentile(values, fraction):
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))]


def summary(values_ms):
    if not values_ms:
        return None
    return {"n": len(values_ms), "p50": statistics.median(values_ms), "p10": percentile(values_ms, 0.10),
            "p90": percentile(values_ms, 0.90), "p99": percentile(values_ms, 0.99), "max": max(values_ms)}


# MARK: - Processes and cleanup

class Session:
    """Owns the temporary directory and every process started; `close()` ends them by pid and removes the dir."""

    def __init__(self, keep):
        self.dir = tempfile.mkdtemp(prefix="pb-capbench-")
        self.keep = keep
        self.processes = []  # (label, Popen), stopped in reverse order

    def start(self, label, argv, env, **kwargs):
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        process = subprocess.Popen(argv, env=env, start_new_session=True, **kwargs)
        self.processes.append((label, process))
        return process

    def stop(self, process, grace=3.0):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self):
        for label, process in reversed(self.processes):
            try:
                self.stop(process)
            except Exception as error:  # keep cleaning up the rest
                log(f"could not stop {label} (pid {process.pid}): {error}")
        if self.keep:
            log(f"kept {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def descendants(pid):
    """Pids of every descendant of `pid` (from /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def proc_sample(pid):
    """RSS (KiB), CPU seconds (all threads), voluntary and involuntary context switches (all threads), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime: fields 14 and 15 of stat
        rss = 0
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
        voluntary = involuntary = 0
        for task in os.listdir(f"/proc/{pid}/task"):  # status counts the one thread only: sum the threads
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
        return {"rss_kib": rss, "cpu_s": cpu, "voluntary": voluntary, "involuntary": involuntary}
    except (OSError, IndexError, ValueError):
        return None


def group_sample(pids):
    return {pid: sample for pid in pids if (sample := proc_sample(pid)) is not None}


def idle_delta(before, after):
    """Sums over processes; one that appeared counts from zero, one that vanished is reported."""
    total = {"rss_kib": 0, "cpu_s": 0.0, "voluntary": 0, "involuntary": 0, "processes": len(after),
             "vanished": len(set(before) - set(after)), "appeared": len(set(after) - set(before))}
    for pid, end in after.items():
        start = before.get(pid, {"cpu_s": 0.0, "voluntary": 0, "involuntary": 0})
        total["rss_kib"] += end["rss_kib"]
        total["cpu_s"] += end["cpu_s"] - start["cpu_s"]
        total["voluntary"] += end["voluntary"] - start["voluntary"]
        total["involuntary"] += end["involuntary"] - start["involuntary"]
    return total


def group_rss(pids):
    return sum(s["rss_kib"] for s in group_sample(pids).values())


# MARK: - X server and clients

def start_xvfb(session):
    """Xvfb on a free display picked at random from :200-:999 (fixed low numbers are what other tools pick)."""
    for number in random.sample(range(200, 1000), 40):
        if os.path.exists(f"/tmp/.X{number}-lock") or os.path.exists(f"/tmp/.X11-unix/X{number}"):
            continue
        process = session.start("Xvfb", ["Xvfb", f":{number}", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                                dict(os.environ))
        deadline = time.time() + 10
        while process.poll() is None and time.time() < deadline:
            if os.path.exists(f"/tmp/.X11-unix/X{number}"):
                probe = subprocess.run(["xclip", "-o", "-selection", "clipboard"], env=dict(os.environ,
                                       DISPLAY=f":{number}"), capture_output=True, timeout=5)
                if b"Can't open display" not in probe.stderr:
                    return process, f":{number}"
            time.sleep(0.05)
        session.stop(process)
    raise SystemExit("could not start Xvfb on a free display")


def xclip_copy(text, env):
    """`xclip -i`: returns when the parent exits (its forked child keeps serving until another owner takes over)."""
    subprocess.run(["xclip", "-i", "-selection", "clipboard"], input=text.encode(), env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def xclip_paste(env):
    return subprocess.run(["xclip", "-o", "-selection", "clipboard"], env=env, capture_output=True,
                          timeout=5).stdout.decode()


def compile_storm(session):
    binary = os.path.join(session.dir, "owner-storm")
    subprocess.run(["cc", "-O2", "-o", binary, os.path.join(ROOT, "bench", "owner-storm.c"), "-lX11"], check=True)
    return binary


def run_storm(storm, env, rate, count, prefix, linger_ms=500, start_ms=0):
    """Runs the in-process owner; returns (changes, summary) parsed from its output."""
    timeout = count / rate + (linger_ms + start_ms) / 1000 + 30
    out = subprocess.run([storm, "--rate", str(rate), "--count", str(count), "--prefix", prefix,
                          "--linger-ms", str(linger_ms), "--start-ms", str(start_ms)],
                         env=env, capture_output=True, text=True, timeout=timeout, check=True).stdout
    changes, info = [], {}
    for line in out.splitlines():
        parts = line.split(" ")
        if parts[0] == "change":
            changes.append({"index": int(parts[1]), "set": int(parts[2]) / 1e6, "server_time": int(parts[3]),
                            "targets": int(parts[4]), "served": int(parts[5]), "refused": int(parts[6]),
                            "first_data": int(parts[7]) / 1e6, "text": parts[8]})
        elif parts[0] == "summary":
            info = dict(item.split("=") for item in parts[1:])
    return changes, {k: int(v) for k, v in info.items()}


def measure_floor(env, count, prefix):
    """`xclip -i` then `xclip -o` with no manager running: the cost of any capture driven by xclip."""
    set_ms, get_ms, both_ms = [], [], []
    stale = failed = 0
    for i in range(count):
        text = f"{prefix}-{i:06d}"
        t0 = time.time()
        xclip_copy(text, env)
        t1 = time.time()
        got = xclip_paste(env)
        t2 = time.time()
        # `xclip -i` exits before its forked child has flushed the new ownership: an `xclip -o` right after can
        # still read the previous text. Read again until the new text is there; that time is the floor.
        for _ in range(20):
            if got == text:
                break
            stale += 1
            got = xclip_paste(env)
        t3 = time.time()
        if got != text:
            failed += 1
            continue
        set_ms.append((t1 - t0) * 1000)
        get_ms.append((t2 - t1) * 1000)
        both_ms.append((t3 - t0) * 1000)
        time.sleep(0.02)
    return {"xclip_i": summary(set_ms), "xclip_o": summary(get_ms), "round_trip": summary(both_ms),
            "stale_reads": stale, "failed": failed}


# MARK: - Pasteboard

class Pasteboard:
    def __init__(self, session, pb, display):
        self.session = session
        self.pb = pb
        base = os.path.join(session.dir, "pb")
        self.env = dict(os.environ)
        self.env.pop("WAYLAND_DISPLAY", None)
        self.env.update({"DISPLAY": display, "HOME": os.path.join(base, "home"),
                         "XDG_DATA_HOME": os.path.join(base, "data"), "XDG_CONFIG_HOME": os.path.join(base, "config"),
                         "XDG_CACHE_HOME": os.path.join(base, "cache"), "PB_RUNTIME_DIR": os.path.join(base, "run")})
        for key in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            os.makedirs(self.env[key], exist_ok=True)
        os.makedirs(self.env["PB_RUNTIME_DIR"], mode=0o700, exist_ok=True)
        self.stderr_path = os.path.join(base, "daemon.stderr")
        self.events = []  # (received, event) for every "captured" event
        self.condition = threading.Condition()
        self.daemon = self.watch = None

    def start(self):
        self.daemon = self.session.start("pb daemon", [self.pb, "daemon"], self.env,
                                         stderr=open(self.stderr_path, "w"))
        socket = os.path.join(self.env["PB_RUNTIME_DIR"], "control.sock")
        deadline = time.time() + 15
        while not os.path.exists(socket):
            if self.daemon.poll() is not None or time.time() > deadline:
                raise SystemExit(f"pb daemon did not start: {self.stderr_tail()}")
            time.sleep(0.02)
        # stdin stays open: `pb watch` stops at the end of its input.
        self.watch = self.session.start("pb watch", [self.pb, "watch"], self.env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=open(os.path.join(self.session.dir, "pb",
                                                                                          "watch.stderr"), "w"))
        threading.Thread(target=self._read_watch, daemon=True).start()
        # The watch is subscribed once a probe copy shows up in it.
        for attempt in range(20):
            text = f"pb-probe-{attempt}"
            count = self.event_count()
            xclip_copy(text, self.env)
            if self.wait_for_events(count + 1, 1.0):
                break
        else:
            raise SystemExit(f"pb watch shows no captures: {self.stderr_tail()}")
        self.clear()

    def _read_watch(self):
        for line in self.watch.stdout:
            received = time.time()
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "captured":
                with self.condition:
                    self.events.append((received, event))
                    self.condition.notify_all()

    def event_count(self):
        with self.condition:
            return len(self.events)

    def wait_for_events(self, count, timeout):
        with self.condition:
            return self.condition.wait_for(lambda: len(self.events) >= count, timeout)

    def wait_quiet(self, quiet=0.5, limit=10.0):
        """Waits until no capture arrived for `quiet` seconds."""
        end = time.time() + limit
        while time.time() < end:
            count = self.event_count()
            time.sleep(quiet)
            if self.event_count() == count:
                return

    def texts(self):
        out = subprocess.run([self.pb, "history", "--json", "--limit", "100000"], env=self.env, capture_output=True,
                             text=True, check=True).stdout
        return [item["preview"] for item in json.loads(out)]

    def clear(self):
        subprocess.run([self.pb, "clear"], env=self.env, stdout=subprocess.DEVNULL, check=True)

    def stderr_lines(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read().splitlines()

    def stderr_tail(self):
        return " | ".join(self.stderr_lines()[-5:])

    def pids(self):
        return [self.daemon.pid] if self.daemon and self.daemon.poll() is None else []

    def stop(self):
        if self.watch:
            self.watch.stdin.close()
            self.session.stop(self.watch)
        if self.daemon:
            self.session.stop(self.daemon, grace=5)


# MARK: - CopyQ

class CopyQ:
    def __init__(self, session, display):
        self.session = session
        base = os.path.join(session.dir, "copyq")
        self.env = dict(os.environ)
        self.env.pop("WAYLAND_DISPLAY", None)
        self.env.update({"DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "HOME": os.path.join(base, "home"),
                         "XDG_DATA_HOME": os.path.join(base, "data"), "XDG_CONFIG_HOME": os.path.join(base, "config"),
                         "XDG_CACHE_HOME": os.path.join(base, "cache"), "XDG_RUNTIME_DIR": os.path.join(base, "run")})
        for key in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            os.makedirs(self.env[key], exist_ok=True)
        os.makedirs(self.env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
        self.server = None
        self.max_items = None

    def eval(self, script, timeout=30):
        return subprocess.run(["copyq", "eval", "--", script], env=self.env, capture_output=True, text=True,
                              timeout=timeout)

    def start(self):
        self.server = self.session.start("copyq", ["copyq"], self.env,
                                         stderr=open(os.path.join(self.session.dir, "copyq", "server.log"), "w"))
        deadline = time.time() + 30
        while self.eval("print(size())", timeout=10).returncode != 0:
            if self.server.poll() is not None or time.time() > deadline:
                raise SystemExit("CopyQ did not start")
            time.sleep(0.2)
        subprocess.run(["copyq", "config", "maxitems", "100000"], env=self.env, capture_output=True, timeout=10)
        self.max_items = subprocess.run(["copyq", "config", "maxitems"], env=self.env, capture_output=True,
                                        text=True, timeout=10).stdout.strip()
        # Its clipboard monitor starts a little after the server: wait until a probe copy is recorded.
        for attempt in range(60):
            text = f"copyq-probe-{attempt}"
            xclip_copy(text, self.env)
            end = time.time() + 0.5
            while time.time() < end:
                if self.read0() == text:
                    self.clear()
                    return
                time.sleep(0.05)
        raise SystemExit("CopyQ records no copies")

    def read0(self):
        return subprocess.run(["copyq", "read", "0"], env=self.env, capture_output=True, text=True,
                              timeout=10).stdout

    def texts(self):
        return self.eval(CQ_LIST, timeout=60).stdout.split("\n")

    def size(self):
        out = self.eval("print(size())").stdout.strip()
        return int(out) if out.isdigit() else -1

    def clear(self):
        self.eval(CQ_CLEAR)
        if self.size() != 0:
            log("CopyQ: the list is not empty after clearing")

    def wait_quiet(self, quiet=0.5, limit=10.0):
        end = time.time() + limit
        while time.time() < end:
            size = self.size()
            time.sleep(quiet)
            if self.size() == size:
                return

    def start_poller(self, seconds):
        """A `copyq eval` loop (inside CopyQ's scripting, one read(0) per ~1 ms) that prints "MS TEXT" for each
        new top item: CopyQ keeps no capture time, so this is how its latency is seen. Started before a phase."""
        end_ms = int((time.time() + seconds) * 1000)
        script = (f"var end={end_ms}; var last=str(read(0)); var out=[];"
                  "while (Date.now() < end) { var t=str(read(0)); if (t != last) { out.push(Date.now()+' '+t); "
                  "last=t; } sleep(1); } print(out.join('\\n')+'\\n')")
        process = self.session.start("copyq poller", ["copyq", "eval", "--", script], self.env,
                                     stdout=subprocess.PIPE, text=True)
        time.sleep(0.3)  # the client is up and polling
        return process

    @staticmethod
    def poller_result(process, timeout):
        out, _ = process.communicate(timeout=timeout)
        seen = {}
        for line in out.splitlines():
            ms, _, text = line.partition(" ")
            if ms.isdigit() and text not in seen:
                seen[text] = int(ms) / 1000
        return seen

    def pids(self):
        if not self.server or self.server.poll() is not None:
            return []
        return [self.server.pid] + descendants(self.server.pid)

    def stop(self):
        if self.server and self.server.poll() is None:
            subprocess.run(["copyq", "exit"], env=self.env, capture_output=True, timeout=15)
            try:
                self.server.wait(5)
            except subprocess.TimeoutExpired:
                for pid in descendants(self.server.pid):
                    try:
                        os.kill(pid, signal.SIGTERM)
                    except ProcessLookupError:
                        pass
                self.session.stop(self.server)


# MARK: - Phases

def latency_storm_pb(pb, storm, count, tag):
    start = pb.event_count()
    changes, info = run_storm(storm, pb.env, 10, count, f"pblat-{tag}")
    pb.wait_quiet(0.3)
    with pb.condition:
        events = [e for _, e in pb.events[start:]]
    by_owner_time = {e["ownerTime"]: e for e in events}
    committed, noticed, served, slow = [], [], [], []
    for change in changes:
        event = by_owner_time.get(change["server_time"])
        if event:
            committed.append((event["committed"] - change["set"]) * 1000)
            noticed.append((event["time"] - change["set"]) * 1000)
            if change["first_data"]:
                served.append((change["first_data"] - change["set"]) * 1000)
            if committed[-1] > 10:  # which side was slow: pb noticing, the owner answering, or pb committing
                slow.append({"index": change["index"], "noticed_ms": round(noticed[-1], 2),
                             "text_served_ms": round((change["first_data"] - change["set"]) * 1000, 2)
                             if change["first_data"] else None, "committed_ms": round(committed[-1], 2)})
    pb.clear()
    return {"committed": summary(committed), "noticed": summary(noticed), "text_served": summary(served),
            "slow": slow, "changes": len(changes), "matched": len(committed), "storm": info}


def latency_storm_copyq(copyq, storm, count, tag):
    poller = copyq.start_poller(count / 10 + 3)
    changes, info = run_storm(storm, copyq.env, 10, count, f"cqlat-{tag}", start_ms=200)
    seen = CopyQ.poller_result(poller, timeout=30)
    values = [(seen[c["text"]] - c["set"]) * 1000 for c in changes if c["text"] in seen]
    copyq.clear()
    return {"committed": summary(values), "changes": len(changes), "matched": len(values), "storm": info}


def latency_xclip_pb(pb, count, tag, pace=0.1):
    values, missed = [], 0
    for i in range(count):
        text = f"pbxc-{tag}-{i:06d}"
        before = pb.event_count()
        t0 = time.time()
        xclip_copy(text, pb.env)
        if pb.wait_for_events(before + 1, 2.0):
            with pb.condition:
                event = pb.events[before][1]
            values.append((event["committed"] - t0) * 1000)
        else:
            missed += 1
        time.sleep(max(0.0, t0 + pace - time.time()))
    pb.wait_quiet(0.3)
    recorded = sum(1 for t in pb.texts() if t.startswith(f"pbxc-{tag}-"))
    pb.clear()
    return {"committed": summary(values), "copies": count, "missed": missed, "recorded": recorded}


def latency_xclip_copyq(copyq, count, tag, pace=0.1):
    poller = copyq.start_poller(count * pace + 3)
    starts = {}
    for i in range(count):
        text = f"cqxc-{tag}-{i:06d}"
        t0 = time.time()
        xclip_copy(text, copyq.env)
        starts[text] = t0
        time.sleep(max(0.0, t0 + pace - time.time()))
    seen = CopyQ.poller_result(poller, timeout=30)
    values = [(seen[text] - t0) * 1000 for text, t0 in starts.items() if text in seen]
    recorded = sum(1 for t in copyq.texts() if t.startswith(f"cqxc-{tag}-"))
    copyq.clear()
    return {"committed": summary(values), "copies": count, "missed": count - len(values), "recorded": recorded}


def classify(changes, recorded_texts, prefix):
    """What happened to each change, from the owner's side (what it answered) and the manager's history."""
    recorded = {t for t in recorded_texts if t.startswith(prefix + "-")}
    served = {c["text"] for c in changes if c["served"] > 0}
    unread = [c for c in changes if c["served"] == 0]
    return {"changes": len(changes), "recorded": len(recorded), "served": len(served),
            "reached": sum(1 for c in changes if c["served"] > 0 or c["targets"] > 0),
            "served_not_recorded": len(served - recorded), "recorded_not_served": len(recorded - served),
            # TARGETS answered while current, text never asked for, and no stale request refused meanwhile:
            # the manager moved on to the next change (it was replaced mid-read).
            "superseded_mid_read": sum(1 for c in unread if c["targets"] > 0 and c["refused"] == 0),
            # TARGETS answered while current, a stale request (for the previous change) refused meanwhile, and
            # this change's text never asked for: the manager dropped a change it could still read.
            "dropped_after_refusal": sum(1 for c in unread if c["targets"] > 0 and c["refused"] > 0),
            "never_reached": sum(1 for c in unread if c["targets"] == 0),
            "refused_requests": sum(c["refused"] for c in changes),
            "missing_examples": sorted(served - recorded)[:5]}


def completeness_pb(pb, storm, rates, seconds, tag):
    results = {}
    for rate in rates:
        pb.clear()
        log_start = len(pb.stderr_lines())
        prefix = f"pbc{rate}-{tag}"
        changes, info = run_storm(storm, pb.env, rate, max(1, int(rate * seconds)), prefix)
        pb.wait_quiet(0.5)
        result = classify(changes, pb.texts(), prefix)
        lines = pb.stderr_lines()[log_start:]
        result["superseded_log"] = sum("a newer copy replaced one still being read" in l for l in lines)
        result["refused_log"] = sum("the owner refused" in l for l in lines)
        result["stalled_log"] = sum("stalled" in l for l in lines)
        result["storm"] = info
        results[rate] = result
        log(f"  pb {rate}/s: recorded {result['recorded']}/{result['changes']}, served {result['served']}")
    pb.clear()
    return results


def completeness_copyq(copyq, storm, rates, seconds, tag):
    results = {}
    for rate in rates:
        copyq.clear()
        prefix = f"cqc{rate}-{tag}"
        changes, info = run_storm(storm, copyq.env, rate, max(1, int(rate * seconds)), prefix)
        copyq.wait_quiet(0.5)
        result = classify(changes, copyq.texts(), prefix)
        result["storm"] = info
        results[rate] = result
        log(f"  CopyQ {rate}/s: recorded {result['recorded']}/{result['changes']}, served {result['served']}")
    copyq.clear()
    return results


# MARK: - Report

def ms(stat, key):
    return f"{stat[key]:.1f} ms" if stat else "n/a"


def report(args, display, floor, results, idle):
    pb, cq = results["pb"], results["copyq"]
    f50 = floor["round_trip"]["p50"]
    print()
    print(f"Capture benchmark on Xvfb {display}, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores; "
          f"{'quick' if args.quick else 'full'} run. Each manager measured alone on the display; idle with both "
          f"running. CopyQ latency is seen by a `copyq eval` loop polling `read(0)` every ~1 ms (ms clock); "
          f"CopyQ maxitems: {results.get('copyq_maxitems')}.")
    print()
    print("| measurement | pb | CopyQ | floor / goal |")
    print("|---|---:|---:|---|")
    for label, key, goal in (
            ("in-process owner", "storm", ("≤ 2 ms", "≤ 10 ms")),
            ("`xclip -i` (from xclip start)", "xclip",
             (f"floor {f50:.1f} ms; goal ≤ {1.2 * f50:.1f} ms", f"floor p99 {floor['round_trip']['p99']:.1f} ms"))):
        a, b = pb[f"latency_{key}"], cq[f"latency_{key}"]
        n = f"{a['committed']['n'] if a['committed'] else 0}/{b['committed']['n'] if b['committed'] else 0}"
        print(f"| latency, {label}, p50 (n={n}) | {ms(a['committed'], 'p50')} | {ms(b['committed'], 'p50')} | "
              f"{goal[0]} |")
        print(f"| latency, {label}, p99 | {ms(a['committed'], 'p99')} | {ms(b['committed'], 'p99')} | {goal[1]} |")
    for rate in args.rates:
        a, b = pb["completeness"][rate], cq["completeness"][rate]
        cell = lambda r: (f"{r['recorded']}/{r['changes']} ({100 * r['recorded'] / r['changes']:.0f}%); "
                          f"of readable {r['recorded'] - r['recorded_not_served']}/{r['served']}")
        print(f"| completeness at {rate}/s (recorded/changes; of those the owner served) | {cell(a)} | {cell(b)} | "
              f"100% of readable |")
    ip, ic = idle["pb"], idle["copyq"]
    print(f"| idle {args.idle:.0f} s: CPU | {ip['cpu_s']:.2f} s | {ic['cpu_s']:.2f} s ({ic['processes']} processes) | "
          f"~0 |")
    print(f"| idle {args.idle:.0f} s: wake-ups (voluntary context switches) | {ip['voluntary']} | "
          f"{ic['voluntary']} | 0 |")
    print(f"| RSS, idle | {ip['rss_kib'] / 1024:.1f} MB | {ic['rss_kib'] / 1024:.1f} MB | ≤ 30 MB |")
    print(f"| RSS after the capture phases | {pb['rss_after_kib'] / 1024:.1f} MB | "
          f"{cq['rss_after_kib'] / 1024:.1f} MB | |")
    print()
    print("| floor (no manager running) | p50 | p90 | p99 |")
    print("|---|---:|---:|---:|")
    for label, key in (("`xclip -i`", "xclip_i"), ("`xclip -o`", "xclip_o"), ("`xclip -i` + `xclip -o`",
                                                                               "round_trip")):
        s = floor[key]
        print(f"| {label} | {s['p50']:.1f} ms | {s['p90']:.1f} ms | {s['p99']:.1f} ms |")
    print()
    storm = pb["latency_storm"]
    print(f"pb with the in-process owner: noticed p50 {ms(storm['noticed'], 'p50')}, owner handed the text over "
          f"p50 {ms(storm['text_served'], 'p50')}, committed p50 {ms(storm['committed'], 'p50')} after "
          f"XSetSelectionOwner; changes committed later than 10 ms: "
          + (", ".join(f"#{s['index']} (noticed {s['noticed_ms']} ms, text served {s['text_served_ms']} ms, "
                       f"committed {s['committed_ms']} ms)" for s in storm["slow"]) or "none") + ".")
    print()
    print(f"Floor: {floor['round_trip']['n']} round trips; `xclip -o` read the previous text {floor['stale_reads']} "
          f"time(s) (`xclip -i` returns before its child has flushed the ownership) and was run again.")
    print()
    print("| completeness detail | changes | recorded | text served | reached | served, not recorded | "
          "replaced mid-read | dropped after a stale refusal | never reached | stale requests refused | "
          "pb log: superseded / refused |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for rate in args.rates:
        for name, r in (("pb", pb["completeness"][rate]), ("CopyQ", cq["completeness"][rate])):
            logs = f"{r['superseded_log']} / {r['refused_log']}" if "superseded_log" in r else ""
            print(f"| {name} {rate}/s | {r['changes']} | {r['recorded']} | {r['served']} | {r['reached']} | "
                  f"{r['served_not_recorded']} | {r['superseded_mid_read']} | {r['dropped_after_refusal']} | "
                  f"{r['never_reached']} | {r['refused_requests']} | {logs} |")
    print()
    print("The driver serves only the latest text and refuses a request for an earlier one (ICCCM), so a change "
          "replaced before anyone read it cannot be captured by any manager. Text served: the owner handed this "
          "change's text over (\"readable\" in the main table). Reached: the owner answered TARGETS or the text "
          "while the change was current. Served, not recorded: read, yet missing from the history. Replaced "
          "mid-read: TARGETS answered, then the next change came before the text was asked for. Dropped after a "
          "stale refusal: TARGETS answered while current, a request for the previous change was refused meanwhile, "
          "and this change's text was never asked for although it stayed readable.")
    print()
    print("Raw numbers:")
    print(json.dumps({"display": display, "floor": floor, "results": results, "idle": idle}, indent=1,
                     default=str))


# MARK: - Main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"))
    parser.add_argument("--quick", action="store_true", help="about a minute: fewer changes, shorter phases")
    parser.add_argument("--idle", type=float, default=None, help="idle window in seconds (default 60, quick 10)")
    parser.add_argument("--rates", default="20,50,100,200", help="changes per second for completeness")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    args = parser.parse_args()
    args.rates = [int(r) for r in args.rates.split(",")]
    if args.idle is None:
        args.idle = 10.0 if args.quick else 60.0
    latency_count, xclip_count, floor_count, seconds = (40, 30, 30, 2.0) if args.quick else (200, 200, 100, 5.0)
    if not os.access(args.pb, os.X_OK):
        sys.exit(f"pb not built at {args.pb}: run 'swift build -c release' first (or pass --pb)")
    for tool in ("Xvfb", "xclip", "copyq", "cc"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is required (Debian: apt-get install -y xvfb xclip copyq gcc libx11-dev)")

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)

    session = Session(args.keep)
    pb = copyq = None
    began = time.time()
    tag = "%06x" % random.randrange(16 ** 6)
    try:
        storm = compile_storm(session)
        xvfb, display = start_xvfb(session)

        def check_alive(*processes):
            """Another program on a shared machine may end our processes: stop rather than report nonsense."""
            for label, process in (("Xvfb", xvfb),) + processes:
                if process is not None and process.poll() is not None:
                    raise SystemExit(f"{label} (pid {process.pid}) exited unexpectedly with status "
                                     f"{process.returncode}; the numbers would be wrong")
        x_env = dict(os.environ, DISPLAY=display)
        log(f"Xvfb on {display}; floor: {floor_count} xclip -i + xclip -o")
        floor = measure_floor(x_env, floor_count, f"floor-{tag}")
        check_alive()

        results = {"pb": {}, "copyq": {}}
        pb = Pasteboard(session, args.pb, display)
        pb.start()
        log(f"pb: latency with the in-process owner ({latency_count} changes at 10/s)")
        results["pb"]["latency_storm"] = latency_storm_pb(pb, storm, latency_count, tag)
        check_alive(("pb daemon", pb.daemon), ("pb watch", pb.watch))
        log(f"pb: latency driven by xclip ({xclip_count} copies at 10/s)")
        results["pb"]["latency_xclip"] = latency_xclip_pb(pb, xclip_count, tag)
        check_alive(("pb daemon", pb.daemon), ("pb watch", pb.watch))
        log(f"pb: completeness at {args.rates} changes/s, {seconds:.0f} s each")
        results["pb"]["completeness"] = completeness_pb(pb, storm, args.rates, seconds, tag)
        results["pb"]["rss_after_kib"] = group_rss(pb.pids())
        check_alive(("pb daemon", pb.daemon), ("pb watch", pb.watch))

        copyq = CopyQ(session, display)
        copyq.start()
        results["copyq_maxitems"] = copyq.max_items
        time.sleep(1.0)  # let the start-up settle
        log(f"idle: {args.idle:.0f} s with pb daemon and CopyQ running")
        pb_before, cq_before = group_sample(pb.pids()), group_sample(copyq.pids())
        time.sleep(args.idle)
        idle = {"pb": idle_delta(pb_before, group_sample(pb.pids())),
                "copyq": idle_delta(cq_before, group_sample(copyq.pids())), "seconds": args.idle}
        check_alive(("pb daemon", pb.daemon), ("copyq", copyq.server))
        pb_log = pb.stderr_lines()
        pb.stop()

        log(f"CopyQ: latency with the in-process owner ({latency_count} changes at 10/s)")
        results["copyq"]["latency_storm"] = latency_storm_copyq(copyq, storm, latency_count, tag)
        log(f"CopyQ: latency driven by xclip ({xclip_count} copies at 10/s)")
        results["copyq"]["latency_xclip"] = latency_xclip_copyq(copyq, xclip_count, tag)
        log(f"CopyQ: completeness at {args.rates} changes/s, {seconds:.0f} s each")
        results["copyq"]["completeness"] = completeness_copyq(copyq, storm, args.rates, seconds, tag)
        results["copyq"]["rss_after_kib"] = group_rss(copyq.pids())
        check_alive(("copyq", copyq.server))
        copyq.stop()

        report(args, display, floor, results, idle)
        unusual = {}
        for line in pb_log:
            if "recorded item" in line or "a newer copy replaced" in line or "the owner refused" in line:
                continue
            unusual[line] = unusual.get(line, 0) + 1
        print()
        print("pb daemon stderr, lines other than 'recorded item' / 'a newer copy replaced' / 'the owner refused':")
        for line, count in unusual.items():
            print(f"  {count} × {line}")
        print(f"\nTotal time {time.time() - began:.0f} s.")
    except KeyboardInterrupt:
        log("interrupted; cleaning up")
        sys.exit(130)
    finally:
        for manager in (pb, copyq):
            if manager:
                try:
                    manager.stop()
                except Exception as error:
                    log(f"stopping: {error}")
        session.close()


if __name__ == "__main__":
    main()
