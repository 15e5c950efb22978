#!/usr/bin/env python3
"""Writes the importer fixtures of the managers Debian does not ship (Klipper's history2.lst, Maccy's
Storage.sqlite, clipboard-indicator's registry.txt) from their documented formats, and damaged variants of each.
The CopyQ and GPaste fixtures beside them were made by CopyQ 6.4 and GPaste 43 themselves (see README.md)."""
import json, os, sqlite3, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))

def png():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + bytes([x * 40 % 256, y * 30 % 256, 100]) for y in range(6) for x in range(5))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 5, 6, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

def qstring(text):
    data = text.encode("utf-16-be")
    return struct.pack(">I", len(data)) + data

def qbytes(data):
    return struct.pack(">I", len(data)) + data

def klipper():
    # Klipper (Plasma 5) writes newest first: a string, a URL list, an image.
    body = qbytes(b"5.27.5\x00")
    body += qstring("string") + qstring("klipper zebra text")
    body += qstring("url") + struct.pack(">I", 2) + qbytes(b"file:///etc/hostname") + qbytes(b"https://example.org/a")
    body += struct.pack(">I", 0) + struct.pack(">i", 0)
    body += qstring("image") + struct.pack(">i", 1) + png()
    body += qstring("string") + qstring("oldest klipper text")
    whole = struct.pack(">I", zlib.crc32(body)) + qbytes(body)
    os.makedirs(os.path.join(HERE, "klipper"), exist_ok=True)
    open(os.path.join(HERE, "klipper/history2.lst"), "wb").write(whole)
    # Truncated inside the image, with a checksum that matches what is left (a reader must notice the end).
    cut = body[: len(body) - 60]
    open(os.path.join(HERE, "klipper/truncated.lst"), "wb").write(struct.pack(">I", zlib.crc32(cut)) + qbytes(cut))
    # Cut short on disk: the byte array's length says more than the file holds.
    open(os.path.join(HERE, "klipper/short.lst"), "wb").write(whole[:-30])

def maccy():
    path = os.path.join(HERE, "maccy/Storage.sqlite")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE ZHISTORYITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNUMBEROFCOPIES INTEGER,
            ZFIRSTCOPIEDAT TIMESTAMP, ZLASTCOPIEDAT TIMESTAMP, ZAPPLICATION VARCHAR, ZPIN VARCHAR, ZTITLE VARCHAR);
        CREATE TABLE ZHISTORYITEMCONTENT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZITEM INTEGER,
            ZTYPE VARCHAR, ZVALUE BLOB);
    """)
    # Core Data time: seconds since 2001-01-01. 7e8 is 2023-03-08.
    items = [
        (1, 3, 700000000.0, 700000500.0, "com.apple.Safari", "b", "maccy zebra html"),
        (2, 1, 700000100.0, 700000100.0, "com.apple.Preview", None, "Image"),
        (3, 1, 700000200.0, 700000200.0, "com.apple.Terminal", None, "maccy plain"),
    ]
    for pk, copies, first, last, app, pin, title in items:
        db.execute("INSERT INTO ZHISTORYITEM VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?)", (pk, copies, first, last, app, pin, title))
    contents = [
        (1, "public.html", b"<b>maccy zebra html</b>"), (1, "public.utf8-plain-text", b"maccy zebra html"),
        (1, "org.p0deje.Maccy.fromMaccy", b""),
        (2, "public.png", png()), (2, "public.tiff", b"II*\x00fake tiff bytes"),
        (3, "public.utf8-plain-text", b"maccy plain"),
    ]
    for index, (item, kind, value) in enumerate(contents):
        db.execute("INSERT INTO ZHISTORYITEMCONTENT VALUES (?, 2, 1, ?, ?, ?)", (index + 1, item, kind, value))
    db.commit()
    db.close()
    open(os.path.join(HERE, "maccy/NotADatabase.sqlite"), "wb").write(b"this is not an SQLite database at all\n" * 4)

def clipboard_indicator():
    os.makedirs(os.path.join(HERE, "clipboard-indicator"), exist_ok=True)
    # Oldest first: an entry of an old version (a plain string), a favorite, an image (its file beside the registry,
    # named by the test: @DIR@ stands for the directory), the newest text.
    registry = [
        "indicator old string",
        {"contents": "indicator favorite zebra", "favorite": True, "mimetype": "text/plain;charset=utf-8"},
        {"contents": "@DIR@/5f2b1d", "favorite": False, "mimetype": "image/png"},
        {"contents": "indicator newest", "favorite": False, "mimetype": "text/plain;charset=utf-8"},
    ]
    text = json.dumps(registry)
    open(os.path.join(HERE, "clipboard-indicator/registry.txt"), "w").write(text)
    open(os.path.join(HERE, "clipboard-indicator/5f2b1d"), "wb").write(png())
    open(os.path.join(HERE, "clipboard-indicator/truncated.txt"), "w").write(text[: len(text) - 25])

klipper()
maccy()
clipboard_indicator()
