#!/usr/bin/env python3
"""History-scale benchmark: a generated history of N items (default 1,000,000) imported with `pb import`,
then search, listing, start-up and storage measured side by side with grep over the same raw text.

Usage: python3 bench/history_bench.py [--items N] [--runs R] [--pb PATH] [--keep]
Prints a Markdown table (paste it into the README).
"""
import argparse, base64, json, os, random, shutil, statistics, subprocess, sys, tempfile, time, zlib, struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def make_words(rng, count):
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    weights = [12, 9, 8, 7, 7, 6, 6, 6, 5, 4, 4, 3, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1]
    words = set()
    while len(words) < count:
        n = rng.choice([2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8, 9, 10, 12])
        words.add("".join(rng.choices(letters, weights, k=n)))
    return sorted(words)

def png_bytes(rng, size):
    """A valid PNG header + IHDR followed by an IDAT of incompressible bytes, about `size` bytes."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    ihdr = struct.pack(">IIBBBBB", 640, 480, 8, 2, 0, 0, 0)
    body = rng.randbytes(size)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")

def generate(path, text_path, n, seed=7):
    rng = random.Random(seed)
    words = make_words(rng, 50000)
    # Zipf-like choice: common words are much more frequent.
    weights = [1.0 / (i + 1) ** 0.9 for i in range(len(words))]
    cum = []
    total = 0.0
    for w in weights:
        total += w
        cum.append(total)
    import bisect
    def word():
        return words[bisect.bisect_left(cum, rng.random() * total)]
    text_bytes = 0
    binary_bytes = 0
    images = 0
    start = 1_700_000_000.0
    with open(path, "w") as out, open(text_path, "w") as raw:
        for i in range(n):
            r = rng.random()
            created = start + i * 30
            if r < 0.001:
                data = png_bytes(rng, rng.randint(64 * 1024, 200 * 1024))
                binary_bytes += len(data)
                images += 1
                rep = {"type": "public.png", "base64": base64.b64encode(data).decode()}
            else:
                if r < 0.60:
                    text = " ".join(word() for _ in range(rng.randint(1, 14)))
                elif r < 0.75:
                    text = "https://" + word() + "." + rng.choice(["com", "org", "net", "io"]) + "/" + "/".join(word() for _ in range(rng.randint(1, 4))) + "?id=" + str(rng.randint(1, 10**9))
                elif r < 0.93:
                    text = "\n".join(" ".join(word() for _ in range(rng.randint(5, 16))) for _ in range(rng.randint(2, 6)))
                else:
                    text = "\n".join(" ".join(word() for _ in range(rng.randint(8, 18))) for _ in range(rng.randint(8, 30)))
                text += " #" + str(i)  # every item distinct, as real copies mostly are
                encoded = text.encode()
                text_bytes += len(encoded)
                raw.write(text.replace("\n", " ") + "\n")
                rep = {"type": "public.utf8-plain-text", "text": text}
            out.write(json.dumps({"created": created, "lastCopied": created, "representations": [rep]}) + "\n")
    return text_bytes, binary_bytes, images, words

def timed(cmd, env, runs, first_byte=False):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        if first_byte:
            p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            p.stdout.read(1)
            times.append((time.perf_counter() - t0) * 1000)
            p.stdout.read()
            p.wait()
        else:
            # Output goes to a pipe, not /dev/null: GNU grep stops at the first match when writing to /dev/null.
            subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    p50 = statistics.median(times)
    p99 = times[min(len(times) - 1, int(round(0.99 * (len(times) - 1))))]
    return p50, p99

def sqlite_bytes(db, like):
    out = subprocess.run(["sqlite3", db, f"SELECT coalesce(sum(pgsize),0) FROM dbstat WHERE {like}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return int(out or 0)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"))
    ap.add_argument("--workdir", default=None, help="reuse a generated history here (kept between runs)")
    args = ap.parse_args()
    if not os.path.exists(args.pb):
        sys.exit(f"pb not built at {args.pb}: run 'swift build -c release' first")
    for tool in ("grep", "sqlite3"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is required")

    work = args.workdir or tempfile.mkdtemp(prefix="pb-bench-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    env.pop("DISPLAY", None); env.pop("WAYLAND_DISPLAY", None)
    env["PB_STORE_DIR"] = os.path.join(work, "store")
    env["XDG_CONFIG_HOME"] = os.path.join(work, "config")
    env["PB_RUNTIME_DIR"] = os.path.join(work, "run")
    jsonl = os.path.join(work, f"history-{args.items}.jsonl")
    raw = os.path.join(work, f"text-{args.items}.txt")
    meta = os.path.join(work, f"meta-{args.items}.json")
    db = os.path.join(env["PB_STORE_DIR"], "history.sqlite")

    if not os.path.exists(meta):
        print(f"generating {args.items:,} items in {work} ...", file=sys.stderr)
        t0 = time.time()
        text_bytes, binary_bytes, images, words = generate(jsonl, raw, args.items)
        json.dump({"text": text_bytes, "binary": binary_bytes, "images": images}, open(meta, "w"))
        print(f"  generated in {time.time() - t0:.0f} s", file=sys.stderr)
        shutil.rmtree(env["PB_STORE_DIR"], ignore_errors=True)
    info = json.load(open(meta))
    import_seconds = None
    if not os.path.exists(db):
        print("importing with pb import ...", file=sys.stderr)
        t0 = time.time()
        subprocess.run([args.pb, "import", jsonl], env=env, check=True, stdout=subprocess.DEVNULL)
        import_seconds = time.time() - t0
        subprocess.run(["sqlite3", db, "PRAGMA wal_checkpoint(TRUNCATE)"], check=True, stdout=subprocess.DEVNULL)

    # Queries of falling selectivity, picked from the generated vocabulary by how often they occur.
    words = make_words(random.Random(7), 50000)
    queries = {
        "rare word": words[-1] if len(words[-1]) >= 3 else "zqj",
        "common word": "",
        "url part": "https://",
        "two common words": "",
        "2 chars": "qz",
        "no match": "xyzzy-not-there",
    }
    # The most frequent 4+ letter word in the first lines of the raw text.
    counts = {}
    with open(raw) as f:
        for i, line in enumerate(f):
            if i > 20000: break
            for w in line.split():
                if len(w) >= 4 and w.isalpha(): counts[w] = counts.get(w, 0) + 1
    ranked = sorted(counts, key=counts.get, reverse=True)
    queries["common word"] = ranked[0]
    # Two frequent words side by side: every trigram is common, the phrase is rare (worst case for the index).
    queries["two common words"] = ranked[3] + " " + ranked[7]
    rare = [w for w, c in counts.items() if c == 1 and len(w) >= 6]
    if rare: queries["rare word"] = rare[0]

    rows = []
    for label, q in queries.items():
        pb50, pb99 = timed([args.pb, "search", q, "--limit", "20"], env, args.runs)
        gr50, gr99 = timed(["grep", "-c", "-F", "-i", q, raw], env, max(5, args.runs // 3))
        rows.append((f"search, {label} (`{q}`)", pb50, pb99, gr50, gr99))
    h50, h99 = timed([args.pb, "history", "--limit", "100"], env, args.runs)
    f50, f99 = timed([args.pb, "history", "--limit", "100"], env, args.runs, first_byte=True)
    v50, v99 = timed([args.pb, "--version"], env, args.runs)
    c50, c99 = timed(["head", "-n", "100", raw], env, args.runs)

    stats = json.loads(subprocess.run([args.pb, "stats", "--json"], env=env, capture_output=True, text=True, check=True).stdout)
    index = sqlite_bytes(db, "name LIKE 'item_text%'")
    blobs_table = sqlite_bytes(db, "name IN ('blobs', 'sqlite_autoindex_blobs_1')")
    meta_tables = sqlite_bytes(db, "name NOT LIKE 'item_text%' AND name NOT IN ('blobs', 'sqlite_autoindex_blobs_1')")
    blob_dir = os.path.join(env["PB_STORE_DIR"], "blobs")
    file_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(blob_dir) for f in fs)
    disk_bytes = int(subprocess.run(["du", "-sb", "--apparent-size", blob_dir], capture_output=True, text=True).stdout.split()[0]) if os.path.exists(blob_dir) else 0
    du_blocks = int(subprocess.run(["du", "-sk", blob_dir], capture_output=True, text=True).stdout.split()[0]) * 1024 if os.path.exists(blob_dir) else 0

    mb = lambda b: f"{b / 1e6:,.1f} MB"
    print()
    print(f"History: {stats['items']:,} items ({info['images']:,} PNG images), text {mb(info['text'])}, binary {mb(info['binary'])}" +
          (f"; `pb import` took {import_seconds:.0f} s" if import_seconds else ""))
    print()
    print("| measurement | pb p50 | pb p99 | peer | peer p50 | peer p99 |")
    print("|---|---:|---:|---|---:|---:|")
    for label, a, b, c, d in rows:
        print(f"| {label} | {a:.1f} ms | {b:.1f} ms | `grep -c -F -i` | {c:.1f} ms | {d:.1f} ms |")
    print(f"| newest 100 (`pb history --limit 100`) | {h50:.1f} ms | {h99:.1f} ms | `head -n 100` | {c50:.1f} ms | {c99:.1f} ms |")
    print(f"| process start to first output (`pb history`) | {f50:.1f} ms | {f99:.1f} ms | | | |")
    print(f"| `pb --version` | {v50:.1f} ms | {v99:.1f} ms | | | |")
    print()
    print("| storage | bytes | × raw |")
    print("|---|---:|---:|")
    print(f"| raw text | {mb(info['text'])} | 1.00 |")
    print(f"| text payloads + metadata (blobs table, items, representations) | {mb(blobs_table + meta_tables)} | {(blobs_table + meta_tables) / info['text']:.2f} |")
    print(f"| search index (FTS5 trigram, contentless) | {mb(index)} | {index / info['text']:.2f} |")
    if info["binary"]:
        print(f"| binary payloads (files, apparent size) vs raw binary | {mb(file_bytes)} | {file_bytes / info['binary']:.3f} |")
        print(f"| binary payloads (files, disk blocks) | {mb(du_blocks)} | {du_blocks / info['binary']:.3f} |")
    print(f"| database file | {mb(stats['databaseBytes'])} | |")
    print()
    print(f"work directory: {work} (pass --workdir to reuse it)", file=sys.stderr)

if __name__ == "__main__":
    main()
