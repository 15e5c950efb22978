#!/usr/bin/env python3
"""Checks that a built pb links FoundationEssentials only: no swift-corelibs-foundation, CoreFoundation or ICU.

pb starts in about 1.4x the time of `xclip -version` with FoundationEssentials alone and about 1.8x with the whole of
Foundation (bench/startup_bench.py), and the old half of Foundation adds megabytes to every process. One
`import Foundation` anywhere in pb's target graph brings it all back, without a warning, so `make build` and
`make test` run this check:

  - a dynamically linked pb (`swift build`) must not need libFoundation.so, libFoundationInternationalization.so,
    lib_FoundationICU.so or libCoreFoundation;
  - a statically linked pb (`make build`) must not hold their symbols (Foundation's Swift symbols, `CFRunLoopRun`,
    ICU's `ucol_*` and `icu_NN` namespace).

On failure it names what pulled them in: the source files of pb's targets (from `swift package describe`) that import
a module of the old half, and the object files whose autolink entries ask for its libraries.

Usage: python3 scripts/check_essentials.py [PB_BINARY]    (default .build/debug/pb)
Exit status 0 when clean, 1 when something links the old half, 2 when the check itself cannot run.
"""
import json, os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = "pb"
OLD_LIBRARIES = re.compile(r"^lib(Foundation|FoundationInternationalization|_FoundationICU|CoreFoundation)\.so")
OLD_SYMBOLS = re.compile(
    r"\$s10Foundation|FoundationInternationalization|\bCFRunLoopRun$|\bucol_|icu_[0-9]+")
OLD_IMPORT = re.compile(
    r"^\s*(?:@_exported\s+)?(?:public\s+|package\s+|internal\s+)?import\s+"
    r"(Foundation|FoundationInternationalization|CoreFoundation|FoundationNetworking|FoundationXML)\s*$",
    re.M)
OLD_AUTOLINK = re.compile(r"-l(Foundation|FoundationInternationalization|_FoundationICU|CoreFoundation|"
                          r"FoundationNetworking|FoundationXML)$")


def fail_to_run(message):
    print(f"check_essentials: {message}", file=sys.stderr)
    sys.exit(2)


def run(arguments):
    try:
        return subprocess.run(arguments, capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        fail_to_run(f"'{arguments[0]}' is not installed (Debian package binutils).")
    except subprocess.CalledProcessError as error:
        fail_to_run(f"{' '.join(arguments)} failed: {error.stderr.strip()}")


def needed_libraries(binary):
    output = run(["readelf", "-d", binary])
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", output)


def old_symbols(binary):
    output = run(["nm", binary])
    found = []
    for line in output.splitlines():
        name = line.split()[-1] if line.split() else ""
        if OLD_SYMBOLS.search(name):
            found.append(name)
    return found


def pb_targets():
    """pb's Swift targets with their source directories, from SwiftPM's own description of the package."""
    swift = shutil.which("swift")
    if swift is None:
        return []
    output = subprocess.run([swift, "package", "--package-path", ROOT, "describe", "--type", "json"],
                            capture_output=True, text=True)
    if output.returncode != 0:
        return []
    description = json.loads(output.stdout)
    return [(target["name"], os.path.join(ROOT, target["path"]))
            for target in description["targets"]
            if PRODUCT in target.get("product_memberships", []) and target.get("module_type") == "SwiftTarget"]


def culprits(binary):
    """Lines naming the source files and objects of pb's targets that ask for the old half of Foundation."""
    lines = []
    build_directory = os.path.dirname(os.path.abspath(binary))
    for name, directory in pb_targets():
        for folder, _, files in os.walk(directory):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(folder, file)
                with open(path, encoding="utf-8", errors="replace") as source:
                    for match in OLD_IMPORT.finditer(source.read()):
                        lines.append(f"  {os.path.relpath(path, ROOT)} (target {name}) imports {match.group(1)}")
        objects = os.path.join(build_directory, f"{name}.build")
        if not os.path.isdir(objects):
            continue
        asking, asked = [], set()
        for file in sorted(os.listdir(objects)):
            if not file.endswith(".o"):
                continue
            entries = subprocess.run(["readelf", "-p", ".swift1_autolink_entries", os.path.join(objects, file)],
                                     capture_output=True, text=True).stdout
            libraries = {m.group(1) for m in (OLD_AUTOLINK.search(l.split()[-1]) for l in entries.splitlines()
                                              if l.strip().startswith("[")) if m}
            if libraries:
                asking.append(file[:-len(".o")])
                asked |= libraries
        if asking:
            shown = ", ".join(asking[:3]) + (f" and {len(asking) - 3} more" if len(asking) > 3 else "")
            lines.append(f"  target {name}: {shown} ask the linker for "
                         + ", ".join("lib" + library for library in sorted(asked)))
    return lines


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", PRODUCT)
    if not os.path.isfile(binary):
        fail_to_run(f"{binary} does not exist: build pb first ('swift build' or 'make build').")
    problems = []
    libraries = [library for library in needed_libraries(binary) if OLD_LIBRARIES.match(library)]
    if libraries:
        problems.append(f"{binary} needs {', '.join(libraries)}")
    symbols = old_symbols(binary)
    if symbols:
        problems.append(f"{binary} holds {len(symbols)} symbols of the old half of Foundation, e.g. "
                        + ", ".join(symbols[:3]))
    if not problems:
        print(f"check_essentials: {os.path.relpath(binary, ROOT)} links FoundationEssentials only "
              "(no swift-corelibs-foundation, CoreFoundation or ICU).")
        return 0
    print("check_essentials: pb must link FoundationEssentials only (see docs/architecture.md), but", file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    found = culprits(binary)
    if found:
        print("What pulls it in (import FoundationEssentials instead, and see SystemSupport and TextSupport for what "
              "it lacks):", file=sys.stderr)
        for line in found:
            print(line, file=sys.stderr)
    else:
        print("No source file of pb's targets imports it now: look for a new dependency of pb, or for objects left "
              "from an earlier build (swift package clean).", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
