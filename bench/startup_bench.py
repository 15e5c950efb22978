#!/usr/bin/env python3
"""Start-up and memory benchmark: `pb --version` against `xclip -version`, and `pb daemon`'s resident memory.

Measures, side by side in one run:
  1. the wall time of `pb --version` against `xclip -version` and against three floor programs
     (bench/startup_floor.swift, linked the way `make build` links pb: it reads its environment and prints a line;
     once with all of Foundation, as pb was, once with FoundationEssentials alone, as pb is, and once more loading
     every shared library pb links): medians of --runs, taken in turns, and the ratio to xclip;
  2. the peak resident memory of those processes (GNU time's %M);
  3. `pb daemon`'s resident memory (VmRSS; the peak VmHWM beside it) with an empty store and with a store of --items
     items (default 1,000,000), headless and, when Xvfb is installed, with the X11 backend on a private Xvfb: idle
     before any client, after answering one request (`ping`), and after `status` (which counts every item).
Each measurement is made for every pb build in the run, side by side:
  - the pb under test, --pb (default .build/release/pb: `make build` links the Swift runtime into it);
  - the same sources linked against the shared Swift runtime (`swift build -c release --product pb` into
    bench/data/build-dynamic; --dynamic-pb PATH instead, --no-dynamic to skip);
  - with --before COMMIT, pb from the sources at COMMIT (exported with `git archive` into bench/data/before-COMMIT,
    built there with `swift build -c release --product pb`, so with the shared runtime whatever that commit's Makefile
    did; for commits before static linking that is how `make build` built it); with --before-static, by that commit's
    own `make build` instead (into bench/data/before-COMMIT-make), to compare `make build` with `make build`.
  - with --compare LABEL=PATH (repeatable), any other pb binary, such as one linked another way.

The big store is written straight into SQLite (pb itself creates the empty store, schema and all), row for row what
`pb copy` writes for a text item, and kept in bench/data/ (git-ignored) for later runs: building it takes about two
minutes instead of the four that `pb import` needs. The daemons run on that store itself: nothing they are asked
writes to it, and the run checks the item count afterwards.

Usage: python3 bench/startup_bench.py [--pb PATH] [--dynamic-pb PATH | --no-dynamic] [--before COMMIT [--before-static]]
                                      [--compare LABEL=PATH ...] [--items N] [--runs R] [--settle SECONDS] [--no-x11]
Needs xclip, GNU time (/usr/bin/time, Debian package `time`), readelf, and swiftc and cc for the floor program and
the builds. Prints Markdown tables (paste them into the README) and the raw numbers as JSON.
"""
import argparse, bisect, hashlib, json, os, random, shutil, signal, sqlite3, statistics, subprocess, sys
import socket as socketlib, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "bench", "data")
TEXT_TYPE = "public.utf8-plain-text"
# Bump when the generated store's contents change, so that an old cached store is not reused.
STORE_FORMAT = 1
# How `make build` links pb; the floor programs are linked the same way: the Swift runtime, and the C libraries and
# libstdc++ from the static archives that scripts/static_libs.sh gathers (the search path puts them first).
STATIC_LIBS = os.path.join(ROOT, ".build", "static-libs")
STATIC_LINK = ["-static-stdlib", "-use-ld=bfd", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
               "-Xlinker", "--wrap=mktemp"]
# The system libraries the floor programs link: SQLite and Xlib, as pb does (Package.swift: CSQLite, CX11).
PB_LIBRARIES = ["-lsqlite3", "-lX11", "-lXfixes"]
# Every library pb links (CX11, CXTest, CWayland, CSodium, CZlib): the third floor loads them all as shared
# libraries, unused, with libstdc++ shared too, as pb did before `make build` linked them in, to show what loading
# them costs at each start.
ALL_PB_LIBRARIES = PB_LIBRARIES + ["-lXRes", "-lXtst", "-lwayland-client", "-lsodium", "-lz"]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from history_bench import make_words  # noqa: E402  (the same vocabulary as the history benchmark)


def log(message):
    print(f"[startup_bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# MARK: - The store

def generated_texts(count, seed=7):
    """`count` distinct texts shaped like history_bench's: short phrases, URLs, multi-line notes, long notes."""
    rng = random.Random(seed)
    words = make_words(rng, 50000)
    cumulative = []
    total = 0.0
    for rank in range(len(words)):
        total += 1.0 / (rank + 1) ** 0.9
        cumulative.append(total)

    def word():
        return words[bisect.bisect_left(cumulative, rng.random() * total)]

    def phrase(low, high):
        return " ".join(word() for _ in range(rng.randint(low, high)))

    for index in range(count):
        r = rng.random()
        if r < 0.60:
            text, kind = phrase(1, 14), "text"
        elif r < 0.75:
            text = ("https://" + word() + "." + rng.choice(["com", "org", "net", "io"]) + "/"
                    + "/".join(word() for _ in range(rng.randint(1, 4))) + "?id=" + str(rng.randint(1, 10**9)))
            kind = "url"
        elif r < 0.93:
            text, kind = "\n".join(phrase(5, 16) for _ in range(rng.randint(2, 6))), "text"
        else:
            text, kind = "\n".join(phrase(8, 18) for _ in range(rng.randint(8, 30))), "text"
        if kind == "text":
            text += " #" + str(index)  # every item distinct, as real copies mostly are
        yield text.encode(), kind


def build_store(pb, directory, count):
    """Fills a new store in `directory` with `count` text items, as `pb copy` would record them.

    pb creates the empty store (schema, WAL); the rows follow HistoryStore+Recording.swift: a blob per text
    (address = the first 16 bytes of its SHA-256, referenced by the representation and as the item's text), an item
    whose identity is the first 16 bytes of SHA-256(type identifier, 0, address), one representation, and the text in
    the trigram index under the item's position.
    """
    env = private_env(os.path.join(directory, "env"), store=directory)
    subprocess.run([pb, "stats"], env=env, check=True, stdout=subprocess.DEVNULL)
    database = os.path.join(directory, "history.sqlite")
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("PRAGMA synchronous = OFF")
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("INSERT INTO content_types(identifier) VALUES (?)", (TEXT_TYPE,))
    type_id = connection.execute("SELECT id FROM content_types WHERE identifier = ?", (TEXT_TYPE,)).fetchone()[0]
    start = 1_700_000_000.0
    batch_blobs, batch_items, batch_reps, batch_text = [], [], [], []

    def flush():
        connection.executemany("INSERT INTO blobs(id, hash, size, data, refcount) VALUES (?, ?, ?, ?, 2)", batch_blobs)
        connection.executemany(
            "INSERT INTO items(id, position, identity, created, last_copied, kind, size, text_blob, source, selection) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pb', 'clipboard')", batch_items)
        connection.executemany(
            "INSERT INTO representations(item_id, ordinal, type_id, blob_id) VALUES (?, 0, ?, ?)", batch_reps)
        connection.executemany("INSERT INTO item_text(rowid, text) VALUES (?, ?)", batch_text)
        for batch in (batch_blobs, batch_items, batch_reps, batch_text):
            batch.clear()

    for number, (data, kind) in enumerate(generated_texts(count), start=1):
        address = hashlib.sha256(data).digest()[:16]
        identity = hashlib.sha256(TEXT_TYPE.encode() + b"\0" + address).digest()[:16]
        created = start + number * 30
        batch_blobs.append((number, address, len(data), data))
        batch_items.append((number, number, identity, created, created, kind, len(data), number))
        batch_reps.append((number, type_id, number))
        batch_text.append((number, data.decode()))
        if len(batch_blobs) == 20000:
            flush()
            if number % 200000 == 0:
                log(f"  {number:,} items")
    flush()
    connection.execute("COMMIT")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    shutil.rmtree(os.path.join(directory, "env"), ignore_errors=True)


def cached_store(pb, count):
    """The directory of a store with `count` items, built on first use and kept in bench/data."""
    directory = os.path.join(DATA, f"store-{count}-v{STORE_FORMAT}")
    done = os.path.join(directory, ".complete")
    if os.path.exists(done):
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    log(f"building a store of {count:,} items in {directory} (once; kept for later runs)")
    began = time.time()
    build_store(pb, directory, count)
    with open(done, "w") as marker:
        marker.write(f"{count} items, built in {time.time() - began:.0f} s\n")
    log(f"  built in {time.time() - began:.0f} s")
    return directory


def item_count(directory):
    connection = sqlite3.connect(f"file:{os.path.join(directory, 'history.sqlite')}?mode=ro", uri=True)
    try:
        return connection.execute("SELECT count(*) FROM items").fetchone()[0]
    finally:
        connection.close()


# MARK: - Processes

def private_env(base, store=None, display=None):
    """An environment whose every pb path points into `base` (the store into `store` when given)."""
    env = dict(os.environ)
    for key in ("DISPLAY", "WAYLAND_DISPLAY", "PB_CONFIG", "PB_BACKEND"):
        env.pop(key, None)
    env.update({"HOME": os.path.join(base, "home"), "XDG_DATA_HOME": os.path.join(base, "data"),
                "XDG_CONFIG_HOME": os.path.join(base, "config"), "XDG_CACHE_HOME": os.path.join(base, "cache"),
                "PB_RUNTIME_DIR": os.path.join(base, "run"), "PB_STORE_DIR": store or os.path.join(base, "store"),
                "LANG": "C.UTF-8"})
    if display:
        env["DISPLAY"] = display
    for key in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        os.makedirs(env[key], exist_ok=True)
    os.makedirs(env["PB_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    return env


def spawn_wait(argv, env):
    """Runs `argv` with its output discarded; returns the wall time in ms from spawn to reaped exit."""
    with open(os.devnull, "wb") as null:
        actions = [(os.POSIX_SPAWN_DUP2, null.fileno(), 1), (os.POSIX_SPAWN_DUP2, null.fileno(), 2)]
        began = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, env, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        elapsed = (time.perf_counter() - began) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed (status {status})")
    return elapsed


def wall_times(commands, env, runs):
    """Median wall time of each command, run in turns (a, b, c, a, b, c, …) so drift on a shared machine hits all."""
    times = {label: [] for label in commands}
    for label, argv in commands.items():  # warm the page cache and the dynamic loader's caches
        spawn_wait(argv, env)
    for _ in range(runs):
        for label, argv in commands.items():
            times[label].append(spawn_wait(argv, env))
    return {label: {"p50": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}
            for label, values in times.items()}


def peak_rss_kib(argv, env, runs=5):
    """Peak resident set of a short-lived process, in KiB (the median over `runs`), as GNU time reports it.

    Measured through /usr/bin/time, not from this Python process: a child forked from Python inherits Python's own
    high-water mark (the kernel keeps it across exec), which would hide small programs.
    """
    values = []
    for _ in range(runs):
        result = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, check=True)
        values.append(int(result.stderr.strip().splitlines()[-1]))
    return statistics.median(values)


def status_fields(pid):
    """VmRSS, VmHWM, RssAnon and RssFile of a running process, in KiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
                fields[key] = int(value.split()[0])
    return fields


def request(path, command):
    """Sends one control request to the daemon's socket at `path` and returns the decoded reply."""
    connection = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
    connection.settimeout(30)
    try:
        connection.connect(path)
        connection.sendall(json.dumps({"command": command}).encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = connection.recv(4096)
            if not chunk:
                break
            reply += chunk
        return json.loads(reply or b"{}")
    finally:
        connection.close()


# The daemon's states, in the order they are sampled.
STAGES = (("idle", "idle, before any client"), ("ping", "after answering one request (`ping`)"),
          ("status", "after `status` (counts every item)"))


def daemon_memory(pb, store, backend, settle, display=None):
    """Starts `pb daemon --backend BACKEND` on `store`; samples its memory once it listens and has been left alone for
    `settle` seconds, then after a `ping`, then after a `status`."""
    base = tempfile.mkdtemp(prefix="pb-startbench-")
    env = private_env(base, store=store, display=display)
    process = subprocess.Popen([pb, "daemon", "--backend", backend, "--quiet"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True)
    socket = os.path.join(env["PB_RUNTIME_DIR"], "control.sock")
    samples = {}
    try:
        deadline = time.time() + 60
        while not os.path.exists(socket):  # it listens once the store is open and housekeeping is done
            if process.poll() is not None:
                raise SystemExit(f"pb daemon exited: {process.stderr.read().decode(errors='replace')}")
            if time.time() > deadline:
                raise SystemExit("pb daemon did not listen within 60 s")
            time.sleep(0.02)
        time.sleep(settle)
        samples["idle"] = status_fields(process.pid)
        for stage in ("ping", "status"):
            if request(socket, stage).get("ok") is not True:
                raise SystemExit(f"pb daemon did not answer {stage}")
            time.sleep(settle)
            samples[stage] = status_fields(process.pid)
        return samples
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(base, ignore_errors=True)


def start_xvfb():
    """Xvfb on a free display picked at random from :200-:999; returns (process, display) or (None, None)."""
    if shutil.which("Xvfb") is None:
        return None, None
    for number in random.sample(range(200, 1000), 40):
        if os.path.exists(f"/tmp/.X{number}-lock") or os.path.exists(f"/tmp/.X11-unix/X{number}"):
            continue
        process = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.time() + 10
        while process.poll() is None and time.time() < deadline:
            if os.path.exists(f"/tmp/.X11-unix/X{number}"):
                return process, f":{number}"
            time.sleep(0.05)
        stop(process)
    return None, None


def stop(process):
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# MARK: - The builds

def links_swift_runtime_dynamically(binary):
    """Whether `binary` needs libswiftCore.so at run time."""
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    return "libswiftCore.so" in dynamic


def build_pb(package, scratch, what):
    """`swift build -c release --product pb` of `package` into `scratch` (incremental after the first time)."""
    log(f"building {what} in {os.path.relpath(scratch, ROOT)}")
    subprocess.run(["swift", "build", "-c", "release", "--product", "pb", "--package-path", package,
                    "--scratch-path", scratch], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(scratch, "release", "pb")


def before_build(commit, static=False):
    """pb as it was at `commit`, from a `git archive` export (the work tree is not touched); with `static`, built by
    that commit's own `make build` (in bench/data/before-COMMIT-make) instead of with the shared runtime."""
    full = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", commit + "^{commit}"], capture_output=True,
                          text=True, check=True).stdout.strip()
    short = full[:10]
    tree = os.path.join(DATA, f"before-{short}" + ("-make" if static else ""))
    if not os.path.exists(os.path.join(tree, "Package.swift")):
        os.makedirs(tree, exist_ok=True)
        archive = subprocess.Popen(["git", "-C", ROOT, "archive", full], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", tree], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            raise SystemExit(f"git archive {commit} failed")
    if static:
        log(f"building pb at {short} with its own 'make build' in {os.path.relpath(tree, ROOT)}")
        subprocess.run(["make", "-C", tree, "build"], check=True, stdout=subprocess.DEVNULL)
        return short, os.path.join(tree, ".build", "release", "pb")
    return short, build_pb(tree, os.path.join(tree, ".build"), f"pb at {short}")


def floor_programs():
    """bench/startup_floor.swift linked like pb, built into bench/data/floor: with all of Foundation ("floor"), with
    FoundationEssentials alone ("floor, FoundationEssentials only"), and that again loading every shared library pb
    links."""
    directory = os.path.join(DATA, "floor")
    os.makedirs(directory, exist_ok=True)
    source = os.path.join(ROOT, "bench", "startup_floor.swift")
    shim = os.path.join(ROOT, "Sources", "CStaticFoundation")
    inputs = max(os.path.getmtime(source), os.path.getmtime(os.path.join(shim, "mktemp.c")))
    shim_object = os.path.join(directory, "mktemp.o")
    programs = {}
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "static_libs.sh"), STATIC_LIBS], check=True)
    archives = ["-L", STATIC_LIBS]
    for label, name, defines, libraries in (
            ("floor", "startup-floor", [], archives + PB_LIBRARIES),
            ("floor, FoundationEssentials only", "startup-floor-essentials", ["-D", "ESSENTIALS_ONLY"],
             archives + PB_LIBRARIES),
            ("floor, FoundationEssentials only, all of pb's libraries shared", "startup-floor-essentials-shared",
             ["-D", "ESSENTIALS_ONLY"], ["-Xlinker", "--no-as-needed"] + ALL_PB_LIBRARIES)):
        binary = os.path.join(directory, name)
        if not os.path.exists(binary) or os.path.getmtime(binary) < inputs:
            log(f"building {label} (bench/startup_floor.swift)")
            subprocess.run(["cc", "-O2", "-c", "-I", os.path.join(shim, "include"), os.path.join(shim, "mktemp.c"),
                            "-o", shim_object], check=True)
            subprocess.run(["swiftc", "-O"] + defines + STATIC_LINK + [source, shim_object, "-o", binary]
                           + libraries, check=True)
        programs[label] = binary
    return programs


# MARK: - Report

def mb(kib):
    return f"{kib / 1024:.1f} MB"


def report(args, builds, walls, peaks, daemons, store_items, display, sizes):
    labels = [label for label, _ in builds]
    xclip = walls["xclip"]["p50"]
    floors = [label for label in walls if label.startswith("floor")]
    print()
    print(f"Start-up and memory, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores; wall times are medians "
          f"of {args.runs} runs of each program, taken in turns; daemon memory {args.settle:.0f} s after each step.")
    print()
    print("| measurement | " + " | ".join(labels) + " | peer | goal |")
    print("|---|" + "---:|" * len(labels) + "---|---|")
    cells = [f"{walls[label]['p50']:.1f} ms ({walls[label]['p50'] / xclip:.2f}× xclip)" for label in labels]
    peer = f"`xclip -version` {xclip:.1f} ms" + "".join(
        f"; {label} {walls[label]['p50']:.1f} ms ({walls[label]['p50'] / xclip:.2f}×)" for label in floors)
    print("| `pb --version`, wall time | " + " | ".join(cells) + f" | {peer} | ≤ 1.5× xclip |")
    cells = [mb(peaks[label]) for label in labels]
    peer = f"`xclip -version` {mb(peaks['xclip'])}" + "".join(f"; {label} {mb(peaks[label])}" for label in floors)
    print("| `pb --version`, peak RSS | " + " | ".join(cells) + f" | {peer} | |")
    for (backend, kind) in daemons[labels[0]]:
        where = "headless" if backend == "headless" else "X11 (Xvfb)"
        what = "empty store" if kind == "empty" else f"{store_items:,} items"
        stages = STAGES[:1] if kind == "empty" else STAGES
        for stage, wording in stages:
            cells = [f"{mb(daemons[label][(backend, kind)][stage]['VmRSS'])}" for label in labels]
            goal = "≤ 15 MB" if kind != "empty" else ""
            print(f"| daemon RSS, {where}, {what}, {wording} | " + " | ".join(cells) + f" | | {goal} |")
    cells = [mb(sizes[label] / 1024) for label in labels]
    print("| size of the pb file | " + " | ".join(cells) + " | | |")
    print()
    print("Daemon RSS split, anonymous + file-backed (peak VmHWM):")
    for label in labels:
        parts = []
        for (backend, kind), samples in daemons[label].items():
            for stage, sample in samples.items():
                parts.append(f"{backend}/{kind}/{stage} {mb(sample['RssAnon'])} + {mb(sample['RssFile'])} "
                             f"({mb(sample['VmHWM'])})")
        print(f"  {label}: " + "; ".join(parts))
    print()
    raw = {"wall_ms": walls, "peak_rss_kib": peaks, "file_bytes": sizes, "store_items": store_items,
           "daemon_kib": {label: {f"{b}/{k}": v for (b, k), v in samples.items()} for label, samples in daemons.items()},
           "builds": {label: os.path.relpath(path, ROOT) if path.startswith(ROOT) else path for label, path in builds}}
    print(json.dumps(raw, indent=1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"), help="the pb under test")
    parser.add_argument("--dynamic-pb", default=None, help="a pb of the same sources linked to the shared runtime")
    parser.add_argument("--no-dynamic", action="store_true", help="no shared-runtime build of the same sources")
    parser.add_argument("--before", default=None, metavar="COMMIT", help="also measure pb as built at COMMIT")
    parser.add_argument("--before-static", action="store_true",
                        help="build the --before commit with its own 'make build' (static runtime), not shared")
    parser.add_argument("--compare", action="append", default=[], metavar="LABEL=PATH",
                        help="also measure this pb binary, shown as LABEL (repeatable)")
    parser.add_argument("--items", type=int, default=1_000_000, help="items in the big store")
    parser.add_argument("--runs", type=int, default=100, help="runs per program for the wall times")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds to wait before each memory sample")
    parser.add_argument("--no-x11", action="store_true", help="skip the X11 backend even when Xvfb is installed")
    args = parser.parse_args()
    if not os.access(args.pb, os.X_OK):
        sys.exit(f"pb not built at {args.pb}: run 'make build' first (or pass --pb)")
    for tool in ("xclip", "readelf", "/usr/bin/time"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is required (Debian: apt-get install -y xclip binutils time)")

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)

    def linkage(path):
        return "shared Swift runtime" if links_swift_runtime_dynamically(path) else "static Swift runtime"

    builds = [(f"pb, {linkage(args.pb)}", args.pb)]
    if not args.no_dynamic:
        other = args.dynamic_pb or build_pb(ROOT, os.path.join(DATA, "build-dynamic"), "pb with the shared runtime")
        if linkage(other) == linkage(args.pb):
            log(f"{other} is linked like {args.pb}; measuring only {args.pb}")
        else:
            builds.insert(0, (f"pb, {linkage(other)}", other))
    if args.before:
        short, path = before_build(args.before, static=args.before_static)
        builds.insert(0, (f"pb at {short}, {linkage(path)}", path))
    for item in args.compare:
        label, _, path = item.partition("=")
        if not path or not os.access(path, os.X_OK):
            sys.exit(f"--compare needs LABEL=PATH with an executable PATH, not {item!r}")
        builds.insert(0, (label, path))
    floors = floor_programs() if shutil.which("swiftc") and shutil.which("cc") else {}
    xvfb = None
    try:
        store = cached_store(args.pb, args.items)
        store_items = item_count(store)
        xvfb, display = (None, None) if args.no_x11 else start_xvfb()
        base = tempfile.mkdtemp(prefix="pb-startbench-")
        env = private_env(base)
        log(f"wall times: {args.runs} runs of each program")
        commands = {"xclip": ["xclip", "-version"]}
        commands.update({label: [path] for label, path in floors.items()})
        commands.update({label: [path, "--version"] for label, path in builds})
        walls = wall_times(commands, env, args.runs)
        peaks = {label: peak_rss_kib(argv, env) for label, argv in commands.items()}
        shutil.rmtree(base, ignore_errors=True)
        daemons = {label: {} for label, _ in builds}
        backends = [("headless", None)] + ([("x11", display)] if display else [])
        for backend, shown in backends:
            for kind, directory in (("empty", None), ("big", store)):
                for label, path in builds:
                    log(f"daemon memory: {label}, {backend}, {kind} store")
                    daemons[label][(backend, kind)] = daemon_memory(path, directory, backend, args.settle, shown)
        if item_count(store) != store_items:
            raise SystemExit(f"the cached store in {store} changed while measured")
        sizes = {label: os.path.getsize(path) for label, path in builds}
        report(args, builds, walls, peaks, daemons, store_items, display, sizes)
    except KeyboardInterrupt:
        sys.exit("interrupted")
    finally:
        stop(xvfb)


if __name__ == "__main__":
    main()
