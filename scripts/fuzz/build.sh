#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (one file per target, Fuzz/NAME.swift) into $PB_FUZZ_BUILD
# (default .build/fuzz): the package's library modules are compiled straight from Sources/ with swiftc, with
# coverage instrumentation (-sanitize=fuzzer) and AddressSanitizer, and linked into one executable per target.
#
# SwiftPM is not used: `swift build --sanitize` would instrument the executables too and clash with libFuzzer's
# main. Modules are rebuilt only when one of their sources (or a module they import) changed.
#
# Usage: scripts/fuzz/build.sh [TARGET ...]      (default: every Fuzz/*.swift)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${PB_FUZZ_BUILD:-$root/.build/fuzz}
modules=$build/modules
mkdir -p "$modules" "$build/bin"

swiftc=${SWIFTC:-swiftc}
clang=${CLANG:-$(dirname "$(command -v "$swiftc")")/clang}
[ -x "$clang" ] || clang=clang
# -O keeps Swift's runtime checks (overflow, bounds, preconditions): they are what turns a bug into a crash.
swift_flags=(-O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -enable-testing -package-name pasteboard -I "$modules"
    -Xcc -fmodule-map-file="$root/Sources/CSQLite/module.modulemap")
c_flags=(-O1 -g -fPIC -fsanitize=fuzzer-no-link,address)

log() { printf 'fuzz build: %s\n' "$*" >&2; }

# Is $1 older than any of the remaining files (or missing)?
stale() {
    local output=$1
    shift
    [ -e "$output" ] || return 0
    local file
    for file in "$@"; do [ "$file" -nt "$output" ] && return 0; done
    return 1
}

# A C target: Sources/NAME/*.c with its public headers in Sources/NAME/include, as SwiftPM lays them out.
c_module() {
    local name=$1
    local dir=$root/Sources/$name
    local object=$modules/$name.o
    mkdir -p "$modules/$name"
    printf 'module %s {\n    umbrella header "%s/include/%s.h"\n    export *\n}\n' "$name" "$dir" "$name" \
        >"$modules/$name/module.modulemap"
    if stale "$object" "$dir"/*.c "$dir"/include/*.h; then
        log "compiling $name"
        "$clang" "${c_flags[@]}" -I "$dir/include" -c "$dir"/*.c -o "$object"
    fi
}

# A Swift library target: every .swift file under Sources/NAME, as one module; $2... are the modules it imports.
swift_module() {
    local name=$1
    shift
    local sources
    mapfile -t sources < <(find "$root/Sources/$name" -name '*.swift' | sort)
    local dependencies=()
    local dependency
    for dependency in "$@"; do dependencies+=("$modules/$dependency.swiftmodule"); done
    if stale "$modules/$name.o" "${sources[@]}" "${dependencies[@]}"; then
        log "compiling $name (${#sources[@]} files)"
        "$swiftc" "${swift_flags[@]}" -module-name "$name" -Xcc -fmodule-map-file="$modules/CX11/module.modulemap" \
            -Xcc -fmodule-map-file="$modules/CSystemShim/module.modulemap" \
            -wmo -emit-module -emit-module-path "$modules/$name.swiftmodule" -c "${sources[@]}" -o "$modules/$name.o"
    fi
}

c_module CX11
c_module CSystemShim
swift_module PasteboardModel
swift_module SQLiteSupport
swift_module PasteboardHistory PasteboardModel SQLiteSupport
swift_module ArgumentParsing
swift_module ClipboardBackend PasteboardModel
swift_module X11Backend ClipboardBackend PasteboardModel
swift_module PasteboardConfiguration PasteboardModel PasteboardHistory ArgumentParsing
swift_module PasteboardControl
swift_module PasteboardSystem ClipboardBackend PasteboardControl PasteboardHistory PasteboardModel X11Backend
swift_module PasteboardDaemon ClipboardBackend PasteboardConfiguration PasteboardControl PasteboardHistory PasteboardModel \
    PasteboardSystem
swift_module PasteboardCLI ArgumentParsing ClipboardBackend PasteboardConfiguration PasteboardControl PasteboardHistory \
    PasteboardModel PasteboardSystem

objects=("$modules"/*.o)
if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for file in "$root"/Fuzz/*.swift; do [ -e "$file" ] && targets+=("$(basename "$file" .swift)"); done
fi
for target in "${targets[@]}"; do
    source=$root/Fuzz/$target.swift
    [ -f "$source" ] || { log "no such target: $target (expected $source)"; exit 64; }
    binary=$build/bin/$target
    if stale "$binary" "$source" "${objects[@]}"; then
        log "linking $target"
        # A module name that is not the executable's: a fuzz target named like a module must not shadow it.
        "$swiftc" "${swift_flags[@]}" -module-name "Fuzz_${target//-/_}" \
            -Xcc -fmodule-map-file="$modules/CX11/module.modulemap" \
            -Xcc -fmodule-map-file="$modules/CSystemShim/module.modulemap" \
            "$source" "${objects[@]}" -lsqlite3 -lX11 -lXfixes -o "$binary" 2> >(grep -v "Cannot export local symbol" >&2)
    fi
done
