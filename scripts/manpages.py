#!/usr/bin/env python3
"""Writes the man pages pb(1) and pasteboard-gtk(1) from the help text the programs print.

Nothing here restates a command: pb(1) is `pb --help`, then `pb help COMMAND` for every command that overview lists,
then `pbcopy --help` and `pbpaste --help` (run through links beside a copy of pb); pasteboard-gtk(1) is
`pasteboard-gtk --help`. Each help page is cut into its parts (OVERVIEW, USAGE, ARGUMENTS, OPTIONS, free text,
EXAMPLES) and set in roff. A change to a command's help changes its man page with it, and the golden test
(Tests/PasteboardCLITests/GoldenOutputTests.swift, Tests/Fixtures/Golden/man-*.txt) shows both diffs together.

Usage: python3 scripts/manpages.py --pb PB [--app PASTEBOARD_GTK] --out DIRECTORY   (writes pb.1, pasteboard-gtk.1)
       python3 scripts/manpages.py --pb PB --print pb
       python3 scripts/manpages.py --app PASTEBOARD_GTK --print pasteboard-gtk
"""
import argparse, os, re, shutil, subprocess, sys, tempfile


class ManPageError(Exception):
    pass


def run(argv):
    environment = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
    try:
        result = subprocess.run(argv, capture_output=True, text=True, env=environment, timeout=30)
    except OSError as error:
        raise ManPageError(f"cannot run {argv[0]}: {error.strerror}")
    if result.returncode != 0:
        raise ManPageError(f"'{' '.join(argv)}' exited with {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def escape(text):
    """Roff text: backslashes and minus signs escaped, and no line may start a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return text


def line(text):
    text = escape(text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def bold(text):
    return f'.B "{escape(text)}"' if " " in text else f".B {escape(text)}"


# MARK: - pb's help pages

ROW = re.compile(r"^  (\S.*?)(?:\s{2,}(\S.*))?$")


def rows(block):
    """`  left   right` rows with continuation lines indented under `right`: [(left, right)]."""
    result = []
    for text in block:
        if text.startswith("    ") and result:
            left, right = result[-1]
            result[-1] = (left, (right + " " + text.strip()).strip())
            continue
        match = ROW.match(text)
        if not match:
            raise ManPageError(f"a row of a help page has an unexpected form: {text!r}")
        result.append((match.group(1), match.group(2) or ""))
    return result


def paragraphs(lines):
    """Blank-line separated blocks of lines."""
    blocks, current = [], []
    for text in lines:
        if text.strip():
            current.append(text)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def help_page(text, heading):
    """One command's help page (OVERVIEW:, USAGE:, ARGUMENTS:, OPTIONS:, free text) as roff under `.SS heading`."""
    out = [f'.SS "{escape(heading)}"']
    for block in paragraphs(text.split("\n")):
        first = block[0]
        if first.startswith("OVERVIEW: "):
            out += [line(" ".join([first[len("OVERVIEW: "):]] + [b.strip() for b in block[1:]])), ".PP"]
        elif first.startswith("USAGE: "):
            out += [line(" ".join([first[len("USAGE: "):]] + [b.strip() for b in block[1:]])), ".PP"]
        elif first in ("ARGUMENTS:", "OPTIONS:", "SUBCOMMANDS:", "ACTIONS:"):
            for left, right in rows(block[1:]):
                out += [".TP", bold(left), line(right)]
            out.append(".PP")
        elif first in ("EXAMPLES:", "EXAMPLE:"):
            out += [bold("Examples:"), ".RS", ".nf"] + [line(b.strip()) for b in block[1:]] + [".fi", ".RE", ".PP"]
        elif first.endswith(":") and len(block) > 1 and all(b.startswith("  ") for b in block[1:]):
            # A titled list of its own (such as a command's output fields): kept as the program prints it.
            out += [bold(first), ".RS", ".nf"] + [line(b.strip()) for b in block[1:]] + [".fi", ".RE", ".PP"]
        elif all(b.startswith("  ") for b in block):
            out += [".RS", ".nf"] + [line(b.strip()) for b in block] + [".fi", ".RE", ".PP"]
        else:
            out += [line(" ".join(b.strip() for b in block)), ".PP"]
    while out and out[-1] == ".PP":
        out.pop()
    return out


def pb_page(pb):
    overview = run([pb, "--help"])
    first, _, rest = overview.partition("\n")
    match = re.match(r"^pb (\S+): (.*)$", first)
    if not match:
        raise ManPageError(f"'pb --help' no longer starts with 'pb VERSION: description': {first!r}")
    version, summary = match.groups()
    lines = rest.split("\n")
    try:
        start = lines.index("COMMANDS:") + 1
    except ValueError:
        raise ManPageError("'pb --help' lists no COMMANDS:")
    listed = []
    for text in lines[start:]:
        if not text.strip():
            break
        listed.append(rows([text])[0])
    notes = [text for text in lines[start + len(listed):] if text.strip()]
    out = [
        f'.TH PB 1 "" "pb {escape(version)}" "User Commands"',
        ".SH NAME",
        f"pb, pbcopy, pbpaste \\- {line(summary.rstrip('.'))}",
        ".SH SYNOPSIS",
        ".B pb",
        ".I command",
        "[\\fIoptions\\fR]",
        ".br",
        ".B pbcopy",
        "[\\fIoptions\\fR] [\\fIFILE\\fR]",
        ".br",
        ".B pbpaste",
        "[\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        line("pb is " + summary),
        ".PP",
    ] + [line(text) for text in notes] + [".SH COMMANDS"]
    for name, abstract in listed:
        out += [".TP", bold(f"pb {name}"), line(abstract)]
    out += [".SH \"COMMANDS IN DETAIL\""]
    for name, _ in listed:
        out += help_page(run([pb, "help", name]), f"pb {name}")
    # pbcopy and pbpaste: pb through links of those names.
    with tempfile.TemporaryDirectory() as directory:
        for link in ("pbcopy", "pbpaste"):
            os.symlink(os.path.abspath(pb), os.path.join(directory, link))
        out.append('.SH "PBCOPY AND PBPASTE"')
        for link in ("pbcopy", "pbpaste"):
            out += help_page(run([os.path.join(directory, link), "--help"]), link)
    out += [".SH \"SEE ALSO\"", ".BR pasteboard\\-gtk (1)"]
    return "\n".join(out) + "\n"


# MARK: - pasteboard-gtk's usage

def app_page(app):
    version_text = run([app, "--version"]).strip()
    match = re.match(r"^pasteboard-gtk (\S+)$", version_text)
    if not match:
        raise ManPageError(f"'pasteboard-gtk --version' printed {version_text!r}, not 'pasteboard-gtk VERSION'")
    blocks = paragraphs(run([app, "--help"]).split("\n"))
    if not blocks or not blocks[0][0].startswith("Usage: "):
        raise ManPageError("'pasteboard-gtk --help' no longer starts with 'Usage: '")
    usage = [blocks[0][0][len("Usage: "):]] + [b.strip() for b in blocks[0][1:]]
    out = [
        f'.TH PASTEBOARD\\-GTK 1 "" "pasteboard\\-gtk {escape(match.group(1))}" "User Commands"',
        ".SH NAME",
        "pasteboard\\-gtk \\- the Pasteboard History window and popup",
        ".SH SYNOPSIS",
        ".nf",
    ] + [line(text) for text in usage] + [".fi", ".SH DESCRIPTION"]
    for block in blocks[1:]:
        if block[0].startswith("  -"):
            out.append(".SH OPTIONS")
            for left, right in rows(block):
                out += [".TP", bold(left), line(right)]
        else:
            out += [line(" ".join(b.strip() for b in block)), ".PP"]
    while out[-1] == ".PP":
        out.pop()
    out += [".SH \"SEE ALSO\"", ".BR pb (1)"]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description="Write pb(1) and pasteboard-gtk(1) from the programs' help text.")
    parser.add_argument("--pb", help="the pb binary")
    parser.add_argument("--app", help="the pasteboard-gtk binary")
    parser.add_argument("--out", help="write pb.1 (and pasteboard-gtk.1 with --app) into this directory")
    parser.add_argument("--print", choices=["pb", "pasteboard-gtk"], help="print one page instead")
    arguments = parser.parse_args()
    try:
        if arguments.print == "pb" or (arguments.out and not arguments.print):
            if not arguments.pb:
                raise ManPageError("pb(1) needs --pb PB")
        if arguments.print == "pasteboard-gtk" and not arguments.app:
            raise ManPageError("pasteboard-gtk(1) needs --app PASTEBOARD_GTK")
        if arguments.print == "pb":
            sys.stdout.write(pb_page(arguments.pb))
        elif arguments.print == "pasteboard-gtk":
            sys.stdout.write(app_page(arguments.app))
        elif arguments.out:
            os.makedirs(arguments.out, exist_ok=True)
            pages = {"pb.1": pb_page(arguments.pb)}
            if arguments.app:
                pages["pasteboard-gtk.1"] = app_page(arguments.app)
            for name, text in pages.items():
                with open(os.path.join(arguments.out, name), "w") as file:
                    file.write(text)
        else:
            raise ManPageError("give --out DIRECTORY or --print PAGE")
    except ManPageError as error:
        print(f"manpages: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
