#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (one file per target, Fuzz/NAME.swift) into $PB_FUZZ_BUILD
# (default .build/fuzz): the package's library modules are compiled straight from Sources/ with swiftc, with
# coverage instrumentation (-sanitize=fuzzer) and AddressSanitizer, and linked into one executable per target.
#
# SwiftPM is not used: `swift build --sanitize` would instrument the executables too and clash with libFuzzer's
# main. Modules are rebuilt only when one of their sources (or a module they import) changed.
#
# Which modules, in which order, with which flags and libraries, comes from the package itself: module_plan.py reads
# `swift package describe` and `swift package dump-package`, takes the package targets the fuzz targets import and
# everything they depend on (library targets only; C and system-library targets as such), and sorts them so that each
# module is built after the modules it imports. A target added or renamed in Package.swift needs no change here.
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
# -O keeps Swift's runtime checks (overflow, bounds, preconditions): they are what turns a bug into a crash. The
# language mode and features come from each target's settings (module_plan.py).
swift_flags=(-O -g -sanitize=fuzzer,address -parse-as-library -enable-testing -package-name pasteboard -I "$modules")
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

if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for file in "$root"/Fuzz/*.swift; do [ -e "$file" ] && targets+=("$(basename "$file" .swift)"); done
fi
fuzz_sources=()
for target in "${targets[@]}"; do
    source=$root/Fuzz/$target.swift
    [ -f "$source" ] || { log "no such target: $target (expected $source)"; exit 64; }
    fuzz_sources+=("$source")
done

plan=$(python3 "$root/scripts/fuzz/module_plan.py" "$root" "${fuzz_sources[@]}") || exit 1

# Module maps of every C and system-library module in the plan, for every Swift compile (a module map only
# declares a module; it costs nothing where the module is not imported).
module_maps=()
link_flags=()
objects=()

# A C target: its sources, compiled into one object, and its public headers as a module (its own module.modulemap
# if it has one, else the umbrella header NAME.h, else the whole include directory, as SwiftPM does).
c_module() {
    local name=$1 include=$2
    shift 2
    local flags=() sources=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do sources+=("$root/$1"); shift; done
    [ $# -gt 0 ] && shift
    flags=("$@")
    local object=$modules/$name.o
    local map=$root/$include/module.modulemap
    if [ ! -f "$map" ]; then
        map=$modules/$name/module.modulemap
        mkdir -p "$modules/$name"
        if [ -f "$root/$include/$name.h" ]; then
            printf 'module %s {\n    umbrella header "%s/%s/%s.h"\n    export *\n}\n' "$name" "$root" "$include" "$name" >"$map"
        else
            printf 'module %s {\n    umbrella "%s/%s"\n    export *\n}\n' "$name" "$root" "$include" >"$map"
        fi
    fi
    module_maps+=(-Xcc -fmodule-map-file="$map")
    if stale "$object" "${sources[@]}" "$root/$include"/*.h; then
        log "compiling $name"
        if [ ${#sources[@]} -eq 1 ]; then
            "$clang" "${c_flags[@]}" "${flags[@]}" -I "$root/$include" -c "${sources[0]}" -o "$object"
        else
            # Several sources: one object per source, joined into one relocatable object.
            local compiled=() index=0 source
            for source in "${sources[@]}"; do
                "$clang" "${c_flags[@]}" "${flags[@]}" -I "$root/$include" -c "$source" -o "$modules/$name.$index.o"
                compiled+=("$modules/$name.$index.o")
                index=$((index + 1))
            done
            ld -r "${compiled[@]}" -o "$object"
            rm -f "${compiled[@]}"
        fi
    fi
    objects+=("$object")
}

# A system-library target: only its module map (the library itself is linked through pkg-config's flags).
system_module() {
    local map=$root/$2
    shift 2
    module_maps+=(-Xcc -fmodule-map-file="$map" "$@")
}

# A Swift library target: its sources as one module; depends on the modules before it in the plan.
swift_module() {
    local name=$1
    shift
    local sources=() dependencies=() flags=()
    while [ "$1" != "--" ]; do sources+=("$root/$1"); shift; done
    shift
    while [ "$1" != "--" ]; do
        [ -e "$modules/$1.swiftmodule" ] && dependencies+=("$modules/$1.swiftmodule")
        shift
    done
    shift
    flags=("$@")
    if stale "$modules/$name.o" "${sources[@]}" "${dependencies[@]}"; then
        log "compiling $name (${#sources[@]} files)"
        "$swiftc" "${swift_flags[@]}" "${flags[@]}" -module-name "$name" "${module_maps[@]}" \
            -wmo -emit-module -emit-module-path "$modules/$name.swiftmodule" -c "${sources[@]}" -o "$modules/$name.o"
    fi
    objects+=("$modules/$name.o")
}

# The flags the fuzz targets themselves are compiled with: the Swift settings of the first Swift module (Package.swift
# gives every Swift target the same).
target_flags=()
# Each line: kind, name, directory, sources, dependencies (or include directory), flags; "-" marks an empty field.
while IFS=$'\t' read -r kind name _ sources dependencies flags; do
    source_list=() dependency_list=() flag_list=()
    [ "$sources" != - ] && read -r -a source_list <<<"$sources"
    [ "$dependencies" != - ] && read -r -a dependency_list <<<"$dependencies"
    [ "$flags" != - ] && read -r -a flag_list <<<"$flags"
    case $kind in
    swift)
        swift_module "$name" "${source_list[@]}" -- "${dependency_list[@]}" -- "${flag_list[@]}"
        [ ${#target_flags[@]} -eq 0 ] && target_flags=("${flag_list[@]}")
        ;;
    c) c_module "$name" "$dependencies" "${source_list[@]}" -- "${flag_list[@]}" ;;
    system) system_module "$name" "$sources" "${flag_list[@]}" ;;
    link) link_flags=("${flag_list[@]}") ;;
    *) log "unexpected line in the module plan: $kind"; exit 1 ;;
    esac
done <<<"$plan"

for target in "${targets[@]}"; do
    source=$root/Fuzz/$target.swift
    binary=$build/bin/$target
    if stale "$binary" "$source" "${objects[@]}"; then
        log "linking $target"
        # A module name that is not the executable's: a fuzz target named like a module must not shadow it.
        # Linked by bfd, not the toolchain's default gold: for -sanitize=address the driver passes
        # --dynamic-list=libclang_rt.asan….syms, whose pattern `__asan_*` also matches the hidden helpers of
        # libclang_rt.asan_static (__asan_check_load_add_16_R14, __asan_extra_spill_area, …). A hidden symbol is never
        # exported, so the list means the visible ones; bfd (and lld) read it so, gold warns "Cannot export local
        # symbol" for each of some 800 hidden ones. The exported symbols are the same either way.
        "$swiftc" "${swift_flags[@]}" "${target_flags[@]}" -use-ld=bfd -module-name "Fuzz_${target//-/_}" \
            "${module_maps[@]}" "$source" "${objects[@]}" "${link_flags[@]}" -o "$binary"
    fi
done
