#!/usr/bin/env python3
"""Words in images: what pasteboard-ocr costs and how well it reads, and whether it slows capture.

Measures, with pictures rendered by ImageMagick in a temporary directory:
  1. pictures per second through pasteboard-ocr (OMP_THREAD_LIMIT=1, as the daemon starts it): one process, and two
     side by side (the machine's 2 cores), for a 1080p text-heavy screenshot and a 1080p photo-like picture;
  2. word accuracy: the share of the words of rendered sentences (several sizes and fonts) found in what it read;
  3. capture latency on a private Xvfb: from `xclip -i` starting to the daemon's `captured` event (`pb watch`), for
     text copies, with the recognition worker idle, then busy reading a backlog of screenshots.

Usage: python3 bench/ocr_bench.py [--pb PATH] [--quick]   (pasteboard-ocr is taken from beside pb)
Needs Xvfb, xclip, ImageMagick (convert) and tesseract-ocr-eng. Prints Markdown tables. Every process it starts and
its temporary directory are removed at the end.
"""
import argparse, json, os, random, shutil, signal, statistics, struct, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = ("quarterly zebra revenue invoice meeting budget forecast window kernel display network cursor yellow "
         "garden planet mirror engine silver market harbor letter ticket summer winter island bridge castle "
         "orange purple rocket signal travel button folder shadow thunder velvet wizard anchor basket candle").split()
PROCESSES = []


def log(message):
    print(f"[ocr_bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def convert(arguments, path):
    subprocess.run(["convert"] + arguments + [path], check=True)
    return path


def screenshot(directory, index, rng):
    """A 1920x1080 screen full of text: 40 lines of 12 words at 18 points."""
    lines = [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(40)]
    return convert(["-size", "1920x1080", "xc:white", "-fill", "black", "-font", "DejaVu-Sans", "-pointsize", "18",
                    "-annotate", "+20+30", "\n".join(lines)], os.path.join(directory, f"screen-{index}.png"))


def photo(directory):
    """A 1920x1080 photo-like picture (plasma fractal: colour everywhere, no text), as JPEG."""
    return convert(["-size", "1920x1080", "-seed", "7", "plasma:fractal"], os.path.join(directory, "photo.jpg"))


class Recognizer:
    """One pasteboard-ocr process, fed as the daemon feeds it."""

    def __init__(self, executable):
        self.process = subprocess.Popen([executable], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env={**os.environ, "OMP_THREAD_LIMIT": "1"})
        PROCESSES.append(self.process)

    def read(self, data):
        self.process.stdin.write(struct.pack("<I", len(data)) + data)
        self.process.stdin.flush()
        status = self.process.stdout.read(1)[0]
        length = struct.unpack("<I", self.process.stdout.read(4))[0]
        return status, self.process.stdout.read(length).decode()

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def throughput(executable, data, count, workers):
    """Pictures per second with `workers` processes reading `count` pictures each (after one to load models)."""
    recognizers = [Recognizer(executable) for _ in range(workers)]
    for recognizer in recognizers:
        recognizer.read(data)
    start = time.monotonic()
    threads = [threading.Thread(target=lambda r=r: [r.read(data) for _ in range(count)]) for r in recognizers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    for recognizer in recognizers:
        recognizer.close()
    return workers * count / elapsed


def accuracy(executable, directory, rng, sentences):
    """Words found / words rendered, per point size, over fonts DejaVu Sans, DejaVu Serif and DejaVu Sans Mono."""
    recognizer = Recognizer(executable)
    results = {}
    for size in (12, 16, 24, 48):
        found = total = 0
        for index in range(sentences):
            font = ("DejaVu-Sans", "DejaVu-Serif", "DejaVu-Sans-Mono")[index % 3]
            words = [rng.choice(WORDS) for _ in range(8)] + [str(rng.randint(1000, 9999))]
            path = convert(["-size", f"{size * 48}x{size * 3}", "xc:white", "-fill", "black", "-font", font,
                            "-pointsize", str(size), "-annotate", f"+{size}+{size * 2}", " ".join(words)],
                           os.path.join(directory, f"sentence-{size}-{index}.png"))
            status, text = recognizer.read(open(path, "rb").read())
            read = text.lower().split()
            for word in words:
                total += 1
                if word in read:
                    read.remove(word)
                    found += 1
        results[size] = found / total
    recognizer.close()
    return results


def capture_latency(pb, directory, pictures, copies, environment):
    """p50/p90/max of xclip-to-captured for `copies` text copies, idle then with the worker reading `pictures`."""
    display = ":%d" % random.randint(300, 399)
    xvfb = subprocess.Popen(["Xvfb", display, "-nolisten", "tcp", "-screen", "0", "640x480x24"],
                            stderr=subprocess.DEVNULL)
    PROCESSES.append(xvfb)
    time.sleep(1)
    env = {**environment, "DISPLAY": display}
    daemon = subprocess.Popen([pb, "daemon"], env=env, stdout=subprocess.DEVNULL,
                              stderr=open(os.path.join(directory, "daemon.log"), "w"))
    PROCESSES.append(daemon)
    deadline = time.monotonic() + 10
    while "daemon:   running" not in subprocess.run([pb, "doctor"], env=env, capture_output=True, text=True).stdout:
        if time.monotonic() > deadline:
            raise SystemExit("pb daemon did not start; see daemon.log")
        time.sleep(0.1)
    watch = subprocess.Popen([pb, "watch"], env=env, stdout=subprocess.PIPE, text=True)
    PROCESSES.append(watch)
    captured = []
    lock = threading.Condition()

    def follow():
        for line in watch.stdout:
            event = json.loads(line)
            if event.get("event") == "captured":
                with lock:
                    captured.append((time.monotonic(), event))
                    lock.notify_all()
    threading.Thread(target=follow, daemon=True).start()

    def measure(label):
        latencies = []
        for index in range(copies):
            with lock:
                before = len(captured)
            start = time.monotonic()
            subprocess.run(["xclip", "-selection", "clipboard", "-i"], input=f"{label} copy {index} {random.random()}",
                           text=True, env=env, check=True)
            with lock:
                lock.wait_for(lambda: len(captured) > before, timeout=10)
                if len(captured) > before:
                    latencies.append((captured[before][0] - start) * 1000)
            time.sleep(0.15)
        return latencies

    idle = measure("idle")
    for path in pictures:
        subprocess.run([pb, "copy", "--type", "image/png"], stdin=open(path, "rb"), env=env, check=True)
    time.sleep(1)
    busy_cpu_start = cpu_seconds("pasteboard-ocr")
    busy = measure("busy")
    busy_cpu = cpu_seconds("pasteboard-ocr") - busy_cpu_start
    stats = subprocess.run([pb, "stats"], env=env, capture_output=True, text=True).stdout
    progress = next((line for line in stats.splitlines() if line.startswith("image text:")), "image text: ?")
    for process in (watch, daemon, xvfb):
        process.send_signal(signal.SIGTERM)
        process.wait()
    return idle, busy, busy_cpu, progress


def cpu_seconds(name):
    """CPU seconds used so far by the processes called `name` (from /proc)."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/comm").read().strip() != name[:15]:
                continue
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def row(values):
    return "| " + " | ".join(values) + " |"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pb", default=os.path.join(ROOT, ".build/release/pb"))
    parser.add_argument("--quick", action="store_true", help="fewer pictures and copies")
    arguments = parser.parse_args()
    pb = os.path.abspath(arguments.pb)
    executable = os.path.join(os.path.dirname(pb), "pasteboard-ocr")
    for tool in ("Xvfb", "xclip", "convert"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is needed")
    if not os.access(executable, os.X_OK):
        raise SystemExit(f"{executable} is missing: swift build -c release --product pasteboard-ocr")
    rng = random.Random(4711)
    directory = tempfile.mkdtemp(prefix="ocr_bench-")
    try:
        count = 3 if arguments.quick else 8
        screen = open(screenshot(directory, 0, rng), "rb").read()
        picture = open(photo(directory), "rb").read()
        log("throughput")
        rates = {}
        for label, data in (("1080p text-heavy screenshot (PNG)", screen), ("1080p photo-like picture (JPEG)", picture)):
            rates[label] = (throughput(executable, data, count, 1), throughput(executable, data, count, 2))
        log("accuracy")
        accuracy_by_size = accuracy(executable, directory, rng, 6 if arguments.quick else 15)
        log("capture latency")
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": directory,
                       "XDG_RUNTIME_DIR": os.path.join(directory, "run"), "PB_STORE_DIR": os.path.join(directory, "store"),
                       "PB_CONFIG": os.path.join(directory, "config")}
        os.makedirs(environment["XDG_RUNTIME_DIR"], mode=0o700)
        backlog = [screenshot(directory, index, rng) for index in range(1, 9 if arguments.quick else 21)]
        idle, busy, busy_cpu, progress = capture_latency(pb, directory, backlog, 20 if arguments.quick else 50,
                                                          environment)
    finally:
        for process in PROCESSES:
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(directory, ignore_errors=True)

    print(row(["picture", "1 process", "2 processes (2 cores)"]))
    print(row(["---", "---:", "---:"]))
    for label, (one, two) in rates.items():
        print(row([label, f"{one:.2f}/s", f"{two:.2f}/s"]))
    print()
    print(row(["text size (points)"] + [str(size) for size in accuracy_by_size]))
    print(row(["---"] + ["---:"] * len(accuracy_by_size)))
    print(row(["words read right"] + [f"{share * 100:.1f} %" for share in accuracy_by_size.values()]))
    print()
    print(row(["capture latency (xclip to captured)", "n", "p50", "p90", "max"]))
    print(row(["---", "---:", "---:", "---:", "---:"]))
    for label, values in (("recognition worker idle", idle), ("recognition worker busy", busy)):
        print(row([label, str(len(values)), f"{statistics.median(values):.1f} ms",
                   f"{sorted(values)[int(0.9 * (len(values) - 1))]:.1f} ms", f"{max(values):.1f} ms"]))
    print()
    print(f"pasteboard-ocr used {busy_cpu:.1f} CPU seconds during the busy phase; {progress}")


if __name__ == "__main__":
    main()
