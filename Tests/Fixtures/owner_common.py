"""What the toolkit owners in this directory (gtk3-owner.py, gtk4-owner.py, qt5-owner.py) share: their options,
the payloads built from them, a generated picture, and the "ready" line the tests wait for."""
import random
import sys


def add_arguments(parser):
    parser.add_argument("--selection", choices=["clipboard", "primary"], default="clipboard")
    parser.add_argument("--text", help="plain text to copy")
    parser.add_argument("--html", help="HTML to copy (with --text as its plain version)")
    parser.add_argument("--image", help="a PNG (or any gdk-pixbuf/Qt-readable) file whose picture to copy")
    parser.add_argument("--noise", metavar="WxH", help="copy a generated picture of this size, slow to encode")
    parser.add_argument("--uris", action="append", default=[], help="copy these file:// URIs (repeatable)")
    parser.add_argument("--secret", action="store_true", help="mark the copy x-kde-passwordManagerHint=secret")


def offers(args):
    """The (target, bytes) pairs of a copy that is not a plain text or a picture."""
    result = []
    if args.html is not None:
        result.append(("text/html", args.html.encode("utf-8")))
    if args.uris:
        result.append(("text/uri-list", "".join(uri + "\r\n" for uri in args.uris).encode("utf-8")))
        result.append(("x-special/gnome-copied-files", ("copy\n" + "\n".join(args.uris)).encode("utf-8")))
    if args.secret:
        result.append(("x-kde-passwordManagerHint", b"secret"))
    return result


def noise(size):
    """(width, height, RGB bytes) of a reproducible picture: random pixels with 4 bits per channel, so that its
    PNG is about half the raw size and takes seconds to encode, like a photograph."""
    width, height = (int(part) for part in size.lower().split("x"))
    pixels = random.Random(7).randbytes(width * height * 3)
    mask = bytes((value & 0xF0) for value in range(256))
    return width, height, pixels.translate(mask)


def say_ready(*_):
    print("ready", flush=True)
    return False


def log(message):
    print(message, file=sys.stderr, flush=True)
