#!/usr/bin/env python3
"""A link of a fixed speed on loopback, for the benchmarks (issue 29). Stdlib only.

Listens on a loopback port and relays every TCP connection to one upstream (host:port), both
ways, as they are: it does not read HTTP. Each direction is one shared link of --rate bytes per
second: the bytes of every connection going the same way queue for the same link, as on a real
line, so two downloads at once share its speed. A chunk of n bytes occupies the link for
n / rate seconds from the moment the link is free, and is forwarded when that time has passed;
chunks are at most 16 KiB, so the pace is smooth at a hundredth of a second's scale. The link
is a token bucket of BURST bytes: a link idle for a moment lets that much through at once, so
the proxy's own delays (a late wake-up from sleep) are not charged to the link, and over any
stretch longer than a burst no more than rate bytes a second cross it.

Prints the port it listens on as its first line of standard output.

Usage: throttle_proxy.py --upstream 127.0.0.1:PORT [--port 0] [--rate 10000000]
"""

import argparse
import socket
import sys
import threading
import time

CHUNK = 16 * 1024
BURST = 64 * 1024


class Link:
    """One direction of the line: when it is free next, shared by every connection."""

    def __init__(self, rate):
        self.rate = float(rate)
        self.free_at = 0.0
        self.lock = threading.Lock()

    def cross(self, n):
        """Waits until n bytes have crossed the link after those queued before them."""
        with self.lock:
            start = max(time.monotonic() - BURST / self.rate, self.free_at)
            self.free_at = start + n / self.rate
            done = self.free_at
        delay = done - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def relay(source, target, link):
    try:
        while True:
            data = source.recv(CHUNK)
            if not data:
                break
            link.cross(len(data))
            target.sendall(data)
    except OSError:
        pass
    finally:
        for s, how in ((target, socket.SHUT_WR), (source, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass


def serve(client, upstream, up_link, down_link):
    try:
        server = socket.create_connection(upstream)
    except OSError:
        client.close()
        return
    for s in (client, server):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    up = threading.Thread(target=relay, args=(client, server, up_link), daemon=True)
    up.start()
    relay(server, client, down_link)
    up.join()
    client.close()
    server.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--rate", type=float, default=10_000_000, help="bytes per second, each way")
    args = parser.parse_args()
    host, _, port = args.upstream.rpartition(":")
    upstream = (host or "127.0.0.1", int(port))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    up_link, down_link = Link(args.rate), Link(args.rate)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, upstream, up_link, down_link), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
