#!/usr/bin/env python3
"""Crash safety of capture: `kill -9` the daemon at random moments during storms of copies.

Each round runs one storm of --copies distinct X11 copies (bench/owner-storm.c: a new owner window and a new text
per change, at --rate per second) while `pb daemon` captures them and `pb watch` records every `captured` event.
At --kills random moments of the storm the daemon is stopped (SIGSTOP), the SQLite locks it holds are read from
/proc/locks, and it is killed with SIGKILL. By default a kill waits (continuing the daemon a random 0.5–4 ms at a
time) until the daemon is caught inside a write transaction or a checkpoint, so every kill hits the writer
mid-write; --random kills wherever the moment falls and reports where that was. After every kill:

  * `PRAGMA integrity_check` (sqlite3 tool) is `ok`;
  * every item announced so far (`{"event":"captured","id":N,...}`) is in the store;
  * the daemon restarts: it prints its banner and listens on its socket (the time is reported), and the rest of
    the storm is captured by it; the daemon running at the end of each round must have logged no error.

At the end of each round every announced item is also checked to hold exactly the text of the change the event
names (joined on the X server time `ownerTime`). The store accumulates over the rounds.

Usage: python3 scripts/reliability/crash_storm.py [--pb PATH] [--rounds 20] [--copies 10000] [--rate 300]
           [--kills 1] [--random] [--max-minutes 40] [--keep]
Needs Xvfb, xclip, cc with the Xlib headers, sqlite3. Prints a summary (and JSON); exit 0 when everything held.
"""
import argparse, json, os, random, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reliability_common import (Session, compile_storm, database_path, find_pb, integrity, item_texts, kill_mid_write,
                                log, pb_environment, percentile, start_xvfb)


def say(message):
    log("crash_storm", message)


class Daemon:
    """One `pb daemon` incarnation and its `pb watch`."""

    def __init__(self, session, pb, env, number):
        self.stderr_path = os.path.join(session.dir, f"daemon-{number}.stderr")
        started = time.time()
        self.process = session.start([pb, "daemon"], env, stdout=subprocess.PIPE,
                                     stderr=open(self.stderr_path, "w"))
        banner = self.process.stdout.readline().decode(errors="replace")
        socket = os.path.join(env["PB_RUNTIME_DIR"], "control.sock")
        while not os.path.exists(socket) and self.process.poll() is None and time.time() - started < 15:
            time.sleep(0.005)
        self.startup = time.time() - started
        self.ok = banner.startswith("Pasteboard daemon") and self.process.poll() is None and os.path.exists(socket)
        self.events = []
        self.watch = session.start([pb, "watch"], env, stdout=subprocess.PIPE)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.watch.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "captured":
                self.events.append(event)

    def errors(self):
        with open(self.stderr_path, errors="replace") as f:
            return [line.strip() for line in f if "could not record" in line or "Error" in line or "error" in line]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--copies", type=int, default=10000)
    parser.add_argument("--rate", type=int, default=300)
    parser.add_argument("--kills", type=int, default=1, help="kills per round")
    parser.add_argument("--random", action="store_true", help="kill at the random moment, mid-write or not")
    parser.add_argument("--max-minutes", type=float, default=40)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    pb = find_pb(args.pb)
    session = Session("pb-crash-", args.keep)
    stop_at = time.time() + args.max_minutes * 60
    failures = []
    kills = []  # {"round", "state", "attempts", "integrity", "missing", "restart"}
    announced = {}  # id → event, over all incarnations
    rounds_done = 0
    copies_done = 0
    try:
        display = start_xvfb(session)
        storm = compile_storm(session)
        env = pb_environment(os.path.join(session.dir, "pb"), display)
        database = database_path(env)
        incarnation = 0
        daemon = Daemon(session, pb, env, incarnation)
        if not daemon.ok:
            raise SystemExit(f"pb daemon did not start: {open(daemon.stderr_path).read()[-2000:]}")
        server_times = {}  # X server time of a change → the texts of the changes made in that millisecond
        for round_number in range(args.rounds):
            if time.time() > stop_at:
                say(f"time budget spent after {round_number} rounds")
                break
            prefix = f"crash{round_number:02d}x{random.randrange(1 << 30):08x}"
            duration = args.copies / args.rate
            owner = session.start([storm, "--rate", str(args.rate), "--count", str(args.copies), "--prefix", prefix,
                                   "--linger-ms", "1500"], env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            began = time.time()
            moments = sorted(random.uniform(0.1 * duration, 0.95 * duration) for _ in range(args.kills))
            for moment in moments:
                time.sleep(max(0.0, began + moment - time.time()))
                state, attempts = kill_mid_write(daemon.process, database, targeted=not args.random,
                                                 deadline=time.time() + 3)
                announced.update((event["id"], event) for event in daemon.events)
                daemon.watch.wait(5)
                check = integrity(database)
                present = item_texts(database)
                missing = sorted(set(announced) - set(present))
                incarnation += 1
                daemon = Daemon(session, pb, env, incarnation)
                kill = {"round": round_number, "state": state, "attempts": attempts, "integrity": check,
                        "missing": len(missing), "restart_s": round(daemon.startup, 3), "restarted": daemon.ok}
                kills.append(kill)
                if check != "ok":
                    failures.append(f"round {round_number}: integrity_check after the kill: {check[:300]}")
                if missing:
                    failures.append(f"round {round_number}: announced items missing after the kill: {missing[:20]}")
                if not daemon.ok:
                    failures.append(f"round {round_number}: the daemon did not restart: "
                                    f"{open(daemon.stderr_path).read()[-1000:]}")
                    raise SystemExit("\n".join(failures))
                say(f"round {round_number}: killed {state} (after {attempts} look(s)); integrity {check}; "
                    f"{len(announced)} announced, {len(missing)} missing; restarted in {daemon.startup * 1000:.0f} ms")
            out, err = owner.communicate(timeout=duration + 60)
            for line in out.decode().splitlines():
                parts = line.split(" ")
                if parts[0] == "change":
                    server_times.setdefault(int(parts[3]), set()).add(parts[8])
            copies_done += args.copies
            # Let the last captures land, then check the whole store.
            settle = time.time() + 5
            while time.time() < settle:
                count = len(daemon.events)
                time.sleep(0.5)
                if len(daemon.events) == count:
                    break
            announced.update((event["id"], event) for event in daemon.events)
            present = item_texts(database)
            wrong, unmapped = [], 0
            for item_id, event in announced.items():
                # Two changes may fall in the same millisecond of X server time: the item holds one of their texts.
                texts = server_times.get(event.get("ownerTime"))
                if texts is None:
                    unmapped += 1
                    if item_id not in present:
                        wrong.append((item_id, "missing"))
                elif present.get(item_id) not in texts:
                    wrong.append((item_id, present.get(item_id), sorted(texts)))
            storm_texts = set().union(*server_times.values())
            unexpected = [item_id for item_id, text in present.items() if text not in storm_texts]
            if unexpected:
                failures.append(f"round {round_number}: items that no copy made: {unexpected[:10]}")
            check = integrity(database)
            this_round = {present.get(item_id) for item_id in announced
                          if (present.get(item_id) or "").startswith(prefix)}
            say(f"round {round_number} done: {len(this_round)}/{args.copies} copies of this round announced; "
                f"store holds {len(present)} items; {len(wrong)} announced items wrong or missing, {unmapped} not "
                f"joined to a change; integrity {check}")
            if check != "ok":
                failures.append(f"round {round_number}: integrity_check at the end: {check[:300]}")
            if wrong:
                failures.append(f"round {round_number}: announced items wrong or missing: {wrong[:10]}")
            if daemon.process.poll() is not None:
                failures.append(f"round {round_number}: the daemon exited: {open(daemon.stderr_path).read()[-1000:]}")
            errors = daemon.errors()
            if errors:
                failures.append(f"round {round_number}: the daemon logged errors: {errors[:5]}")
            rounds_done += 1
        # The last incarnation stops cleanly.
        daemon.process.terminate()
        status = daemon.process.wait(10)
        if status != 0:
            failures.append(f"the last daemon exited {status} on SIGTERM")
    finally:
        session.close()

    states = {}
    for kill in kills:
        states[kill["state"]] = states.get(kill["state"], 0) + 1
    restarts = [kill["restart_s"] * 1000 for kill in kills]
    summary = {
        "rounds": rounds_done, "copies": copies_done, "rate": args.rate, "kills": len(kills),
        "kill_states": states, "looks_per_kill_p50": percentile([k["attempts"] for k in kills], 0.5) if kills else None,
        "integrity_ok_after_kill": sum(1 for k in kills if k["integrity"] == "ok"),
        "announced_items": len(announced), "announced_missing_after_kills": sum(k["missing"] for k in kills),
        "restarts_ok": sum(1 for k in kills if k["restarted"]),
        "restart_ms_p50": round(percentile(restarts, 0.5)) if restarts else None,
        "restart_ms_max": round(max(restarts)) if restarts else None,
        "failures": failures,
    }
    print(f"crash_storm: {rounds_done} rounds x {args.copies} copies at {args.rate}/s, {len(kills)} kill -9 "
          f"({', '.join(f'{v} {k}' for k, v in sorted(states.items()))}); integrity ok after "
          f"{summary['integrity_ok_after_kill']}/{len(kills)} kills; {len(announced)} announced items, "
          f"{summary['announced_missing_after_kills']} missing; {summary['restarts_ok']}/{len(kills)} clean restarts "
          f"(p50 {summary['restart_ms_p50']} ms, max {summary['restart_ms_max']} ms); "
          f"{'ALL HELD' if not failures else f'{len(failures)} FAILURE(S)'}")
    print(json.dumps(summary, indent=2, sort_keys=True))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
