#!/usr/bin/env python3
"""Builds the Debian package `pasteboard` from release binaries: `make deb` runs it.

The package is staged in a temporary tree (binaries stripped, every file 0644 and every directory and program 0755),
and built with `dpkg-deb --root-owner-group`, so no Debian source package or debhelper is involved. What goes in:

  /usr/bin/pb, pbcopy and pbpaste (links to pb), pasteboard-gtk, pasteboard-ocr (the daemon's text recognizer)
  /usr/share/applications/   the History window's desktop entry, and pb-paste.desktop (KWin's fake-input grant)
  /usr/share/icons/hicolor/scalable/apps/pasteboard-history.svg
  /usr/share/metainfo/org.pasteboard.Pasteboard.metainfo.xml   (packaging/pasteboard.metainfo.xml, validated)
  /usr/share/man/man1/       pb.1, pasteboard-gtk.1 (scripts/manpages.py), pbcopy.1 and pbpaste.1 as links
  /usr/lib/systemd/user/pasteboard.service                    (contrib/, with ExecStart=/usr/bin/pb daemon)
  bash, zsh and fish completions, from `pb completions SHELL`
  /usr/share/gnome-shell/extensions/pasteboard@pasteboard.org  the GNOME 43 variant (Debian 12's GNOME Shell)
  /usr/share/doc/pasteboard/copyright (DEP-5) and changelog.gz; /usr/share/lintian/overrides/pasteboard

The version is Sources/PasteboardModel/PasteboardVersion.swift's, which the programs print; the newest entries of
packaging/changelog and of the metainfo's releases must name it (the build says what to add when they do not).
Depends is what dpkg-shlibdeps finds for the binaries' NEEDED libraries, so it follows the link.

Usage: python3 packaging/build_deb.py --pb PB --app PASTEBOARD_GTK [--out dist]
Prints the path of the package.
"""
import argparse, gzip, hashlib, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGING = os.path.join(ROOT, "packaging")
VERSION_FILE = os.path.join(ROOT, "Sources", "PasteboardModel", "PasteboardVersion.swift")
UUID = "pasteboard@pasteboard.org"
# Debian 12 ships GNOME Shell 43: the legacy-import variant of the extension.
GNOME_SHELL_VERSION = "43"
MAINTAINER = "Pasteboard maintainers <maintainers@pasteboard.org>"
HOMEPAGE = "https://github.com/pasteboard/pasteboard"
DESCRIPTION = """\
clipboard history for Linux, with pbcopy and pbpaste
 Pasteboard keeps a history of everything copied, byte for byte: text, HTML,
 images, files and any other type an application offers. It keeps the
 clipboard alive when the application that copied exits, leaves out what
 password managers mark as secret, and finds any of a million items as you
 type.
 .
 This package holds pb, the command line tool and daemon (on X11, on
 Wayland compositors with data-control, through a GNOME Shell extension on
 GNOME, and without any display), with pbcopy and pbpaste like macOS, and
 pasteboard-gtk, the Pasteboard History window and popup (GTK 4)."""


class BuildError(Exception):
    pass


def run(argv, **options):
    try:
        result = subprocess.run(argv, capture_output=True, text=True, **options)
    except OSError as error:
        raise BuildError(f"cannot run {argv[0]}: {error.strerror}")
    if result.returncode != 0:
        raise BuildError(f"'{' '.join(argv)}' exited with {result.returncode}:\n{result.stderr.strip()}")
    return result.stdout


def source_version():
    with open(VERSION_FILE) as file:
        match = re.search(r'static let current = "([^"]+)"', file.read())
    if not match:
        raise BuildError(f"no 'static let current = \"…\"' in {os.path.relpath(VERSION_FILE, ROOT)}")
    return match.group(1)


def changelog_text(version):
    with open(os.path.join(PACKAGING, "changelog")) as file:
        text = file.read()
    match = re.match(r"^pasteboard \(([^)]+)\) ", text)
    if not match:
        raise BuildError("packaging/changelog does not start with a 'pasteboard (VERSION) …' entry")
    if match.group(1) != version:
        raise BuildError(f"packaging/changelog's newest entry is {match.group(1)}, but the version is {version}: "
                         "add an entry for it at the top (and a <release> to packaging/pasteboard.metainfo.xml)")
    return text


def changelog_epoch(text):
    date = re.search(r"^ -- .*?  (.+)$", text, re.M).group(1)
    return int(run(["date", "-d", date, "+%s"]).strip())


def metainfo_text(version):
    with open(os.path.join(PACKAGING, "pasteboard.metainfo.xml")) as file:
        text = file.read()
    newest = re.search(r'<release version="([^"]+)"', text)
    if not newest:
        raise BuildError("packaging/pasteboard.metainfo.xml has no <release>")
    if newest.group(1) != version:
        raise BuildError(f"packaging/pasteboard.metainfo.xml's newest <release> is {newest.group(1)}, but the "
                         f"version is {version}: add a <release version=\"{version}\"> with its notes")
    return text


def install(source, target, mode, text=None):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if text is not None:
        with open(target, "w") as file:
            file.write(text)
    else:
        shutil.copyfile(source, target)
    os.chmod(target, mode)


def gzip_file(source_text, target, mtime):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=mtime) as file:
            file.write(source_text.encode())
    os.chmod(target, 0o644)


def depends(stage, binaries):
    """dpkg-shlibdeps over the staged binaries, in a directory laid out as it expects (debian/control)."""
    with tempfile.TemporaryDirectory() as directory:
        os.makedirs(os.path.join(directory, "debian"))
        with open(os.path.join(directory, "debian", "control"), "w") as file:
            file.write("Source: pasteboard\n\nPackage: pasteboard\nArchitecture: amd64\n")
        output = run(["dpkg-shlibdeps", "-O", "-xpasteboard"] + [os.path.join(stage, b) for b in binaries],
                     cwd=directory)
    match = re.search(r"^shlibs:Depends=(.*)$", output, re.M)
    if not match:
        raise BuildError(f"dpkg-shlibdeps printed no shlibs:Depends: {output!r}")
    return match.group(1)


def build(pb, app, ocr, out, version):
    for tool in ("dpkg-deb", "dpkg-shlibdeps", "strip", "appstreamcli"):
        if shutil.which(tool) is None:
            raise BuildError(f"{tool} is missing (Debian: dpkg-dev, binutils, appstream)")
    for binary in (pb, app, ocr):
        if not os.access(binary, os.X_OK):
            raise BuildError(f"{binary} is missing: run 'make build app' first")
    changelog = changelog_text(version)
    metainfo = metainfo_text(version)
    epoch = changelog_epoch(changelog)
    with tempfile.TemporaryDirectory() as work:
        stage = os.path.join(work, "stage")
        usr = os.path.join(stage, "usr")
        bin_dir = os.path.join(usr, "bin")
        share = os.path.join(usr, "share")
        # The programs, stripped as dh_strip strips them.
        for source, name in ((pb, "pb"), (app, "pasteboard-gtk"), (ocr, "pasteboard-ocr")):
            target = os.path.join(bin_dir, name)
            install(source, target, 0o755)
            run(["strip", "--remove-section=.comment", "--remove-section=.note", target])
        for link in ("pbcopy", "pbpaste"):
            os.symlink("pb", os.path.join(bin_dir, link))
        staged_pb = os.path.join(bin_dir, "pb")
        for name in ("pb", "pasteboard-gtk"):
            text = run([os.path.join(bin_dir, name), "--version"])
            if text.strip() != f"{name} {version}":
                raise BuildError(f"{name} --version printed {text.strip()!r}, not '{name} {version}': rebuild it")
        # Desktop entries, icon, AppStream.
        applications = os.path.join(share, "applications")
        install(os.path.join(ROOT, "contrib", "pasteboard-history.desktop"),
                os.path.join(applications, "pasteboard-history.desktop"), 0o644)
        with open(os.path.join(ROOT, "contrib", "pb-paste.desktop")) as file:
            paste_entry = re.sub(r"^Exec=.*$", "Exec=/usr/bin/pb", file.read(), flags=re.M)
        install(None, os.path.join(applications, "pb-paste.desktop"), 0o644, paste_entry)
        install(os.path.join(ROOT, "contrib", "pasteboard-history.svg"),
                os.path.join(share, "icons", "hicolor", "scalable", "apps", "pasteboard-history.svg"), 0o644)
        metainfo_path = os.path.join(share, "metainfo", "org.pasteboard.Pasteboard.metainfo.xml")
        install(None, metainfo_path, 0o644, metainfo)
        run(["appstreamcli", "validate", "--no-net", metainfo_path])
        # Man pages.
        with tempfile.TemporaryDirectory() as pages:
            run([sys.executable, os.path.join(ROOT, "scripts", "manpages.py"), "--pb", staged_pb,
                 "--app", os.path.join(bin_dir, "pasteboard-gtk"), "--out", pages])
            man1 = os.path.join(share, "man", "man1")
            for name in ("pb.1", "pasteboard-gtk.1"):
                with open(os.path.join(pages, name)) as file:
                    gzip_file(file.read(), os.path.join(man1, name + ".gz"), epoch)
            for link in ("pbcopy", "pbpaste"):
                os.symlink("pb.1.gz", os.path.join(man1, f"{link}.1.gz"))
        # The user unit, running the packaged pb.
        with open(os.path.join(ROOT, "contrib", "pasteboard.service")) as file:
            unit = file.read()
        unit, count = re.subn(r"^ExecStart=\S+/pb ", "ExecStart=/usr/bin/pb ", unit, flags=re.M)
        if count != 1:
            raise BuildError("contrib/pasteboard.service has no 'ExecStart=…/pb …' line to point at /usr/bin/pb")
        # Its opening comment says how to install it by hand; packaged, it is installed.
        body = unit[unit.index("[Unit]"):]
        unit = ("# systemd user unit for the Pasteboard daemon, from the pasteboard package.\n"
                "#   systemctl --user enable --now pasteboard\n"
                "# The unit inherits DISPLAY from the session (systemctl --user import-environment DISPLAY when "
                "needed).\n" + body)
        install(None, os.path.join(usr, "lib", "systemd", "user", "pasteboard.service"), 0o644, unit)
        # Completions.
        for shell, path in (("bash", "bash-completion/completions/pb"), ("zsh", "zsh/vendor-completions/_pb"),
                            ("fish", "fish/vendor_completions.d/pb.fish")):
            install(None, os.path.join(share, path), 0o644, run([staged_pb, "completions", shell]))
        # The GNOME Shell extension, for every user (each enables it).
        extensions = os.path.join(share, "gnome-shell", "extensions")
        os.makedirs(extensions)
        run([staged_pb, "gnome-extension", "install", "--dir", extensions, "--shell-version", GNOME_SHELL_VERSION],
            env={**os.environ, "HOME": work, "XDG_DATA_HOME": os.path.join(work, "data")})
        if not os.path.isfile(os.path.join(extensions, UUID, "metadata.json")):
            raise BuildError(f"pb gnome-extension install wrote no {UUID}/metadata.json")
        # Documentation and lintian's overrides.
        doc = os.path.join(share, "doc", "pasteboard")
        install(os.path.join(PACKAGING, "copyright"), os.path.join(doc, "copyright"), 0o644)
        gzip_file(changelog, os.path.join(doc, "changelog.gz"), epoch)
        install(os.path.join(PACKAGING, "lintian-overrides"), os.path.join(share, "lintian", "overrides", "pasteboard"),
                0o644)
        # Modes: directories 0755, files 0644 but the programs.
        for directory, directories, files in os.walk(stage):
            os.chmod(directory, 0o755)
            for name in files:
                path = os.path.join(directory, name)
                if not os.path.islink(path):
                    os.chmod(path, 0o755 if directory == bin_dir else 0o644)
        # Control files.
        control_dir = os.path.join(stage, "DEBIAN")
        os.makedirs(control_dir)
        md5sums = []
        size = 0
        for directory, directories, files in sorted(os.walk(stage)):
            directories.sort()
            if directory.startswith(control_dir):
                continue
            for name in sorted(files):
                path = os.path.join(directory, name)
                size += 1 if os.path.islink(path) else os.path.getsize(path)
                if os.path.islink(path):
                    continue
                with open(path, "rb") as file:
                    digest = hashlib.md5(file.read()).hexdigest()
                md5sums.append(f"{digest}  {os.path.relpath(path, stage)}\n")
        install(None, os.path.join(control_dir, "md5sums"), 0o644, "".join(md5sums))
        control = (f"Package: pasteboard\nVersion: {version}\nArchitecture: amd64\nMaintainer: {MAINTAINER}\n"
                   f"Installed-Size: {(size + 1023) // 1024}\n"
                   f"Depends: {depends(stage, ['usr/bin/pb', 'usr/bin/pasteboard-gtk', 'usr/bin/pasteboard-ocr'])}\n"
                   # Tesseract's English model, for the default ocr-languages = eng (libtesseract5 only recommends it).
                   f"Recommends: tesseract-ocr-eng\n"
                   f"Suggests: gnome-shell\nSection: utils\nPriority: optional\nHomepage: {HOMEPAGE}\n"
                   f"Description: {DESCRIPTION}\n")
        install(None, os.path.join(control_dir, "control"), 0o644, control)
        # Every file dated as the changelog's newest entry, so the same binaries make the same package.
        for directory, directories, files in os.walk(stage):
            for name in files + directories + ["."]:
                os.utime(os.path.join(directory, name), (epoch, epoch), follow_symlinks=False)
        os.makedirs(out, exist_ok=True)
        package = os.path.join(out, f"pasteboard_{version}_amd64.deb")
        run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", stage, package],
            env={**os.environ, "SOURCE_DATE_EPOCH": str(epoch)})
    return package


def main():
    parser = argparse.ArgumentParser(description="Build the pasteboard Debian package.")
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build", "release", "pb"))
    parser.add_argument("--app", default=os.path.join(ROOT, ".build", "release", "pasteboard-gtk"))
    parser.add_argument("--ocr", default=os.path.join(ROOT, ".build", "release", "pasteboard-ocr"))
    parser.add_argument("--out", default=os.path.join(ROOT, "dist"))
    arguments = parser.parse_args()
    try:
        print(build(arguments.pb, arguments.app, arguments.ocr, arguments.out, source_version()))
    except BuildError as error:
        print(f"build_deb: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
