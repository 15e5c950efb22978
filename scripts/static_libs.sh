#!/usr/bin/env bash
# Prepares the static link of `make build`'s pb and pasteboard-gtk: a directory holding the static archives of
# libstdc++ (which the static Swift runtime needs) and of the X extensions libXtst and libXRes (with libXext, which
# both need), found there by the linker ahead of the shared libraries.
#
# Why these: every shared library costs each start of pb a file lookup, an mmap and its relocations. libstdc++ alone
# was a third of pb's time in the dynamic loader (bench/startup_bench.py). Debian's own pb would link it too: Debian
# has no Swift runtime, so the Swift runtime and Foundation are linked in whatever we do, and libstdc++ comes with them.
#
# Not these: SQLite, libsodium and zlib come from Debian as shared libraries (libsqlite3-0, libsodium23, zlib1g), as
# Debian's policy and lintian's `embedded-library` check ask, so that a security update of any of them reaches pb
# without a rebuild. They cost `pb --version` about 0.1 ms (README, "Linking"). Left shared as well: libc, libm,
# libgcc_s, libX11 and libXfixes with what they load (xclip loads them too), and libwayland-client.
#
# How: the X libraries (`-lXtst -lXRes`, linked by name in Package.swift) and libstdc++ are looked up along the
# library search path, where this directory comes first (through the pkg-config files below) and holds only
# archives, so the linker takes the archive. libXext is linked after them by the Makefile. Anything else left here
# by an older version of this script (SQLite's, libsodium's or zlib's archive) is removed, or it would be linked in
# again.
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
rm -f "$directory"/*.a "$directory"/*.pc

# The archive of each library, found where the C compiler would look for it.
for library in libstdc++ libXtst libXRes libXext; do
    archive=$("$compiler" -print-file-name="$library.a")
    if [ "$archive" = "$library.a" ] || [ ! -f "$archive" ]; then
        echo "static_libs: $library.a is missing (Debian: libstdc++-12-dev, libxtst-dev, libxres-dev, libxext-dev;" \
            "'make deps' installs them)" >&2
        exit 1
    fi
    ln -sfn "$(realpath "$archive")" "$directory/$library.a"
done


# pkg-config files for the three SwiftPM finds through pkg-config (Package.swift: CSQLite, CSodium, CZlib): the
# system's own flags, with this directory first on the library search path. That is what puts it ahead of the
# system's directory: SwiftPM places the `-L` of pkg-config files before everything else, while the Makefile's
# `-Xlinker -L` comes after the toolchain's own search path, which holds the system's directory. No archive of
# these three is here, so their shared libraries are linked.
absolute=$(realpath "$directory")
for package in sqlite3 libsodium zlib; do
    pkg-config --exists "$package" || {
        echo "static_libs: pkg-config knows no '$package' ('make deps' installs its development files)" >&2
        exit 1
    }
    {
        echo "Name: $package"
        echo "Description: $package, the system's shared library, found after the archives of scripts/static_libs.sh"
        echo "Version: $(pkg-config --modversion "$package")"
        echo "Libs: -L$absolute $(pkg-config --libs "$package")"
        echo "Cflags: $(pkg-config --cflags "$package")"
    } > "$directory/$package.pc"
done
