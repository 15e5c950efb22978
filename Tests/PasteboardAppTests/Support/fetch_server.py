#!/usr/bin/env python3
"""A local HTTP server for the "Copy from URL" tests. Prints its port on the first line, then serves until killed.

  /image.png      a 64x48 PNG (image/png)
  /page.html      an HTML page (text/html; charset=utf-8)
  /notes.txt      plain text
  /missing        404
  /fake.png       says image/png, holds text
  /archive.zip    application/zip bytes
  /stall          sends headers and 10 bytes of 1000, then nothing for 60 s
  /huge           declares 60,000,000 bytes and sends them
  /huge-chunked   60,000,000 bytes without a length
"""
import http.server
import struct
import sys
import time
import zlib


def png(width, height):
    raw = b"".join(b"\x00" + b"".join(bytes((x * 4 % 256, y * 5 % 256, 160)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


IMAGE = png(64, 48)
PAGE = "<!doctype html><html><head><title>Fetched page</title></head><body><h1>Fetched heading</h1><p>Body text from the test server.</p></body></html>".encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, kind, body, length=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        try:
            self.route()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def route(self):
        path = self.path.split("?")[0]
        if path == "/image.png":
            self.send(200, "image/png", IMAGE)
        elif path == "/page.html":
            self.send(200, "text/html; charset=utf-8", PAGE)
        elif path == "/notes.txt":
            self.send(200, "text/plain; charset=utf-8", b"Plain notes from the server\nsecond line\n")
        elif path == "/fake.png":
            self.send(200, "image/png", b"this is not a picture at all")
        elif path == "/archive.zip":
            self.send(200, "application/zip", b"PK\x03\x04" + b"\x00" * 200)
        elif path == "/stall":
            self.send(200, "text/plain", b"0123456789", length=1000)
            self.wfile.flush()
            time.sleep(60)
        elif path == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", "60000000")
            self.end_headers()
            block = b"x" * 65536
            for _ in range(60000000 // 65536):
                self.wfile.write(block)
        elif path == "/huge-chunked":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            block = b"y" * 65536
            for _ in range(60000000 // 65536 + 1):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send(404, "text/plain", b"not found")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
