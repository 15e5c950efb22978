#!/usr/bin/env python3
"""A hostile HTTP server for the Copy from URL tests (library and pb copy --url). Listens on 127.0.0.1 on the port
given as its first argument (0: any free one), prints the port on the first line, then serves until killed.

  /text                  plain text
  /page.html             an HTML page, gzip-encoded when the client accepts gzip
  /image.png             a 2x2 PNG
  /gzip-bomb             1 GiB of zeros as about 1 MB of gzip (Content-Encoding: gzip)
  /deflate-bomb          the same as a zlib stream (Content-Encoding: deflate)
  /corrupt-gzip          says gzip, sends garbage
  /huge                  60,000,000 plain bytes, declared
  /status/NNN            answers NNN
  /redirect?to=URL       302 to URL (percent-encoded); /redirect-raw?to=... sends the Location bytes as given
  /redirect-chain/N      302 to /redirect-chain/N-1, then the text at 0
  /stall                 sends headers and 10 bytes of 1000, then nothing for 60 s
"""
import gzip
import http.server
import struct
import sys
import time
import urllib.parse
import zlib

BOMB_SIZE = 1 << 30
_bombs = {}


def bomb(kind):
    """1 GiB of zeros compressed (about 1 MB), made once. A full flush after each MiB makes every MiB after the first
    compress to the same bytes, so one of them is repeated instead of compressing the whole GiB."""
    if kind not in _bombs:
        wbits = 31 if kind == "gzip" else 15
        compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
        block = bytes(1 << 20)
        first = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
        repeated = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
        assert compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH) == repeated
        blocks = BOMB_SIZE >> 20
        # The end: an empty final block, then the check value of all the data.
        end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()
        if kind == "gzip":
            crc = 0
            for _ in range(blocks):
                crc = zlib.crc32(block, crc)
            trailer = struct.pack("<II", crc, BOMB_SIZE & 0xFFFFFFFF)
        else:
            adler = 1
            for _ in range(blocks):
                adler = zlib.adler32(block, adler)
            trailer = struct.pack(">I", adler)
        _bombs[kind] = first + repeated * (blocks - 1) + end + trailer
    return _bombs[kind]


def png(width, height):
    raw = b"".join(b"\x00" + b"".join(bytes((x * 40, y * 50, 160)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


PAGE = b"<!doctype html><html><head><title>Hostile</title></head><body><p>Gzipped page body.</p></body></html>"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, kind, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location_bytes):
        # Written raw, so malformed Location values reach the client as they are.
        self.wfile.write(b"HTTP/1.1 302 Found\r\nLocation: " + location_bytes + b"\r\nContent-Length: 0\r\n\r\n")

    def do_GET(self):
        try:
            self.route()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def route(self):
        path, _, query = self.path.partition("?")
        arguments = urllib.parse.parse_qs(query)
        if path == "/text":
            self.send(200, "text/plain; charset=utf-8", b"hello from the hostile server\n")
        elif path == "/page.html":
            accepts = self.headers.get("Accept-Encoding", "")
            if "gzip" in accepts:
                self.send(200, "text/html; charset=utf-8", gzip.compress(PAGE), [("Content-Encoding", "gzip")])
            else:
                self.send(200, "text/html; charset=utf-8", PAGE)
        elif path == "/image.png":
            self.send(200, "image/png", png(2, 2))
        elif path in ("/gzip-bomb", "/deflate-bomb"):
            kind = "gzip" if path == "/gzip-bomb" else "deflate"
            self.send(200, "text/plain", bomb(kind), [("Content-Encoding", kind)])
        elif path == "/corrupt-gzip":
            self.send(200, "text/plain", b"\x1f\x8b\x08\x00" + b"not gzip at all" * 20, [("Content-Encoding", "gzip")])
        elif path == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "60000000")
            self.end_headers()
            block = b"x" * 65536
            for _ in range(60000000 // 65536):
                self.wfile.write(block)
        elif path.startswith("/status/"):
            self.send(int(path[len("/status/"):]), "text/plain", b"status body\n")
        elif path == "/redirect":
            self.redirect(arguments["to"][0].encode())
        elif path == "/redirect-raw":
            self.redirect(urllib.parse.unquote_to_bytes(query[len("to="):]))
        elif path.startswith("/redirect-chain/"):
            left = int(path[len("/redirect-chain/"):])
            self.redirect(b"/text" if left == 0 else b"/redirect-chain/%d" % (left - 1))
        elif path == "/stall":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            time.sleep(60)
        else:
            self.send(404, "text/plain", b"not found\n")


if __name__ == "__main__":
    bomb("gzip")
    bomb("deflate")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
