#!/usr/bin/env bash
# Prepares the static link of `make build`'s pb: a directory holding the static archives of the C libraries pb
# links (and of libstdc++, which the Swift runtime needs), and pkg-config files that point SwiftPM's link there.
#
# Why: every shared library costs each start of pb a file lookup, an mmap and its relocations. libstdc++ alone
# (needed by the static Swift runtime) was a third of pb's time in the dynamic loader; with these archives linked in,
# `pb --version` goes from about 1.8x to about 1.3x the time of `xclip -version` (bench/startup_bench.py).
# Left shared: libc, libm and libgcc_s, libX11 and libXfixes with what they load (xclip loads them too), and
# libwayland-client, which Debian ships as a shared library only. The price: a security update of SQLite,
# libsodium, zlib, libXtst or libXRes reaches pb with its next `make build`, as with any statically linked program.
#
# How: SwiftPM links `-lsqlite3 -lsodium -lz` with the library directory of each pkg-config file in front of any
# `-L` given on the command line, so the shared objects there would win. Our pkg-config files name this directory
# instead, and hold only archives, so the linker takes the archive. The X libraries (`-lXtst -lXRes`, linked by
# name in Package.swift) come next on the same search path and are found here too; libXext, which both need, is
# linked after them by the Makefile.
#
# Usage: scripts/static_libs.sh DIRECTORY    (the Makefile passes .build/static-libs)
set -euo pipefail

directory=${1:?usage: scripts/static_libs.sh DIRECTORY}
# The C compiler that knows where the archives are: $CC, else cc, else the Swift toolchain's own clang.
compiler=${CC:-}
for candidate in cc clang; do
    [ -n "$compiler" ] && break
    command -v "$candidate" >/dev/null && compiler=$candidate
done
[ -n "$compiler" ] || { echo "static_libs: no C compiler (cc or clang) to find the static archives with" >&2; exit 1; }
command -v "$compiler" >/dev/null || { echo "static_libs: the C compiler '$compiler' (\$CC) is not installed" >&2; exit 1; }
mkdir -p "$directory"

# The archive of each library, found where the C compiler would look for it.
for library in libstdc++ libsqlite3 libsodium libz libXtst libXRes libXext; do
    archive=$("$compiler" -print-file-name="$library.a")
    if [ "$archive" = "$library.a" ] || [ ! -f "$archive" ]; then
        echo "static_libs: $library.a is missing (Debian: libstdc++-12-dev, libsqlite3-dev, libsodium-dev," \
            "zlib1g-dev, libxtst-dev, libxres-dev, libxext-dev; 'make deps' installs them)" >&2
        exit 1
    fi
    ln -sfn "$(realpath "$archive")" "$directory/$library.a"
done

# pkg-config files for the three SwiftPM finds through pkg-config (Package.swift: CSQLite, CSodium, CZlib): the
# compiler flags of the system's own, and a link against this directory.
absolute=$(realpath "$directory")
for package in sqlite3 libsodium zlib; do
    pkg-config --exists "$package" || {
        echo "static_libs: pkg-config knows no '$package' ('make deps' installs its development files)" >&2
        exit 1
    }
    {
        echo "Name: $package"
        echo "Description: $package, linked from its static archive (scripts/static_libs.sh)"
        echo "Version: $(pkg-config --modversion "$package")"
        echo "Libs: -L$absolute $(pkg-config --libs-only-l "$package")"
        echo "Cflags: $(pkg-config --cflags "$package")"
    } > "$directory/$package.pc"
done
