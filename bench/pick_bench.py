#!/usr/bin/env python3
"""Picker benchmark on a big history (default 1,000,000 items): `pb pick` against fzf alone, in the same run.

Measures, side by side:
  1. keystroke to redrawn screen: `pb pick` runs on a pseudo-terminal of 80x24 that this script owns (it answers the
     picker's graphics query at once, as a terminal does); a key is written and the clock stops when the whole frame
     has come back (the prompt, 22 rows and the key line). Typing into the filter (a substring query on every key)
     and moving the selection are timed apart. fzf gets the same typed keys over the same lines (the exported
     `pb history --format dmenu` output, read from a file): its clock stops when its info line shows the match count
     that `fzf --filter` gives for that query, so fzf has finished the search and drawn the result. (fzf's moves are
     not timed: nothing in its output marks the end of a frame that leaves the count alone.)
  2. start to first full screen: from spawn to the first whole frame of `pb pick`; for fzf, to the first screen
     whose info line counts every line (it has read them all);
  3. the launcher pipe end to end: `pb history --format dmenu | fzf --filter Q` against `cat FILE | fzf --filter Q`
     (cliphist's `cliphist list | fzf` shape, with the lines already exported), with `pb history --format dmenu`
     alone and `fzf --filter Q < FILE` alone.

The store is the one bench/startup_bench.py builds (written straight into SQLite, kept in bench/data).

With `--before PATH`, a second pb (another build or commit) is timed on the same keys and starts in the same run, in a
column of its own.

Usage: python3 bench/pick_bench.py [--pb PATH] [--before PATH] [--items N] [--runs R] [--keys K] [--pipe-runs P]
Needs fzf. Prints a Markdown table and the raw numbers as JSON.
"""
import argparse, fcntl, json, os, pty, re, select, signal, statistics, struct, subprocess, sys, termios, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup_bench import cached_store, private_env, log, ROOT  # noqa: E402

COLUMNS, ROWS = 80, 24
DA1_QUERY = b"\x1b[c"
DA1_REPLY = b"\x1b[?62;22c"  # a VT220-class terminal without sixel, as xterm answers by default
# Queries typed one key at a time: words of the generated vocabulary, then a miss.
QUERIES = ["http", "the", "org", "zzq"]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


class Terminal:
    """A program on a pseudo-terminal of COLUMNS x ROWS; the master end is read and written here."""

    def __init__(self, argv, env, stdin_path=None):
        self.began = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:
            try:
                if stdin_path:
                    source = os.open(stdin_path, os.O_RDONLY)
                    os.dup2(source, 0)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        os.kill(pid, signal.SIGWINCH)
        self.output = b""
        self.sent = self.began

    def read(self, timeout):
        """Reads what is there within `timeout` seconds; answers a DA1 query like a terminal."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return b""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except OSError:
            return b""
        if DA1_QUERY in chunk:
            os.write(self.fd, DA1_REPLY)
        self.output += chunk
        return chunk

    def wait_for(self, done, timeout=30.0):
        """Reads until `done(output)` holds; the time in ms since the last `send` (or None on timeout)."""
        began = self.sent
        while not done(self.output):
            if time.perf_counter() - began > timeout:
                return None
            self.read(0.5)
        return (time.perf_counter() - began) * 1000

    def send(self, data):
        self.output = b""
        self.sent = time.perf_counter()
        os.write(self.fd, data)

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def pick_frame_done(output):
    """A whole `pb pick` frame: from its ESC[H, ROWS-1 line ends, then the key line closed by ESC[0m."""
    start = output.rfind(b"\x1b[H")
    if start < 0:
        return False
    frame = output[start:]
    if frame.count(b"\r\n") < ROWS - 1:
        return False
    last_line = frame[frame.rfind(b"\r\n") + 2:]
    return last_line.endswith(b"\x1b[0m")


def fzf_count_done(count, total):
    pattern = re.compile(rb"(?<![0-9])%d/%d(?![0-9])" % (count, total))
    return lambda output: pattern.search(output) is not None


def fzf_count(query, lines_path):
    with open(lines_path, "rb") as source:
        result = subprocess.run(["fzf", "--filter", query], stdin=source, capture_output=True)
    return result.stdout.count(b"\n")


def measure_pick_keys(pb, env, keys, queries=QUERIES):
    """Each key of each query typed, then `keys` selection moves: key to the whole frame back, in ms (typing, moving)."""
    terminal = Terminal([pb, "pick"], env)
    try:
        if terminal.wait_for(pick_frame_done) is None:
            raise SystemExit("pb pick never drew its first frame")
        typing, moving = [], []
        for query in queries:
            for character in query:
                terminal.send(character.encode())
                typing.append(terminal.wait_for(pick_frame_done))
            terminal.send(b"\x15")  # Ctrl-U: the whole history again
            terminal.wait_for(pick_frame_done)
        for _ in range(keys):
            terminal.send(b"\x1b[B")
            moving.append(terminal.wait_for(pick_frame_done))
        return [t for t in typing if t is not None], [t for t in moving if t is not None]
    finally:
        terminal.close()


def cpu_ticks(pid):
    """User and system time of process `pid` (all its threads), in clock ticks."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def measure_pick_settled(pb, env, queries=QUERIES, quiet=0.15):
    """Each key of `queries` typed: from the key to the last whole frame drawn before `pb pick` went quiet (no output
    and at most one clock tick of CPU for `quiet` seconds), in ms. The first frame after a key shows the new filter over
    the rows found so far (what measure_pick_keys times); the list model's thread then delivers the query's rows in
    steps, each drawn: this is the key to its rows on screen, however many steps the search took. Returns (the filter
    typed so far, ms) for each key."""
    terminal = Terminal([pb, "pick"], env)
    try:
        if terminal.wait_for(pick_frame_done) is None:
            raise SystemExit("pb pick never drew its first frame")
        settled, typed = [], ""
        for query in [q + "\x15" for q in queries]:
            for character in query:
                terminal.send(character.encode())
                last_frame, seen = None, 0
                quiet_since, ticks = time.perf_counter(), cpu_ticks(terminal.pid)
                while time.perf_counter() - terminal.sent < 60:
                    chunk = terminal.read(0.01)
                    now = time.perf_counter()
                    if len(terminal.output) != seen and pick_frame_done(terminal.output):
                        last_frame, seen = now, len(terminal.output)
                    busy = cpu_ticks(terminal.pid)
                    if chunk or busy > ticks + 1 or last_frame is None:
                        quiet_since, ticks = now, busy
                    elif now - quiet_since >= quiet:
                        break
                if character != "\x15":
                    typed += character
                    if last_frame is not None:
                        settled.append((typed, (last_frame - terminal.sent) * 1000))
            typed = ""
        return settled
    finally:
        terminal.close()


def measure_fzf_keys(lines_path, env, total, queries=QUERIES, fields=("-d", "\t", "--with-nth", "2.."), timeout=30.0):
    """The same typed keys in fzf over `lines_path` (shown without the id column of `pb history --format dmenu`
    lines by default; `fields=()` for plain lines): key to the info line counting what `fzf --filter` finds, in ms.
    A key not counted within `timeout` seconds is left out."""
    expected = {}
    for query in queries:
        for end in range(1, len(query) + 1):
            expected[query[:end]] = fzf_count(query[:end], lines_path)
    terminal = Terminal(["fzf", *fields], env, stdin_path=lines_path)
    try:
        if terminal.wait_for(fzf_count_done(total, total), timeout=max(120, timeout * 4)) is None:
            raise SystemExit("fzf never counted every line")
        typing = []
        for query in queries:
            for end in range(1, len(query) + 1):
                terminal.send(query[end - 1].encode())
                typing.append(terminal.wait_for(fzf_count_done(expected[query[:end]], total), timeout=timeout))
            terminal.send(b"\x15")
            terminal.wait_for(fzf_count_done(total, total), timeout=max(120, timeout * 4))
        return [t for t in typing if t is not None]
    finally:
        terminal.close()


def measure_starts(argv, env, done, runs, stdin_path=None):
    times = []
    for _ in range(runs):
        terminal = Terminal(argv, env, stdin_path=stdin_path)
        try:
            elapsed = terminal.wait_for(done, timeout=120)
            if elapsed is None:
                raise SystemExit(f"{argv[0]} never drew a full screen")
            times.append((time.perf_counter() - terminal.began) * 1000)
        finally:
            terminal.close()
    return times


def wall(command, env, runs):
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(["/bin/sh", "-c", command], env=env, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - began) * 1000)
    log(f"  {command[:70]}: {statistics.median(times):.0f} ms")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build", "release", "pb"))
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keys", type=int, default=200, help="selection moves timed")
    parser.add_argument("--pipe-runs", type=int, default=3, help="runs of each launcher pipe (median taken)")
    parser.add_argument("--before", help="another pb whose picker is timed in the same run, for comparison")
    args = parser.parse_args()
    pb = os.path.abspath(args.pb)
    store = cached_store(pb, args.items)
    base = os.path.join(ROOT, "bench", "out", "pick")
    env = private_env(base, store=store)
    env["TERM"] = "xterm-256color"
    env.pop("NO_COLOR", None)
    lines_path = os.path.join(base, "lines.txt")
    log("exporting the lines once for the fzf-alone and cat runs")
    with open(lines_path, "wb") as out:
        subprocess.run([pb, "history", "--format", "dmenu"], env=env, check=True, stdout=out)
    total = sum(1 for _ in open(lines_path, "rb"))
    log(f"{total:,} lines")

    log("keystrokes: pb pick")
    pick_typing, pick_moving = measure_pick_keys(pb, env, args.keys)
    log(f"  pb pick typing p50 {statistics.median(pick_typing):.1f} ms, moving p50 {statistics.median(pick_moving):.1f} ms")
    before = os.path.abspath(args.before) if args.before else None
    before_typing, before_moving, before_start = [], [], []
    if before:
        log(f"keystrokes: pb pick before ({before})")
        before_typing, before_moving = measure_pick_keys(before, env, args.keys)
        before_start = measure_starts([before, "pick"], env, pick_frame_done, args.runs)
    log("keystrokes: fzf")
    fzf_typing = measure_fzf_keys(lines_path, env, total)
    fzf_moving = []  # fzf's frames have no end this script can see without its search count changing
    log("start to first full screen")
    pick_start = measure_starts([pb, "pick"], env, pick_frame_done, args.runs)
    fzf_start = measure_starts(["fzf", "-d", "\t", "--with-nth", "2.."], env, fzf_count_done(total, total),
                               max(3, args.runs // 3), stdin_path=lines_path)
    log("launcher pipes")
    query = "the"
    quoted_pb = "'" + pb.replace("'", "'\\''") + "'"
    runs = args.pipe_runs
    pipes = {
        "pb history --format dmenu | fzf --filter": wall(f"{quoted_pb} history --format dmenu | fzf --filter {query}",
                                                         env, runs),
        "cat FILE | fzf --filter (cliphist style)": wall(f"cat '{lines_path}' | fzf --filter {query}", env, runs),
        "pb history --format dmenu alone": wall(f"{quoted_pb} history --format dmenu", env, runs),
        "fzf --filter < FILE alone": wall(f"fzf --filter {query} < '{lines_path}'", env, runs),
    }

    def row(label, pick, fzf, goal="", earlier=None):
        def cell(values):
            return f"{statistics.median(values):.1f} / {percentile(values, 0.99):.1f}" if values else "–"
        middle = f" {cell(earlier)} |" if before else ""
        return f"| {label} | {cell(pick)} |{middle} {cell(fzf)} | {goal} |"

    print(f"\n{total:,} items; times in ms, p50 / p99.\n")
    print("| measurement | pb pick |" + (" pb pick, before |" if before else "") + " fzf alone | goal |")
    print("|---|---|" + ("---|" if before else "") + "---|---|")
    print(row("keystroke to redrawn screen, typing (filter)", pick_typing, fzf_typing, "≤ 16 / ≤ 50", before_typing))
    print(row("keystroke to redrawn screen, moving", pick_moving, fzf_moving, "≤ 16 / ≤ 50", before_moving))
    print(row("start to first full screen", pick_start, fzf_start, "≤ 60 (pb pick)", before_start))
    print(f"\nLauncher pipe, `{query}`, median of {runs} (ms):\n")
    print("| pipe | ms |")
    print("|---|---|")
    for label, values in pipes.items():
        print(f"| `{label}` | {statistics.median(values):.0f} |")
    print(json.dumps({"items": total, "pick_typing": pick_typing, "pick_moving": pick_moving,
                      "before_typing": before_typing, "before_moving": before_moving, "before_start": before_start,
                      "fzf_typing": fzf_typing, "fzf_moving": fzf_moving, "pick_start": pick_start,
                      "fzf_start": fzf_start, "pipes": pipes}))


if __name__ == "__main__":
    main()
