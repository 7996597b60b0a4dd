"""HTTP/1.1 plumbing shared by the Python test servers (issue 25). Standard library only.

fault_proxy.py, hostile_server.py and http_edge_server.py read requests from raw sockets (so
that they can answer in ways no HTTP library would: resets, stalls, lying lengths);
imgur_standin.py runs on http.server and shares only the body decoding. A script started as
`scripts/<name>.py` imports this module from its own folder:

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import testserver_http as http

What is here:
  Reader(sock)                   buffered reads: line() (CRLF, at most MAX_LINE bytes),
                                 exactly(n), upto(n) (short only at end of input), buffered
  read_head(reader)              the request line and headers: a Request, body not read
  read_request(reader)           read_head and the body; None when the client closed between
                                 requests
  decode_body(header, readline, read)   a body by chunked framing or Content-Length, from any
                                 reader (a Reader, or http.server's rfile)
  Request                        method, target, version, headers [(name, value)], body;
                                 header(name), wants_close
  head(status, headers)          the bytes of an answer's head, headers in the order given
  serve_loopback(handle, ...)    listens on 127.0.0.1, prints the port (the first line of
                                 stdout, flushed), runs handle(conn, port, n) on a thread for
                                 the n-th connection and closes the connection after it;
                                 over TLS when AISYNC_TEST_SERVER_TLS names a folder holding
                                 good.pem and good.key (Tests/Fixtures/tls/make-certs.py):
                                 the same answers, for the same tests over https://
Errors: Closed (the client closed the connection), BadRequest (a malformed or oversized head).
"""
import os
import socket
import ssl
import threading

MAX_LINE = 64 << 10  # bytes in one request or header line
MAX_HEADERS = 200  # header lines in one request


class Closed(Exception):
    """The client closed the connection (or sent nothing more)."""


class BadRequest(ValueError):
    """A request head that cannot be parsed or is over the limits."""


class Reader:
    """Buffered reads from a client socket; what a request leaves unread stays for the next."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    @property
    def buffered(self):
        """Bytes received and not yet read."""
        return len(self.buf)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise Closed()
        self.buf += chunk

    def line(self):
        """The next line without its CRLF."""
        while b"\r\n" not in self.buf:
            if len(self.buf) > MAX_LINE:
                raise BadRequest("line too long")
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        if len(line) > MAX_LINE:
            raise BadRequest("line too long")
        return line

    def exactly(self, n):
        """n bytes; Closed when the connection ends first."""
        while len(self.buf) < n:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def upto(self, n):
        """n bytes, or fewer when the connection ends first."""
        try:
            return self.exactly(n)
        except Closed:
            data, self.buf = self.buf, b""
            return data


class Request:
    def __init__(self, method, target, version, headers, body=None):
        self.method, self.target, self.version, self.headers, self.body = method, target, version, headers, body

    def header(self, name, default=""):
        """The first value of a header, by case-insensitive name."""
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), default)

    @property
    def wants_close(self):
        """`Connection: close`, or HTTP/1.0."""
        return "close" in self.header("connection").lower() or self.version == "HTTP/1.0"


def read_head(reader):
    """The request line and headers (latin-1 text); stray CRLFs before the request are skipped.
    Closed when the connection ends, BadRequest when the head is malformed or too large."""
    line = reader.line()
    while line == b"":
        line = reader.line()
    parts = line.decode("latin-1").split(" ", 2)
    if len(parts) < 2:
        raise BadRequest("bad request line")
    method, target = parts[0], parts[1]
    version = parts[2] if len(parts) == 3 else "HTTP/0.9"
    headers = []
    while True:
        h = reader.line()
        if h == b"":
            break
        if len(headers) == MAX_HEADERS:
            raise BadRequest("too many headers")
        name, _, value = h.decode("latin-1").partition(":")
        headers.append((name.strip(), value.strip()))
    return Request(method, target, version, headers)


def decode_body(header, readline, read):
    """A request body as its headers frame it: chunked (extensions and trailers skipped), else
    Content-Length, else none. header(name) gives a header's value or ""; readline() a line
    (its line ending optional); read(n) n bytes. The readers decide what a short input does."""
    if "chunked" in header("transfer-encoding").lower():
        out = bytearray()
        while True:
            size = int(readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while readline().rstrip(b"\r\n"):  # trailers, up to the blank line or the end
                    pass
                return bytes(out)
            out += read(size)
            readline()
    try:
        length = int(header("content-length") or 0)
    except ValueError:
        raise BadRequest("bad Content-Length") from None
    return read(length) if length > 0 else b""


def read_body(reader, request, partial=False):
    """The request's body from the reader; with partial, a connection that ends early gives what
    arrived (instead of Closed)."""
    return decode_body(request.header, reader.line, reader.upto if partial else reader.exactly)


def read_request(reader, partial=False):
    """One whole request (read_head, then read_body), or None when the client closed the
    connection before a request began."""
    try:
        request = read_head(reader)
    except Closed:
        return None
    request.body = read_body(reader, request, partial)
    return request


def _bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("latin-1")


def head(status, headers=(), version=b"HTTP/1.1"):
    """An answer's head: `HTTP/1.1 <status>` (status such as "200 OK"), the headers in the
    order given (values may be str, bytes or int), the blank line."""
    lines = [_bytes(version) + b" " + _bytes(status)]
    lines += [_bytes(k) + b": " + _bytes(v) for k, v in headers]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def serve_loopback(handle, port=0, backlog=16, nodelay=False):
    """Listens on 127.0.0.1:port (0: a free one), prints the port as the first line of stdout,
    then runs handle(conn, port, n) on a daemon thread for the n-th connection (1, 2, ...).
    The connection is closed after handle returns; Closed, BadRequest and OSError from it end
    the connection quietly. Never returns."""
    tls = None
    folder = os.environ.get("AISYNC_TEST_SERVER_TLS")
    if folder:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(os.path.join(folder, "good.pem"), os.path.join(folder, "good.key"))
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(backlog)
    port = listener.getsockname()[1]
    print(port, flush=True)
    n = 0
    while True:
        conn, _ = listener.accept()
        if nodelay:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        n += 1
        threading.Thread(target=_run, args=(handle, conn, port, n, tls), daemon=True).start()


def _run(handle, conn, port, n, tls=None):
    try:
        if tls is not None:
            # The handshake on the connection's own thread: a client that stalls in it
            # holds up no other connection.
            conn = tls.wrap_socket(conn, server_side=True)
        handle(conn, port, n)
    except (Closed, BadRequest, OSError):
        pass
    finally:
        conn.close()
