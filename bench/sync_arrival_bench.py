#!/usr/bin/env python3
"""Sync arrival benchmark: what one copy made on another device costs the device receiving it, by the size of the
history both hold.

For each history size (--sizes, default 10000,1000000) device A imports that many short texts, sets up sync into a
plain directory and writes them out with its headless daemon; device B joins and takes the whole history in. Then,
for each pb given (--pb, and --before for the pb to compare with, e.g. one built from an older commit), B's daemon
is started with that pb on the same two stores, and --runs copies are made on A: each is timed from `pb copy`
starting on A to the item in B's history (A's daemon writes the segment, B's daemon reads and applies it). B's
daemon CPU time per arrival is measured over the same copies. The pbs take turns on the same stores, so each
sees the same history.

Before this was measured, every round that took a copy in ended with a pass over every entry of the sync state
(to forget the records of items no longer alive): seconds per arriving copy at 10 million items.

Usage: python3 bench/sync_arrival_bench.py [--pb PATH] [--before PATH] [--sizes 10000,1000000] [--runs N]
Prints a Markdown table and the raw numbers as JSON. Private directories under /tmp, removed at the end.
"""
import json, os, shutil, sqlite3, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sync_bench import Device, listing, percentile  # noqa: E402
from sync_export_bench import comparison_arguments, print_table, wait_quiet, wait_written_out  # noqa: E402



def text_in(device, text):
    """Whether `device`'s history holds an item whose text is `text` (read-only, through its own connection)."""
    try:
        with sqlite3.connect(f"file:{device.db}?mode=ro", uri=True, timeout=1) as db:
            return db.execute("SELECT 1 FROM items i LEFT JOIN blobs b ON b.id = i.text_blob "
                              "WHERE i.id > ? AND coalesce(i.text_data, b.data) = ?", (device.mark, text.encode())).fetchone() is not None
    except sqlite3.Error:
        return False


def set_up(pb, items, root):
    """A with `items` items written out, B joined with all of them; neither daemon running. Returns a, b and A's own
    directory in the folder."""
    a, b = Device(pb, root, f"a-{items}"), Device(pb, root, f"b-{items}")
    folder = os.path.join(root, f"folder-{items}")
    path = os.path.join(root, f"items-{items}.jsonl")
    with open(path, "w") as out:
        for i in range(items):
            out.write(json.dumps({"text": f"item {i} " + os.urandom(8).hex()}) + "\n")
    a.run(["import", path])
    key = a.run(["sync", "init", "--folder", folder]).strip().split("\n")[-1]
    a.start()
    own = os.path.join(folder, "devices", json.load(open(os.path.join(a.root, "data/pasteboard/sync/device.json")))["device"])
    wait_written_out(a, items, timeout=3600)
    deadline = time.monotonic() + 3600
    # And its snapshot, due after 5,000 operations: then it covers every segment, which it removed.
    while items >= 5000 and time.monotonic() < deadline:
        names = listing(own)
        if any(n.endswith(".pbsnap") for n in names) and not any(n.endswith(".pblog") for n in names):
            break
        time.sleep(0.5)
    wait_quiet(own, quiet=3.0, timeout=3600)
    a.stop()
    b.run(["sync", "join", "--folder", folder], stdin=(key + "\n").encode())
    b.start()
    while time.monotonic() < deadline and (b.count() < items or b.search_backlog()):
        time.sleep(0.5)
    if b.count() < items:
        raise SystemExit(f"B joined {b.count()} of {items} items")
    time.sleep(2)
    b.stop()
    return a, b, own


def measure(pb, a, b, own, runs, label):
    b.pb = pb
    b.start()
    a.start()
    try:
        wait_quiet(own, quiet=2.0)
        time.sleep(2)
        times, cpu_start = [], b.cpu()
        for run in range(runs):
            text = f"{label} arrival {run} {os.urandom(6).hex()}"
            b.mark = b.last_id()
            start = time.monotonic()
            a.run(["copy"], stdin=text.encode())
            while not text_in(b, text):
                if time.monotonic() - start > 120:
                    raise SystemExit(f"copy {run} did not arrive on B within 120 s")
                time.sleep(0.002)
            times.append(time.monotonic() - start)
            time.sleep(0.5)  # the next copy starts from quiet daemons
        cpu = (b.cpu() - cpu_start) / runs
    finally:
        a.stop()
        b.stop()
    return {"median_ms": statistics.median(times) * 1000, "p90_ms": percentile(times, 90) * 1000,
            "max_ms": max(times) * 1000, "b_cpu_ms": cpu * 1000}


def main():
    args, sizes, pbs = comparison_arguments(__doc__.split("\n")[0], "10000,1000000")
    root = tempfile.mkdtemp(prefix="pb-sync-arrival-")
    results = {}
    try:
        for items in sizes:
            a, b, own = set_up(args.pb, items, root)
            for label, pb in pbs:
                results.setdefault(label, []).append(measure(pb, a, b, own, args.runs, label.replace(" ", "-")))
                print(f"{label} {items}: {results[label][-1]}", file=sys.stderr, flush=True)
            shutil.rmtree(a.root, ignore_errors=True)
            shutil.rmtree(b.root, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print_table(sizes, pbs, results, "copy on A → in B's history", "B's CPU per arrival", "b_cpu_ms", 0)

if __name__ == "__main__":
    main()
