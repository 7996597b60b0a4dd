#!/usr/bin/env python3
"""A loopback HTTP/1.1 server with scripted edge cases, for SocketTransportTests.

Usage: http_edge_server.py      prints its port on the first line of stdout, then serves.

Every answer carries `X-Connection: N`, the number of the connection it came on (1, 2, ...,
counting connections that sent a request), so a test can tell a reused connection from a new
one. By path:

  /echo          200, the request body echoed back (Content-Length), kept alive
  /drop-next     200 "armed"; the next request on this connection is read, then the
                 connection is closed without an answer (a kept-alive connection the
                 server gave up on just as the client reused it)
  /continue      a 100 Continue, then 200 "after continue"
  /until-close   HTTP/1.0 200 with no length: the body ends when the connection closes
                 (over TLS with close_notify)
  /until-close-cut  the same; over TLS the connection closes without close_notify
  /chunked       200, a chunked body with an extension and a trailer: "hello world"
  /stall         reads the request and never answers
  /redirect      302 to /echo on the same host
  /to-https      302 to https://127.0.0.1:PORT/secure
  /early         413 as soon as the head is read, without reading the body, then close
Anything else is 404.
"""
import os
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testserver_http import Reader, head, read_body, read_head, serve_loopback  # noqa: E402


def answer(conn, n, status, body, extra=()):
    conn.sendall(head(status, [("X-Connection", n), ("Content-Length", len(body)), *extra]) + body)


# Connections are numbered in the order their first request arrived: one that closes without a
# request (a test's `openssl s_client` check of the TLS certificate) takes no number.
_numbers = {"next": 0}
_numbers_lock = threading.Lock()


def _number():
    with _numbers_lock:
        _numbers["next"] += 1
        return _numbers["next"]


def serve(conn, port, _accepted):
    reader = Reader(conn)
    drop_next = False
    n = None
    while True:
        request = read_head(reader)
        if n is None:
            n = _number()
        path = request.target
        if path == "/early":
            conn.sendall(b"HTTP/1.1 413 Payload Too Large\r\nX-Connection: %d\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbig!" % n)
            conn.shutdown(socket.SHUT_WR)
            return
        body = read_body(reader, request, partial=True)
        if drop_next:
            return
        if path == "/echo":
            answer(conn, n, b"200 OK", body)
        elif path == "/drop-next":
            drop_next = True
            answer(conn, n, b"200 OK", b"armed")
        elif path == "/continue":
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            answer(conn, n, b"200 OK", b"after continue")
        elif path in ("/until-close", "/until-close-cut"):
            conn.sendall(b"HTTP/1.0 200 OK\r\nX-Connection: %d\r\n\r\nuntil the end" % n)
            if path == "/until-close" and hasattr(conn, "unwrap"):
                # Over TLS the end is proven by close_notify (sent by unwrap); -cut leaves it out.
                conn.unwrap()
            return
        elif path == "/chunked":
            conn.sendall(b"HTTP/1.1 200 OK\r\nX-Connection: %d\r\nTransfer-Encoding: chunked\r\n\r\n"
                         b"5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n" % n)
        elif path == "/stall":
            threading.Event().wait()
        elif path == "/redirect":
            answer(conn, n, b"302 Found", b"", [("Location", "/echo")])
        elif path == "/to-https":
            answer(conn, n, b"302 Found", b"", [("Location", "https://127.0.0.1:%d/secure" % port)])
        else:
            answer(conn, n, b"404 Not Found", b"no such path")


def main():
    serve_loopback(serve)


if __name__ == "__main__":
    main()
