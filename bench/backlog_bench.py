#!/usr/bin/env python3
"""Search-backlog benchmark: how fast the daemon indexes what an import left unindexed, side by side in one run with
`pb import` indexing the same items itself.

Usage: python3 bench/backlog_bench.py [--items N] [--runs R] [--pb PATH] [--before PATH] [--workdir DIR]

`pb import` commits its rows, prints its "Imported" line, then indexes them in 200,000-item slices. When it is
stopped after that line (or the daemon's loop gets there first), the daemon indexes the rest between its events, a
slice per turn. This generates N short texts of a 2,000-word vocabulary (bench/scale_bench.py's generator, default
1,000,000), and for each pb (--pb, and --before for another build, say main's) and each run:
  - `pb import` to its end in a fresh store: the time to its "Imported" line and its indexing after it;
  - `pb import` killed at its "Imported" line in another fresh store, then `pb daemon` (headless) started on it: the
    time until the backlog is empty, the daemon's CPU seconds and its peak resident memory.
Runs alternate between the builds, so that a machine that slows down does so for both. Prints a Markdown table, then
the raw numbers as JSON.
"""
import argparse, json, os, shutil, signal, sqlite3, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bulk_bench  # noqa: E402  (a running process's CPU seconds)
import scale_bench  # noqa: E402  (the vocabulary generator)
import startup_bench  # noqa: E402  (a running process's memory fields)


def pb_env(work):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work, "LANG": "C.UTF-8",
           "XDG_CONFIG_HOME": os.path.join(work, "config"), "XDG_DATA_HOME": os.path.join(work, "data"),
           "XDG_RUNTIME_DIR": os.path.join(work, "run"), "PB_RUNTIME_DIR": os.path.join(work, "run"),
           "PB_BACKEND": "headless"}
    os.makedirs(env["PB_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    return env


def import_whole(pb, jsonl, work):
    """`pb import` to its end: (seconds to its "Imported" line, seconds from there to its end)."""
    start = time.perf_counter()
    process = subprocess.Popen([pb, "import", jsonl], env=pb_env(work), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rows_at = None
    for line in process.stdout:
        if rows_at is None and line.startswith(b"Imported"):
            rows_at = time.perf_counter() - start
    if process.wait() != 0 or rows_at is None:
        raise SystemExit(f"pb import failed ({process.returncode}): {process.stderr.read().decode()[:2000]}")
    return rows_at, time.perf_counter() - start - rows_at


def backlog(database):
    connection = sqlite3.connect(database)
    try:
        mark = connection.execute("SELECT indexed_through FROM search_backlog").fetchone()
        if mark is None:
            return 0
        return connection.execute("SELECT count(*) FROM items WHERE position > ?", mark).fetchone()[0]
    finally:
        connection.close()


def daemon_catching_up(pb, jsonl, work):
    """`pb import` killed at its "Imported" line, then the daemon indexing what it left: a dict of figures."""
    env = pb_env(work)
    process = subprocess.Popen([pb, "import", jsonl], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for line in process.stdout:
        if line.startswith(b"Imported"):
            break
    process.kill()
    process.wait()
    database = os.path.join(work, "data", "pasteboard", "history.sqlite")
    left = backlog(database)
    if left == 0:
        raise SystemExit("the import indexed everything before it was stopped: use more --items")
    log = open(os.path.join(work, "daemon.log"), "w")
    start = time.perf_counter()
    daemon = subprocess.Popen([pb, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        while backlog(database) > 0:
            if daemon.poll() is not None:
                raise SystemExit(f"the daemon exited ({daemon.returncode}): see {log.name}")
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        figures = {"left": left, "seconds": seconds, "cpu_s": bulk_bench.process_cpu(daemon.pid),
                   "peak_mb": startup_bench.status_fields(daemon.pid)["VmHWM"] / 1024}
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait()
        log.close()
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"))
    parser.add_argument("--before", help="another pb (say, a build of main) measured in the same run")
    parser.add_argument("--workdir", help="where the data and stores go (default: a temporary directory, removed)")
    args = parser.parse_args()
    if args.items < 1 or args.runs < 1:
        raise SystemExit("--items and --runs must be at least 1")
    builds = {"pb": args.pb} | ({"before": args.before} if args.before else {})
    for name, path in builds.items():
        if not os.access(path, os.X_OK):
            raise SystemExit(f"{path} is not an executable pb (run 'make build', or pass --{name})")
    work = args.workdir or tempfile.mkdtemp(prefix="pb-backlog-bench-")
    os.makedirs(work, exist_ok=True)  # a --workdir that does not exist yet
    try:
        jsonl, raw = os.path.join(work, "items.jsonl"), os.path.join(work, "raw.txt")
        if not os.path.exists(jsonl):
            scale_bench.generate_vocabulary(jsonl, raw, args.items)
        results = {name: [] for name in builds}
        for run in range(args.runs):
            for name, path in builds.items():
                whole = os.path.join(work, f"{name}-{run}-import")
                rows_s, index_s = import_whole(path, jsonl, whole)
                shutil.rmtree(whole)
                caught = os.path.join(work, f"{name}-{run}-daemon")
                figures = daemon_catching_up(path, jsonl, caught)
                shutil.rmtree(caught)
                figures.update({"import_rows_s": rows_s, "import_index_s": index_s})
                results[name].append(figures)
                print(f"{name} run {run + 1}: {json.dumps(figures)}", file=sys.stderr, flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    print(f"\n{args.items:,} short texts, {args.runs} runs each, medians (release builds)\n")
    print("| build | `pb import`: rows | its own indexing after them | the daemon indexing the same backlog | "
          "the daemon's CPU | its peak |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, runs in results.items():
        median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        print(f"| {name} | {median['import_rows_s']:.1f} s | {median['import_index_s']:.1f} s | "
              f"{median['seconds']:.1f} s ({median['left']:,.0f} items) | {median['cpu_s']:.1f} s | "
              f"{median['peak_mb']:.0f} MB |")
    print("\n```json")
    print(json.dumps({"items": args.items, "results": results}, indent=1))
    print("```")


if __name__ == "__main__":
    main()
