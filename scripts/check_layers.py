#!/usr/bin/env python3
"""Checks the target graph in Package.swift for the edges that must not come back.

SwiftPM builds a target that imports a module it does not declare, as long as something else in the build made that
module first: the graph then lies about what depends on what, and a clean build of that one target fails. And a new
dependency deep down can make every program that uses `PasteboardKit` link sync or the daemon without a word. So
this reads the package (`swift package dump-package`) and every Swift file of its targets, and fails when:

  - a file imports a module of the package that its target does not list as a dependency (test targets included);
  - a target depends, directly or not, on a target it must stay apart from (FORBIDDEN below).

Usage: python3 scripts/check_layers.py
Exit status 0 when clean, 1 when an edge is wrong, 2 when the check itself cannot run.
"""
import json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# target: what must not be in the closure of its dependencies, and why.
FORBIDDEN = {
    "PasteboardKit": (
        {"PasteboardSync", "PasteboardPicker", "PasteboardDaemon", "PasteboardCLI", "ArgumentParsing", "DisplayPaste",
         "X11Paste", "WaylandPaste", "GtkSupport", "PasteboardApp"},
        "a program using the library links the clipboard, the store and the rules, nothing of pb's other parts"),
    "PasteboardDaemon": ({"PasteboardSystem", "PasteboardCLI"}, "the daemon does not import the client layer"),
    "PasteboardHistory": ({"PasteboardConfiguration"}, "the store knows no configuration"),
    "PasteboardConfiguration": ({"PasteboardHistory", "ArgumentParsing"}, "the configuration is below the store"),
}

# The display backends are imported by the backends themselves, the daemon and the client clipboard layer only:
# every other client reaches the clipboard through the control protocol and PasteboardSystem.
BACKENDS = {"X11Backend", "WaylandBackend"}
BACKEND_IMPORTERS = BACKENDS | {"PasteboardDaemon", "PasteboardSystem"}

IMPORT = re.compile(
    r"^\s*(?:@_exported\s+|@testable\s+)?(?:public\s+|package\s+|internal\s+)?import\s+(\w+)\s*$", re.M)


def main():
    result = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"check_layers: swift package dump-package failed: {result.stderr.strip()}", file=sys.stderr)
        return 2
    package = json.loads(result.stdout)
    dependencies, paths = {}, {}
    for target in package["targets"]:
        names = []
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    names.append(dependency[kind][0])
        dependencies[target["name"]] = names
        folder = "Tests" if target["type"] == "test" else "Sources"
        paths[target["name"]] = os.path.join(ROOT, target.get("path") or os.path.join(folder, target["name"]))

    problems = []
    for name, path in sorted(paths.items()):
        for directory, _, files in os.walk(path):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                source = os.path.join(directory, file)
                with open(source, encoding="utf-8") as handle:
                    imported = IMPORT.findall(handle.read())
                for module in imported:
                    if module in BACKENDS and name not in BACKEND_IMPORTERS and not name.endswith("Tests"):
                        problems.append(f"{os.path.relpath(source, ROOT)} imports the display backend {module}: only "
                                        "the daemon and the client clipboard layer (PasteboardSystem) may")
                    if module in dependencies and module != name and module not in dependencies[name]:
                        problems.append(f"{os.path.relpath(source, ROOT)} imports {module}, "
                                        f"which target {name} does not list as a dependency")

    def closure(name, seen):
        for dependency in dependencies.get(name, []):
            if dependency not in seen:
                seen.add(dependency)
                closure(dependency, seen)
        return seen

    for name, (forbidden, why) in FORBIDDEN.items():
        if name not in dependencies:
            problems.append(f"target {name} is gone: update FORBIDDEN in scripts/check_layers.py")
            continue
        for wrong in sorted(closure(name, set()) & forbidden):
            problems.append(f"{name} depends on {wrong}, directly or not: {why}")

    for problem in problems:
        print(f"check_layers: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
