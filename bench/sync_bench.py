#!/usr/bin/env python3
"""Sync benchmark: a copy on device A reaching device B's history through two real Syncthing instances.

Measures, side by side in one run:
  1. latency from `pb copy` on A to the item in B's history, through two Syncthing instances on loopback, split into
     pb on A (copy to its segment renamed into A's folder), Syncthing (that file appearing in B's folder) and pb on B
     (file to item committed in B's store):
       - with the rescan request (the daemon asks Syncthing to rescan the file it wrote), and
       - with Syncthing's file watcher alone (fsWatcherDelayS=1);
     beside the baseline: Syncthing alone carrying a plain file of the same size (written outside, renamed in; with a
     rescan request, and with the watcher alone);
  2. CPU time of both daemons per synced copy (utime+stime from /proc);
  3. joining a device to a history of --items items (default 100,000) through a plain shared directory: A's daemon
     writing the whole history into the folder, then its snapshot (which replaces its segments), then B's daemon
     applying it, beside `pb import` of the same items into an empty store (what putting them in a store costs
     without sync);
  4. the folder's size against the payload bytes it carries, and bytes per operation.

Copies are --gap seconds apart (default 0.6): Syncthing sends index updates in batches about 250 ms apart, so a
change made right after another waits for the next batch (with --gap 0 both pb and the plain-file baseline take
about 250 ms).

Usage: python3 bench/sync_bench.py [--pb PATH] [--runs N] [--items N] [--size BYTES] [--gap SECONDS] [--skip-join]
                                     [--skip-latency]
Needs syncthing (its REST API is called from Python over loopback). Uses ports
23900-23999 and private directories under /tmp, removed at the end. Prints Markdown tables and the raw numbers as JSON.
"""
import argparse, json, os, random, re, resource, shutil, signal, sqlite3, statistics, subprocess, sys, tempfile, threading, time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ST_ENV = {"STNODEFAULTFOLDER": "1", "STNOUPGRADE": "1", "STNORESTART": "1", "STMONITORED": "1", "STHASHING": "minio"}
CLK_TCK = os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


class Syncthing:
    def __init__(self, name, root, gui, listen):
        self.name, self.gui, self.listen = name, gui, listen
        self.home = os.path.join(root, "st-" + name)
        env = dict(os.environ, **ST_ENV)
        subprocess.run(["syncthing", "generate", "--home=" + self.home, "--no-default-folder", "--skip-port-probing"],
                       env=env, check=True, capture_output=True)
        self.device = subprocess.run(["syncthing", "serve", "--home=" + self.home, "--device-id"], env=env, check=True,
                                     capture_output=True, text=True).stdout.strip()
        self.key = "bench" + os.urandom(10).hex()
        path = os.path.join(self.home, "config.xml")
        config = open(path).read()
        for pattern, repl in [
            (r"<address>127\.0\.0\.1:8384</address>", f"<address>127.0.0.1:{gui}</address>"),
            (r"<apikey>[^<]*</apikey>", f"<apikey>{self.key}</apikey>"),
            (r"<listenAddress>default</listenAddress>", f"<listenAddress>tcp://127.0.0.1:{listen}</listenAddress>"),
            (r"<globalAnnounceEnabled>true", "<globalAnnounceEnabled>false"),
            (r"<localAnnounceEnabled>true", "<localAnnounceEnabled>false"),
            (r"<relaysEnabled>true", "<relaysEnabled>false"), (r"<natEnabled>true", "<natEnabled>false"),
            (r"<startBrowser>true", "<startBrowser>false"), (r"<urAccepted>0<", "<urAccepted>-1<"),
            (r"<crashReportingEnabled>true", "<crashReportingEnabled>false"),
            (r"<autoUpgradeIntervalH>12<", "<autoUpgradeIntervalH>0<")]:
            config = re.sub(pattern, repl, config)
        open(path, "w").write(config)
        self.log = open(os.path.join(root, f"st-{name}.log"), "w")
        self.process = subprocess.Popen(["syncthing", "serve", "--home=" + self.home, "--no-browser", "--no-restart",
                                         "--no-upgrade"], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                self.request("GET", "/rest/system/ping")
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"syncthing {name} did not start")

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui}{path}", data=data, method=method,
                                         headers={"X-API-Key": self.key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.read()

    def add_peer(self, peer):
        self.request("POST", "/rest/config/devices", {"deviceID": peer.device, "name": peer.name,
                                                      "addresses": [f"tcp://127.0.0.1:{peer.listen}"]})

    def share(self, folder_id, path, peer, delay):
        self.request("POST", "/rest/config/folders", {
            "id": folder_id, "label": folder_id, "path": path, "type": "sendreceive", "fsWatcherEnabled": True,
            "fsWatcherDelayS": delay, "rescanIntervalS": 3600,
            "devices": [{"deviceID": self.device}, {"deviceID": peer.device}]})

    def connected(self, peer):
        connections = json.loads(self.request("GET", "/rest/system/connections"))["connections"]
        return connections.get(peer.device, {}).get("connected", False)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


class Device:
    """One pb store with its own XDG directories and, when started, its own headless daemon."""

    def __init__(self, pb, root, name):
        self.pb, self.root = pb, os.path.join(root, name)
        self.env = dict(os.environ, XDG_DATA_HOME=self.root + "/data", XDG_CONFIG_HOME=self.root + "/config",
                        XDG_RUNTIME_DIR=self.root + "/run", PB_RUNTIME_DIR=self.root + "/run", HOME=self.root,
                        PB_BACKEND="headless")
        for key in ("DISPLAY", "WAYLAND_DISPLAY", "PB_STORE_DIR", "PB_CONFIG"):
            self.env.pop(key, None)  # every path of the device's own
        for sub in ["data", "config/pasteboard", "run"]:
            os.makedirs(os.path.join(self.root, sub), mode=0o700, exist_ok=True)
        self.daemon = None
        self.db = os.path.join(self.root, "data/pasteboard/history.sqlite")

    def run(self, args, stdin=None):
        result = subprocess.run([self.pb] + args, env=self.env, input=stdin, capture_output=True)
        if result.returncode != 0:
            raise SystemExit(f"pb {' '.join(args)} failed: {result.stderr.decode()}")
        return result.stdout.decode()

    def configure(self, text):
        open(os.path.join(self.root, "config/pasteboard/config"), "w").write(text)

    def start(self):
        self.log = open(os.path.join(self.root, "daemon.log"), "w")
        self.daemon = subprocess.Popen([self.pb, "daemon", "--backend", "headless"], env=self.env,
                                       stdout=subprocess.PIPE, stderr=self.log)
        line = self.daemon.stdout.readline()
        if b"running" not in line:
            raise SystemExit(f"the daemon did not start: {line}")

    def stop(self):
        if self.daemon:
            self.daemon.send_signal(signal.SIGTERM)
            self.daemon.wait(10)
            self.daemon = None
            self.log.close()

    def peak_mb(self):
        """The daemon's peak resident memory so far (VmHWM), in MB."""
        for line in open(f"/proc/{self.daemon.pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        raise SystemExit(f"no VmHWM in /proc/{self.daemon.pid}/status")

    def resident_mb(self):
        """The daemon's resident memory now (VmRSS), in MB."""
        for line in open(f"/proc/{self.daemon.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise SystemExit(f"no VmRSS in /proc/{self.daemon.pid}/status")

    def cpu(self):
        fields = open(f"/proc/{self.daemon.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def last_id(self):
        try:
            with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=1) as db:
                return db.execute("SELECT coalesce(max(id), 0) FROM items").fetchone()[0]
        except sqlite3.Error:
            return -1

    def search_backlog(self):
        """Whether items recorded are not in the search index yet."""
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=5) as db:
            return db.execute("SELECT count(*) FROM search_backlog").fetchone()[0] > 0

    def count(self):
        try:
            with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=1) as db:
                return db.execute("SELECT count(*) FROM items").fetchone()[0]
        except sqlite3.Error:
            return -1


class Asking:
    """`pb doctor` asks a device's daemon whether it runs, once a second from now until `stop()`: how long sync kept
    a request (a paste, a copy) waiting, and how often past doctor's 2 s limit (it then says the daemon "does not
    answer"). Asks before the daemon listens say it is not running and are not counted."""

    def __init__(self, pb, device):
        self.answers, self.unanswered, self.done = [], 0, threading.Event()
        self.thread = threading.Thread(target=self.ask, args=(pb, device), daemon=True)
        self.thread.start()

    def ask(self, pb, device):
        while not self.done.is_set():
            asked = time.monotonic()
            output = subprocess.run([pb, "doctor"], env=device.env, capture_output=True, timeout=3600).stdout
            if b"daemon:   running" in output:
                self.answers.append(time.monotonic() - asked)
            elif b"does not answer" in output:
                self.unanswered += 1
                self.answers.append(time.monotonic() - asked)
            self.done.wait(1)

    def stop(self):
        self.done.set()
        self.thread.join()

    def figures(self):
        """The longest wait (s), the asks counted, and those not answered within 2 s."""
        return max(self.answers, default=0.0), len(self.answers), self.unanswered


def placed_items(device):
    """How many items `device`'s sync state has placed, that is how many its daemon has written out (0 while the state
    cannot be read)."""
    state = os.path.join(device.root, "data/pasteboard/sync/state.sqlite")
    try:
        with sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=1) as db:
            return db.execute("SELECT count(*) FROM entries WHERE position IS NOT NULL").fetchone()[0]
    except sqlite3.Error:
        return 0


def listing(path):
    try:
        return set(os.listdir(path))
    except FileNotFoundError:
        return set()


def latency_round(a, b, folder_a, folder_b, device_a, size, timeout=30):
    """One copy on A; returns (total, pb on A, Syncthing, pb on B) in seconds."""
    segments_a = os.path.join(folder_a, "devices", device_a)
    segments_b = os.path.join(folder_b, "devices", device_a)
    before_a, before_b, before_count = listing(segments_a), listing(segments_b), b.count()
    text = (os.urandom(8).hex() + " ") * (size // 17 + 1)
    start = time.monotonic()
    copy = subprocess.Popen([a.pb, "copy"], env=a.env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    copy.stdin.write(text[:size].encode())
    copy.stdin.close()  # polled from here on, while pb copy is still running
    written = arrived = None
    deadline = start + timeout
    while time.monotonic() < deadline:
        now = time.monotonic()
        copy.poll()
        if written is None and listing(segments_a) - before_a:
            written = now
        if arrived is None and listing(segments_b) - before_b:
            arrived = now
        if b.count() > before_count:
            done = time.monotonic()
            written = written or done
            arrived = arrived or done
            copy.wait()
            return done - start, written - start, arrived - written, done - arrived
        time.sleep(0.001)
    raise SystemExit("a copy never reached B")


def baseline_round(st_a, folder_a, folder_b, staging, size, rescan, timeout=30):
    """Syncthing alone: a plain file of `size` bytes renamed into A's folder; seconds until it is in B's folder."""
    name = "plain-" + os.urandom(6).hex()
    path = os.path.join(staging, name)
    with open(path, "wb") as f:
        f.write(os.urandom(size))
        f.flush()
        os.fsync(f.fileno())
    start = time.monotonic()
    os.rename(path, os.path.join(folder_a, name))
    if rescan:
        st_a.request("POST", f"/rest/db/scan?folder=pbsync&sub={name}")
    target = os.path.join(folder_b, name)
    while time.monotonic() < start + timeout:
        if os.path.exists(target):
            return time.monotonic() - start
        time.sleep(0.001)
    raise SystemExit("a plain file never reached B")


def summary(values):
    return {"p50_ms": percentile(values, 50) * 1000, "p90_ms": percentile(values, 90) * 1000, "n": len(values)}


def syncthing_pair(args, root, delay):
    offset = random.randrange(0, 20) * 4
    st_a = Syncthing("a", root, 23900 + offset, 23901 + offset)
    st_b = Syncthing("b", root, 23902 + offset, 23903 + offset)
    st_a.add_peer(st_b)
    st_b.add_peer(st_a)
    folder_a, folder_b = os.path.join(root, "shared-a"), os.path.join(root, "shared-b")
    os.makedirs(folder_a)
    os.makedirs(folder_b)
    st_a.share("pbsync", folder_a, st_b, delay)
    st_b.share("pbsync", folder_b, st_a, delay)
    deadline = time.time() + 30
    while not st_a.connected(st_b):
        if time.time() > deadline:
            raise SystemExit("the Syncthing instances never connected")
        time.sleep(0.1)
    return st_a, st_b, folder_a, folder_b


def latency(args, root):
    st_a, st_b, folder_a, folder_b = syncthing_pair(args, root, delay=1)
    a, b = Device(args.pb, root, "a"), Device(args.pb, root, "b")
    staging = os.path.join(root, "staging")
    os.makedirs(staging)
    results = {}
    try:
        key = a.run(["sync", "init", "--folder", folder_a]).strip().split("\n")[-1]
        st_a.request("POST", "/rest/db/scan?folder=pbsync")
        while not os.path.exists(os.path.join(folder_b, "pasteboard-sync.json")):
            time.sleep(0.01)
        time.sleep(0.5)
        b.run(["sync", "join", "--folder", folder_b], stdin=(key + "\n").encode())
        device_a = json.load(open(os.path.join(a.root, "data/pasteboard/sync/device.json")))["device"]
        for mode in ["rescan", "watcher"]:
            for device, st in [(a, st_a), (b, st_b)]:
                device.configure(f"syncthing-url = http://127.0.0.1:{st.gui}\nsyncthing-api-key = {st.key}\n"
                                 "syncthing-folder = pbsync\n" if mode == "rescan" else "")
                device.start()
            latency_round(a, b, folder_a, folder_b, device_a, args.size)  # warm-up
            cpu_a, cpu_b = a.cpu(), b.cpu()
            rounds = []
            for _ in range(args.runs if mode == "rescan" else max(3, args.runs // 3)):
                time.sleep(args.gap)
                rounds.append(latency_round(a, b, folder_a, folder_b, device_a, args.size))
            cpu = ((a.cpu() - cpu_a) / len(rounds), (b.cpu() - cpu_b) / len(rounds))
            a.stop()
            b.stop()
            plain = []
            for _ in range(len(rounds)):
                time.sleep(args.gap)
                plain.append(baseline_round(st_a, folder_a, folder_b, staging, args.size + 200, mode == "rescan"))
            results[mode] = {
                "total": summary([r[0] for r in rounds]), "pb_a": summary([r[1] for r in rounds]),
                "syncthing": summary([r[2] for r in rounds]), "pb_b": summary([r[3] for r in rounds]),
                "baseline_plain_file": summary(plain),
                "cpu_ms_per_copy": {"a": cpu[0] * 1000, "b": cpu[1] * 1000}}
    finally:
        a.stop()
        b.stop()
        st_a.stop()
        st_b.stop()
    return results


def folder_bytes(folder):
    total = files = 0
    for directory, _, names in os.walk(folder):
        for name in names:
            total += os.path.getsize(os.path.join(directory, name))
            files += 1
    return total, files


def join(args, root):
    lines = "".join(json.dumps({"text": f"item {i} " + os.urandom(12).hex() + (" lorem ipsum" * (i % 7))}) + "\n"
                    for i in range(args.items))
    payload_bytes = sum(len(json.loads(line)["text"].encode()) for line in lines.splitlines())
    path = os.path.join(root, "items.jsonl")
    open(path, "w").write(lines)
    return join_history(args.pb, root, path, payload_bytes)


def join_history(pb, root, path, payload_bytes, separate_baseline=True):
    """Device A imports the items of `path` (`pb import` JSON Lines), its daemon writes them all into a plain shared
    folder, then its snapshot; device B's daemon joins and applies them. The baseline is `pb import` of the same items
    into an empty store: a third device's (`separate_baseline`), or A's own import (one import fewer, for big
    histories: bench/scale_bench.py --sync-join). Directories under `root`; B's store must end with A's items."""
    folder = os.path.join(root, "plain-shared")
    a, b, c = Device(pb, root, "ja"), Device(pb, root, "jb"), Device(pb, root, "jc")

    def timed_import(device):
        start, children = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        device.run(["import", path])
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.monotonic() - start, after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime

    if separate_baseline:
        import_seconds, import_cpu = timed_import(c)
    a_import = timed_import(a)
    if not separate_baseline:
        import_seconds, import_cpu = a_import
    items = a.count()  # what the import kept (a generator's duplicates are one item)
    key = a.run(["sync", "init", "--folder", folder]).strip().split("\n")[-1]
    b.run(["sync", "join", "--folder", folder], stdin=(key + "\n").encode())
    result = {"items": items, "pb_import_s": import_seconds, "pb_import_cpu_s": import_cpu}

    def running(device):
        if device.daemon.poll() is not None:
            raise SystemExit(f"the daemon of {device.root} exited ({device.daemon.returncode}): see its daemon.log")

    try:
        asking = Asking(pb, a)
        start = time.monotonic()
        a.start()
        device_a = json.load(open(os.path.join(a.root, "data/pasteboard/sync/device.json")))["device"]
        own = os.path.join(folder, "devices", device_a)
        while True:  # A has written everything when its state knows every item (polled now and then: a full count)
            running(a)
            counted = time.monotonic()
            if placed_items(a) >= items:
                break
            time.sleep(max(0.25, (time.monotonic() - counted) * 10))  # the count's own cost kept under a tenth
        result["write_history_s"] = time.monotonic() - start
        # Then its snapshot (due at once after that many operations), which replaces its segments. Below
        # SyncEngine.snapshotOperations (5,000) none is due for an hour: B joins from the segments.
        while items >= 5000 and (not any(name.endswith(".pbsnap") for name in listing(own)) or any(
                name.endswith(".pblog") for name in listing(own))):
            running(a)
            time.sleep(0.05)
        result["write_snapshot_s"] = time.monotonic() - start - result["write_history_s"]
        asking.stop()
        result["a_longest_answer_s"], result["a_answers"], result["a_unanswered"] = asking.figures()
        result["a_peak_mb"] = a.peak_mb()
        asking = Asking(pb, b)
        start = time.monotonic()
        try:
            b.start()
            # Polled cheaply (the largest id, not a count over the whole table, which would take CPU from B's
            # daemon): B's store starts empty and the join only adds items, so the last id is the count; checked
            # at the end.
            while b.last_id() < items:
                running(b)
                time.sleep(0.1)
            result["join_s"] = time.monotonic() - start
            # Then searchable: the daemon indexes what it recorded in slices between its other work, as it does
            # after `pb import` (whose time, the baseline, includes its index).
            while b.search_backlog():
                running(b)
                time.sleep(0.1)
            result["join_indexed_s"] = time.monotonic() - start
        finally:
            asking.stop()
        result["b_longest_answer_s"], result["b_answers"], result["b_unanswered"] = asking.figures()
        if b.count() != items:
            raise SystemExit(f"B's history has {b.count()} items, not {items}")
        cpu_b = b.cpu()
        result["b_peak_mb"] = b.peak_mb()
        # Once the join is placed and indexed, the daemon gives back what it took (it logs how much).
        log = os.path.join(b.root, "daemon.log")
        waited = time.monotonic()
        while "gave back " not in open(log).read() and time.monotonic() - waited < 10:
            time.sleep(0.1)
        result["b_resident_after_mb"] = b.resident_mb()
    finally:
        a.stop()
        b.stop()
    size, files = folder_bytes(folder)
    result.update({"join_cpu_s": cpu_b, "folder_bytes": size, "folder_files": files, "payload_bytes": payload_bytes,
                   "folder_over_payloads": size / payload_bytes,
                   "bytes_per_operation_beyond_payloads": (size - payload_bytes) / items})
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--size", type=int, default=1000, help="bytes per copied text (default 1000)")
    parser.add_argument("--gap", type=float, default=0.6,
                        help="seconds between copies (default 0.6). Syncthing batches index updates: a change within "
                        "about 250 ms of the previous one waits for the next batch")
    parser.add_argument("--skip-join", action="store_true")
    parser.add_argument("--skip-latency", action="store_true", help="only the join and the folder size")
    args = parser.parse_args()
    if not shutil.which("syncthing"):
        raise SystemExit("syncthing is not installed: apt-get install -y syncthing")
    if not os.access(args.pb, os.X_OK):
        raise SystemExit(f"{args.pb} is not built: run 'make build' (or pass --pb)")
    root = tempfile.mkdtemp(prefix="pb-sync-bench-")
    try:
        results = {} if args.skip_latency else {"latency": latency(args, root)}
        if not args.skip_join:
            results["join"] = join(args, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    if "latency" in results:
        print_latency(args, results)
    if "join" in results:
        print_join(results)
    print("\n```json")
    print(json.dumps(results, indent=1))
    print("```")


def print_latency(args, results):
    print(f"## Copy on A → item in B's history, {args.size}-byte text, two Syncthing 1.19 on loopback\n")
    print("| mode | total p50 (p90) | pb on A | Syncthing | pb on B | baseline: Syncthing alone, plain file | "
          "CPU per copy, daemon A / B |")
    print("|---|---|---|---|---|---|---|")
    for mode, label in [("rescan", "rescan request"), ("watcher", "watcher alone (fsWatcherDelayS=1)")]:
        r = results["latency"][mode]
        print(f"| {label} | {r['total']['p50_ms']:.0f} ms ({r['total']['p90_ms']:.0f}) | {r['pb_a']['p50_ms']:.1f} ms "
              f"| {r['syncthing']['p50_ms']:.0f} ms | {r['pb_b']['p50_ms']:.1f} ms | "
              f"{r['baseline_plain_file']['p50_ms']:.0f} ms ({r['baseline_plain_file']['p90_ms']:.0f}) | "
              f"{r['cpu_ms_per_copy']['a']:.1f} / {r['cpu_ms_per_copy']['b']:.1f} ms |")


def print_join(results):
    j = results["join"]
    print(f"\n## Joining a device to a {j['items']:,}-item history (plain shared directory)\n")
    print("| step | time |")
    print("|---|---|")
    print(f"| A's daemon writes the whole history into the folder | {j['write_history_s']:.1f} s |")
    print(f"| then its snapshot, removing the segments it covers | {j['write_snapshot_s']:.1f} s |")
    print(f"| B's daemon applies it (join, from the snapshot): every item in its history | {j['join_s']:.1f} s |")
    print(f"| … and in its search index | {j['join_indexed_s']:.1f} s (CPU {j['join_cpu_s']:.1f} s) |")
    for side, name in (("a", "A's daemon while it writes"), ("b", "B's daemon while it joins")):
        print(f"| longest wait for an answer from {name} (`pb doctor` once a second, {j[side + '_answers']} asks, "
              f"{j[side + '_unanswered']} not answered within its 2 s) | {j[side + '_longest_answer_s']:.2f} s |")
    print(f"| baseline: `pb import` of the same items into an empty store | {j['pb_import_s']:.1f} s "
          f"(CPU {j['pb_import_cpu_s']:.1f} s) |")
    print(f"\nFolder: {j['folder_bytes']:,} bytes in {j['folder_files']} files for {j['payload_bytes']:,} payload "
          f"bytes: {j['folder_over_payloads']:.2f}× the payloads, "
          f"{j['bytes_per_operation_beyond_payloads']:.0f} bytes per operation beyond them. Peak memory: A's daemon "
          f"{j['a_peak_mb']:.0f} MB, B's {j['b_peak_mb']:.0f} MB ({j['b_resident_after_mb']:.0f} MB once it is done).")


if __name__ == "__main__":
    main()
