#!/usr/bin/env python3
"""Checks that `make build`'s pb (or pasteboard-gtk) loads no shared library that it is meant to hold itself.

`make build` links libXtst, libXRes, libXext and libstdc++ into pb from their static archives
(scripts/static_libs.sh), since each shared library costs every start its own load and relocations; SQLite,
libsodium, zlib and Zstandard are Debian's shared libraries, so that their security updates reach pb. A change to
Package.swift or to the toolchain can quietly bring a shared one back (a new `link` in a module map, a pkg-config
file that SwiftPM no longer reads from PKG_CONFIG_PATH), and pb would still build and run, only slower. So this
reads pb's dynamic section (`readelf -d`) and fails when it needs one of them, or needs a library not in the list
of those it may load.

Usage: python3 scripts/check_linkage.py PB_BINARY
       python3 scripts/check_linkage.py --app PASTEBOARD_GTK_BINARY
Exit status 0 when clean, 1 when pb loads what it should hold, 2 when the check itself cannot run.
"""
import re, shutil, subprocess, sys

# Linked in: none of these may appear as NEEDED.
STATIC = ("libXtst", "libXRes", "libXext", "libstdc++")
# What pb may load: the C library, libm and libgcc_s, Xlib with XFixes (xclip loads Xlib too), libwayland-client,
# which Debian ships as a shared library only, and Debian's SQLite, libsodium, zlib and Zstandard. pasteboard-gtk loads GTK 4
# and the GLib libraries besides.
ALLOWED = ("libc", "libm", "libgcc_s", "libpthread", "libdl", "ld-linux-x86-64", "ld-linux-aarch64", "libX11",
           "libXfixes", "libwayland-client", "libsqlite3", "libsodium", "libz", "libzstd")
APP_ALLOWED = ("libgtk-4", "libgio-2.0", "libglib-2.0", "libgobject-2.0", "libpango-1.0", "libpangocairo-1.0",
               "libcairo", "libgdk_pixbuf-2.0", "libgraphene-1.0", "libharfbuzz", "libcairo-gobject")


def base(name):
    return re.sub(r"\.so(\.[0-9]+)*$", "", name)


def main():
    arguments = sys.argv[1:]
    app = arguments[:1] == ["--app"]
    if app:
        arguments = arguments[1:]
    if len(arguments) != 1:
        print("usage: python3 scripts/check_linkage.py [--app] BINARY", file=sys.stderr)
        return 2
    binary = arguments[0]
    allowed = ALLOWED + (APP_ALLOWED if app else ())
    if shutil.which("readelf") is None:
        print("check_linkage: readelf is missing (Debian: binutils)", file=sys.stderr)
        return 2
    result = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"check_linkage: readelf cannot read {binary}: {result.stderr.strip()}", file=sys.stderr)
        return 2
    needed = [base(name) for name in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", result.stdout)]
    if not needed:
        print(f"check_linkage: {binary} has no NEEDED entries; is it a dynamically linked executable?",
              file=sys.stderr)
        return 2
    linked_in = [name for name in needed if name in STATIC]
    unexpected = [name for name in needed if name not in STATIC and name not in allowed]
    if linked_in or unexpected:
        if linked_in:
            print(f"check_linkage: {binary} loads {', '.join(linked_in)} as shared libraries, but `make build` "
                  "links them in from static archives (scripts/static_libs.sh).", file=sys.stderr)
        if unexpected:
            print(f"check_linkage: {binary} loads {', '.join(unexpected)}, which is new: link it statically "
                  "(scripts/static_libs.sh) or add it to ALLOWED here and say why.", file=sys.stderr)
        return 1
    print(f"check_linkage: {binary} loads only {', '.join(needed)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
