#!/usr/bin/env python3
"""Sync export benchmark: what one copy costs sync on the copying device, by the size of the history.

For each history size (--sizes, default 2,10000,100000) and each pb given (--pb, and --before for the pb to compare
with, e.g. one built from an older commit), this imports that many items into a fresh store, sets up sync into a
plain directory, starts a headless daemon, waits until the whole history is in the folder and the daemon is quiet,
then times --runs copies: from `pb copy` starting to the segment holding the copy renamed into the folder (what
Syncthing then carries). The daemon's CPU time per copy is measured over the same copies.

Before the change feed, each copy compared every item's identity and pin against the sync state (O(history));
with it, the export reads the changes since its last position.

Usage: python3 bench/sync_export_bench.py [--pb PATH] [--before PATH] [--sizes 2,10000,100000] [--runs N]
Prints a Markdown table and the raw numbers as JSON. Private directories under /tmp, removed at the end.
"""
import argparse, json, os, shutil, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sync_bench import Device, listing, percentile, placed_items  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wait_quiet(directory, quiet=2.0, timeout=600):
    """Waits until nothing new appears in `directory` for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    last, since = listing(directory), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = listing(directory)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise SystemExit(f"{directory} never went quiet")


def wait_written_out(device, items, timeout=900):
    """Waits until `device`'s sync state has placed `items` items, that is until its daemon wrote them all out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if placed_items(device) >= items:
            return
        time.sleep(0.25)
    raise SystemExit(f"{device.root}: the history was not written out within {timeout} s")


def comparison_arguments(description, sizes):
    """The options both benches take (--pb, --before, --sizes, defaulting to `sizes`, --runs): the parsed arguments,
    the history sizes and the pbs to compare."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"))
    parser.add_argument("--before", help="a pb to compare with (built from an older commit)")
    parser.add_argument("--sizes", default=sizes)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    return args, [int(s) for s in args.sizes.split(",")], pbs_to_compare(args)


def pbs_to_compare(args):
    """[("before", --before)] when given, then ("this pb", --pb); each checked to be an executable."""
    pbs = [("before", args.before)] if args.before else []
    pbs.append(("this pb", args.pb))
    for _, pb in pbs:
        if not os.access(pb, os.X_OK):
            raise SystemExit(f"{pb} is not an executable pb: build it first (swift build -c release --product pb)")
    return pbs


def print_table(sizes, pbs, results, latency, cpu, cpu_key, digits):
    """A Markdown table, a row per history size, each pb's median / p90 `latency` and its `cpu` (results[label][i]
    holds median_ms, p90_ms and `cpu_key`), then the raw numbers as JSON."""
    print("| history | " + " | ".join(f"{label}: {latency} (median / p90) | {label}: {cpu}" for label, _ in pbs) + " |")
    print("|" + "---|" * (1 + 2 * len(pbs)))
    for index, items in enumerate(sizes):
        cells = []
        for label, _ in pbs:
            r = results[label][index]
            cells += [f"{r['median_ms']:.{digits}f} / {r['p90_ms']:.{digits}f} ms", f"{r[cpu_key]:.{digits}f} ms"]
        print(f"| {items:,} items | " + " | ".join(cells) + " |")
    print(json.dumps(results))


def measure(pb, items, runs, root, label):
    device = Device(pb, root, f"{label}-{items}")
    folder = os.path.join(root, f"folder-{label}-{items}")
    path = os.path.join(root, f"items-{items}.jsonl")
    if not os.path.exists(path):
        with open(path, "w") as out:
            for i in range(items):
                out.write(json.dumps({"text": f"item {i} " + os.urandom(8).hex()}) + "\n")
    device.run(["import", path])
    device.run(["sync", "init", "--folder", folder])
    device.start()
    try:
        own_id = json.load(open(os.path.join(device.root, "data/pasteboard/sync/device.json")))["device"]
        own = os.path.join(folder, "devices", own_id)
        wait_written_out(device, items)
        wait_quiet(own)
        times, cpu_start = [], device.cpu()
        for run in range(runs):
            before = listing(own)
            start = time.monotonic()
            device.run(["copy"], stdin=f"benchmark copy {run} {os.urandom(6).hex()}".encode())
            while not any(name.endswith(".pblog") for name in listing(own) - before):
                if time.monotonic() - start > 60:
                    raise SystemExit(f"no segment for copy {run} after 60 s")
                time.sleep(0.0005)
            times.append(time.monotonic() - start)
            time.sleep(0.3)  # the next copy starts from a quiet daemon
        cpu = (device.cpu() - cpu_start) / runs
    finally:
        device.stop()
    return {"items": items, "median_ms": statistics.median(times) * 1000, "p90_ms": percentile(times, 90) * 1000,
            "cpu_ms": cpu * 1000}


def main():
    args, sizes, pbs = comparison_arguments(__doc__.split("\n")[0], "2,10000,100000")
    root = tempfile.mkdtemp(prefix="pb-sync-export-")
    results = {}
    try:
        for items in sizes:
            for label, pb in pbs:
                key = label.replace(" ", "-")
                results.setdefault(label, []).append(measure(pb, items, args.runs, root, key))
                print(f"{label} {items}: {results[label][-1]}", file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print_table(sizes, pbs, results, "copy → segment", "daemon CPU per copy", "cpu_ms", 1)

if __name__ == "__main__":
    main()
