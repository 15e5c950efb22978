#!/usr/bin/env python3
"""Writes docs/fidelity.md from the results of the differential fidelity suite (Tests/Apps/fidelity.py).

    python3 scripts/fidelity_table.py RESULTS.json [--output docs/fidelity.md]
    python3 scripts/fidelity_table.py RESULTS.json --check     # exit 1 when docs/fidelity.md says otherwise

Only facts that do not change from run to run go into the table: type names, whether each type was kept with its
name and bytes, counts of copies and history items, the source application. Timings and sizes stay in the results
JSON (sizes depend on the temporary paths some types carry).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(ROOT, "docs", "fidelity.md")

DESKTOP_TITLES = {
    "x11": "X11 (Xvfb, openbox)",
    "sway": "Wayland: sway (headless)",
    "kwin": "Wayland: KWin (headless)",
}
APP_TITLES = {
    "gtk4": "GTK 4 window (Tests/Apps/fixtures/copier-gtk4.py)",
    "qt5": "Qt 5 window (Tests/Apps/fixtures/copier-qt5.py)",
    "firefox": "Firefox ESR",
    "chromium": "Chromium",
    "epiphany": "GNOME Web (Epiphany, WebKitGTK)",
    "libreoffice-writer": "LibreOffice Writer",
    "libreoffice-calc": "LibreOffice Calc",
    "pcmanfm": "PCManFM",
}
DESKTOP_ORDER = list(DESKTOP_TITLES)
APP_ORDER = list(APP_TITLES)

LEGEND = """\
Each scenario runs twice on the same desktop: once with no clipboard manager, once with `pb daemon`. After every
copy a reader (`xclip -t TARGETS` / `wl-paste -l`, then each type) takes what is offered, and the two runs are
compared type by type. Then the application quits, and with pb the clipboard must still serve every type it
offered; every copy's history item is put back with `pb restore` and read again.

In the type tables:

- **kept**: offered under the same name with the same bytes;
- **derived**: an X11-only text target (`STRING`, `TEXT`, `COMPOUND_TEXT`) served from the UTF-8 text;
- **name kept**: a type whose bytes the application changes on every copy (listed with the reason in
  `VOLATILE_TYPES` of Tests/Apps/harness.py), or that the suite does not read (`UNREAD_TYPES`): only its name is
  compared;
- **bytes differ**, **missing**: what pb got wrong;
- **unreadable**: the application lists the type but does not serve it, so there is nothing to keep;
- **left out: …**: not served after the exit by design, for the reason given (`NOT_KEPT_BY_DESIGN` of
  Tests/Apps/harness.py: types pb never reads, an X pixmap id; other encodings of a picture kept as PNG; types
  offered empty);
- **—**: not applicable (only the last copy is there when the application exits).
"""


def normalize(text: str) -> str:
    """Type names and notes without the run's temporary paths."""
    return re.sub(r"file://[^\"';\s]*/", "file:///…/", text)


def verdict(result: dict | None) -> str:
    if result is None:
        return "—"
    note = result.get("note") or ""
    if note.startswith("unreadable"):
        return "unreadable"
    if note.startswith("by design: "):
        return "left out: " + note[len("by design: "):].split(":")[0].split(",")[0].split(";")[0]
    if not result["name_kept"]:
        return "missing"
    if result["bytes_equal"] is True:
        return "derived" if note.startswith("derived") else "kept"
    if result["bytes_equal"] is False:
        return "bytes differ"
    if note.startswith("not read") or note.startswith("volatile"):
        return "name kept"
    return "name kept"


def by_name(results: list[dict]) -> dict[str, dict]:
    return {entry["name"]: entry for entry in results}


def yes_no(value: bool | None) -> str:
    return "—" if value is None else ("yes" if value else "**no**")


def scenario_section(scenario: dict) -> list[str]:
    app, desktop = scenario["app"], scenario["desktop"]
    lines = [f"### {APP_TITLES.get(app, app)} on {DESKTOP_TITLES.get(desktop, desktop)}", ""]
    if scenario.get("known_defect"):
        # What such a run shows varies from run to run; the defect is what stays.
        lines += [f"**Known defect, not fixed yet** (`KNOWN_DEFECTS` in Tests/Apps/fidelity.py): "
                  f"{scenario['known_defect']}.", ""]
        return lines
    if scenario.get("error"):
        lines += [f"The scenario did not run: {normalize(scenario['error'])}", ""]
        return lines
    copies = scenario["copy_results"]
    history = scenario["history"]
    landed = sum(1 for c in copies if c["with"]["landed"] and not c["lost"])
    restores = scenario.get("restore", [])
    restored_ok = sum(1 for r in restores if r["ok"])
    duplicates = history["duplicates"]
    sources = ", ".join(f"`{s}`" for s in history["sources"] if s) or "none"
    quit_with = scenario["quit"]["with"]
    summary = [
        ("copies", f"{len(copies)}: " + "; ".join(f"{c['index']}. {c['description']}" for c in copies)),
        ("copies landing with pb as without", f"{landed} of {len(copies)}"),
        ("quits as without pb", yes_no(scenario["quit"]["without"] == quit_with)),
        ("clipboard served after the exit", yes_no(scenario["empty_after_exit_seconds"] is not None)),
        ("every type kept after the exit", yes_no(scenario["survives_exit"])),
        ("history", f"{history['items']} item(s) for {history['expected']} distinct cop"
                    f"{'y' if history['expected'] == 1 else 'ies'}; duplicates: {duplicates or 'none'}"),
        ("restore byte-exact", f"{restored_ok} of {len(restores)} item(s)"),
        ("paste back into the application", {True: "yes", False: "**no**", None: "not tested"}[
            scenario.get("paste_back")]),
        ("source application", sources),
    ]
    if "secret_items" in history:
        stored = history["secret_items"] or history["secret_files"]
        summary.append(("page-marked secret", "**stored**" if stored else "not stored, nowhere on disk"))
    lines += ["| | |", "|---|---|"] + [f"| {key} | {value} |" for key, value in summary] + [""]
    lines += ["| copy | type | with pb, while it runs | after the exit | restored |", "|---|---|---|---|---|"]
    restore_by_copy = {}
    for entry in restores:
        for index in entry["copies"]:
            restore_by_copy[index] = by_name(entry["types"])
    after_exit = by_name(scenario.get("after_exit", []))
    last = copies[-1]["index"]
    for copy in copies:
        running = by_name(copy["types"])
        restored = restore_by_copy.get(copy["index"], {})
        label = f"{copy['index']}" + (" (secret)" if copy["secret"] else "")
        for name in copy["offered"]:
            exit_cell = verdict(after_exit.get(name)) if copy["index"] == last else "—"
            restore_cell = "—" if copy["secret"] else verdict(restored.get(name))
            lines.append(f"| {label} | `{normalize(name)}` | {verdict(running.get(name))} | {exit_cell} | "
                         f"{restore_cell} |")
            label = ""
        extras = [n for n, r in running.items() if r.get("note") == "extra"]
        for name in extras:
            lines.append(f"| | `{normalize(name)}` (with pb only) | extra | — | — |")
    lines.append("")
    return lines


def render(results: dict) -> str:
    scenarios = sorted(results["scenarios"], key=lambda s: (
        DESKTOP_ORDER.index(s["desktop"]) if s["desktop"] in DESKTOP_ORDER else 99,
        APP_ORDER.index(s["app"]) if s["app"] in APP_ORDER else 99, s["app"]))
    lines = [
        "# Fidelity with real applications",
        "",
        "<!-- Generated by scripts/fidelity_table.py from the results of Tests/Apps/fidelity.py (make test-apps);",
        "     do not edit by hand. -->",
        "",
        "Pasteboard's rule is to never make the clipboard worse than no clipboard manager at all. This table is what",
        "the differential fidelity suite (`make test-apps`, Tests/Apps/) saw, per application and desktop.",
        "",
        LEGEND,
        "## Overview",
        "",
        "| desktop | application | copies landing | every type kept after exit | history duplicates | restore "
        "byte-exact | result |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in scenarios:
        if s.get("known_defect"):
            lines.append(f"| {s['desktop']} | {s['app']} | — | — | — | — | **known defect** |")
            continue
        if s.get("error"):
            lines.append(f"| {s['desktop']} | {s['app']} | — | — | — | — | did not run |")
            continue
        copies = s["copy_results"]
        landed = sum(1 for c in copies if c["with"]["landed"] and not c["lost"])
        restores = s.get("restore", [])
        lines.append(f"| {s['desktop']} | {s['app']} | {landed} of {len(copies)} | {yes_no(s['survives_exit'])} | "
                     f"{s['history']['duplicates'] or 'none'} | {sum(1 for r in restores if r['ok'])} of "
                     f"{len(restores)} | {'pass' if s['passed'] else '**fail**'} |")
    lines.append("")
    for desktop in sorted({s["desktop"] for s in scenarios}, key=lambda d: DESKTOP_ORDER.index(d)
                          if d in DESKTOP_ORDER else 99):
        lines += [f"## {DESKTOP_TITLES.get(desktop, desktop)}", ""]
        for s in scenarios:
            if s["desktop"] == desktop:
                lines += scenario_section(s)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description="Write docs/fidelity.md from the fidelity suite's results.")
    parser.add_argument("results", help="the results JSON of Tests/Apps/fidelity.py --results")
    parser.add_argument("--output", default=DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when the file differs")
    args = parser.parse_args()
    try:
        with open(args.results, encoding="utf-8") as file:
            results = json.load(file)
    except (OSError, json.JSONDecodeError) as error:
        print(f"Error: cannot read the results {args.results}: {error}", file=sys.stderr)
        return 1
    text = render(results)
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as file:
                current = file.read()
        except OSError as error:
            print(f"Error: cannot read {args.output}: {error}", file=sys.stderr)
            return 1
        if current != text:
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(), args.output, "from the results",
                                        lineterm="")
            print("\n".join(diff))
            print(f"{os.path.relpath(args.output, ROOT)} differs from what the results say: regenerate it with "
                  f"python3 scripts/fidelity_table.py {args.results}", file=sys.stderr)
            return 1
        return 0
    with open(args.output, "w", encoding="utf-8") as file:
        file.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
