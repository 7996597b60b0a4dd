#!/usr/bin/env python3
"""A loopback HTTP server under an attacker's control, for the hostile-remote tests (issue 10).

Usage: hostile_server.py MODE        prints its port on the first line of stdout, then serves.

Every request gets the answer MODE says, whatever the path (aisync's first request on a pull
is a PROPFIND of the remote's root on WebDAV, or a GET of aisync.json on a --plain remote):

  huge          200 with a 200 MB body of spaces (Content-Length given), streamed as it is read
  huge-chunked  the same 200 MB, chunked, with no Content-Length
  endless       200, chunked, never ending
  laughs        207 PROPFIND answer with a "billion laughs" entity bomb; GETs the same
  xxe           207 PROPFIND answer whose entity reads /etc/hostname; GETs the same
  deep          200 with JSON nested 100,000 deep
  redirect      302 to the same path on 127.0.0.2 (another host)
  lie           200 whose Content-Length says 1 KB more than the body, then the connection closes

Nothing is read from disk and nothing is written; the server runs until killed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testserver_http import Reader, head, read_request, serve_loopback  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "huge"
HUGE = 200 << 20

LAUGHS = (b'<?xml version="1.0"?>\n<!DOCTYPE d [\n<!ENTITY a "lol">\n'
          + b"".join(b'<!ENTITY %c "&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;">\n' % ((98 + i,) + (97 + i,) * 10) for i in range(9))
          + b']>\n<d:multistatus xmlns:d="DAV:"><d:response><d:href>/&j;</d:href></d:response></d:multistatus>\n')
XXE = (b'<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/hostname">]>\n'
       b'<d:multistatus xmlns:d="DAV:"><d:response><d:href>/&x;</d:href>'
       b'<d:propstat><d:prop><d:getetag>"&x;"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>'
       b'</d:response></d:multistatus>\n')


def send_body(conn, status, body, content_type=b"application/json", extra=()):
    conn.sendall(head(status, [("Content-Type", content_type), ("Content-Length", len(body)), *extra]) + body)


def answer(conn, method, path, port):
    if MODE == "huge":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % HUGE)
        block = b" " * (1 << 20)
        for _ in range(HUGE >> 20):
            conn.sendall(block)
    elif MODE in ("huge-chunked", "endless"):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        block = b" " * (1 << 20)
        chunk = b"%x\r\n" % len(block) + block + b"\r\n"
        n = 0
        while MODE == "endless" or n < HUGE >> 20:
            conn.sendall(chunk)
            n += 1
        conn.sendall(b"0\r\n\r\n")
    elif MODE in ("laughs", "xxe"):
        body = LAUGHS if MODE == "laughs" else XXE
        status = b"207 Multi-Status" if method == "PROPFIND" else b"200 OK"
        send_body(conn, status, body, b'application/xml; charset="utf-8"')
    elif MODE == "deep":
        send_body(conn, b"200 OK", b"[" * 100_000)
    elif MODE == "redirect":
        send_body(conn, b"302 Found", b"", extra=[("Location", "http://127.0.0.2:%d%s" % (port, path))])
    elif MODE == "lie":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2048\r\nConnection: close\r\n\r\n" + b"{" * 1024)
        return False
    return True


def serve(conn, port, n):
    reader = Reader(conn)
    while (request := read_request(reader, partial=True)) and answer(conn, request.method, request.target, port):
        pass


def main():
    serve_loopback(serve)


if __name__ == "__main__":
    main()
