#!/usr/bin/env python3
"""Checks that `make build`'s pb loads no shared library that it is meant to hold itself.

`make build` links SQLite, libsodium, zlib, libXtst, libXRes, libXext and libstdc++ into pb from their static archives
(scripts/static_libs.sh), since each shared library costs every start its own load and relocations. A change to
Package.swift or to the toolchain can quietly bring a shared one back (a new `link` in a module map, a pkg-config
file that SwiftPM no longer reads from PKG_CONFIG_PATH), and pb would still build and run, only slower. So this
reads pb's dynamic section (`readelf -d`) and fails when it needs one of them, or needs a library not in the list
of those it may load.

Usage: python3 scripts/check_linkage.py PB_BINARY
Exit status 0 when clean, 1 when pb loads what it should hold, 2 when the check itself cannot run.
"""
import re, shutil, subprocess, sys

# Linked in: none of these may appear as NEEDED.
STATIC = ("libsqlite3", "libsodium", "libz", "libXtst", "libXRes", "libXext", "libstdc++")
# What pb may load: the C library, libm and libgcc_s, Xlib with XFixes (xclip loads Xlib too), and
# libwayland-client, which Debian ships as a shared library only.
ALLOWED = ("libc", "libm", "libgcc_s", "libpthread", "libdl", "ld-linux-x86-64", "ld-linux-aarch64", "libX11",
           "libXfixes", "libwayland-client")


def base(name):
    return re.sub(r"\.so(\.[0-9]+)*$", "", name)


def main():
    if len(sys.argv) != 2:
        print("usage: python3 scripts/check_linkage.py PB_BINARY", file=sys.stderr)
        return 2
    binary = sys.argv[1]
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
    unexpected = [name for name in needed if name not in STATIC and name not in ALLOWED]
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
