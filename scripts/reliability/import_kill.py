#!/usr/bin/env python3
"""Crash safety of `pb import`: kill -9 it midway, again and again; it must leave nothing of the file behind.

It generates a JSON Lines history of --lines items (short texts, multi-line notes, `representations` lines with
HTML and PNG, and a few payloads above 64 KiB that are stored as files), seeds the store with --seed items, runs
one full import into a scratch store (timing it and following how its WAL grows), then runs --rounds imports into
the seeded store and kills each midway: the import is stopped (SIGSTOP), the WAL write lock it holds is read from
/proc/locks, and it is killed (SIGKILL) the first time it is seen inside its transaction once it has read a random
2–95% of the file (its descriptor's offset in /proc/PID/fdinfo). After every kill:

  * `PRAGMA integrity_check` is `ok`;
  * the store holds exactly the seed items, byte for byte (nothing of the killed import).

Then a last import runs to its end and must add every line. Blob files the killed imports left behind are
counted; `pb prune` removes them once they are a minute old.

Usage: python3 scripts/reliability/import_kill.py [--pb PATH] [--rounds 20] [--lines 200000] [--seed 100]
           [--max-minutes 20] [--keep]
Needs sqlite3. Prints a summary (and JSON); exit 0 when everything held.
"""
import argparse, base64, json, os, random, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reliability_common import (Session, database_path, find_pb, integrity, item_texts, kill_mid_write, log,
                                pb_environment, percentile)

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def say(message):
    log("import_kill", message)


def generate(path, count):
    words = ["alpha", "beta", "gamma", "delta", "swift", "clipboard", "history", "linux", "x11", "paste"]
    with open(path, "w") as f:
        for i in range(count):
            kind = i % 10
            if i % 20_000 == 19_999:
                line = {"text": f"large-{i} " + "".join(random.choice(words) for _ in range(16_000))}  # ~85 KB: a file
            elif kind == 0:
                line = {"representations": [{"type": "public.html", "text": f"<p>import-{i} <b>bold</b></p>"},
                                            {"type": "public.utf8-plain-text", "text": f"import-{i} bold"}],
                        "created": 1_700_000_000 + i, "copyCount": 1 + i % 3, "pinned": i % 97 == 0}
            elif kind == 1:
                line = {"representations": [{"type": "public.png", "base64": base64.b64encode(PNG + i.to_bytes(4, "big")).decode()}]}
            elif kind == 2:
                line = {"text": f"import-{i}\n" + "\n".join(" ".join(random.choice(words) for _ in range(8)) for _ in range(5))}
            else:
                line = {"text": f"import-{i} " + " ".join(random.choice(words) for _ in range(random.randint(2, 20)))}
            f.write(json.dumps(line) + "\n")


def run(pb, env, arguments, **kwargs):
    return subprocess.run([pb] + arguments, env=env, capture_output=True, text=True, timeout=600, **kwargs)


def read_offset(pid, path):
    """How far `pid` has read the file at `path`: its descriptor's offset (/proc/PID/fdinfo), 0 when none is open."""
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{name}") != os.path.realpath(path):
                    continue
                with open(f"/proc/{pid}/fdinfo/{name}") as info:
                    for line in info:
                        if line.startswith("pos:"):
                            return int(line.split()[1])
            except OSError:
                continue
    except OSError:
        pass
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--max-minutes", type=float, default=20)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    pb = find_pb(args.pb)
    session = Session("pb-importkill-", args.keep)
    stop_at = time.time() + args.max_minutes * 60
    failures, kills = [], []
    summary = {}
    try:
        history = os.path.join(session.dir, "history.jsonl")
        generate(history, args.lines)
        say(f"generated {args.lines} lines, {os.path.getsize(history) / 1e6:.1f} MB")
        env = pb_environment(os.path.join(session.dir, "pb"))
        env["PB_BACKEND"] = "headless"
        database = database_path(env)
        blobs = os.path.join(os.path.dirname(database), "blobs")

        # One full import into a scratch store: how long it takes, and how far its uncommitted pages fill the WAL.
        scratch = pb_environment(os.path.join(session.dir, "scratch"))
        scratch_wal = database_path(scratch) + "-wal"
        began = time.time()
        full = session.start([pb, "import", history], scratch, stderr=subprocess.PIPE)
        peak_wal = 0
        while full.poll() is None:
            peak_wal = max(peak_wal, os.path.getsize(scratch_wal) if os.path.exists(scratch_wal) else 0)
            time.sleep(0.005)
        duration = time.time() - began
        if full.returncode != 0:
            raise SystemExit(f"the timing import failed: {full.stderr.read()}")
        say(f"a full import takes {duration:.1f} s and fills the WAL up to {peak_wal / 1e6:.1f} MB before it commits")

        for i in range(args.seed):
            run(pb, env, ["copy"], input=f"seed item {i}", check=True)
        seed = item_texts(database)
        seed_files = [name for _, _, files in os.walk(blobs) for name in files]

        for round_number in range(args.rounds):
            if time.time() > stop_at:
                say(f"time budget spent after {round_number} rounds")
                break
            # Killed inside its transaction once it has read a random 2–95% of the file. (The WAL is no measure: an
            # import keeps up to 16 MiB of uncommitted pages in memory before any go to the WAL.)
            depth = random.uniform(0.02, 0.95) * os.path.getsize(history)
            importer = session.start([pb, "import", history], env, stderr=subprocess.PIPE)
            began = time.time()
            state, looks = kill_mid_write(
                importer, database, targeted=True, deadline=time.time() + 10 * duration + 60,
                pause=(0.001, 0.02), ready=lambda: read_offset(importer.pid, history) >= depth)
            at = time.time() - began
            # Uncommitted pages the import had already spilled into the WAL (the next open discards them).
            wal = os.path.getsize(database + "-wal") if os.path.exists(database + "-wal") else 0
            check = integrity(database)
            after = item_texts(database)
            kept_seed = after == seed
            kill = {"round": round_number, "at_s": round(at, 2), "read_bytes": int(depth), "state": state, "looks": looks, "integrity": check,
                    "items_after": len(after), "seed_intact": kept_seed, "wal_bytes": wal}
            kills.append(kill)
            say(f"round {round_number}: killed at {at:.1f} s ({state}, {looks} look(s), WAL {wal / 1e6:.1f} MB); "
                f"integrity {check}; {len(after) - len(seed)} imported items left")
            if state != "transaction":
                failures.append(f"round {round_number}: the import was {state} when killed")
            if check != "ok":
                failures.append(f"round {round_number}: integrity_check: {check[:300]}")
            if not kept_seed:
                whole = len(after) == len(seed) + args.lines and all(after.get(k) == v for k, v in seed.items())
                if whole:
                    # All or nothing allows "all": the kill fell between writing the commit and releasing the lock.
                    kill["committed"] = True
                    say(f"round {round_number}: the import had committed when it was killed; stopping the kills here")
                    break
                failures.append(f"round {round_number}: the store holds {len(after)} items, not the {len(seed)} seed "
                                f"items (nor all {len(seed) + args.lines})")

        # Payload files written by the killed imports: their rows rolled back, the files stay until `pb prune`
        # (or the daemon's start) collects them, a minute after they were written.
        orphans = sum(len(files) for _, _, files in os.walk(blobs)) - len(seed_files)
        began = time.time()
        rerun = run(pb, env, ["import", history])
        committed_before = any(k.get("committed") for k in kills)
        rerun_s = time.time() - began
        final = item_texts(database)
        check = integrity(database)
        expected = (f"Imported 0 items ({args.lines} merged) from {history}." if committed_before
                    else f"Imported {args.lines} items from {history}.")
        if rerun.returncode != 0 or rerun.stdout.strip() != expected:
            failures.append(f"the rerun failed: {rerun.stdout} {rerun.stderr}")
        if len(final) != len(seed) + args.lines:
            failures.append(f"after the rerun the store holds {len(final)} items, not {len(seed) + args.lines}")
        if any(final.get(key) != value for key, value in seed.items()):
            failures.append("the seed items changed")
        if check != "ok":
            failures.append(f"integrity_check after the rerun: {check[:300]}")
        say(f"rerun: {rerun.stdout.strip()} in {rerun_s:.1f} s; integrity {check}")
        summary = {
            "lines": args.lines, "file_mb": round(os.path.getsize(history) / 1e6, 1), "full_import_s": round(duration, 1),
            "rounds": len(kills), "kill_states": {s: sum(1 for k in kills if k["state"] == s) for s in {k["state"] for k in kills}},
            "kill_at_s_p50": round(percentile([k["at_s"] for k in kills], 0.5), 1) if kills else None,
            "wal_mb_at_kill_min": round(min((k["wal_bytes"] for k in kills), default=0) / 1e6, 1),
            "wal_mb_at_kill_max": round(max((k["wal_bytes"] for k in kills), default=0) / 1e6, 1),
            "wal_mb_full_import": round(peak_wal / 1e6, 1),
            "integrity_ok": sum(1 for k in kills if k["integrity"] == "ok"),
            "seed_intact": sum(1 for k in kills if k["seed_intact"]),
            "imported_items_left_by_kills": sum(k["items_after"] - len(seed) for k in kills),
            "orphan_blob_files_before_rerun": orphans, "rerun_ok": rerun.returncode == 0, "rerun_s": round(rerun_s, 1),
            "items_after_rerun": len(final), "failures": failures,
        }
    finally:
        session.close()
    print(f"import_kill: {summary.get('rounds', 0)} imports of {args.lines} lines killed mid-transaction "
          f"(at p50 {summary.get('kill_at_s_p50')} s of {summary.get('full_import_s')} s); integrity ok "
          f"{summary.get('integrity_ok')}/{summary.get('rounds')}; seed intact {summary.get('seed_intact')}/"
          f"{summary.get('rounds')}; imported items left behind: {summary.get('imported_items_left_by_kills')}; rerun "
          f"{'ok' if summary.get('rerun_ok') else 'FAILED'} ({summary.get('items_after_rerun')} items); "
          f"{'ALL HELD' if not failures else f'{len(failures)} FAILURE(S)'}")
    print(json.dumps(summary, indent=2, sort_keys=True))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
