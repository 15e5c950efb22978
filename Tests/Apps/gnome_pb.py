#!/usr/bin/python3
"""pb on a real headless GNOME Shell 43, with its Shell extension installed by `pb gnome-extension install`.

    /usr/bin/python3 Tests/Apps/gnome_pb.py [--pb PATH] [--workdir DIR]

What issue "GNOME on Wayland, first-class" asks, checked as a user would meet it:
- `pb gnome-extension install` puts the extension in place and enables it; the shell loads it at start;
  `pb gnome-extension status`, `pb doctor` and the daemon's start line say the GNOME backend is used;
- a GTK 4 Wayland application's copy of text + HTML + PNG becomes one item with the three types and the
  application's id as its source;
- after the application exits, a Wayland reader still gets all three byte-exact, and no text-only item appears;
- `pb restore ID` serves an older item's three types byte-exact to a Wayland reader;
- `pb restore ID --paste` types the item into the focused GTK 4 entry;
- a secret copy of an X11 password manager (x-kde-passwordManagerHint) is not stored, and once that application
  exits, mutter's copy of the password does not stay on the clipboard;
- differential: without pb, the same exit leaves only text on the clipboard (mutter's copy), which is what pb fixes.

Prints PASS/FAIL per check and exits 1 on any failure or setup error (a missing tool is a failure).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

if sys.executable != "/usr/bin/python3":  # python3-gi lives in the system Python
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)

import gnome  # noqa: E402
from harness import SetupError, kill_group  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bench"))
import gnome_bench  # noqa: E402  (its GTK 4 Wayland copier and reader, and the content they use)

BENCH = os.path.join(REPO, "bench", "gnome_bench.py")
ENTRY = os.path.join(REPO, "Tests", "Fixtures", "gtk4-wayland-entry.py")
GTK3_OWNER = os.path.join(REPO, "Tests", "Fixtures", "gtk3-owner.py")
UUID = "pasteboard@pasteboard.org"
SECRET = "correct horse battery staple"


class Checks:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


def wait_until(predicate, timeout: float, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


class Session:
    """The GNOME session's clients: pb commands, the copier, the reader, the entry."""

    def __init__(self, session: gnome.GnomeSession, pb: str, workdir: str):
        self.session = session
        self.pb = pb
        self.workdir = workdir
        self.env = dict(session.env)
        self.processes: list[subprocess.Popen] = []

    def run_pb(self, *arguments: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run([self.pb, *arguments], env=self.env, capture_output=True, timeout=timeout)

    def start(self, argv: list[str], name: str, env: dict | None = None, stdout=subprocess.PIPE) -> subprocess.Popen:
        log = open(os.path.join(self.workdir, name + ".log"), "wb")
        process = subprocess.Popen(argv, env=env or dict(self.env, GDK_BACKEND="wayland"), stdin=subprocess.DEVNULL,
                                   stdout=stdout, stderr=log, start_new_session=True)
        self.processes.append(process)
        return process

    def history(self) -> list[dict]:
        done = self.run_pb("history", "--json", "--limit", "1000")
        if done.returncode != 0:
            raise SetupError(f"pb history failed: {done.stderr.decode(errors='replace')}")
        return json.loads(done.stdout)

    def read_clipboard(self) -> dict:
        """What a GTK 4 Wayland application gets from the clipboard: types, and text/HTML/PNG bytes."""
        reader = self.start(["/usr/bin/python3", BENCH, "reader"], "reader")
        try:
            out, _ = reader.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            kill_group(reader)
            return {"error": "the reader timed out"}
        lines = [line for line in out.decode().splitlines() if line.startswith("{")]
        return json.loads(lines[-1]) if lines else {"error": "the reader printed nothing"}

    def stop_all(self) -> None:
        for process in self.processes:
            kill_group(process)


def line_from(process: subprocess.Popen, wanted, timeout: float) -> str | None:
    """The first line `process` printed that `wanted` accepts, waiting up to `timeout` (read on a thread of its
    own: a select() on the pipe would miss lines Python has buffered already)."""
    if not hasattr(process, "lines"):
        process.lines = gnome_bench.Lines(process.stdout)
    found = process.lines.wait(wanted, timeout)
    return found[1] if found else None


def exact(read: dict, expected: dict[str, bytes]) -> list[str]:
    return gnome_bench.kept_types(read, expected)


def copy_three(s: Session, prefix: str) -> subprocess.Popen:
    """A GTK 4 Wayland window (org.pasteboard.BenchCopier) copies text + HTML + PNG once, then serves it."""
    copier = s.start(["/usr/bin/python3", BENCH, "copier", "--rate", "1", "--count", "1", "--prefix", prefix],
                     "copier-" + prefix)
    if line_from(copier, lambda line: line.startswith("copy 0"), 20) is None:
        raise SetupError(f"the GTK 4 copier did not copy: see {s.workdir}/copier-{prefix}.log")
    return copier


def run_checks(s: Session, checks: Checks, install: subprocess.CompletedProcess) -> None:
    checks.check("pb gnome-extension install succeeds", install.returncode == 0,
                 (install.stdout + install.stderr).decode(errors="replace").strip())
    applications = os.path.join(s.env["XDG_DATA_HOME"], "applications")
    os.makedirs(applications, exist_ok=True)
    with open(os.path.join(applications, gnome_bench.COPIER_ID + ".desktop"), "w") as file:
        file.write("[Desktop Entry]\nType=Application\nName=Copier\nExec=/usr/bin/true\n")

    daemon = s.start([s.pb, "daemon"], "pb-daemon", env=s.env)
    first = line_from(daemon, lambda line: line.startswith("Pasteboard daemon"), 20) or ""
    checks.check("the daemon's start line names the GNOME backend through the extension",
                 "GNOME through the Pasteboard Shell extension" in first, first)
    status = s.run_pb("gnome-extension", "status")
    out = status.stdout.decode(errors="replace")
    checks.check("pb gnome-extension status: installed, enabled, loaded, used", status.returncode == 0
                 and all(f"{word}" in out for word in ("installed: yes", "enabled:   yes", "loaded:    yes",
                                                        "daemon:    uses it")), out.strip())
    doctor = s.run_pb("doctor").stdout.decode(errors="replace")
    checks.check("pb doctor says the extension reports every copy", "backend:  gnome: the Pasteboard Shell "
                 "extension reports every copy" in doctor, doctor.strip())

    # 1. A copy of three types becomes one item with its application.
    before = len(s.history())
    copier = copy_three(s, "first")
    expected = gnome_bench.content_of("first", 0)
    items = wait_until(lambda: [i for i in s.history() if "first" in json.dumps(i)], 5)
    item = items[0] if items else {}
    types = set(item.get("types", []))
    checks.check("the copy is one item", len(items) == 1, json.dumps(items)[:400])
    checks.check("the item has text, HTML and PNG",
                 {"public.utf8-plain-text", "public.html", "public.png"} <= types, repr(sorted(types)))
    checks.check("the item's source is the copying application", item.get("source") == gnome_bench.COPIER_ID,
                 repr(item.get("source")))
    # 2. The application exits: no text-only item, the clipboard still offers all three.
    time.sleep(0.5)  # as without pb: mutter has its copy before the exit
    kill_group(copier)
    time.sleep(1.0)
    after = s.history()
    checks.check("no text-only item appears when the application exits", len(after) == before + 1,
                 f"{before} -> {len(after)}")
    read = s.read_clipboard()
    checks.check("after the exit a Wayland reader gets text, HTML and PNG byte-exact",
                 exact(read, expected) == ["text", "html", "png"], gnome_bench.offered(read))
    # 3. pb restore of an older item serves its three types.
    second = copy_three(s, "second")
    wait_until(lambda: any("second" in json.dumps(i) for i in s.history()), 5)
    kill_group(second)
    time.sleep(0.5)
    first_id = next((i["id"] for i in s.history() if "first" in json.dumps(i)), None)
    restore = s.run_pb("restore", str(first_id))
    time.sleep(0.3)
    read = s.read_clipboard()
    checks.check("pb restore serves an older item's three types byte-exact to a Wayland reader",
                 restore.returncode == 0 and exact(read, expected) == ["text", "html", "png"],
                 gnome_bench.offered(read) + " " + restore.stderr.decode(errors="replace"))
    # 4. pb restore --paste types into the focused GTK 4 entry.
    entry = s.start(["/usr/bin/python3", ENTRY, "paste target"], "entry")
    focused = line_from(entry, lambda line: line == "focus", 20)
    paste = s.run_pb("restore", str(first_id), "--paste")
    text = line_from(entry, lambda line: line.startswith("TEXT: "), 10)
    wanted = gnome_bench.text_of("first", 0)
    checks.check("pb restore --paste types the item into the focused GTK 4 entry",
                 focused is not None and paste.returncode == 0 and text == "TEXT: " + json.dumps(wanted),
                 f"focus {focused!r}, exit {paste.returncode}, {text!r}; "
                 f"{(paste.stdout + paste.stderr).decode(errors='replace').strip()}")
    kill_group(entry)
    # 5. A secret from an X11 password manager: not stored, and gone from the clipboard after it exits.
    count = len(s.history())
    owner = s.start(["/usr/bin/python3", GTK3_OWNER, "--text", SECRET, "--secret"], "secret-owner",
                    env=dict(s.env, GDK_BACKEND="x11"))
    ready = line_from(owner, lambda line: line == "ready", 20)
    time.sleep(0.8)
    checks.check("the secret copy is not stored", ready is not None and len(s.history()) == count
                 and not any(SECRET in json.dumps(i) for i in s.history()))
    kill_group(owner)
    time.sleep(1.0)
    read = s.read_clipboard()
    text = base64.b64decode(read.get("data", {}).get(gnome_bench.TEXT_TYPE, "")).decode(errors="replace")
    checks.check("after the password manager exits, the password is not on the clipboard", SECRET not in text
                 and "error" not in read, repr(read)[:300])
    kill_group(daemon)


def without_xwayland(s: Session, checks: Checks) -> None:
    """A daemon with no Xwayland to serve through (DISPLAY unset): the extension still senses every copy, and a
    restore is served from the shell's memory with the item's richest single type."""
    env = {key: value for key, value in s.env.items() if key not in ("DISPLAY", "XAUTHORITY")}
    daemon = s.start([s.pb, "daemon"], "pb-daemon-no-xwayland", env=env)
    first = line_from(daemon, lambda line: line.startswith("Pasteboard daemon"), 20) or ""
    checks.check("without Xwayland the start line says only the richest type is served",
                 "without Xwayland" in first and "richest type" in first, first)
    doctor = subprocess.run([s.pb, "doctor"], env=env, capture_output=True, timeout=30).stdout.decode()
    checks.check("without Xwayland pb doctor says only the richest type is served",
                 "only the richest type of an item" in doctor, doctor.strip())
    copier = copy_three(s, "alone")
    expected = gnome_bench.content_of("alone", 0)
    items = wait_until(lambda: [i for i in s.history() if "alone" in json.dumps(i)], 5)
    checks.check("without Xwayland the copy is recorded with its three types",
                 len(items) == 1 and len(items[0].get("types", [])) >= 3, json.dumps(items)[:300])
    kill_group(copier)
    time.sleep(0.5)
    if items:
        restore = subprocess.run([s.pb, "restore", str(items[0]["id"])], env=env, capture_output=True, timeout=30)
        time.sleep(0.3)
        read = s.read_clipboard()
        kept = exact(read, expected)
        checks.check("without Xwayland a restore serves one type byte-exact",
                     restore.returncode == 0 and len(read.get("types", [])) == 1 and len(kept) == 1,
                     f"{read.get('types')} {kept} {restore.stderr.decode(errors='replace')}")
    kill_group(daemon)


def without_pb(s: Session, checks: Checks) -> None:
    """The differential half: the same copy and exit with no pb running leaves mutter's text-only copy."""
    copier = copy_three(s, "bare")
    time.sleep(0.5)  # mutter's clipboard manager reads its text copy of the new owner meanwhile
    kill_group(copier)
    time.sleep(1.0)
    read = s.read_clipboard()
    checks.check("without pb, an exiting application leaves text only (mutter's copy)",
                 exact(read, gnome_bench.content_of("bare", 0)) == ["text"],
                 f"{gnome_bench.offered(read)}; byte-exact: {exact(read, gnome_bench.content_of('bare', 0))}; "
                 f"{json.dumps(read)[:300]}")


def main() -> int:
    parser = argparse.ArgumentParser(description="pb on a headless GNOME Shell 43 with its extension.")
    parser.add_argument("--pb", default=os.path.join(REPO, ".build", "debug", "pb"))
    parser.add_argument("--workdir", help="keep the session's files (logs, home) here")
    args = parser.parse_args()
    pb = os.path.abspath(args.pb)
    if not os.access(pb, os.X_OK):
        print(f"FAIL no pb at {pb}: build it (swift build --product pb)", flush=True)
        return 1
    gnome.enter_namespace(args.workdir)
    workdir = args.workdir or tempfile.mkdtemp(prefix="pb-gnome-")
    checks = Checks()
    installed = {}

    def install(env):
        installed["result"] = subprocess.run([pb, "gnome-extension", "install"], env=env, capture_output=True,
                                             timeout=60)

    session = gnome.GnomeSession(workdir, before_shell=install)
    s = None
    try:
        with session:
            s = Session(session, pb, workdir)
            without_pb(s, checks)
            run_checks(s, checks, installed["result"])
            without_xwayland(s, checks)
    except SetupError as error:
        checks.check("the GNOME session and its clients start", False, str(error))
    finally:
        if s is not None:
            s.stop_all()
    print(f"{checks.passed} passed, {checks.failed} failed", flush=True)
    if checks.failed:
        print(f"logs: {workdir}", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
