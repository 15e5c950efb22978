#!/usr/bin/env python3
"""Installs the Debian package on a clean, minimal Debian 12 and checks that it works there (`make test-deb`).

The system is `debootstrap --variant=minbase bookworm` from the mirror this machine's own apt sources name. It is
made once and kept in the cache directory (default /var/cache/pasteboard-ci, outside the checkout), under a name
keyed by the mirror and the ISO week, so it is renewed weekly; each run works on a copy of it, and the packages apt
downloads are kept in the cache too. Inside the copy (chroot, with /proc, /dev and the network for apt):

  1. `apt-get install --no-install-recommends ./pasteboard_V_amd64.deb` resolves every dependency from Depends alone;
  2. `pb --version` and `pasteboard-gtk --version` print V; `ldd` finds every library of both;
  3. with no display, `pb copy` then `pb paste` gives back the bytes; `pb history` lists the item;
  4. `apt-get remove --purge pasteboard` leaves no file of the package;
  5. the upgrade: an older package (this one relabelled with the lower --old-version, or --old-deb) is
     installed, items are copied into a user's store, the store is set back to schema 4 (as the pb of
     that schema wrote it: an image item recorded as text), the new package is installed over it, and the items
     are still there, the migration ran (the schema is the newest, the image is an image again);
  6. removing it again leaves the system exactly as step 4 left it: no file more, none less.

Any missing tool or failed step fails the run with what went wrong. Needs root, debootstrap and the network to
the mirror.

Usage: python3 packaging/test_deb.py --deb dist/pasteboard_V_amd64.deb (--old-version V0 | --old-deb OLD.deb)
                                    [--cache DIRECTORY]
"""
import argparse, datetime, glob, hashlib, os, re, shutil, sqlite3, struct, subprocess, sys, tempfile, time, zlib

SUITE = "bookworm"
# What apt, dpkg and the test itself change on their own: left out of the before/after file lists.
VOLATILE = ("proc", "dev", "sys", "tmp", "root", "home", "run", "var/cache", "var/lib/apt", "var/lib/dpkg",
            "var/log", "var/tmp", "etc/ld.so.cache")
ENVIRONMENT = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive",
               "HOME": "/root"}


class TestFailure(Exception):
    pass


def log(message):
    print(f"[test_deb {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run(argv, check=True, **options):
    try:
        result = subprocess.run(argv, capture_output=True, text=True, **options)
    except OSError as error:
        raise TestFailure(f"cannot run {argv[0]}: {error.strerror}")
    if check and result.returncode != 0:
        raise TestFailure(f"'{' '.join(argv)}' exited with {result.returncode}:\n{result.stdout[-3000:]}"
                          f"\n{result.stderr[-3000:]}")
    return result


# MARK: - The mirror and the cached system

def apt_sources():
    """(mirror, security mirror or None) for SUITE, from /etc/apt/sources.list and sources.list.d (both formats)."""
    entries = []  # (uri, suites)
    paths = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
    for path in paths:
        if not os.path.isfile(path):
            continue
        for text in open(path):
            fields = re.sub(r"\[[^]]*\]", "", text.split("#")[0]).split()
            if len(fields) >= 3 and fields[0] == "deb":
                entries.append((fields[1], [fields[2]]))
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for stanza in open(path).read().split("\n\n"):
            fields = {}
            for text in stanza.split("\n"):
                if text.startswith("#") or ":" not in text:
                    continue
                key, _, value = text.partition(":")
                fields[key.strip().lower()] = value.split()
            if "deb" in fields.get("types", []) and fields.get("enabled", ["yes"]) != ["no"]:
                for uri in fields.get("uris", []):
                    entries.append((uri, fields.get("suites", [])))
    mirror = next((uri for uri, suites in entries if SUITE in suites), None)
    security = next((uri for uri, suites in entries if f"{SUITE}-security" in suites), None)
    if mirror is None:
        raise TestFailure(f"no apt source of this machine names the suite {SUITE} (read /etc/apt/sources.list and "
                          "/etc/apt/sources.list.d/)")
    return mirror.rstrip("/"), security.rstrip("/") if security else None


def cached_system(cache, mirror, security):
    year, week, _ = datetime.date.today().isocalendar()
    key = hashlib.sha256(f"{SUITE} minbase {mirror} {security} {year}-{week}".encode()).hexdigest()[:12]
    path = os.path.join(cache, f"{SUITE}-minbase-{key}")
    if os.path.isdir(path):
        log(f"using the cached {SUITE} system {path}")
        return path
    log(f"debootstrap --variant=minbase {SUITE} from {mirror} (cached in {path} for this week)")
    os.makedirs(cache, exist_ok=True)
    partial = path + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    run(["debootstrap", "--variant=minbase", SUITE, partial, mirror])
    lines = [f"deb {mirror} {SUITE} main", f"deb {mirror} {SUITE}-updates main"]
    if security:
        lines.append(f"deb {security} {SUITE}-security main")
    with open(os.path.join(partial, "etc", "apt", "sources.list"), "w") as file:
        file.write("\n".join(lines) + "\n")
    os.rename(partial, path)
    # Older weeks' systems go.
    for old in glob.glob(os.path.join(cache, f"{SUITE}-minbase-*")):
        if old != path:
            run(["rm", "-rf", "--one-file-system", old], check=False)
    return path


# MARK: - The chroot

def remove_run(directory):
    """Deletes a run's copy of the system, unless something is still mounted in it (then /dev would go with it)."""
    with open("/proc/mounts") as file:
        mounted = [fields.split()[1] for fields in file if fields.split()[1].startswith(directory + "/")]
    if mounted:
        log(f"left {directory} in place: {', '.join(mounted)} still mounted there")
        return
    run(["rm", "-rf", "--one-file-system", directory], check=False)


class Chroot:
    def __init__(self, cache, system):
        os.makedirs(os.path.join(cache, "runs"), exist_ok=True)
        for leftover in glob.glob(os.path.join(cache, "runs", "run-*")):  # of an interrupted run
            remove_run(leftover)
        self.work = tempfile.mkdtemp(prefix="run-", dir=os.path.join(cache, "runs"))
        self.root = os.path.join(self.work, "root")
        self.mounts = []
        log("copying the cached system")
        run(["cp", "-a", "--reflink=auto", system, self.root])
        archives = os.path.join(cache, "apt-archives")
        os.makedirs(os.path.join(archives, "partial"), exist_ok=True)
        shutil.copyfile("/etc/resolv.conf", os.path.join(self.root, "etc", "resolv.conf"))
        self.mount(["-t", "proc", "proc"], "proc")
        self.mount(["--bind", "/dev"], "dev")
        self.mount(["--bind", archives], "var/cache/apt/archives")

    def mount(self, options, target):
        path = os.path.join(self.root, target)
        os.makedirs(path, exist_ok=True)
        run(["mount"] + options + [path])
        self.mounts.append(path)

    def close(self):
        for path in reversed(self.mounts):
            if run(["umount", path], check=False).returncode != 0:
                run(["umount", "--lazy", path], check=False)
        self.mounts = []
        remove_run(self.work)

    def sh(self, script, check=True, environment=None, what=None):
        result = run(["chroot", self.root, "/bin/sh", "-ec", script], check=False,
                     env={**ENVIRONMENT, **(environment or {})})
        if check and result.returncode != 0:
            raise TestFailure(f"{what or script} failed in the Debian 12 chroot (exit {result.returncode}):\n"
                              f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
        return result

    def files(self):
        """Every path of the system but the volatile ones, relative to its root."""
        paths = set()
        for directory, directories, names in os.walk(self.root):
            relative = os.path.relpath(directory, self.root)
            relative = "" if relative == "." else relative
            directories[:] = [d for d in directories if os.path.join(relative, d) not in VOLATILE]
            for name in names + directories:
                path = os.path.join(relative, name)
                if path not in VOLATILE:
                    paths.add("/" + path)
        return paths

    def path(self, inside):
        return os.path.join(self.root, inside.lstrip("/"))


# MARK: - The checks

def expect(condition, message):
    if not condition:
        raise TestFailure(message)


def install(chroot, deb, what):
    name = os.path.basename(deb)
    shutil.copyfile(deb, chroot.path("/tmp/" + name))
    return chroot.sh(f"apt-get install -y --no-install-recommends /tmp/{name}", what=what).stdout


def installed_version(chroot):
    return chroot.sh("dpkg-query -W -f '${Status} ${Version}' pasteboard", check=False).stdout.strip()


def check_programs(chroot, version):
    for program in ("pb", "pasteboard-gtk"):
        printed = chroot.sh(f"{program} --version", what=f"{program} --version").stdout.strip()
        expect(printed == f"{program} {version}", f"{program} --version printed {printed!r}, not '{program} {version}'")
        ldd = chroot.sh(f"ldd /usr/bin/{program}", what=f"ldd /usr/bin/{program}").stdout
        missing = [text.strip() for text in ldd.split("\n") if "not found" in text]
        expect(not missing, f"ldd /usr/bin/{program} finds no library for: {missing}")
        expect("=>" in ldd, f"ldd /usr/bin/{program} printed no library: {ldd!r}")
    log(f"pb and pasteboard-gtk print {version}; ldd finds every library of both")


def check_copy_paste(chroot):
    home = "/tmp/home-copy"
    environment = {"HOME": home, "XDG_RUNTIME_DIR": home + "/run"}
    chroot.sh(f"mkdir -p {home}/run && chmod 700 {home}/run")
    text = "pasted in a clean Debian 12 \u2713"
    pasted = chroot.sh(f"printf '%s' '{text}' | pb copy && pb paste", environment=environment,
                       what="pb copy then pb paste").stdout
    expect(pasted == text, f"pb paste gave {pasted!r} after pb copy of {text!r}")
    history = chroot.sh("pb history", environment=environment, what="pb history").stdout
    expect("clean Debian 12" in history, f"pb history does not list the copied item: {history!r}")
    log("with no display, pb copy then pb paste gives the text back, and pb history lists it")


def check_removal(chroot, before_install, name):
    package_files = chroot.sh("dpkg -L pasteboard", what="dpkg -L pasteboard").stdout.split()
    chroot.sh("apt-get remove --purge -y pasteboard", what="apt-get remove --purge pasteboard")
    status = installed_version(chroot)
    expect("ok installed" not in status and "config-files" not in status,
           f"pasteboard is still installed after apt-get remove --purge: {status!r}")
    left = [path for path in package_files
            if os.path.lexists(chroot.path(path)) and not os.path.isdir(chroot.path(path))]
    expect(not left, f"apt-get remove --purge pasteboard left files of the package: {left}")
    after = chroot.files()
    if before_install is not None:
        appeared, vanished = sorted(after - before_install), sorted(before_install - after)
        expect(not appeared and not vanished,
               f"{name}: after removal the system differs from before the install: new {appeared[:20]}, "
               f"gone {vanished[:20]}")
    log(f"{name}: apt-get remove --purge left none of the package's {len(package_files)} paths"
        + (", and the system is as before the install" if before_install is not None else ""))
    return after


def store_of(chroot, home):
    return chroot.path(f"{home}/.local/share/pasteboard/history.sqlite")


def check_upgrade(chroot, old_deb, new_deb, old_version, version, png):
    home = "/tmp/home-upgrade"
    environment = {"HOME": home, "XDG_RUNTIME_DIR": home + "/run"}
    chroot.sh(f"mkdir -p {home}/run && chmod 700 {home}/run")
    install(chroot, old_deb, f"apt-get install of the older package {old_version}")
    expect(installed_version(chroot) == f"install ok installed {old_version}",
           f"the older package is not installed: {installed_version(chroot)!r}")
    shutil.copyfile(png, chroot.path("/tmp/picture.png"))
    chroot.sh("echo 'kept through the upgrade' | pb copy && pb copy /tmp/picture.png", environment=environment,
              what="pb copy with the older package")
    # The store as schema 4 wrote it: a picture could be recorded as text (migration 5 makes it an image). Setting
    # user_version back to 4 makes pb run every migration after 4 again: one added later that cannot run twice over
    # its own tables needs undoing here too (the upgrade then fails, naming the migration's error).
    database = sqlite3.connect(store_of(chroot, home))
    newest = database.execute("PRAGMA user_version").fetchone()[0]
    expect(newest >= 5, f"the store is at schema {newest}; this test sets it back to schema 4")
    kinds = dict(database.execute("SELECT kind, count(*) FROM items GROUP BY kind").fetchall())
    expect(kinds == {"text": 1, "image": 1}, f"the older package recorded {kinds}, not one text and one image")
    database.execute("UPDATE items SET kind = 'text'")
    # Migration 7 creates recognized_text (8 rebuilds what it makes, and may run again as it is).
    database.execute("DROP TABLE IF EXISTS recognized_text")
    database.execute("PRAGMA user_version = 4")
    database.commit()
    database.close()
    output = install(chroot, new_deb, f"apt-get install of {version} over {old_version}")
    expect(installed_version(chroot) == f"install ok installed {version}",
           f"the upgrade did not install {version}: {installed_version(chroot)!r}")
    expect(re.search(rf"Unpacking pasteboard \({re.escape(version)}\) over \({re.escape(old_version)}\)", output),
           f"apt did not upgrade {old_version} to {version}: {output[-2000:]}")
    history = chroot.sh("pb history", environment=environment, what="pb history after the upgrade").stdout
    expect("kept through the upgrade" in history, f"the text item is gone after the upgrade: {history!r}")
    images = chroot.sh("pb history --type image", environment=environment, what="pb history --type image").stdout
    expect(len([line for line in images.split("\n") if line.strip()]) == 1,
           f"the image item is not an image after the upgrade (migration 5 did not run?): {images!r}")
    database = sqlite3.connect(store_of(chroot, home))
    schema = database.execute("PRAGMA user_version").fetchone()[0]
    kinds = dict(database.execute("SELECT kind, count(*) FROM items GROUP BY kind").fetchall())
    database.close()
    expect(schema == newest, f"after the upgrade the store is at schema {schema}, not {newest}: no migration ran")
    expect(kinds == {"text": 1, "image": 1}, f"after the upgrade the store holds {kinds}, not one text and one image")
    log(f"upgrade {old_version} -> {version}: both items kept, the store migrated from schema 4 to {schema}")


def relabelled(deb, version, directory):
    """The package `deb` with another version in its control file: the upgrade test's older package."""
    tree = os.path.join(directory, "tree")
    run(["dpkg-deb", "-R", deb, tree])
    control = os.path.join(tree, "DEBIAN", "control")
    with open(control) as file:
        text = re.sub(r"^Version: .*$", f"Version: {version}", file.read(), flags=re.M)
    with open(control, "w") as file:
        file.write(text)
    older = os.path.join(directory, f"pasteboard_{version}_amd64.deb")
    run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-z1", "--build", tree, older])
    shutil.rmtree(tree)
    return older


def small_png():
    """A 4x4 blue PNG, made here so the test needs no image tool."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x30\x70\xc0" * 4 for _ in range(4))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser(description="Test the pasteboard package on a clean minimal Debian 12.")
    parser.add_argument("--deb", required=True)
    older = parser.add_mutually_exclusive_group(required=True)
    older.add_argument("--old-deb", help="a package of a lower version, for the upgrade")
    older.add_argument("--old-version", help="make the older package from --deb, relabelled with this version")
    parser.add_argument("--cache", default="/var/cache/pasteboard-ci")
    arguments = parser.parse_args()
    chroot = None
    try:
        if os.geteuid() != 0:
            raise TestFailure("run as root (debootstrap, chroot and mount need it)")
        for tool in ("debootstrap", "chroot", "mount", "umount", "dpkg-deb"):
            if shutil.which(tool) is None:
                raise TestFailure(f"{tool} is missing (Debian: debootstrap, coreutils, mount, dpkg)")
        if not os.path.isfile(arguments.deb):
            raise TestFailure(f"{arguments.deb} does not exist: run 'make deb' first")
        scratch = tempfile.mkdtemp(prefix="pasteboard-test-deb-")
        if arguments.old_version:
            arguments.old_deb = relabelled(arguments.deb, arguments.old_version, scratch)
        elif not os.path.isfile(arguments.old_deb):
            raise TestFailure(f"{arguments.old_deb} does not exist")
        version = run(["dpkg-deb", "-f", arguments.deb, "Version"]).stdout.strip()
        old_version = run(["dpkg-deb", "-f", arguments.old_deb, "Version"]).stdout.strip()
        run(["dpkg", "--compare-versions", old_version, "lt", version])
        png = os.path.join(scratch, "picture.png")
        with open(png, "wb") as file:
            file.write(small_png())
        mirror, security = apt_sources()
        system = cached_system(arguments.cache, mirror, security)
        started = time.monotonic()
        chroot = Chroot(arguments.cache, system)
        chroot.sh("apt-get update -qq", what="apt-get update")
        log(f"apt-get install ./{os.path.basename(arguments.deb)} on a clean minimal Debian 12")
        install(chroot, arguments.deb, "apt-get install of the package")
        expect(installed_version(chroot) == f"install ok installed {version}",
               f"pasteboard {version} is not installed: {installed_version(chroot)!r}")
        check_programs(chroot, version)
        check_copy_paste(chroot)
        baseline = check_removal(chroot, None, "first removal")
        check_upgrade(chroot, arguments.old_deb, arguments.deb, old_version, version, png)
        check_programs(chroot, version)
        check_removal(chroot, baseline, "removal after the upgrade")
        shutil.rmtree(scratch)
        log(f"passed in {time.monotonic() - started:.0f} s")
    except TestFailure as failure:
        print(f"test_deb: FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if chroot is not None:
            chroot.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
