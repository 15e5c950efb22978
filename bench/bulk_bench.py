#!/usr/bin/env python3
"""Bulk-path benchmark: `pb import`, `pb export` and `pb history --format dmenu` on N items (default 1,000,000),
side by side in one run with the sqlite3 tool loading the same rows (with and without the same trigram index) and
`cat` of the same output.

Usage: python3 bench/bulk_bench.py [--items N] [--big-mb M] [--pb PATH] [--before PATH] [--sqlite3 PATH] [--keep]

It generates its data (random short texts; short texts from a 50-word vocabulary; one text of M MB, default 200),
runs everything in a temporary directory with a private store, and prints a Markdown table, then the raw numbers as
JSON. With --before PATH, another pb (say, a build of an earlier commit) imports the same data sets in the same run,
each right after this one, and exports the same store right after this one, for side-by-side rows. Peak resident memory comes from wait4(2) of each process. Times are wall-clock; CPU seconds (user + system) are
given too, since the machine may be shared.
"""
import argparse, csv, json, os, random, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRIGRAM_INDEX = "CREATE VIRTUAL TABLE item_text USING fts5(text, content='', tokenize='trigram', detail='none');"


def generate(directory, n, seed=7):
    """Writes each data set as JSON Lines (for pb) and CSV (for sqlite3): random short texts, and short texts from
    a vocabulary of 50 words (every trigram of which occurs in most items). Every text is distinct."""
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 "
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 8))) for _ in range(50)]
    sets = {}
    for name in ("random", "vocabulary"):
        jsonl = os.path.join(directory, name + ".jsonl")
        table = os.path.join(directory, name + ".csv")
        with open(jsonl, "w") as out, open(table, "w", newline="") as raw:
            writer = csv.writer(raw)
            for i in range(n):
                if name == "random":
                    text = "".join(rng.choices(alphabet, k=rng.randint(10, 60)))
                else:
                    text = " ".join(rng.choices(words, k=rng.randint(3, 12)))
                text += " " + str(i)
                out.write(json.dumps({"text": text}) + "\n")
                writer.writerow([text])
        sets[name] = (jsonl, table, os.path.getsize(jsonl))
    return sets


def generate_big(directory, megabytes):
    """One text of `megabytes` MB: as a JSON line for pb, as a file for sqlite3's readfile(). Written in pieces, so
    that this process stays small (a child forked from a large process would count its pages in its peak)."""
    size = megabytes * 1_000_000
    unit = "lorem ipsum dolor sit amet, consectetur adipiscing elit; "  # nothing JSON escapes
    piece = unit * (1_000_000 // len(unit))
    text_path = os.path.join(directory, "big.txt")
    line_path = os.path.join(directory, "big.jsonl")
    with open(text_path, "w") as text, open(line_path, "w") as line:
        line.write('{"text":"')
        left = size
        while left > 0:
            chunk = piece[:left]
            text.write(chunk)
            line.write(chunk)
            left -= len(chunk)
        line.write('"}\n')
    return line_path, text_path


def run(command, env=None, stdin=None, read_output=False):
    """Runs `command`; returns wall seconds, CPU seconds, peak RSS (MB), seconds to the first line of output and the
    CPU seconds spent by then (when reading it; from /proc), and the bytes of output (counted, not kept)."""
    start = time.perf_counter()
    stdout = subprocess.PIPE if read_output else subprocess.DEVNULL
    stdin_file = open(stdin) if stdin else subprocess.DEVNULL
    process = subprocess.Popen(command, env=env, stdin=stdin_file, stdout=stdout, stderr=subprocess.PIPE)
    first_line = None
    first_line_cpu = None
    count = 0
    if read_output:
        chunk = process.stdout.read1(1 << 16)
        while chunk:
            if first_line is None and b"\n" in chunk:
                first_line = time.perf_counter() - start
                first_line_cpu = process_cpu(process.pid)
            count += len(chunk)
            chunk = process.stdout.read1(1 << 20)
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if stdin:
        stdin_file.close()
    if process.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({process.returncode}): {errors.decode(errors='replace')[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
            "first_line": first_line, "first_line_cpu": first_line_cpu, "bytes": count}


def process_cpu(pid):
    """User + system CPU seconds of a running process, from /proc/PID/stat (None when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def pb_env(store, work):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work, "LANG": "C.UTF-8",
           "PB_STORE_DIR": store, "XDG_CONFIG_HOME": os.path.join(work, "config"),
           "XDG_DATA_HOME": os.path.join(work, "data"), "PB_RUNTIME_DIR": os.path.join(work, "run")}
    os.makedirs(env["PB_RUNTIME_DIR"], exist_ok=True)
    return env


def sqlite_load(sqlite3, work, name, table, with_index):
    """The sqlite3 tool loading the same texts in one transaction (WAL, synchronous=NORMAL, as pb's store), into a
    table with or without the trigram index pb keeps."""
    database = os.path.join(work, f"peer-{name}-{'index' if with_index else 'rows'}.sqlite")
    script = os.path.join(work, "peer.sql")
    with open(script, "w") as out:
        out.write("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n")
        out.write("CREATE TABLE items(id INTEGER PRIMARY KEY, text TEXT NOT NULL);\n")
        out.write("CREATE TABLE staging(text TEXT NOT NULL);\n")
        if with_index:
            out.write(TRIGRAM_INDEX + "\n")
        out.write(".mode csv\nBEGIN;\n")
        out.write(f".import '{table}' staging\n")
        out.write("INSERT INTO items(text) SELECT text FROM staging;\n")
        if with_index:
            out.write("INSERT INTO item_text(rowid, text) SELECT id, text FROM items;\n")
        out.write("DROP TABLE staging;\nCOMMIT;\n")
    result = run([sqlite3, database], stdin=script)
    os.remove(database)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(database + suffix):
            os.remove(database + suffix)
    return result


def fmt_s(value):
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


def fmt_ms(value):
    return "–" if value is None else f"{value * 1000:.0f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--big-mb", type=int, default=200)
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build", "release", "pb"))
    parser.add_argument("--before", help="another pb whose import runs on the same data sets, for comparison")
    parser.add_argument("--sqlite3", default=shutil.which("sqlite3") or "/usr/bin/sqlite3")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    for tool in (args.pb, args.sqlite3) + ((args.before,) if args.before else ()):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool} is not an executable; build pb with 'swift build -c release' or pass --pb / --sqlite3")
    work = tempfile.mkdtemp(prefix="pb-bulk-bench-")
    results = {"items": args.items, "big_mb": args.big_mb}
    try:
        print(f"generating {args.items:,} items per data set in {work} ...", file=sys.stderr)
        sets = generate(work, args.items)
        rows = []
        store_of = {}
        for name, (jsonl, table, size) in sets.items():
            store = os.path.join(work, "store-" + name)
            store_of[name] = store
            print(f"pb import ({name}) ...", file=sys.stderr)
            # pb prints its result once the rows are committed (and searchable), then builds the search index:
            # the first line of output times the import, the exit the index.
            pb = run([args.pb, "import", jsonl], env=pb_env(store, work), read_output=True)
            before = None
            if args.before:
                print(f"pb import ({name}) with {args.before} ...", file=sys.stderr)
                before_store = os.path.join(work, "store-before-" + name)
                before = run([args.before, "import", jsonl], env=pb_env(before_store, work), read_output=True)
                shutil.rmtree(before_store, ignore_errors=True)
            print(f"sqlite3 loading the same rows ({name}) ...", file=sys.stderr)
            indexed = sqlite_load(args.sqlite3, work, name, table, with_index=True)
            plain = sqlite_load(args.sqlite3, work, name, table, with_index=False)
            results[f"import_{name}"] = {"pb": pb, "sqlite3_index": indexed, "sqlite3_rows": plain, "file_bytes": size}
            if before:
                results[f"import_{name}"]["before"] = before
            label = "random short texts" if name == "random" else "short texts, 50-word vocabulary"
            committed = pb["first_line"] or pb["wall"]
            committed_cpu = pb["first_line_cpu"]
            rows.append((
                f"`pb import`, {args.items:,} {label}",
                f"rows committed and searchable after {fmt_s(committed)} = **{args.items / committed:,.0f} items/s** "
                f"(CPU {fmt_s(committed_cpu) if committed_cpu is not None else '?'}); search index built by "
                f"{fmt_s(pb['wall'])} (CPU {fmt_s(pb['cpu'])}, peak {pb['rss_mb']:.0f} MB)",
                f"sqlite3 `.import` + the same trigram index: {fmt_s(indexed['wall'])} = "
                f"{args.items / indexed['wall']:,.0f} rows/s (CPU {fmt_s(indexed['cpu'])}); rows only: "
                f"{fmt_s(plain['wall'])}",
                "≥ 50,000 items/s"))
            if before:
                done = before["first_line"] or before["wall"]
                rows.append((
                    f"the same with the pb before (`{os.path.basename(args.before)}`), same run",
                    f"rows committed after {fmt_s(done)} = {args.items / done:,.0f} items/s "
                    f"(CPU {fmt_s(before['first_line_cpu']) if before['first_line_cpu'] is not None else '?'}); "
                    f"index built by {fmt_s(before['wall'])} (peak {before['rss_mb']:.0f} MB)",
                    "", ""))

        store = store_of["random"]
        env = pb_env(store, work)
        print("pb export, pb history --format dmenu, cat ...", file=sys.stderr)
        export_path = os.path.join(work, "export.jsonl")
        with open(export_path, "wb") as out:
            subprocess.run([args.pb, "export"], env=env, stdout=out, check=True)
        dmenu_path = os.path.join(work, "dmenu.txt")
        with open(dmenu_path, "wb") as out:
            subprocess.run([args.pb, "history", "--format", "dmenu"], env=env, stdout=out, check=True)
        export = run([args.pb, "export"], env=env, read_output=True)
        cat_export = run(["cat", export_path], read_output=True)
        dmenu = run([args.pb, "history", "--format", "dmenu"], env=env, read_output=True)
        cat_dmenu = run(["cat", dmenu_path], read_output=True)
        results.update({"export": export, "cat_export": cat_export, "dmenu": dmenu, "cat_dmenu": cat_dmenu})
        rows.append((
            f"`pb export`, {args.items:,} items ({export['bytes'] / 1e6:.0f} MB), read through a pipe",
            f"**{fmt_s(export['wall'])}**, first line after **{fmt_ms(export['first_line'])}** "
            f"(CPU {fmt_s(export['cpu'])}, peak {export['rss_mb']:.0f} MB)",
            f"`cat` of the same export: {fmt_s(cat_export['wall'])}, first line after {fmt_ms(cat_export['first_line'])}",
            "≤ 3 s, first line ≤ 50 ms"))
        if args.before:
            # The same store (this pb's import of the random texts), exported by the pb before, right after.
            before_export = run([args.before, "export"], env=env, read_output=True)
            results["export"]["before"] = before_export
            rows.append((
                f"the same with the pb before (`{os.path.basename(args.before)}`), same run",
                f"{fmt_s(before_export['wall'])}, first line after {fmt_ms(before_export['first_line'])} "
                f"(CPU {fmt_s(before_export['cpu'])}, peak {before_export['rss_mb']:.0f} MB)",
                "", ""))
        rows.append((
            f"`pb history --format dmenu`, {args.items:,} items, read through a pipe",
            f"**{fmt_s(dmenu['wall'])}**, first line after **{fmt_ms(dmenu['first_line'])}** "
            f"(CPU {fmt_s(dmenu['cpu'])}, peak {dmenu['rss_mb']:.0f} MB)",
            f"`cat` of the same lines: {fmt_s(cat_dmenu['wall'])}, first line after {fmt_ms(cat_dmenu['first_line'])}",
            "≤ 3 s, first line ≤ 50 ms"))

        print(f"one {args.big_mb} MB text ...", file=sys.stderr)
        big_line, big_text = generate_big(work, args.big_mb)
        big_store = os.path.join(work, "store-big")
        big = run([args.pb, "import", big_line], env=pb_env(big_store, work))
        big_export = run([args.pb, "export"], env=pb_env(big_store, work), read_output=True)
        peer_db = os.path.join(work, "peer-big.sqlite")
        script = os.path.join(work, "peer-big.sql")
        with open(script, "w") as out:
            out.write("PRAGMA journal_mode=WAL;\nCREATE TABLE items(text TEXT);\n"
                      f"INSERT INTO items VALUES (CAST(readfile('{big_text}') AS TEXT));\n")
        peer_big = run([args.sqlite3, peer_db], stdin=script)
        results.update({"big_import": big, "big_export": big_export, "sqlite3_big": peer_big})
        rows.append((
            f"peak memory importing one {args.big_mb} MB text line",
            f"**{big['rss_mb']:.0f} MB** ({fmt_s(big['wall'])}); exporting it: {big_export['rss_mb']:.0f} MB",
            f"sqlite3 inserting the same text (readfile): {peer_big['rss_mb']:.0f} MB",
            "bounded by the largest item"))
        pb_random = results["import_random"]["pb"]
        rows.append((
            f"peak memory of the {args.items:,}-line import ({sets['random'][2] / 1e6:.0f} MB file)",
            f"**{pb_random['rss_mb']:.0f} MB**",
            f"sqlite3 loading the same rows: {results['import_random']['sqlite3_index']['rss_mb']:.0f} MB",
            "bounded, not by the file"))

        print()
        print("| measurement | pb | peer, same run | goal |")
        print("|---|---|---|---|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        print()
        print(json.dumps(results, indent=1))
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
