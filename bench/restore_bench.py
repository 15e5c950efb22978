#!/usr/bin/env python3
"""Restore benchmark: does `pb restore` of a 50 MB item cost about what restoring a word does?

Each pb build gets its own Xvfb, store and running `pb daemon`. Its history holds a word and a 50 MB item of binary
bytes (stored without a display, so the daemon captures neither), then a third item on top. Each round restores the
word, then the 50 MB item, with every build in turn (so the load of a shared machine falls on all of them alike), and
times `pb restore ID` from spawn to exit: what a user or a script waits for. Every restore is a real move (the other
item is on top when it starts). The peer, on a display with no manager: `xclip -selection clipboard -i` setting the
same word and the same 50 MB bytes, timed the same way (spawn to the exit of the xclip that forks the owner).

Then, `--paste-runs` times, each build restores the word and the 50 MB item again and the first `xclip -o` of it is
timed and compared with the 50 MB bytes (a build that checks the payload file against its hash when it is first
served pays that here).

    make build
    python3 bench/restore_bench.py --before PB_OF_MAIN [--runs 20] [--paste-runs 5] [--size 50000000]

`--pb` is the build under test (default .build/release/pb); `--before` another build to compare, side by side in the
same run (repeat it for more). Needs Xvfb and xclip. Every process it starts and its directory are removed at the end.
"""
import argparse, hashlib, os, select, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOB_TYPE = "application/x-pb-bench-blob"


def log(message):
    print(message, file=sys.stderr, flush=True)


class Session:
    """The temporary directory and every process started; `close()` stops them by pid and removes the directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="pb-restorebench-")
        self.processes = []

    def start(self, argv, env, **kwargs):
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        process = subprocess.Popen(argv, env=env, start_new_session=True, **kwargs)
        self.processes.append(process)
        return process

    def stop(self, process):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self):
        for process in reversed(self.processes):
            self.stop(process)
        shutil.rmtree(self.dir, ignore_errors=True)


def free_display():
    for number in range(70, 200):
        if not os.path.exists("/tmp/.X11-unix/X%d" % number) and not os.path.exists("/tmp/.X%d-lock" % number):
            return ":%d" % number
    raise SystemExit("no free X display number")


class Desk:
    """One Xvfb with its own environment (store, runtime directory) for one pb build or the peer."""

    def __init__(self, session, name):
        self.session = session
        self.name = name
        self.display = free_display()
        self.xvfb = session.start(["Xvfb", self.display, "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                                  dict(os.environ))
        deadline = time.time() + 10
        while not os.path.exists("/tmp/.X11-unix/X" + self.display[1:]):
            if time.time() > deadline or self.xvfb.poll() is not None:
                raise SystemExit("Xvfb %s did not start" % self.display)
            time.sleep(0.05)
        home = os.path.join(session.dir, name)
        for sub in ("data", "config", "run", "home"):
            os.makedirs(os.path.join(home, sub), exist_ok=True)
        os.chmod(os.path.join(home, "run"), 0o700)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DISPLAY": self.display, "LANG": "C.UTF-8",
                    "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config",
                    "XDG_RUNTIME_DIR": home + "/run", "PB_RUNTIME_DIR": home + "/run", "HOME": home + "/home"}
        self.headless = {key: value for key, value in self.env.items() if key != "DISPLAY"}


def timed(argv, env, stdin=None):
    """Milliseconds from spawn to exit; fails loudly when the command fails. Its output goes to a file, not a pipe: the
    owner xclip forks keeps the descriptors open long after the timed process has exited."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        status = subprocess.run(argv, env=env, stdin=stdin, stdout=subprocess.DEVNULL, stderr=errors,
                                timeout=120).returncode
        elapsed = (time.perf_counter() - start) * 1000
        if status != 0:
            errors.seek(0)
            raise SystemExit("%s failed (%d): %s" % (" ".join(argv), status, errors.read().decode()[-2000:]))
    return elapsed


class Build:
    """A pb build with its daemon running on its own desk, and the ids of the word and the large item."""

    def __init__(self, session, label, pb, payload_path):
        self.label = label
        self.pb = pb
        self.desk = Desk(session, "pb-" + label.replace(" ", "-"))
        env = self.desk.headless
        self.word = self.copy(["copy"], env, data=b"word")
        with open(payload_path, "rb") as file:
            self.large = self.copy(["copy", "--type", BLOB_TYPE], env, stdin=file)
        self.copy(["copy"], env, data=b"on top")
        self.daemon = session.start([pb, "daemon"], self.desk.env, stdout=subprocess.PIPE)
        # It prints "Pasteboard daemon …" once it listens.
        ready, _, _ = select.select([self.daemon.stdout], [], [], 20)
        if not ready or not self.daemon.stdout.readline().startswith(b"Pasteboard daemon"):
            raise SystemExit("%s: pb daemon did not start" % label)

    def copy(self, arguments, env, data=None, stdin=None):
        result = subprocess.run([self.pb] + arguments, env=env, input=data, stdin=stdin, capture_output=True,
                                timeout=120)
        if result.returncode != 0:
            raise SystemExit("%s: pb %s failed: %s" % (self.label, " ".join(arguments), result.stderr.decode()))
        newest = subprocess.run([self.pb, "history", "--format", "dmenu", "--limit", "1"], env=env,
                                capture_output=True, timeout=30)
        return newest.stdout.decode().split("\t", 1)[0].strip()

    def restore(self, which):
        return timed([self.pb, "restore", self.word if which == "word" else self.large], self.desk.env)


def summary(values):
    ordered = sorted(values)
    median = ordered[len(ordered) // 2] if len(ordered) % 2 else (ordered[len(ordered) // 2 - 1] + ordered[len(ordered) // 2]) / 2
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return median, p90


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build", "release", "pb"))
    parser.add_argument("--before", action="append", default=[], help="another pb to time beside it (repeatable)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--size", type=int, default=50_000_000)
    parser.add_argument("--paste-runs", type=int, default=5, help="first pastes of the large item timed per build")
    args = parser.parse_args()
    for pb in [args.pb] + args.before:
        if not os.access(pb, os.X_OK):
            raise SystemExit("no pb at %s: run 'make build' or give --pb" % pb)
    for tool in ("Xvfb", "xclip"):
        if shutil.which(tool) is None:
            raise SystemExit("%s is needed: apt-get install -y xvfb xclip" % tool)
    session = Session()
    try:
        payload_path = os.path.join(session.dir, "payload.bin")
        with open(payload_path, "wb") as file:
            file.write(os.urandom(args.size))
        with open(payload_path, "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
        word_path = os.path.join(session.dir, "word.txt")
        with open(word_path, "wb") as file:
            file.write(b"word")
        builds = [Build(session, "before" if len(args.before) == 1 else "before %d" % (index + 1), pb, payload_path)
                  for index, pb in enumerate(args.before)]
        builds.append(Build(session, "this pb", args.pb, payload_path))
        peer = Desk(session, "xclip")
        times = {(build.label, which): [] for build in builds for which in ("word", "large")}
        times.update({("xclip", "word"): [], ("xclip", "large"): []})
        log("%d rounds: %s, and xclip" % (args.runs, ", ".join(build.label for build in builds)))
        for _ in range(args.runs):
            for build in builds:
                for which in ("word", "large"):
                    times[(build.label, which)].append(build.restore(which))
            for which, path, target in (("word", word_path, "UTF8_STRING"), ("large", payload_path, BLOB_TYPE)):
                with open(path, "rb") as file:
                    times[("xclip", which)].append(
                        timed(["xclip", "-selection", "clipboard", "-t", target, "-i"], peer.env, stdin=file))
        # The first paste after a restore: where this pb now checks the payload file against its hash.
        pastes = {build.label: [] for build in builds}
        exact = {build.label: True for build in builds}
        read_path = os.path.join(session.dir, "read.bin")
        for _ in range(args.paste_runs):
            for build in builds:
                build.restore("word")
                build.restore("large")
                with open(read_path, "wb") as out:
                    start = time.perf_counter()
                    status = subprocess.run(["xclip", "-selection", "clipboard", "-t", BLOB_TYPE, "-o"],
                                            env=build.desk.env, stdout=out, stderr=subprocess.DEVNULL,
                                            timeout=120).returncode
                    pastes[build.label].append((time.perf_counter() - start) * 1000)
                with open(read_path, "rb") as file:
                    exact[build.label] &= status == 0 and hashlib.sha256(file.read()).hexdigest() == digest
        size = "%d MB" % round(args.size / 1_000_000)
        print()
        print("%d runs each, milliseconds from spawn to exit, median / p90:" % args.runs)
        print()
        print("| restore of | " + " | ".join(build.label for build in builds) + " | xclip -i (peer) |")
        print("|---|" + "---|" * (len(builds) + 1))
        for which, label in (("word", "a word"), ("large", "%s of binary bytes" % size)):
            cells = ["%.1f / %.1f" % summary(times[(build.label, which)]) for build in builds]
            cells.append("%.1f / %.1f" % summary(times[("xclip", which)]))
            print("| %s | %s |" % (label, " | ".join(cells)))
        cells = []
        for build in builds:
            word, large = summary(times[(build.label, "word")])[0], summary(times[(build.label, "large")])[0]
            cells.append("%.1f× (%+.1f ms)" % (large / word, large - word))
        word, large = summary(times[("xclip", "word")])[0], summary(times[("xclip", "large")])[0]
        cells.append("%.1f× (%+.1f ms)" % (large / word, large - word))
        print("| %s against a word, medians | %s |" % (size, " | ".join(cells)))
        print("| first `xclip -o` of the %s after its restore (%d runs) | %s | not timed |" % (
            size, args.paste_runs, " | ".join("%.1f / %.1f" % summary(pastes[build.label]) for build in builds)))
        print("| read back byte-exact by `xclip -o` | %s | not read |" % " | ".join(
            "yes" if exact[build.label] else "NO" for build in builds))
        if not all(exact.values()):
            sys.exit(1)
    finally:
        session.close()


if __name__ == "__main__":
    main()
