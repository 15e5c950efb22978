#!/usr/bin/env python3
"""Makes the GNOME Shell extension's two variants from its one source, and embeds them in pb.

The source, contrib/gnome-shell/pasteboard@pasteboard.org, is written for GNOME 43 and 44 (legacy `imports`). GNOME
45 and later load ES modules: that variant differs only in its first lines (imports), its last lines (an exported
`Extension` class instead of `init()`) and the versions in metadata.json. Both are written into
Sources/GnomeExtension/ExtensionSource.swift, from which `pb gnome-extension install` writes the one the installed
GNOME Shell loads.

Usage: python3 scripts/gnome_extension.py [--check]
  --check: fail (exit 1) when the embedded file is not what the source makes (make test runs this).
"""
import json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "contrib", "gnome-shell", "pasteboard@pasteboard.org")
OUTPUT = os.path.join(ROOT, "Sources", "GnomeExtension", "ExtensionSource.swift")
LEGACY_IMPORTS = "const { Clutter, Gio, GLib, Meta, Shell } = imports.gi;\n"
LEGACY_INIT = "function init() {\n    return new Pasteboard();\n}\n"
MODULE_IMPORTS = """import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
"""
MODULE_CLASS = """export default class PasteboardExtension extends Extension {
    enable() {
        this._pasteboard = new Pasteboard();
        this._pasteboard.enable();
    }

    disable() {
        this._pasteboard.disable();
        this._pasteboard = null;
    }
}
"""
MODULE_VERSIONS = ["45", "46", "47", "48", "49"]


def variants():
    with open(os.path.join(SOURCE, "extension.js"), encoding="utf-8") as file:
        legacy = file.read()
    with open(os.path.join(SOURCE, "metadata.json"), encoding="utf-8") as file:
        metadata = file.read()
    for part in (LEGACY_IMPORTS, LEGACY_INIT):
        if legacy.count(part) != 1:
            raise SystemExit(f"gnome_extension: extension.js must hold exactly once: {part!r}")
    module = legacy.replace(LEGACY_IMPORTS, MODULE_IMPORTS).replace(LEGACY_INIT, MODULE_CLASS)
    module = module.replace("Pasteboard for GNOME Shell 43 and 44 (legacy imports).",
                            "Pasteboard for GNOME Shell 45 and later (ES modules), made by scripts/gnome_extension.py "
                            "from\n * the GNOME 43-44 source.")
    data = json.loads(metadata)
    data["shell-version"] = MODULE_VERSIONS
    module_metadata = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return legacy, metadata, module, module_metadata, data["uuid"], data["version"]


def swift_literal(text):
    if '"""#' in text:
        raise SystemExit("gnome_extension: a source file holds '\"\"\"#', which the Swift raw literal cannot")
    # A multi-line literal drops the line break just before its closing delimiter: one more keeps the file's last.
    return '#"""\n' + text + '\n"""#'


def render():
    legacy, metadata, module, module_metadata, uuid, version = variants()
    return f"""// Made by scripts/gnome_extension.py from contrib/gnome-shell/{uuid}: do not edit.

/// The Pasteboard GNOME Shell extension's files, for GNOME 43-44 (legacy imports) and 45+ (ES modules).
public enum ExtensionSource {{
    public static let uuid = "{uuid}"
    /// The extension's version (metadata.json).
    public static let version = {version}
    /// The first GNOME Shell version that loads only ES modules.
    public static let firstModuleShell = 45

    /// extension.js and metadata.json for GNOME Shell `major`.
    public static func files(forShell major: Int) -> [(name: String, contents: String)] {{
        major >= firstModuleShell
            ? [("extension.js", moduleScript), ("metadata.json", moduleMetadata)]
            : [("extension.js", legacyScript), ("metadata.json", legacyMetadata)]
    }}

    static let legacyScript = {swift_literal(legacy)}

    static let legacyMetadata = {swift_literal(metadata)}

    static let moduleScript = {swift_literal(module)}

    static let moduleMetadata = {swift_literal(module_metadata)}
}}
"""


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        try:
            with open(OUTPUT, encoding="utf-8") as file:
                current = file.read()
        except FileNotFoundError:
            current = None
        if current != text:
            print("gnome_extension: Sources/GnomeExtension/ExtensionSource.swift is out of date with "
                  "contrib/gnome-shell: run python3 scripts/gnome_extension.py", file=sys.stderr)
            return 1
        return 0
    with open(OUTPUT, "w", encoding="utf-8") as file:
        file.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
