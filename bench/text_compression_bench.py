#!/usr/bin/env python3
"""Text compression benchmark: how small a history's texts get when each is compressed on its own (as a store that
must read any one item at once would), side by side with `gzip -6` of all of them together in the same run.

Usage: python3 bench/text_compression_bench.py [--items N] [--dictionary-texts D] [--workdir DIR]

For both of bench/scale_bench.py's data sets ("vocabulary": about 130-byte texts of 2,000 made-up words;
"realistic": bench/history_bench.py's Zipf-distributed words, URLs and multi-line texts), N texts each (default
200,000), it prints the compressed size over the raw text for:
  - deflate of each text alone;
  - deflate of each text alone with a preset dictionary of 32 KiB: the most frequent words of the first D texts
    (default 5,000), the most frequent last, where deflate reaches them most cheaply;
  - `gzip -6` of every text at once: what no per-item scheme reaches, the peer.
A text that compression would make longer counts at its own size (it would be stored as it is).
"""
import argparse, collections, os, shutil, subprocess, sys, tempfile, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import history_bench  # noqa: E402  (the realistic generator)
import scale_bench  # noqa: E402  (the vocabulary generator)

DICTIONARY_BYTES = 32 * 1024


def dictionary_of(texts):
    words = collections.Counter(word for text in texts for word in text.split())
    return b" ".join(word for word, _ in reversed(words.most_common()))[-DICTIONARY_BYTES:]


def deflated(text, dictionary=None):
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, *([dictionary] if dictionary else []))
    return min(len(compressor.compress(text) + compressor.flush()), len(text))


def measure(raw_path, items, dictionary_texts):
    with open(raw_path, "rb") as raw:
        texts = [line.rstrip(b"\n") for _, line in zip(range(items), raw)]
    size = sum(len(text) for text in texts)
    dictionary = dictionary_of(texts[:dictionary_texts])
    alone = sum(deflated(text) for text in texts)
    with_dictionary = sum(deflated(text, dictionary) for text in texts)
    gzip = subprocess.run(["gzip", "-6", "-c"], input=b"\n".join(texts), capture_output=True, check=True).stdout
    return {"texts": len(texts), "bytes": size, "alone": alone / size, "dictionary": with_dictionary / size,
            "gzip": len(gzip) / size}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--dictionary-texts", type=int, default=5_000)
    parser.add_argument("--workdir", help="where the data goes (default: a temporary directory, removed)")
    args = parser.parse_args()
    if args.items < 1 or args.dictionary_texts < 1:
        raise SystemExit("--items and --dictionary-texts must be at least 1")
    if not shutil.which("gzip"):
        raise SystemExit("gzip is not installed: apt-get install -y gzip")
    work = args.workdir or tempfile.mkdtemp(prefix="pb-compression-bench-")
    try:
        results = {}
        for name in ("vocabulary", "realistic"):
            jsonl, raw = os.path.join(work, name + ".jsonl"), os.path.join(work, name + ".txt")
            if not os.path.exists(raw):
                if name == "vocabulary":
                    scale_bench.generate_vocabulary(jsonl, raw, args.items)
                else:
                    history_bench.generate(jsonl, raw, args.items)
            results[name] = measure(raw, args.items, args.dictionary_texts)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print("| data | texts | bytes each | deflate, each alone | each alone, 32 KiB dictionary | `gzip -6`, all at once |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, figures in results.items():
        print(f"| {name} | {figures['texts']:,} | {figures['bytes'] / figures['texts']:.0f} | {figures['alone']:.2f}× | "
              f"{figures['dictionary']:.2f}× | {figures['gzip']:.2f}× |")


if __name__ == "__main__":
    main()
