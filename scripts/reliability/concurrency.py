#!/usr/bin/env python3
"""Concurrency on one store: --workers headless `pb` processes copy, search, pin and delete for --seconds while
`pb daemon` records X11 copies (`xclip -i`, one every --xclip-interval seconds) into the same store.

Each worker loops: `pb copy` of a unique text, then in turn `pb search --json` for it (it must be found at once),
`pb pin` of it, `pb history --limit 20`, or `pb delete` of its own oldest surviving item; after every step a
`pb search` for another worker's texts, and now and then `pb stats`. Checked at the end:

  * no stderr line of any `pb` run (nor of the daemon) mentions "locked", and every run exits as it should;
  * every successful copy is in the store unless its own worker deleted it; no deleted text is back; pins held;
  * every capture the daemon announced (`pb watch`) is in the store; `PRAGMA integrity_check` is `ok`.

Usage: python3 scripts/reliability/concurrency.py [--pb PATH] [--workers 8] [--seconds 300] [--xclip-interval 0.05]
           [--keep]
Needs Xvfb, xclip, sqlite3. Prints a summary (and JSON); exit 0 when everything held.
"""
import argparse, json, os, random, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reliability_common import (Session, database_path, find_pb, integrity, item_texts, log, pb_environment,
                                percentile, start_xvfb)


def say(message):
    log("concurrency", message)


class Worker(threading.Thread):
    def __init__(self, number, pb, env, token, deadline, workers):
        super().__init__(daemon=True)
        self.number, self.pb, self.env, self.token, self.deadline, self.workers = number, pb, env, token, deadline, workers
        self.kept, self.deleted, self.pinned, self.problems = [], [], [], []
        self.latency = {}  # operation → [seconds]

    def run_pb(self, operation, arguments, stdin=None, may_find_nothing=False):
        began = time.time()
        result = subprocess.run([self.pb] + arguments, env=self.env, input=stdin, capture_output=True, timeout=120)
        self.latency.setdefault(operation, []).append(time.time() - began)
        stderr = result.stderr.decode(errors="replace")
        if result.returncode != 0 and not (may_find_nothing and result.returncode == 1 and "No items match" in stderr):
            self.problems.append(f"pb {' '.join(arguments)}: exit {result.returncode}: {stderr.strip()[:300]}")
        for line in stderr.splitlines():
            if "locked" in line.lower():
                self.problems.append(f"pb {' '.join(arguments)}: {line}")
        return result

    def id_of(self, text):
        result = self.run_pb("search own", ["search", "--json", text])
        try:
            ids = [item["id"] for item in json.loads(result.stdout or b"[]") if item.get("preview") == text]
        except ValueError:
            ids = []
        if len(ids) != 1:
            self.problems.append(f"pb search --json {text} found {len(ids)} items")
        return ids[0] if ids else None

    def run(self):
        iteration = 0
        while time.time() < self.deadline:
            text = f"w{self.number}-{iteration}-{self.token}"
            if self.run_pb("copy", ["copy"], stdin=text.encode()).returncode == 0:
                self.kept.append(text)
            step = iteration % 4
            if step == 0:
                self.id_of(text)
            elif step == 1:
                item = self.id_of(text)
                if item is not None and self.run_pb("pin", ["pin", str(item)]).returncode == 0:
                    self.pinned.append(text)
            elif step == 2:
                self.run_pb("history", ["history", "--limit", "20"])
            elif self.kept:
                oldest = self.kept[0]
                item = self.id_of(oldest)
                if item is not None and self.run_pb("delete", ["delete", str(item)]).returncode == 0:
                    self.kept.pop(0)
                    self.deleted.append(oldest)
            self.run_pb("search other", ["search", f"w{(self.number + 1) % self.workers}-{iteration}-"],
                        may_find_nothing=True)
            if iteration % 25 == 24:
                self.run_pb("stats", ["stats"])
            iteration += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--xclip-interval", type=float, default=0.05)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    pb = find_pb(args.pb)
    session = Session("pb-concurrency-", args.keep)
    failures = []
    summary = {}
    try:
        display = start_xvfb(session)
        env = pb_environment(os.path.join(session.dir, "pb"), display)
        database = database_path(env)
        stderr_path = os.path.join(session.dir, "daemon.stderr")
        daemon = session.start([pb, "daemon"], env, stdout=subprocess.PIPE, stderr=open(stderr_path, "w"))
        if not daemon.stdout.readline().startswith(b"Pasteboard daemon"):
            raise SystemExit(f"pb daemon did not start: {open(stderr_path).read()[-2000:]}")
        events = []
        watch = session.start([pb, "watch"], env, stdout=subprocess.PIPE)

        def read_watch():
            for line in watch.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "captured":
                    events.append(event)
        threading.Thread(target=read_watch, daemon=True).start()
        time.sleep(0.5)

        token = f"{random.randrange(1 << 32):08x}"
        headless = dict(env, PB_BACKEND="headless")
        headless.pop("DISPLAY")
        deadline = time.time() + args.seconds
        workers = [Worker(n, pb, headless, token, deadline, args.workers) for n in range(args.workers)]
        for worker in workers:
            worker.start()
        xclip_texts, xclip_failures = [], []
        index = 0
        while time.time() < deadline:
            text = f"x11-{index}-{token}"
            result = subprocess.run(["xclip", "-selection", "clipboard", "-i"], input=text.encode(), env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)  # its child keeps pipes open
            (xclip_texts if result.returncode == 0 else xclip_failures).append(text)
            index += 1
            time.sleep(args.xclip_interval)
        for worker in workers:
            worker.join(300)
        settle = time.time() + 10
        while time.time() < settle:
            count = len(events)
            time.sleep(0.5)
            if len(events) == count:
                break
        daemon.terminate()
        daemon_status = daemon.wait(10)
        watch.wait(10)

        daemon_log = open(stderr_path, errors="replace").read()
        problems = [p for worker in workers for p in worker.problems]
        problems += [f"daemon: {line}" for line in daemon_log.splitlines() if "locked" in line.lower()
                     or "could not record" in line]
        if daemon_status != 0:
            problems.append(f"the daemon exited {daemon_status} on SIGTERM")
        texts = item_texts(database)
        stored = set(texts.values())
        kept = [text for worker in workers for text in worker.kept]
        deleted = [text for worker in workers for text in worker.deleted]
        lost = [text for text in kept if text not in stored]
        back = [text for text in deleted if text in stored]
        pinned_rows = subprocess.run(["sqlite3", database, "SELECT CAST(coalesce(i.text_data, b.data) AS TEXT) "
                                      "FROM items i LEFT JOIN blobs b ON b.id = i.text_blob WHERE i.pinned;"], capture_output=True, text=True).stdout
        pinned = set(pinned_rows.splitlines())
        unpinned = [t for worker in workers for t in worker.pinned if t not in pinned and t not in worker.deleted]
        announced = [event["id"] for event in events]
        missing = [item for item in announced if item not in texts]
        captured_xclip = sum(1 for text in xclip_texts if text in stored)
        check = integrity(database)
        for label, values in [("problems", problems), ("lost writes", lost), ("deleted items back", back),
                              ("pins lost", unpinned), ("announced captures missing", missing)]:
            if values:
                failures.append(f"{len(values)} {label}: {values[:10]}")
        if check != "ok":
            failures.append(f"integrity_check: {check[:300]}")
        latency = {}
        for worker in workers:
            for operation, values in worker.latency.items():
                latency.setdefault(operation, []).extend(values)
        runs = sum(len(v) for v in latency.values())
        summary = {
            "workers": args.workers, "seconds": args.seconds, "pb_runs": runs, "pb_runs_per_s": round(runs / args.seconds, 1),
            "copies_ok": sum(len(w.kept) + len(w.deleted) for w in workers), "deleted": len(deleted), "pinned": sum(len(w.pinned) for w in workers),
            "latency_ms": {op: {"n": len(v), "p50": round(percentile(v, 0.5) * 1000, 1), "p99": round(percentile(v, 0.99) * 1000, 1),
                                "max": round(max(v) * 1000, 1)} for op, v in sorted(latency.items())},
            "xclip_copies": len(xclip_texts), "xclip_failed": len(xclip_failures), "xclip_captured": captured_xclip,
            "announced_captures": len(announced), "announced_missing": len(missing), "lost_writes": len(lost),
            "locked_or_failed_runs": len(problems), "integrity": check, "failures": failures,
        }
    finally:
        session.close()
    print(f"concurrency: {args.workers} workers x {args.seconds:.0f} s: {summary.get('pb_runs')} pb runs "
          f"({summary.get('copies_ok')} copies, {summary.get('deleted')} deletes, {summary.get('pinned')} pins); "
          f"{summary.get('locked_or_failed_runs')} locked/failed runs; {summary.get('lost_writes')} lost writes; daemon "
          f"captured {summary.get('xclip_captured')}/{summary.get('xclip_copies')} xclip copies, "
          f"{summary.get('announced_missing')} announced missing; integrity {summary.get('integrity')}; "
          f"{'ALL HELD' if not failures else f'{len(failures)} FAILURE(S)'}")
    print(json.dumps(summary, indent=2, sort_keys=True))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
