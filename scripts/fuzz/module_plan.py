#!/usr/bin/env python3
"""Prints, in build order, the package's modules that the given Swift files import, for scripts/fuzz/build.sh.

The target graph comes from the package itself: `swift package describe --type json` (targets, their types, paths,
sources and dependencies) and `swift package dump-package` (their settings: Swift language mode and features,
linked libraries, pkg-config names). Starting from the package targets the files import, it follows the target
dependencies, skips test and executable targets, and sorts the rest so that every module comes after the modules it
depends on (ties by name, so the order is stable).

Usage: scripts/fuzz/module_plan.py PACKAGE_ROOT SWIFT_FILE...

Output, one line per module, fields separated by tabs, lists by spaces, "-" for an empty field (paths relative to
PACKAGE_ROOT):
    swift   NAME  DIRECTORY  SOURCES  DEPENDENCIES  SWIFTC_FLAGS
    c       NAME  DIRECTORY  SOURCES  INCLUDE_DIRECTORY  CLANG_FLAGS
    system  NAME  DIRECTORY  MODULE_MAP  -  SWIFTC_FLAGS (from pkg-config --cflags, as -Xcc …)
and a last line
    link    -  -  -  -  LINKER_FLAGS (linked libraries, pkg-config --libs)
Exits 1 with a message when the package cannot be described or a file imports a module it cannot build.
"""
import json, os, re, shlex, subprocess, sys

IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def fail(message):
    print(f"module_plan: {message}", file=sys.stderr)
    sys.exit(1)


def package_json(root, *arguments):
    result = subprocess.run(["swift", "package", "--package-path", root, *arguments], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"swift package {' '.join(arguments)} failed:\n{result.stderr.strip()}")
    # Warnings may precede the JSON.
    return json.loads(result.stdout[result.stdout.index("{"):])


def applies(setting):
    """Whether a setting holds for a Linux build in the debug configuration (the fuzz builds are not release)."""
    condition = setting.get("condition") or {}
    platforms = condition.get("platformNames") or []
    if platforms and "linux" not in platforms:
        return False
    return condition.get("config") in (None, "debug")


def value(setting, kind):
    """The argument of a setting such as {"kind": {"enableUpcomingFeature": {"_0": "ExistentialAny"}}}."""
    return setting["kind"][kind].get("_0")


def swift_flags(settings, name):
    flags = []
    for setting in settings:
        if setting["tool"] != "swift" or not applies(setting):
            continue
        kind = next(iter(setting["kind"]))
        if kind == "swiftLanguageMode" or kind == "swiftLanguageVersion":
            flags += ["-swift-version", str(value(setting, kind))]
        elif kind == "enableUpcomingFeature":
            flags += ["-enable-upcoming-feature", value(setting, kind)]
        elif kind == "enableExperimentalFeature":
            flags += ["-enable-experimental-feature", value(setting, kind)]
        elif kind == "define":
            flags += ["-D", value(setting, kind)]
        elif kind == "unsafeFlags":
            flags += value(setting, kind)
        else:
            fail(f"{name}: Swift setting '{kind}' is not supported by the fuzz build; teach scripts/fuzz/module_plan.py")
    return flags


def c_flags(settings, name, directory):
    flags = []
    for setting in settings:
        if setting["tool"] not in ("c", "cxx") or not applies(setting):
            continue
        kind = next(iter(setting["kind"]))
        if kind == "define":
            flags.append("-D" + value(setting, kind))
        elif kind == "headerSearchPath":
            flags += ["-I", os.path.join(directory, value(setting, kind))]
        elif kind == "unsafeFlags":
            flags += value(setting, kind)
        else:
            fail(f"{name}: C setting '{kind}' is not supported by the fuzz build; teach scripts/fuzz/module_plan.py")
    return flags


def linker_flags(settings):
    flags = []
    for setting in settings:
        if setting["tool"] != "linker" or not applies(setting):
            continue
        kind = next(iter(setting["kind"]))
        if kind == "linkedLibrary":
            flags.append("-l" + value(setting, kind))
        elif kind == "unsafeFlags":
            flags += value(setting, kind)
    return flags


def pkg_config(package, option):
    result = subprocess.run(["pkg-config", option, package], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"pkg-config {option} {package} failed: {result.stderr.strip()}")
    return shlex.split(result.stdout)


def main():
    if len(sys.argv) < 3:
        fail("usage: module_plan.py PACKAGE_ROOT SWIFT_FILE...")
    root = sys.argv[1]
    described = {target["name"]: target for target in package_json(root, "describe", "--type", "json")["targets"]}
    manifest = {target["name"]: target for target in package_json(root, "dump-package")["targets"]}

    wanted = set()
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as file:
            wanted.update(name for name in IMPORT.findall(file.read()) if name in described)
    buildable = {name for name, target in described.items() if target["type"] in ("library", "system-target")}
    for name in sorted(wanted - buildable):
        fail(f"the fuzz targets import {name}, a {described[name]['type']} target: only library targets can be fuzzed")

    # Every module the imported ones need, through target dependencies.
    needed = set()
    pending = sorted(wanted)
    while pending:
        name = pending.pop()
        if name in needed:
            continue
        if name not in buildable:
            fail(f"{name} is needed but is a {described.get(name, {}).get('type', 'unknown')} target")
        if described[name].get("product_dependencies"):
            fail(f"{name} depends on another package's products; the fuzz build only knows this package")
        needed.add(name)
        pending += described[name].get("target_dependencies", [])

    # Dependencies first; among the modules that are ready, by name.
    order = []
    placed = set()
    while len(order) < len(needed):
        ready = sorted(name for name in needed - placed
                       if set(described[name].get("target_dependencies", [])) <= placed)
        if not ready:
            fail(f"the target graph has a cycle among {sorted(needed - placed)}")
        order += ready
        placed.update(ready)

    link = []
    for name in order:
        target, settings = described[name], manifest[name].get("settings", [])
        directory = target["path"]
        sources = [os.path.join(directory, source) for source in target.get("sources", [])]
        for path in sources + [directory]:
            if re.search(r"\s", path):
                fail(f"{path}: paths with white space are not supported")
        dependencies = target.get("target_dependencies", [])
        link += linker_flags(settings)
        if target["module_type"] == "SwiftTarget":
            fields = ["swift", name, directory, " ".join(sorted(sources)), " ".join(dependencies),
                      " ".join(swift_flags(settings, name))]
        elif target["module_type"] == "ClangTarget":
            include = os.path.join(directory, manifest[name].get("publicHeadersPath") or "include")
            fields = ["c", name, directory, " ".join(sorted(sources)), include,
                      " ".join(c_flags(settings, name, directory))]
        elif target["module_type"] == "SystemLibraryTarget":
            flags = []
            if manifest[name].get("pkgConfig"):
                flags = [part for flag in pkg_config(manifest[name]["pkgConfig"], "--cflags") for part in ("-Xcc", flag)]
                link += pkg_config(manifest[name]["pkgConfig"], "--libs")
            fields = ["system", name, directory, os.path.join(directory, "module.modulemap"), "-", " ".join(flags)]
        else:
            fail(f"{name}: module type {target['module_type']} is not supported by the fuzz build")
        print("\t".join(field or "-" for field in fields))
    unique = []
    for flag in link:
        if flag not in unique:
            unique.append(flag)
    print("\t".join(["link", "-", "-", "-", "-", " ".join(unique) or "-"]))


if __name__ == "__main__":
    main()
