"""Shared pieces of the reliability scripts: a temporary world for `pb`, a private Xvfb, process cleanup, the
checks every script makes on a store (integrity, modes), and the kill -9 that is sure to land mid-write.

Nothing here is a test: the scripts print a summary and exit 0 when every check held, 1 otherwise.
"""
import json, os, random, shutil, signal, sqlite3, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log(script, message):
    print(f"[{script} {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def find_pb(explicit):
    """--pb, else the release build, else the debug build of this checkout."""
    candidates = [explicit] if explicit else [os.path.join(ROOT, ".build/release/pb"), os.path.join(ROOT, ".build/debug/pb")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    raise SystemExit(f"pb not found (looked at {', '.join(c for c in candidates if c)}); build it with "
                     "'swift build -c release' or pass --pb PATH")


def _interrupt(number, frame):
    raise KeyboardInterrupt(f"signal {number}")


class Session:
    """Owns a temporary directory and every process started; `close()` stops them by pid, in reverse order.

    SIGTERM and SIGINT raise KeyboardInterrupt (a background job of a non-interactive shell starts with SIGINT
    ignored), so `finally: session.close()` runs however the script is stopped.
    """

    def __init__(self, prefix, keep=False):
        signal.signal(signal.SIGTERM, _interrupt)
        signal.signal(signal.SIGINT, _interrupt)
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.keep = keep
        self.processes = []

    def start(self, argv, env, **kwargs):
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        process = subprocess.Popen(argv, env=env, start_new_session=True, **kwargs)
        self.processes.append(process)
        return process

    @staticmethod
    def stop(process, grace=3.0):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self):
        for process in reversed(self.processes):
            try:
                if process.poll() is None:
                    os.kill(process.pid, signal.SIGCONT)  # a process stopped by kill_mid_write could not exit
                self.stop(process)
            except OSError:
                pass  # already gone
        if self.keep:
            print(f"kept {self.dir}", file=sys.stderr)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def pb_environment(base, display=None):
    """An environment pointing everything pb reads into `base` (no DISPLAY unless given)."""
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY", "PB_BACKEND",
                                                                          "PB_STORE_DIR", "PB_CONFIG")}
    env.update({"HOME": os.path.join(base, "home"), "XDG_DATA_HOME": os.path.join(base, "data"),
                "XDG_CONFIG_HOME": os.path.join(base, "config"), "XDG_RUNTIME_DIR": os.path.join(base, "run"),
                "PB_RUNTIME_DIR": os.path.join(base, "run"), "LANG": "C.UTF-8"})
    for key in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        os.makedirs(env[key], exist_ok=True)
    os.makedirs(env["PB_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    if display:
        env["DISPLAY"] = display
    return env


def database_path(env):
    return os.path.join(env["XDG_DATA_HOME"], "pasteboard", "history.sqlite")


def start_xvfb(session):
    """Xvfb on a free display picked at random from :200-:999."""
    for number in random.sample(range(200, 1000), 40):
        if os.path.exists(f"/tmp/.X{number}-lock") or os.path.exists(f"/tmp/.X11-unix/X{number}"):
            continue
        process = session.start(["Xvfb", f":{number}", "-screen", "0", "320x240x24", "-nolisten", "tcp", "-noreset"],
                                dict(os.environ))
        deadline = time.time() + 10
        while process.poll() is None and time.time() < deadline:
            if os.path.exists(f"/tmp/.X11-unix/X{number}"):
                probe = subprocess.run(["xclip", "-o", "-selection", "clipboard"],
                                       env=dict(os.environ, DISPLAY=f":{number}"), capture_output=True, timeout=5)
                if b"Can't open display" not in probe.stderr:
                    return f":{number}"
            time.sleep(0.05)
        session.stop(process)
    raise SystemExit("could not start Xvfb on a free display")


def compile_storm(session):
    binary = os.path.join(session.dir, "owner-storm")
    subprocess.run(["cc", "-O2", "-o", binary, os.path.join(ROOT, "bench", "owner-storm.c"), "-lX11"], check=True)
    return binary


# MARK: - Checks on a store

def integrity(database):
    """`PRAGMA integrity_check` through the sqlite3 tool (a separate program, as a user would run it)."""
    result = subprocess.run(["sqlite3", "-cmd", ".timeout 10000", database, "PRAGMA integrity_check;"],
                            capture_output=True, text=True, timeout=120)
    return (result.stdout.strip() or result.stderr.strip())


def item_texts(database):
    """id → text of every item whose text is kept inline (all short texts are)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        rows = connection.execute(
            "SELECT i.id, CAST(coalesce(i.text_data, b.data) AS TEXT) FROM items i "
            "LEFT JOIN blobs b ON b.id = i.text_blob").fetchall()
    finally:
        connection.close()
    return dict(rows)


def mode_problems(store_directory):
    """Files and directories under the store whose modes let anyone but the owner in."""
    problems = []
    for directory, names, files in os.walk(store_directory):
        if os.stat(directory).st_mode & 0o077:
            problems.append(f"{directory} {oct(os.stat(directory).st_mode & 0o777)}")
        for name in files:
            path = os.path.join(directory, name)
            try:
                mode = os.stat(path).st_mode & 0o777
            except FileNotFoundError:
                continue
            if mode & 0o077:
                problems.append(f"{path} {oct(mode)}")
    return problems


# MARK: - Killing a writer mid-write

def _stopped(pid, timeout=2.0):
    """Waits until `pid` is in the stopped state (SIGSTOP is delivered asynchronously)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                    return True
        except OSError:
            return False
        time.sleep(0.0002)
    return False


def write_state(pid, database):
    """What SQLite lock `pid` holds on `database`'s WAL index: "transaction" (the WAL write lock, byte 120 of
    the -shm file: inside BEGIN IMMEDIATE … COMMIT), "checkpoint" (byte 121), or None."""
    try:
        inode = os.stat(database + "-shm").st_ino
    except FileNotFoundError:
        return None
    state = None
    with open("/proc/locks") as f:
        for line in f:
            fields = line.split()
            # N: POSIX ADVISORY WRITE PID MAJ:MIN:INODE START END
            if len(fields) >= 8 and fields[1] == "POSIX" and fields[3] == "WRITE" and fields[4] == str(pid):
                if fields[5].rsplit(":", 1)[-1] == str(inode):
                    if fields[6] == "120":
                        return "transaction"
                    if fields[6] == "121":
                        state = "checkpoint"
    return state


def kill_mid_write(process, database, targeted, deadline, pause=(0.0005, 0.004), ready=lambda: True):
    """SIGKILLs `process` and returns the SQLite state it was in at that instant, and how many looks it took.

    The process is stopped first (SIGSTOP) so its locks can be read from /proc/locks at the very instant of the
    kill. `targeted`: keep trying (continuing it in between, a random pause apart) until it is caught inside a
    write transaction or a checkpoint while `ready()` holds, or `deadline` passes; else kill it wherever it is.
    A process that exits before it could be killed comes back as "gone".
    """
    attempts = 0
    while True:
        attempts += 1
        if process.poll() is not None:
            return "gone", attempts
        os.kill(process.pid, signal.SIGSTOP)
        if not _stopped(process.pid):
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            return "gone", attempts
        state = write_state(process.pid, database)
        if (state and ready()) or not targeted or time.time() > deadline:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            return state or "idle", attempts
        os.kill(process.pid, signal.SIGCONT)
        time.sleep(random.uniform(*pause))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))]


def print_json(summary):
    print(json.dumps(summary, indent=2, sort_keys=True))
