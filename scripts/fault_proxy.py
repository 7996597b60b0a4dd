#!/usr/bin/env python3
"""A fault-injecting HTTP/1.1 proxy for aisync's network-fault tests (issue 10). Stdlib only.

Listens on a loopback port and forwards every request, with the same path, to one upstream
server (the Apache WebDAV test server: give its scheme, host and port), keeping client connections alive across requests. With a seeded RNG it
turns a share of the requests (--rate, default 0.15) into one of these faults:

  reset_before        the request (and its body) is read, then the connection is reset; nothing
                      reaches the upstream
  reset_mid           the upstream's answer is forwarded only in part (half the body, or half
                      the header block when there is no body), then the connection is reset
  put_applied_reset   (PUT only) forwarded and applied upstream, then the connection is reset
                      instead of answering
  put_dropped_reset   (PUT only) the body is received, then the connection is reset; the PUT is
                      never forwarded
  status_500/502/503  answered by the proxy itself; a 503 carries `Retry-After: 1` every other time
  slow                forwarded after a delay (--slow seconds, default 1.0: far under a client's
                      30 s timeout)
  short_body          the answer announces more bytes (Content-Length) than it sends, and the
                      connection is closed after the short body

A fault that does not fit a request (a PUT fault on a GET, a short body on an answer without
one) becomes `reset_before`. The choices are a pure function of the seed and the order in
which requests arrive: request n draws the n-th numbers of `random.Random(seed)`.

Every request is logged as one JSON line in --log: {n, method, path, fault, reused, status,
ms, bytes, t (Unix time when it ended), up_ms (of ms, the time the upstream took)}; `reused` says whether the client connection had carried a request before, `bytes`
is the size of the request body. A request cut off before its whole body arrived is logged as
{method, path, incomplete: true, bytes (received so far), reused}.

Control (answered by the proxy, never forwarded):
  GET /__fault_proxy__/rate/R         set the fault rate to R (0 turns faults off)
  GET /__fault_proxy__/next/F[/M]     the next request (with method M, and on a reused
                                      connection when M ends in `+reused`) gets fault F
  GET /__fault_proxy__/clear          forget the faults `next` queued and no request took
  GET /__fault_proxy__/stats          JSON: requests and faults so far, by kind (every command
                                      answers with these)

Usage: fault_proxy.py --upstream http://127.0.0.1:PORT [--port 0] [--rate 0.15] [--seed N]
                      [--log FILE] [--slow SECONDS]
Prints the port it listens on as the first line of stdout once it accepts connections.
"""
import argparse
import http.client
import json
import os
import random
import socket
import struct
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testserver_http import Closed, Reader, read_body, read_head, serve_loopback  # noqa: E402
from testserver_http import head as response_head  # noqa: E402

FAULTS = ["reset_before", "reset_mid", "put_applied_reset", "put_dropped_reset",
          "status_500", "status_502", "status_503", "slow", "short_body"]
CONTROL = "/__fault_proxy__/"
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
              "upgrade", "expect", "content-length"}


class Incomplete(Exception):
    """The client closed the connection in the middle of a request (e.g. a body shorter than
    its Content-Length): logged, since a client that sends headers without their body is
    what issue 10's upload stall looked like from the server."""

    def __init__(self, method, target, received):
        super().__init__(method, target, received)
        self.method, self.target, self.received = method, target, received


class State:
    def __init__(self, args):
        self.lock = threading.Lock()
        self.rng = random.Random(args.seed)
        self.rate = args.rate
        self.slow = args.slow
        self.seed = args.seed
        self.count = 0
        self.faults = {}
        self.forced = []  # [(fault, method or None, reused_only)]
        self.retry_after_toggle = 0
        self.log = open(args.log, "a", buffering=1) if args.log else None

    def choose(self, method, reused):
        """The request's number and fault (None for none), drawn in arrival order."""
        with self.lock:
            self.count += 1
            n = self.count
            # Always two draws per request, so the sequence never depends on the rate.
            roll, pick = self.rng.random(), self.rng.randrange(len(FAULTS))
            fault = None
            for i, (f, m, reused_only) in enumerate(self.forced):
                if (m is None or m == method) and (reused or not reused_only):
                    fault = f
                    del self.forced[i]
                    break
            else:
                if roll < self.rate:
                    fault = FAULTS[pick]
            if fault in ("put_applied_reset", "put_dropped_reset") and method != "PUT":
                fault = "reset_before"
            retry_after = False
            if fault == "status_503":
                self.retry_after_toggle ^= 1
                retry_after = bool(self.retry_after_toggle)
            return n, fault, retry_after

    def record(self, entry):
        entry["t"] = round(time.time(), 3)
        with self.lock:
            if entry.get("fault"):
                self.faults[entry["fault"]] = self.faults.get(entry["fault"], 0) + 1
            if self.log:
                self.log.write(json.dumps(entry, sort_keys=True) + "\n")

    def stats(self):
        with self.lock:
            return {"requests": self.count, "faults": dict(self.faults), "injected": sum(self.faults.values()),
                    "rate": self.rate, "seed": self.seed}


def reset(sock):
    """Closes with an RST (SO_LINGER 0), as a crashed server or a middlebox would."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


def read_request(reader, sock):
    """One request with its body, after a 100 Continue when it asks for one. Raises Closed at
    EOF, Incomplete when the body is cut off."""
    request = read_head(reader)
    if request.header("expect").lower() == "100-continue":
        sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    try:
        request.body = read_body(reader, request)
        return request
    except (Closed, ConnectionError, socket.timeout) as e:
        raise Incomplete(request.method, request.target, reader.buffered) from e


def forward(upstream, method, target, headers, body):
    """Sends the request upstream on a fresh connection; (status, reason, [(name, value)], body)."""
    conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
    try:
        conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        for name, value in headers:
            if name.lower() not in HOP_BY_HOP:
                conn.putheader(name, value)
        if body or method in ("PUT", "POST", "PROPFIND", "PROPPATCH"):
            conn.putheader("Content-Length", str(len(body)))
        conn.putheader("Connection", "close")
        conn.endheaders(body if body else None)
        response = conn.getresponse()
        data = response.read()
        return response.status, response.reason, response.getheaders(), data
    finally:
        conn.close()


def render(status, reason, headers, body, method, content_length=None, close=False):
    """The answer's bytes, re-framed with a Content-Length (and `Connection: close` with `close`)."""
    lines = [("Connection", "close")] if close else []
    lines += [(name, value) for name, value in headers if name.lower() not in HOP_BY_HOP]
    no_body = method == "HEAD" or status in (204, 304) or 100 <= status < 200
    if content_length is not None:
        lines.append(("Content-Length", content_length))
    elif method == "HEAD":
        declared = [v for k, v in headers if k.lower() == "content-length"]
        if declared:
            lines.append(("Content-Length", declared[0]))
    elif status not in (204, 304):
        lines.append(("Content-Length", len(body)))
    return response_head(f"{status} {reason}", lines), (b"" if no_body else body)


def handle(sock, state, upstream):
    reader = Reader(sock)
    served = 0
    sock.settimeout(120)
    try:
        while True:
            try:
                request = read_request(reader, sock)
            except Incomplete as e:
                state.record({"method": e.method, "path": urllib.parse.urlsplit(e.target).path, "incomplete": True,
                              "bytes": e.received, "reused": served > 0})
                return
            except (Closed, ConnectionError, socket.timeout, ValueError):
                return
            method, target, headers, body = request.method, request.target, request.headers, request.body
            reused = served > 0
            served += 1
            started = time.monotonic()
            wants_close = request.wants_close
            if target.startswith(CONTROL):
                answer = control(state, target[len(CONTROL):])
                payload = (json.dumps(answer) + "\n").encode()
                sock.sendall(render(200, "OK", [("Content-Type", "application/json")], payload, "GET")[0] + payload)
                if wants_close:
                    return
                continue
            n, fault, retry_after = state.choose(method, reused)
            entry = {"n": n, "method": method, "path": urllib.parse.urlsplit(target).path, "fault": fault,
                     "reused": reused, "bytes": len(body)}

            def done(status=None):
                entry["status"] = status
                entry["ms"] = int((time.monotonic() - started) * 1000)
                state.record(entry)

            if fault in ("reset_before", "put_dropped_reset"):
                done()
                reset(sock)
                return
            if fault and fault.startswith("status_"):
                code = int(fault[-3:])
                extra = [("Retry-After", "1")] if retry_after else []
                text = f"fault_proxy: injected {code}\n".encode()
                reasons = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
                head, payload = render(code, reasons[code], [("Content-Type", "text/plain")] + extra, text, method, close=wants_close)
                sock.sendall(head + payload)
                done(code)
                if wants_close:
                    return
                continue
            if fault == "slow":
                time.sleep(state.slow)
            try:
                forwarded = time.monotonic()
                status, reason, rheaders, rbody = forward(upstream, method, target, headers, body)
                entry["up_ms"] = int((time.monotonic() - forwarded) * 1000)
            except (OSError, http.client.HTTPException) as e:
                entry["upstream_error"] = str(e)
                done(502)
                head, payload = render(502, "Bad Gateway", [("Content-Type", "text/plain")], b"upstream failed\n", method)
                sock.sendall(head + payload)
                return
            if fault == "put_applied_reset":
                done(status)
                reset(sock)
                return
            has_body = method != "HEAD" and status not in (204, 304) and len(rbody) > 0
            if fault == "short_body" and not has_body:
                fault = entry["fault"] = "reset_mid"
            if fault == "reset_mid":
                head, payload = render(status, reason, rheaders, rbody, method)
                data = head + payload[: len(payload) // 2] if payload else head[: len(head) // 2]
                sock.sendall(data)
                done(status)
                reset(sock)
                return
            if fault == "short_body":
                head, payload = render(status, reason, rheaders, rbody, method, content_length=len(rbody) + 1000)
                sock.sendall(head + payload)
                done(status)
                sock.shutdown(socket.SHUT_RDWR)
                sock.close()
                return
            head, payload = render(status, reason, rheaders, rbody, method, close=wants_close)
            sock.sendall(head + payload)
            done(status)
            if wants_close:
                return
    except (ConnectionError, socket.timeout, OSError):
        return
    finally:
        try:
            sock.close()
        except OSError:
            pass


def control(state, command):
    parts = [urllib.parse.unquote(p) for p in command.split("/") if p]
    if parts[:1] == ["rate"] and len(parts) == 2:
        with state.lock:
            state.rate = float(parts[1])
    elif parts[:1] == ["next"] and len(parts) in (2, 3) and parts[1] in FAULTS:
        method, reused_only = None, False
        if len(parts) == 3:
            method = parts[2]
            if method.endswith("+reused"):
                method, reused_only = method[: -len("+reused")], True
        with state.lock:
            state.forced.append((parts[1], method, reused_only))
    elif parts == ["clear"]:
        with state.lock:
            state.forced.clear()
    elif parts[:1] != ["stats"]:
        return {"error": f"unknown command {command}"}
    return state.stats()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--rate", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slow", type=float, default=1.0)
    parser.add_argument("--log")
    args = parser.parse_args()
    upstream = urllib.parse.urlsplit(args.upstream)
    state = State(args)
    serve_loopback(lambda client, port, n: handle(client, state, upstream), port=args.port, backlog=64, nodelay=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
