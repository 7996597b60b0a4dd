#!/usr/bin/env python3
"""Imgur API v3 stand-in for aisync's tests (issue 4). Python 3 standard library only.

Imgur cannot be reached from the test machines, so this server plays Imgur's documented API v3
contract on loopback: the {data, success, status} envelope, the auth headers, the rate-limit
headers and 429s, re-encoding of large images (served bytes differ from the upload), deletion by
deletehash, the removed.png redirect, and every failure shape of issue 4 on demand.

Usage
    imgur_standin.py --client-id ID [--token TOKEN[=USER]] [--port 0] [--url-file F] [options]
    imgur_standin.py --self-test [-v]

On start it prints `listening on http://127.0.0.1:PORT` (one line, flushed) and, with
--url-file, writes that URL plus "\\n" to the file (atomically, after the socket listens), so a
script can wait for the file. SIGTERM/SIGINT stop it (exit 0). State is in memory; served image
bytes are files in --data-dir (default: a temporary folder removed at exit).

Options (sizes in bytes; "over" means strictly greater than)
    --host 127.0.0.1       --port 0 (0 = a free port)      --url-file FILE    --data-dir DIR
    --media-base URL       default http://127.0.0.1:PORT/media (links are <media base>/<id>.<ext>)
    --client-id ID         accepted `Authorization: Client-ID ID` (repeatable)
    --token TOKEN[=USER]   accepted `Authorization: Bearer TOKEN` for account USER (repeatable;
                           default USER is account1, account2, ... ; account_id 1001, 1002, ...)
    --max-bytes N          20971520 (20 MiB)   larger uploads: 400 "File is over the size limit"
    --png-to-jpeg-bytes N  5242880 (5 MiB)     still PNG over it is served as JPEG
    --anon-compress-bytes N    1048576 (1 MiB) still image over it (Client-ID) is recompressed
    --account-compress-bytes N 5242880 (5 MiB) still image over it (Bearer) is recompressed
    --post-limit N 1250  --post-window S 3600  POSTs per IP (X-Post-Rate-Limit-*)
    --user-limit N 500   --user-window S 3600  credits per IP (X-RateLimit-User*)
    --client-limit N 12500 --client-window S 86400  credits per credential (X-RateLimit-Client*)
    --upload-cost N 10     credits an upload costs (Imgur: 10); every other API call costs 1
    --rate-limit-shape envelope|errors   body of a natural 429 (default envelope, see below)
    --user-reset-style epoch|seconds     X-RateLimit-UserReset as unix time (documented, default)
                                         or as seconds left (what api.imgur.com was seen sending)
    --seed N               deterministic ids/deletehashes      -v/--verbose  log requests

API (every path also accepts a ".json" suffix; every API response is JSON except where noted)
    POST /3/image, POST /3/upload    upload. multipart/form-data or x-www-form-urlencoded fields:
        image (file part, raw bytes with type=file, base64 with type=base64; without `type` a
        part with a filename or bytes that sniff as an image are raw, else base64 is tried;
        type=url or an http(s) URL: 400, the stand-in fetches nothing), title, description,
        name (default: the part's filename, else ""). Accepted types: PNG (APNG), JPEG, GIF,
        WebP; width/height are read from the headers. Anything else: 400 error_object
        {"code":1003,"message":"File type invalid (1)","type":"ImgurException","exception":[]}.
        No image field: 400 "No image data was sent to the upload api".
        200: {"data":{id(7 alnum),title,description,datetime,type,animated,width,height,
        size(served bytes),views,bandwidth,vote,favorite,nsfw,section,account_url,account_id,
        is_ad,in_most_viral,has_sound,tags,ad_type,ad_url,edited,in_gallery,
        deletehash(15 alnum),name,link},"success":true,"status":200}
        (anonymous: account_url null, account_id 0; Bearer: the account's name and id).
    GET /3/image/{id}       the same model (deletehash only for the owner's Bearer token);
    GET /3/account/me/images[/{page}]  Bearer only: the account's images, newest first, 50 a page;
                            unknown, deleted or removed: 404 "Unable to find an image with the
                            id, {id}".
    DELETE /3/image/{deletehash}  any credential;  DELETE /3/image/{id}  Bearer of the owner
                            -> {"data":true,"success":true,"status":200}. Unknown or already
                            deleted: 404; an id owned by another account (or anonymous): 403
                            "Permission denied".
    GET /3/credits          {"data":{UserLimit,UserRemaining,UserReset,ClientLimit,
                            ClientRemaining},...} (costs nothing)
    Other /3 paths: 404 "Not found".
    Errors use {"data":{"error":MSG,"request":PATH,"method":METHOD},"success":false,"status":N}.

Auth (as Imgur answers; checked on every /3 call)
    no Authorization header                 401 "Authentication required"
    not `Client-ID x` / `Bearer x`          403 "Malformed auth header"
    unknown Client-ID                       403 "Invalid client_id"
    unknown Bearer token                    403 "The access token provided is invalid."

Re-encoding (what Imgur documents: PNG over 5 MB becomes JPEG; still images over 1 MB
anonymous / 5 MB account are compressed; small images are served byte-identical). Animated
GIF/APNG/WebP are never re-encoded. Simulated without an image library, deterministically:
    png_to_jpeg   a valid baseline JPEG (flat grey) of the same width/height carrying a COM
                  segment with the original's sha256: type image/jpeg, link .jpg
    compressed    JPEG -> such a JPEG (much smaller); PNG -> a tEXt chunk inserted after IHDR;
                  GIF -> a comment extension after the colour table; WebP -> an extra RIFF chunk
    `size` and the ETag always describe the served bytes.

Media (never rate limited; CDN side)
    GET/HEAD <media path>/<id>.<ext>  200 bytes, Content-Type, Content-Length, ETag "<md5>",
                            Last-Modified, Cache-Control; If-None-Match -> 304. The extension is
                            not checked (Imgur serves the id).
    deleted, removed or unknown id   302 Found, Location: <media base>/removed.png
    <media path>/removed.png         200, a real 161x81 PNG (Imgur's placeholder size), fixed ETag
    The media path is /media, and also the path of --media-base when that differs.

Rate limits (documented at api.imgur.com "Rate Limits"; credits: uploads 10, other calls 1)
    Every /3 response carries X-RateLimit-UserLimit, X-RateLimit-UserRemaining,
    X-RateLimit-UserReset (unix time), X-RateLimit-ClientLimit, X-RateLimit-ClientRemaining,
    and X-RateLimit-ClientReset (seconds; undocumented but sent by Imgur); every POST also
    X-Post-Rate-Limit-Limit, X-Post-Rate-Limit-Remaining, X-Post-Rate-Limit-Reset (seconds until
    reset). Exception: the `503_empty` / `503_html` edge failures carry none of them.
    Buckets: post and user per client IP, client per credential; a window starts at first use.
    A POST with no post credit left, or a call costing more than the user or client credits
    left, gets 429 and changes nothing: with --rate-limit-shape envelope
    {"data":{"error":"Too Many Requests","request":...,"method":...},"success":false,
    "status":429}, with `errors` the newer shape (see errors_array). Failed calls that got past
    auth and the limit check still cost credits (a 400 upload costs an upload).

Control API (not under /3; no auth, no rate limits, not counted)
    POST /__control/fail   {"shape": S, "count": N=1, "status": code?, "message": text?,
                           "match": "api"|"upload"|"delete"|"info"|"media"|"any" = "api",
                           "delay": seconds?}  queues a rule for the next N matching requests
                           (rules are used first-queued-first; "api" = every /3 request).
                           -> {"queued": rule, "pending": [...]}
    POST /__control/reset  forget images (and their files), counters, rules, buckets; limits
                           back to the command line's.
    POST /__control/rate   {"post_limit","post_window","user_limit","user_window",
                           "client_limit","client_window","upload_cost","max_bytes",
                           "png_to_jpeg_bytes","anon_compress_bytes","account_compress_bytes",
                           "rate_limit_shape","user_reset_style"} (any subset) changes them; a
                           changed number also refills every bucket (new windows start).
    POST /__control/remove {"id": ID}  the image disappears upstream (Imgur removed it; not a
                           client delete): media 302 -> removed.png, info 404.
    GET  /__control/state  {"uploads","deletes","removed","requests","rate_limited",
                           "failures_injected","pending":[rules],"limits":{...},
                           "images":[{id,deletehash,link,type,width,height,size,original_size,
                           original_sha256,served_sha256,transform,account,title,description,
                           name,datetime,deleted,removed,views}]}
    Shapes (default status; "status"/"message" override):
      over_capacity_403   403 {"data":{"error":"Imgur is temporarily over capacity. Please try
                          again later."},"success":false,"status":403}  (as Imgur sends it: no
                          request/method)
      over_capacity_500   the same with 500
      503_empty           503, empty body, no rate-limit headers
      503_html            503, text/html "Imgur is over capacity!" page, no rate-limit headers
      error_string        400 data.error "File is over the size limit"
      error_object        400 data.error {"code":1003,"message":"File type invalid (1)",
                          "type":"ImgurException","exception":[]}
      errors_array        400 {"errors":[{"id":"legacy-api-...","code":"400","status":"Bad
                          Request","detail":"Bad Request"}]} (Content-Type
                          application/vnd.imgur.v1+json; no `data`; code is the HTTP status as a
                          string and status its reason phrase, as Imgur sends it)
      unauthorized        401 data.error "Authentication required"
      invalid_client_id   403 data.error "Invalid client_id"
      invalid_token       403 data.error "The access token provided is invalid."
      rate_limited        429 data.error "Too Many Requests", rate headers with
                          X-RateLimit-UserRemaining 0 (and X-Post-Rate-Limit-Remaining 0 on POST)
      rate_limited_errors the same headers, body in the errors_array shape with code "429"
      upload_too_fast     429 data.error {"code":429,"message":"You are uploading too fast.
                          Please wait 37 more minutes.","type":"ImgurException","exception":[]}
      drop_after_store    the request is carried out (the upload is stored, the delete done,
                          credits spent) and the connection is closed without an answer
      drop_before_store   the connection is closed without an answer; nothing happens
"""

import argparse
import base64
import hashlib
import http.client
import json
import math
import os
import random
import re
import secrets
import shutil
import signal
import ssl
import socket
import string
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testserver_http import decode_body  # noqa: E402

MIB = 1024 * 1024
ALNUM = string.ascii_letters + string.digits

OVER_CAPACITY = "Imgur is temporarily over capacity. Please try again later."
OVER_CAPACITY_HTML = (
    "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<title>Imgur overloaded. Hang in there with kittens</title>\n</head>\n<body>\n"
    "<h1>Imgur is over capacity!</h1>\n<p>Sorry! We're busy running around with our hair on "
    "fire because Imgur is over capacity! This can happen when the site is under a very heavy "
    "load, or while we're doing maintenance.<br><br>Please <a href=\"/\">try again</a> in a few "
    "minutes.</p>\n</body>\n</html>\n")
FILE_TYPE_INVALID = {"code": 1003, "message": "File type invalid (1)", "type": "ImgurException",
                     "exception": []}
UPLOAD_TOO_FAST = {"code": 429, "message": "You are uploading too fast. Please wait 37 more minutes.",
                   "type": "ImgurException", "exception": []}
REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           413: "Payload Too Large", 415: "Unsupported Media Type", 429: "Too Many Requests",
           500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
           504: "Gateway Timeout"}

SHAPES = {  # shape -> default status
    "over_capacity_403": 403, "over_capacity_500": 500, "503_empty": 503, "503_html": 503,
    "error_string": 400, "error_object": 400, "errors_array": 400, "unauthorized": 401,
    "invalid_client_id": 403, "invalid_token": 403, "rate_limited": 429,
    "rate_limited_errors": 429, "upload_too_fast": 429, "drop_after_store": 0,
    "drop_before_store": 0,
}
MATCHES = ("api", "upload", "delete", "info", "media", "any")

# ---------------------------------------------------------------------------------------------
# Image formats: sniffing, dimensions, and the simulated re-encodings


def _png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def make_png(width, height, pixel_rows):
    """A real 8-bit RGB PNG. pixel_rows: `height` byte strings of width*3 bytes."""
    raw = b"".join(b"\x00" + row for row in pixel_rows)
    return (b"\x89PNG\r\n\x1a\n"
            + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + _png_chunk(b"IDAT", zlib.compress(raw, 9))
            + _png_chunk(b"IEND", b""))


def make_removed_png():
    """Imgur's removed.png is 161x81; ours is a flat dark image of that size with a caption."""
    w, h = 161, 81
    rows = []
    for y in range(h):
        row = bytearray()
        for x in range(w):
            border = x < 2 or y < 2 or x >= w - 2 or y >= h - 2
            row += b"\x8a\x8a\x8a" if border else b"\x2b\x2b\x2b"
        rows.append(bytes(row))
    png = make_png(w, h, rows)
    text = b"Comment\x00The image you are requesting does not exist or is no longer available."
    return png[:33] + _png_chunk(b"tEXt", text) + png[33:]


REMOVED_PNG = make_removed_png()


def make_jpeg(width, height, comment=b""):
    """A valid baseline greyscale JPEG of the given size, every 8x8 block flat mid-grey.

    DC and AC Huffman tables each hold one 1-bit code ('0' = DC difference 0, '0' = EOB), so
    the scan is two zero bits per block. `comment` goes into COM segments."""
    width = max(1, min(int(width or 1), 65535))
    height = max(1, min(int(height or 1), 65535))

    def seg(marker, payload):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload

    out = b"\xff\xd8" + seg(0xE0, b"JFIF\x00\x01\x01\x00" + struct.pack(">HH", 1, 1) + b"\x00\x00")
    for i in range(0, len(comment), 65000):
        out += seg(0xFE, comment[i:i + 65000])
    out += seg(0xDB, b"\x00" + bytes([1] * 64))
    out += seg(0xC0, b"\x08" + struct.pack(">HH", height, width) + b"\x01\x01\x11\x00")
    out += seg(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00")
    out += seg(0xC4, b"\x10" + bytes([1] + [0] * 15) + b"\x00")
    out += seg(0xDA, b"\x01\x01\x00\x00\x3f\x00")
    blocks = math.ceil(width / 8) * math.ceil(height / 8)
    nbits = blocks * 2
    scan = b"\x00" * (nbits // 8)
    if nbits % 8:
        scan += bytes([(1 << (8 - nbits % 8)) - 1])  # pad the last byte with 1 bits
    return out + scan + b"\xff\xd9"


class ImageInfo:
    def __init__(self, mime, ext, width, height, animated):
        self.mime, self.ext, self.width, self.height, self.animated = mime, ext, width, height, animated


def _png_info(data):
    if len(data) < 33 or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    animated, pos = False, 8
    while pos + 8 <= len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        if kind == b"acTL":
            animated = True
        if kind in (b"IDAT", b"IEND"):
            break
        pos += 12 + length
    return ImageInfo("image/png", "png", width, height, animated)


def _jpeg_info(data):
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            pos += 1
            continue
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        if marker in (0xD9, 0xDA):
            break
        length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC) and pos + 9 <= len(data):
            height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
            return ImageInfo("image/jpeg", "jpg", width, height, False)
        pos += 2 + length
    return ImageInfo("image/jpeg", "jpg", 0, 0, False)


def _gif_frames(data):
    """Number of image descriptors (frames), walking the block structure; 1 if unreadable."""
    try:
        pos = 13
        flags = data[10]
        if flags & 0x80:
            pos += 3 * (2 ** ((flags & 7) + 1))
        frames = 0
        while pos < len(data):
            b = data[pos]
            if b == 0x3B:
                break
            if b == 0x21:
                pos += 2
            elif b == 0x2C:
                frames += 1
                lflags = data[pos + 9]
                pos += 10
                if lflags & 0x80:
                    pos += 3 * (2 ** ((lflags & 7) + 1))
                pos += 1  # LZW minimum code size
            else:
                break
            while pos < len(data) and data[pos] != 0:  # sub-blocks
                pos += 1 + data[pos]
            pos += 1
        return max(frames, 1)
    except IndexError:
        return 1


def _gif_info(data):
    if len(data) < 13:
        return None
    width, height = struct.unpack("<HH", data[6:10])
    return ImageInfo("image/gif", "gif", width, height, _gif_frames(data) > 1)


def _webp_info(data):
    if len(data) < 30:
        return None
    kind, body = data[12:16], data[20:]
    if kind == b"VP8 " and body[3:6] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", body[6:10])
        return ImageInfo("image/webp", "webp", w & 0x3FFF, h & 0x3FFF, False)
    if kind == b"VP8L" and body[0] == 0x2F:
        bits = struct.unpack("<I", body[1:5])[0]
        return ImageInfo("image/webp", "webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, False)
    if kind == b"VP8X":
        w = int.from_bytes(body[4:7], "little") + 1
        h = int.from_bytes(body[7:10], "little") + 1
        return ImageInfo("image/webp", "webp", w, h, bool(body[0] & 0x02))
    return None


def sniff(data):
    """ImageInfo for PNG/APNG, JPEG, GIF or WebP bytes, else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png_info(data)
    if data.startswith(b"\xff\xd8\xff"):
        return _jpeg_info(data)
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return _gif_info(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_info(data)
    return None


def _marker(original):
    return b"imgur-standin: re-encoded from sha256:" + hashlib.sha256(original).hexdigest().encode()


def compress_same_type(data, info):
    """The 'lossily compressed' bytes: same type, different bytes, still a valid file."""
    mark = _marker(data)
    if info.mime == "image/jpeg":
        return make_jpeg(info.width, info.height, mark)
    if info.mime == "image/png":
        return data[:33] + _png_chunk(b"tEXt", b"Comment\x00" + mark) + data[33:]
    if info.mime == "image/gif":
        pos = 13
        if data[10] & 0x80:
            pos += 3 * (2 ** ((data[10] & 7) + 1))
        return data[:pos] + b"\x21\xfe" + bytes([len(mark)]) + mark + b"\x00" + data[pos:]
    if info.mime == "image/webp":
        chunk = b"ISTD" + struct.pack("<I", len(mark)) + mark + (b"\x00" if len(mark) % 2 else b"")
        body = data[8:] + chunk
        return b"RIFF" + struct.pack("<I", len(body)) + body
    return data + mark


# ---------------------------------------------------------------------------------------------
# Request body parsing


def parse_multipart(body, content_type):
    """{name: (bytes, filename or None, part content type or None)}; first occurrence wins."""
    m = re.search(r'boundary=(?:"([^"]+)"|([^;\s]+))', content_type, re.I)
    if not m:
        raise ValueError("multipart without boundary")
    boundary = (m.group(1) or m.group(2)).encode()
    fields = {}
    chunks = (b"\r\n" + body).split(b"\r\n--" + boundary)
    for chunk in chunks[1:]:
        if chunk.startswith(b"--"):
            break
        nl = chunk.find(b"\r\n")
        if nl < 0:
            continue
        chunk = chunk[nl + 2:]
        head, sep, content = chunk.partition(b"\r\n\r\n")
        if not sep:
            continue
        name = filename = ctype = None
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            key = key.strip().lower()
            if key == "content-disposition":
                for pm in re.finditer(r';\s*([\w*]+)=(?:"((?:[^"\\]|\\.)*)"|([^;]*))', value):
                    pname = pm.group(1).lower()
                    pval = pm.group(2) if pm.group(2) is not None else pm.group(3).strip()
                    if pname == "name":
                        name = pval
                    elif pname == "filename":
                        filename = pval
                    elif pname == "filename*" and filename is None:
                        filename = urllib.parse.unquote(pval.split("''", 1)[-1])
            elif key == "content-type":
                ctype = value.strip()
        if name is not None and name not in fields:
            fields[name] = (content, filename, ctype)
    return fields


def parse_urlencoded(body):
    fields = {}
    for name, value in urllib.parse.parse_qsl(body.decode("latin-1"), keep_blank_values=True,
                                              encoding="latin-1"):
        if name not in fields:
            fields[name] = (value.encode("latin-1"), None, None)
    return fields


def decode_base64(value):
    text = value.decode("latin-1").strip()
    if text.startswith("data:") and "," in text:
        text = text.split(",", 1)[1]
    text = re.sub(r"\s", "", text.replace(" ", "+"))
    text = text.replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    return base64.b64decode(text, validate=True)


# ---------------------------------------------------------------------------------------------
# State


class Bucket:
    def __init__(self, limit, window):
        self.limit, self.window = limit, window
        self.remaining, self.reset_at = limit, None

    def refresh(self, now):
        if self.reset_at is None or now >= self.reset_at:
            self.remaining, self.reset_at = self.limit, now + self.window


class Image:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class Config:
    FIELDS = ("max_bytes", "png_to_jpeg_bytes", "anon_compress_bytes", "account_compress_bytes",
              "post_limit", "post_window", "user_limit", "user_window", "client_limit",
              "client_window", "upload_cost", "rate_limit_shape", "user_reset_style")

    def __init__(self, ns):
        for f in self.FIELDS:
            setattr(self, f, getattr(ns, f))
        self.client_ids = list(ns.client_id or [])
        self.tokens = {}  # token -> (account name, account id)
        for i, spec in enumerate(ns.token or []):
            token, _, user = spec.partition("=")
            self.tokens[token] = (user or "account%d" % (i + 1), 1001 + i)
        self.host = ns.host
        self.media_base = ns.media_base
        self.seed = ns.seed
        self.verbose = ns.verbose

    def limits(self):
        return {f: getattr(self, f) for f in self.FIELDS}


class State:
    def __init__(self, config, data_dir):
        self.lock = threading.RLock()
        self.config = config
        self.base_limits = config.limits()
        self.data_dir = data_dir
        self.rng = random.Random(config.seed) if config.seed is not None else secrets.SystemRandom()
        self.media_base = None  # set once the port is known
        self.reset()

    def reset(self):
        with self.lock:
            for k, v in self.base_limits.items():
                setattr(self.config, k, v)
            self.images = {}        # id -> Image
            self.by_hash = {}       # deletehash -> id
            self.rules = []
            self.post_buckets, self.user_buckets, self.client_buckets = {}, {}, {}
            self.counts = {"uploads": 0, "deletes": 0, "removed": 0, "requests": 0,
                           "rate_limited": 0, "failures_injected": 0}
            for name in os.listdir(self.data_dir):
                path = os.path.join(self.data_dir, name)
                if os.path.isfile(path):
                    os.unlink(path)

    def new_token(self, n):
        with self.lock:
            while True:
                t = "".join(self.rng.choice(ALNUM) for _ in range(n))
                if t not in self.images and t not in self.by_hash:
                    return t

    # rate limits ------------------------------------------------------------------------------
    def _bucket(self, table, key, limit, window, now):
        b = table.get(key)
        if b is None:
            b = table[key] = Bucket(limit, window)
        b.refresh(now)
        return b

    def buckets(self, ip, cred, now):
        c = self.config
        return (self._bucket(self.post_buckets, ip, c.post_limit, c.post_window, now),
                self._bucket(self.user_buckets, ip, c.user_limit, c.user_window, now),
                self._bucket(self.client_buckets, cred, c.client_limit, c.client_window, now))

    def charge(self, ip, cred, is_post, cost):
        """True and credits spent, or False (a 429) and nothing spent."""
        with self.lock:
            post, user, client = self.buckets(ip, cred, time.time())
            if (is_post and post.remaining < 1) or user.remaining < cost or client.remaining < cost:
                self.counts["rate_limited"] += 1
                return False
            if is_post:
                post.remaining -= 1
            user.remaining -= cost
            client.remaining -= cost
            return True

    def rate_headers(self, ip, cred, is_post, exhausted=False):
        with self.lock:
            now = time.time()
            post, user, client = self.buckets(ip, cred, now)
            if self.config.user_reset_style == "seconds":
                user_reset = math.ceil(user.reset_at - now)
            else:
                user_reset = int(math.ceil(user.reset_at))
            h = [("X-RateLimit-UserLimit", user.limit),
                 ("X-RateLimit-UserRemaining", 0 if exhausted else user.remaining),
                 ("X-RateLimit-UserReset", user_reset),
                 ("X-RateLimit-ClientLimit", client.limit),
                 ("X-RateLimit-ClientRemaining", client.remaining),
                 ("X-RateLimit-ClientReset", math.ceil(client.reset_at - now))]
            if is_post:
                h += [("X-Post-Rate-Limit-Limit", post.limit),
                      ("X-Post-Rate-Limit-Remaining", 0 if exhausted else post.remaining),
                      ("X-Post-Rate-Limit-Reset", math.ceil(post.reset_at - now))]
            return [(k, str(v)) for k, v in h]

    def credits(self, ip, cred):
        with self.lock:
            now = time.time()
            _, user, client = self.buckets(ip, cred, now)
            return {"UserLimit": user.limit, "UserRemaining": user.remaining,
                    "UserReset": int(math.ceil(user.reset_at)), "ClientLimit": client.limit,
                    "ClientRemaining": client.remaining}

    # failure rules ----------------------------------------------------------------------------
    def take_rule(self, kind):
        with self.lock:
            for rule in self.rules:
                m = rule["match"]
                if m == "any" or m == kind or (m == "api" and kind != "media"):
                    rule["count"] -= 1
                    if rule["count"] <= 0:
                        self.rules.remove(rule)
                    self.counts["failures_injected"] += 1
                    return dict(rule)
            return None

    def snapshot(self):
        with self.lock:
            images = []
            for im in self.images.values():
                images.append({k: getattr(im, k) for k in (
                    "id", "deletehash", "link", "type", "width", "height", "size", "original_size",
                    "original_sha256", "served_sha256", "transform", "account", "title",
                    "description", "name", "datetime", "deleted", "removed", "views")})
            images.sort(key=lambda d: (d["datetime"], d["id"]))
            out = dict(self.counts)
            out["pending"] = [dict(r) for r in self.rules]
            out["limits"] = self.config.limits()
            out["images"] = images
            return out


# ---------------------------------------------------------------------------------------------
# HTTP


class Resp:
    def __init__(self, status, body=b"", ctype=None, headers=None):
        self.status, self.body, self.ctype = status, body, ctype
        self.headers = list(headers or [])


def envelope(data, status, success):
    return json.dumps({"data": data, "success": success, "status": status},
                      separators=(",", ":")).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None  # set on the subclass made by make_server

    def version_string(self):
        return "cat factory 1.0 (imgur-standin)"

    def log_message(self, fmt, *args):
        if self.state.config.verbose:
            sys.stderr.write("imgur-standin: %s %s\n" % (self.address_string(), fmt % args))

    # plumbing ---------------------------------------------------------------------------------
    def read_body(self):
        return decode_body(lambda name: self.headers.get(name, ""), lambda: self.rfile.readline(65537), self.rfile.read)

    def send(self, resp, head=False):
        self.send_response(resp.status, REASONS.get(resp.status))
        if resp.ctype:
            self.send_header("Content-Type", resp.ctype)
        for k, v in resp.headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(resp.body)))
        self.end_headers()
        if not head and resp.body:
            self.wfile.write(resp.body)

    def drop(self):
        """Close the connection without a byte of answer."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def media_prefixes(self):
        prefixes = ["/media"]
        path = urllib.parse.urlsplit(self.state.media_base).path.rstrip("/")
        if path != "/media":
            prefixes.append(path)
        return prefixes

    def media_name(self, path):
        for prefix in self.media_prefixes():
            if path.startswith(prefix + "/"):
                name = path[len(prefix) + 1:]
                if re.fullmatch(r"[A-Za-z0-9]+(\.[A-Za-z0-9]+)?", name):
                    return name
        return None

    # dispatch ---------------------------------------------------------------------------------
    def do_GET(self):
        self.dispatch("GET")

    def do_HEAD(self):
        self.dispatch("HEAD")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_PUT(self):
        self.dispatch("PUT")

    def dispatch(self, method):
        try:
            body = self.read_body()
        except (ValueError, OSError):
            self.close_connection = True
            self.send(Resp(400, b"bad request body\n", "text/plain"))
            return
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/__control/"):
            self.send(self.control(method, path, body))
            return
        if path == "/3" or path.startswith("/3/"):
            self.api(method, path, body)
            return
        name = self.media_name(path)
        if name is not None and method in ("GET", "HEAD"):
            self.media(method, name)
            return
        self.send(Resp(404, b"not found\n", "text/plain"), head=method == "HEAD")

    # failure shapes ---------------------------------------------------------------------------
    def failure(self, rule, request_path, method, ip, cred, is_api):
        shape = rule["shape"]
        status = int(rule.get("status") or SHAPES[shape])
        message = rule.get("message")
        is_post = method == "POST"

        def rate(exhausted=False):
            return self.state.rate_headers(ip, cred, is_post, exhausted) if is_api else []

        def env(error, extra=True):
            data = {"error": error}
            if extra:
                data.update({"request": request_path, "method": method})
            return Resp(status, envelope(data, status, False), "application/json", rate())

        def errors(code_status, exhausted=False):
            reason = REASONS.get(code_status, "Error")
            body = json.dumps({"errors": [{
                "id": "legacy-api-standin/%s-%d" % (self.state.new_token(10), self.state.counts["requests"]),
                "code": str(code_status), "status": reason, "detail": message or reason}]},
                separators=(",", ":")).encode()
            return Resp(code_status, body, "application/vnd.imgur.v1+json", rate(exhausted))

        if shape in ("over_capacity_403", "over_capacity_500"):
            return env(message or OVER_CAPACITY, extra=False)
        if shape == "503_empty":
            return Resp(status, b"")
        if shape == "503_html":
            return Resp(status, (message or OVER_CAPACITY_HTML).encode(), "text/html; charset=utf-8")
        if shape == "error_string":
            return env(message or "File is over the size limit")
        if shape == "error_object":
            err = dict(FILE_TYPE_INVALID)
            if message:
                err["message"] = message
            return env(err)
        if shape == "errors_array":
            return errors(status)
        if shape == "unauthorized":
            return env(message or "Authentication required")
        if shape == "invalid_client_id":
            return env(message or "Invalid client_id")
        if shape == "invalid_token":
            return env(message or "The access token provided is invalid.")
        if shape == "rate_limited":
            r = env(message or "Too Many Requests")
            r.headers = rate(exhausted=True)
            return r
        if shape == "rate_limited_errors":
            return errors(status, exhausted=True)
        if shape == "upload_too_fast":
            err = dict(UPLOAD_TOO_FAST)
            if message:
                err["message"] = message
            r = env(err)
            r.headers = rate(exhausted=True)
            return r
        raise ValueError(shape)

    # API --------------------------------------------------------------------------------------
    def error(self, status, message, request_path, method, headers):
        data = {"error": message, "request": request_path, "method": method}
        return Resp(status, envelope(data, status, False), "application/json", headers)

    def api(self, method, path, body):
        st = self.state
        ip = self.client_address[0]
        api_path = path[:-5] if path.endswith(".json") else path
        with st.lock:
            st.counts["requests"] += 1
        m = re.fullmatch(r"/3/image/([A-Za-z0-9]+)", api_path)
        if method == "POST" and api_path in ("/3/image", "/3/upload"):
            kind = "upload"
        elif method == "DELETE" and m:
            kind = "delete"
        elif method in ("GET", "HEAD") and m:
            kind = "info"
        elif method == "GET" and re.fullmatch(r"/3/account/me/images(?:/[0-9]+)?", api_path):
            kind = "account_images"
        else:
            kind = "other"
        rule = st.take_rule(kind)
        if rule and rule.get("delay"):
            time.sleep(float(rule["delay"]))
        if rule and rule["shape"] == "drop_before_store":
            self.drop()
            return
        auth = self.authenticate()
        cred = auth[1] if auth[0] != "error" else "anonymous"
        if rule and rule["shape"] != "drop_after_store":
            self.send(self.failure(rule, path, method, ip, cred, True), head=method == "HEAD")
            return
        resp = self.api_route(method, path, api_path, kind, m, body, auth, ip, cred)
        if rule:  # drop_after_store: the work is done, the answer is lost
            self.drop()
            return
        self.send(resp, head=method == "HEAD")

    def authenticate(self):
        header = self.headers.get("Authorization")
        cfg = self.state.config
        if not header or not header.strip():
            return ("error", 401, "Authentication required")
        m = re.fullmatch(r"\s*(Client-ID|Bearer)\s+(\S+)\s*", header, re.I)
        if not m:
            return ("error", 403, "Malformed auth header")
        scheme, value = m.group(1).lower(), m.group(2)
        if scheme == "client-id":
            if value in cfg.client_ids:
                return ("client", value, None)
            return ("error", 403, "Invalid client_id")
        if value in cfg.tokens:
            return ("bearer", value, cfg.tokens[value])
        return ("error", 403, "The access token provided is invalid.")

    def api_route(self, method, path, api_path, kind, m, body, auth, ip, cred):
        st = self.state
        is_post = method == "POST"
        if auth[0] == "error":
            return self.error(auth[1], auth[2], path, method, st.rate_headers(ip, cred, is_post))
        if api_path == "/3/credits" and method == "GET":
            return Resp(200, envelope(st.credits(ip, cred), 200, True), "application/json",
                        st.rate_headers(ip, cred, is_post))
        if kind == "other":
            return self.error(404, "Not found", path, method, st.rate_headers(ip, cred, is_post))
        cost = st.config.upload_cost if kind == "upload" else 1
        if not st.charge(ip, cred, is_post, cost):
            headers = st.rate_headers(ip, cred, is_post)
            if st.config.rate_limit_shape == "errors":
                return self.failure({"shape": "errors_array", "status": 429}, path, method, ip, cred, True)
            return self.error(429, "Too Many Requests", path, method, headers)
        headers = st.rate_headers(ip, cred, is_post)
        if kind == "account_images":
            return self.account_images(path, api_path, auth, headers)
        if kind == "upload":
            return self.upload(path, body, auth, headers)
        if kind == "delete":
            return self.delete(path, m.group(1), auth, headers)
        return self.info(path, method, m.group(1), auth, headers)

    def upload(self, path, body, auth, headers):
        st, cfg = self.state, self.state.config
        ctype = self.headers.get("Content-Type", "")
        try:
            if ctype.lower().startswith("multipart/form-data"):
                fields = parse_multipart(body, ctype)
            elif ctype.lower().startswith("application/x-www-form-urlencoded"):
                fields = parse_urlencoded(body)
            else:
                fields = {}
        except ValueError:
            fields = {}

        def text(name):
            v = fields.get(name)
            return v[0].decode("utf-8", "replace") if v is not None else None

        if "image" not in fields or not fields["image"][0]:
            return self.error(400, "No image data was sent to the upload api", path, "POST", headers)
        value, filename, _ = fields["image"]
        kind = (text("type") or "").strip().lower()
        if kind == "url" or (kind != "file" and re.match(rb"\s*https?://", value)):
            return self.error(400, "URL uploads are not supported by the stand-in (it fetches nothing)",
                              path, "POST", headers)
        data = value
        if kind == "base64" or (kind != "file" and filename is None and sniff(value) is None):
            try:
                data = decode_base64(value)
            except (ValueError, base64.binascii.Error):
                if kind == "base64":
                    return self.error(400, dict(FILE_TYPE_INVALID), path, "POST", headers)
                data = value
        if len(data) > cfg.max_bytes:
            return self.error(400, "File is over the size limit", path, "POST", headers)
        info = sniff(data)
        if info is None:
            return self.error(400, dict(FILE_TYPE_INVALID), path, "POST", headers)

        anonymous = auth[0] == "client"
        served, served_info, transform = data, info, "none"
        if not info.animated:
            if info.mime == "image/png" and len(data) > cfg.png_to_jpeg_bytes:
                served = make_jpeg(info.width, info.height, _marker(data))
                served_info = ImageInfo("image/jpeg", "jpg", info.width, info.height, False)
                transform = "png_to_jpeg"
            elif len(data) > (cfg.anon_compress_bytes if anonymous else cfg.account_compress_bytes):
                served = compress_same_type(data, info)
                transform = "compressed"
        account = auth[2]
        with st.lock:
            image_id = st.new_token(7)
            deletehash = st.new_token(15)
            with open(os.path.join(st.data_dir, image_id), "wb") as f:
                f.write(served)
            name = text("name")
            im = Image(
                id=image_id, deletehash=deletehash, title=text("title"),
                description=text("description"), datetime=int(time.time()),
                type=served_info.mime, ext=served_info.ext, animated=served_info.animated,
                width=served_info.width, height=served_info.height, size=len(served),
                views=0, account=account[0] if account else None,
                account_id=account[1] if account else 0,
                name=name if name is not None else (filename or ""),
                link="%s/%s.%s" % (st.media_base, image_id, served_info.ext),
                original_size=len(data), original_sha256=hashlib.sha256(data).hexdigest(),
                served_sha256=hashlib.sha256(served).hexdigest(),
                etag='"%s"' % hashlib.md5(served).hexdigest(), transform=transform,
                deleted=False, removed=False)
            st.images[image_id] = im
            st.by_hash[deletehash] = image_id
            st.counts["uploads"] += 1
        return Resp(200, envelope(self.model(im, True), 200, True), "application/json", headers)

    def model(self, im, with_deletehash):
        d = {"id": im.id, "title": im.title, "description": im.description,
             "datetime": im.datetime, "type": im.type, "animated": im.animated,
             "width": im.width, "height": im.height, "size": im.size, "views": im.views,
             "bandwidth": im.views * im.size, "vote": None, "favorite": False, "nsfw": None,
             "section": None, "account_url": im.account, "account_id": im.account_id,
             "is_ad": False, "in_most_viral": False, "has_sound": False, "tags": [],
             "ad_type": 0, "ad_url": "", "edited": "0", "in_gallery": False}
        if with_deletehash:
            d["deletehash"] = im.deletehash
        d["name"] = im.name
        d["link"] = im.link
        return d

    def account_images(self, path, api_path, auth, headers):
        """GET /3/account/me/images[/{page}] (Bearer only): the account's images, newest first,
        50 a page, with deletehash (the owner is asking), as Imgur's Account Images endpoint."""
        st = self.state
        if auth[0] != "bearer":
            return self.error(401, "Authentication required", path, "GET", headers)
        page = int(api_path.rsplit("/", 1)[1]) if api_path.rsplit("/", 1)[1].isdigit() else 0
        with st.lock:
            mine = [im for im in st.images.values()
                    if im.account is not None and im.account == auth[2][0] and not im.deleted and not im.removed]
            mine.sort(key=lambda im: im.datetime, reverse=True)
            data = [self.model(im, True) for im in mine[page * 50:(page + 1) * 50]]
        return Resp(200, envelope(data, 200, True), "application/json", headers)

    def info(self, path, method, key, auth, headers):
        st = self.state
        with st.lock:
            im = st.images.get(key)
            if im is None or im.deleted or im.removed:
                return self.error(404, "Unable to find an image with the id, %s" % key, path, method, headers)
            owner = auth[0] == "bearer" and im.account is not None and auth[2][0] == im.account
            return Resp(200, envelope(self.model(im, owner), 200, True), "application/json", headers)

    def delete(self, path, key, auth, headers):
        st = self.state
        with st.lock:
            im = None
            if key in st.by_hash:
                im = st.images[st.by_hash[key]]
            elif auth[0] == "bearer" and key in st.images:
                im = st.images[key]
                if im.account is None or im.account != auth[2][0]:
                    if not (im.deleted or im.removed):
                        return self.error(403, "Permission denied", path, "DELETE", headers)
            if im is None or im.deleted or im.removed:
                return self.error(404, "Unable to find an image with the id, %s" % key, path, "DELETE", headers)
            im.deleted = True
            st.counts["deletes"] += 1
            try:
                os.unlink(os.path.join(st.data_dir, im.id))
            except OSError:
                pass
        return Resp(200, envelope(True, 200, True), "application/json", headers)

    # media ------------------------------------------------------------------------------------
    def media(self, method, name):
        st = self.state
        rule = st.take_rule("media")
        if rule and rule.get("delay"):
            time.sleep(float(rule["delay"]))
        if rule and rule["shape"] == "drop_before_store":
            self.drop()
            return
        if rule and rule["shape"] != "drop_after_store":
            self.send(self.failure(rule, self.path, method, self.client_address[0], "anonymous", False),
                      head=method == "HEAD")
            return
        resp = self.media_response(method, name)
        if rule:
            self.drop()
            return
        self.send(resp, head=method == "HEAD")

    def media_response(self, method, name):
        st = self.state
        if name == "removed.png":
            etag = '"%s"' % hashlib.md5(REMOVED_PNG).hexdigest()
            if etag in self.headers.get("If-None-Match", ""):
                return Resp(304, b"", None, [("ETag", etag)])
            return Resp(200, REMOVED_PNG, "image/png",
                        [("ETag", etag), ("Cache-Control", "public, max-age=31536000")])
        image_id = name.split(".", 1)[0]
        with st.lock:
            im = st.images.get(image_id)
            if im is None or im.deleted or im.removed:
                return Resp(302, b"", None, [("Location", st.media_base + "/removed.png")])
            headers = [("ETag", im.etag), ("Last-Modified", formatdate(im.datetime, usegmt=True)),
                       ("Cache-Control", "public, max-age=31536000")]
            if im.etag in self.headers.get("If-None-Match", ""):
                return Resp(304, b"", None, headers)
            try:
                with open(os.path.join(st.data_dir, im.id), "rb") as f:
                    data = f.read()
            except OSError:
                return Resp(302, b"", None, [("Location", st.media_base + "/removed.png")])
            if method == "GET":
                im.views += 1
            return Resp(200, data, im.type, headers)

    # control ----------------------------------------------------------------------------------
    def control(self, method, path, body):
        st = self.state

        def answer(obj, status=200):
            return Resp(status, json.dumps(obj, indent=1).encode() + b"\n", "application/json")

        try:
            args = json.loads(body.decode() or "{}") if method == "POST" else {}
            if not isinstance(args, dict):
                raise ValueError("the body must be a JSON object")
        except ValueError as e:
            return answer({"error": "bad JSON: %s" % e}, 400)
        if path == "/__control/state" and method == "GET":
            return answer(st.snapshot())
        if method != "POST":
            return answer({"error": "unknown control endpoint %s %s" % (method, path)}, 404)
        if path == "/__control/reset":
            st.reset()
            return answer({"reset": True})
        if path == "/__control/fail":
            shape = args.get("shape")
            if shape not in SHAPES:
                return answer({"error": "unknown shape %r" % shape, "shapes": sorted(SHAPES)}, 400)
            match = args.get("match", "api")
            if match not in MATCHES:
                return answer({"error": "unknown match %r" % match, "matches": MATCHES}, 400)
            try:
                rule = {"shape": shape, "count": int(args.get("count", 1)), "match": match,
                        "status": int(args["status"]) if args.get("status") else None,
                        "message": args.get("message"), "delay": float(args.get("delay") or 0)}
            except (TypeError, ValueError) as e:
                return answer({"error": str(e)}, 400)
            if rule["count"] < 1:
                return answer({"error": "count must be at least 1"}, 400)
            with st.lock:
                st.rules.append(rule)
                return answer({"queued": rule, "pending": [dict(r) for r in st.rules]})
        if path == "/__control/rate":
            with st.lock:
                refill = False
                for key, value in args.items():
                    if key in ("rate_limit_shape", "user_reset_style"):
                        allowed = ("envelope", "errors") if key == "rate_limit_shape" else ("epoch", "seconds")
                        if value not in allowed:
                            return answer({"error": "%s must be one of %s" % (key, allowed)}, 400)
                        setattr(st.config, key, value)
                    elif key in Config.FIELDS:
                        try:
                            setattr(st.config, key, int(value))
                        except (TypeError, ValueError):
                            return answer({"error": "%s must be an integer" % key}, 400)
                        refill = True
                    else:
                        return answer({"error": "unknown limit %r" % key}, 400)
                if refill:  # new numbers: every bucket starts afresh
                    st.post_buckets, st.user_buckets, st.client_buckets = {}, {}, {}
                return answer({"limits": st.config.limits()})
        if path == "/__control/remove":
            with st.lock:
                im = st.images.get(str(args.get("id")))
                if im is None:
                    return answer({"error": "no image %r" % args.get("id")}, 404)
                if not im.removed:
                    im.removed = True
                    st.counts["removed"] += 1
                return answer({"removed": im.id})
        return answer({"error": "unknown control endpoint %s %s" % (method, path)}, 404)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_server(config, data_dir, port):
    state = State(config, data_dir)
    handler = type("BoundHandler", (Handler,), {"state": state})
    server = Server((config.host, port), handler)
    real_port = server.server_address[1]
    scheme = "http"
    folder = os.environ.get("AISYNC_TEST_SERVER_TLS")
    if folder:
        # Over TLS with the tests' certificates (Tests/Fixtures/tls/make-certs.py), as
        # api.imgur.com is reached over HTTPS.
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(os.path.join(folder, "good.pem"), os.path.join(folder, "good.key"))
        server.socket = tls.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    url = "%s://%s:%d" % (scheme, config.host, real_port)
    state.media_base = (config.media_base or url + "/media").rstrip("/")
    return server, state, url


# ---------------------------------------------------------------------------------------------
# Command line


def build_parser():
    p = argparse.ArgumentParser(description="Imgur API v3 stand-in (see the module docstring).")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--url-file")
    p.add_argument("--data-dir")
    p.add_argument("--media-base")
    p.add_argument("--client-id", action="append")
    p.add_argument("--token", action="append")
    p.add_argument("--max-bytes", type=int, default=20 * MIB)
    p.add_argument("--png-to-jpeg-bytes", type=int, default=5 * MIB)
    p.add_argument("--anon-compress-bytes", type=int, default=1 * MIB)
    p.add_argument("--account-compress-bytes", type=int, default=5 * MIB)
    p.add_argument("--post-limit", type=int, default=1250)
    p.add_argument("--post-window", type=int, default=3600)
    p.add_argument("--user-limit", type=int, default=500)
    p.add_argument("--user-window", type=int, default=3600)
    p.add_argument("--client-limit", type=int, default=12500)
    p.add_argument("--client-window", type=int, default=86400)
    p.add_argument("--upload-cost", type=int, default=10)
    p.add_argument("--rate-limit-shape", choices=("envelope", "errors"), default="envelope")
    p.add_argument("--user-reset-style", choices=("epoch", "seconds"), default="epoch")
    p.add_argument("--seed", type=int)
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--self-test", action="store_true")
    return p


def write_url_file(path, url):
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(url + "\n")
    os.replace(tmp, path)


def main(argv=None):
    ns = build_parser().parse_args(argv)
    if ns.self_test:
        return self_test(ns.verbose)
    if not ns.client_id and not ns.token:
        print("imgur_standin.py: give at least one --client-id or --token", file=sys.stderr)
        return 2
    config = Config(ns)
    own_dir = ns.data_dir is None
    data_dir = tempfile.mkdtemp(prefix="imgur-standin-") if own_dir else ns.data_dir
    os.makedirs(data_dir, exist_ok=True)
    server, _, url = make_server(config, data_dir, ns.port)

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("listening on " + url, flush=True)
    if ns.url_file:
        write_url_file(ns.url_file, url)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        if own_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 0


# ---------------------------------------------------------------------------------------------
# Self-test: every rule above, over real HTTP, with urllib / http.client only


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _request(url, method="GET", body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with _OPENER.open(req, timeout=10) as r:
            return r.status, dict(r.headers.items()), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers.items()), e.read()


def _multipart(fields, boundary="----standinBoundary7MA4YWxkTrZu0gW"):
    out = b""
    for name, value, filename in fields:
        out += b"--" + boundary.encode() + b"\r\n"
        disp = 'form-data; name="%s"' % name
        if filename:
            disp += '; filename="%s"' % filename
        out += ("Content-Disposition: %s\r\n" % disp).encode()
        if filename:
            out += b"Content-Type: application/octet-stream\r\n"
        out += b"\r\n" + (value if isinstance(value, bytes) else value.encode()) + b"\r\n"
    out += b"--" + boundary.encode() + b"--\r\n"
    return out, "multipart/form-data; boundary=" + boundary


def _noise_png(width, height, seed):
    rng = random.Random(seed)
    return make_png(width, height, [bytes(rng.getrandbits(8) for _ in range(width * 3)) for _ in range(height)])


def _gif(width, height, frames, pad=0):
    out = b"GIF89a" + struct.pack("<HH", width, height) + b"\x80\x00\x00" + b"\x00\x00\x00\xff\xff\xff"
    if pad:
        blob = b"x" * pad
        out += b"\x21\xfe"
        for i in range(0, len(blob), 255):
            piece = blob[i:i + 255]
            out += bytes([len(piece)]) + piece
        out += b"\x00"
    for _ in range(frames):
        out += b"\x21\xf9\x04\x00\x0a\x00\x00\x00"
        out += b"\x2c" + struct.pack("<HHHH", 0, 0, width, height) + b"\x00"
        out += b"\x02\x02\x44\x01\x00"
    return out + b"\x3b"


def _webp_vp8l(width, height, pad=0):
    bits = (width - 1) | ((height - 1) << 14)
    payload = b"\x2f" + struct.pack("<I", bits) + b"\x00" * (10 + pad)
    if len(payload) % 2:
        payload += b"\x00"
    chunk = b"VP8L" + struct.pack("<I", len(payload)) + payload
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def _webp_vp8(width, height):
    payload = b"\x00\x00\x00\x9d\x01\x2a" + struct.pack("<HH", width, height) + b"\x00" * 20
    chunk = b"VP8 " + struct.pack("<I", len(payload)) + payload
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def _webp_vp8x(width, height, animated):
    vp8x = bytes([0x02 if animated else 0, 0, 0, 0]) + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    chunk = b"VP8X" + struct.pack("<I", len(vp8x)) + vp8x + b"ANIM" + struct.pack("<I", 6) + b"\x00" * 6
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def _png_valid(data):
    """Signature, every chunk's CRC, IHDR first, IEND last."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return False
    pos, kinds = 8, []
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(kind + data[pos + 8:pos + 8 + length]) & 0xFFFFFFFF != crc:
            return False
        kinds.append(kind)
        pos += 12 + length
    return bool(kinds) and kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and pos == len(data)


def self_test(verbose=False):
    results = {"passed": 0, "failed": 0}

    def check(name, cond, detail=""):
        if cond:
            results["passed"] += 1
            if verbose:
                print("ok   " + name)
        else:
            results["failed"] += 1
            print("FAIL " + name + (": " + str(detail) if detail != "" else ""))
        return cond

    tmp = tempfile.mkdtemp(prefix="imgur-standin-selftest-")
    try:
        _self_test_cli(check, tmp)
        _self_test_server(check, tmp)
    except Exception as e:  # a crash is a failure, not a traceback-only exit
        import traceback
        traceback.print_exc()
        check("self-test ran to the end", False, repr(e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


def _self_test_cli(check, tmp):
    """The command line: stdout line, --url-file, answers, SIGTERM -> exit 0."""
    url_file = os.path.join(tmp, "url")
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--port", "0", "--client-id", "cli",
                             "--url-file", url_file, "--data-dir", os.path.join(tmp, "cli-data")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        check("cli prints 'listening on http://127.0.0.1:PORT'",
              re.fullmatch(r"listening on http://127\.0\.0\.1:\d+", line), line)
        deadline = time.time() + 10
        while not os.path.exists(url_file) and time.time() < deadline:
            time.sleep(0.05)
        url = open(url_file).read().strip() if os.path.exists(url_file) else ""
        check("cli writes the URL to --url-file", url and line.endswith(url), url)
        status, _, _ = _request(url + "/3/image/abcdefg", headers={"Authorization": "Client-ID cli"})
        check("cli server answers", status == 404, status)
        proc.send_signal(signal.SIGTERM)
        check("cli exits 0 on SIGTERM", proc.wait(timeout=10) == 0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    rc = subprocess.run([sys.executable, os.path.abspath(__file__), "--port", "0"],
                        capture_output=True, text=True, timeout=30).returncode
    check("cli refuses to start without credentials", rc == 2, rc)


def _self_test_server(check, tmp):
    ns = build_parser().parse_args([
        "--client-id", "anon-client", "--token", "tok-alice=alice", "--token", "tok-bob",
        "--max-bytes", "20000", "--png-to-jpeg-bytes", "9000", "--anon-compress-bytes", "3000",
        "--account-compress-bytes", "6000", "--seed", "7"])
    config = Config(ns)
    data_dir = os.path.join(tmp, "data")
    os.makedirs(data_dir)
    server, state, base = make_server(config, data_dir, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    anon = {"Authorization": "Client-ID anon-client"}
    alice = {"Authorization": "Bearer tok-alice"}
    bob = {"Authorization": "Bearer tok-bob"}

    def j(body):
        try:
            return json.loads(body)
        except ValueError:
            return None

    def control(path, obj=None):
        body = json.dumps(obj or {}).encode() if obj is not None or path != "/__control/state" else None
        status, _, out = _request(base + path, "POST" if body is not None else "GET", body,
                                  {"Content-Type": "application/json"} if body is not None else {})
        return status, j(out)

    def upload(data, auth, path="/3/image", extra=(), filename="pic.bin", as_type=None):
        fields = [("image", data, filename)]
        if as_type:
            fields.append(("type", as_type, None))
        fields += list(extra)
        body, ctype = _multipart(fields)
        h = dict(auth)
        h["Content-Type"] = ctype
        status, headers, out = _request(base + path, "POST", body, h)
        return status, headers, j(out), out

    def is_error_env(obj, status, request, method, message=None):
        return (isinstance(obj, dict) and obj.get("success") is False and obj.get("status") == status
                and isinstance(obj.get("data"), dict) and obj["data"].get("request") == request
                and obj["data"].get("method") == method
                and (message is None or obj["data"].get("error") == message))

    rate_names = ["X-RateLimit-UserLimit", "X-RateLimit-UserRemaining", "X-RateLimit-UserReset",
                  "X-RateLimit-ClientLimit", "X-RateLimit-ClientRemaining"]
    post_names = ["X-Post-Rate-Limit-Limit", "X-Post-Rate-Limit-Remaining", "X-Post-Rate-Limit-Reset"]

    def has_rate(headers, post):
        names = rate_names + (post_names if post else [])
        ok = all(n in headers and re.fullmatch(r"-?\d+", headers[n]) for n in names)
        return ok and (post or not any(n in headers for n in post_names))

    try:
        # --- auth ------------------------------------------------------------------------------
        small = _noise_png(10, 10, 1)
        st, h, obj, _ = upload(small, {})
        check("no Authorization -> 401 envelope", st == 401 and is_error_env(obj, 401, "/3/image", "POST",
                                                                            "Authentication required"), (st, obj))
        check("401 carries rate and post headers", has_rate(h, True), h)
        st, _, obj, _ = upload(small, {"Authorization": "Client-ID nope"})
        check("bad Client-ID -> 403 Invalid client_id", st == 403 and is_error_env(obj, 403, "/3/image", "POST",
                                                                                  "Invalid client_id"), (st, obj))
        st, _, obj, _ = upload(small, {"Authorization": "Bearer nope"})
        check("bad Bearer -> 403 invalid token", st == 403 and is_error_env(
            obj, 403, "/3/image", "POST", "The access token provided is invalid."), (st, obj))
        st, _, obj, _ = upload(small, {"Authorization": "Token x y"})
        check("malformed auth -> 403", st == 403 and is_error_env(obj, 403, "/3/image", "POST",
                                                                 "Malformed auth header"), (st, obj))
        check("rejected auth stores nothing", control("/__control/state")[1]["uploads"] == 0)

        # --- anonymous small PNG upload: byte-identical ------------------------------------------
        st, h, obj, raw = upload(small, anon, extra=[("title", "A fox", None), ("description", "dall-e", None)])
        d = (obj or {}).get("data") or {}
        check("upload 200 envelope", st == 200 and obj.get("success") is True and obj.get("status") == 200, (st, raw[:300]))
        expected_keys = ["id", "title", "description", "datetime", "type", "animated", "width", "height", "size",
                         "views", "bandwidth", "vote", "favorite", "nsfw", "section", "account_url", "account_id",
                         "is_ad", "in_most_viral", "has_sound", "tags", "ad_type", "ad_url", "edited", "in_gallery",
                         "deletehash", "name", "link"]
        check("upload data has Imgur's image model keys", list(d.keys()) == expected_keys, list(d.keys()))
        check("id is 7 alphanumerics", re.fullmatch(r"[A-Za-z0-9]{7}", d.get("id", "")), d.get("id"))
        check("deletehash is 15 alphanumerics", re.fullmatch(r"[A-Za-z0-9]{15}", d.get("deletehash", "")))
        check("anonymous: account_url null, account_id 0", d.get("account_url") is None and d.get("account_id") == 0)
        check("title/description echoed", d.get("title") == "A fox" and d.get("description") == "dall-e")
        check("name defaults to the part filename", d.get("name") == "pic.bin", d.get("name"))
        check("type/width/height/size of a small PNG", d.get("type") == "image/png" and d.get("width") == 10
              and d.get("height") == 10 and d.get("size") == len(small) and d.get("animated") is False, d)
        check("datetime is now", abs(d.get("datetime", 0) - time.time()) < 60)
        check("fixed fields", d.get("views") == 0 and d.get("bandwidth") == 0 and d.get("vote") is None
              and d.get("favorite") is False and d.get("nsfw") is None and d.get("tags") == []
              and d.get("in_gallery") is False and d.get("is_ad") is False)
        check("link is <media base>/<id>.png", d.get("link") == "%s/media/%s.png" % (base, d.get("id")), d.get("link"))
        check("upload response has rate + post headers", has_rate(h, True), h)
        check("post remaining counts down", h.get("X-Post-Rate-Limit-Remaining") == "1249", h.get("X-Post-Rate-Limit-Remaining"))
        check("upload costs 10 user/client credits", h.get("X-RateLimit-UserRemaining") == "490"
              and h.get("X-RateLimit-ClientRemaining") == "12490", h)
        check("X-RateLimit-UserReset is a unix time about an hour ahead",
              3500 < int(h.get("X-RateLimit-UserReset", 0)) - time.time() <= 3601, h.get("X-RateLimit-UserReset"))
        check("X-Post-Rate-Limit-Reset is seconds left", 0 < int(h.get("X-Post-Rate-Limit-Reset", 0)) <= 3600)
        check("JSON content type", h.get("Content-Type") == "application/json")
        first = d
        st, mh, body = _request(first["link"])
        check("media serves the identical bytes", st == 200 and body == small, st)
        check("media Content-Type and ETag", mh.get("Content-Type") == "image/png"
              and mh.get("ETag") == '"%s"' % hashlib.md5(small).hexdigest(), mh)
        check("media has no rate headers", "X-RateLimit-UserLimit" not in mh)
        st, mh2, body = _request(first["link"], headers={"If-None-Match": mh.get("ETag", "")})
        check("If-None-Match -> 304", st == 304 and body == b"", st)
        st, mh3, body = _request(first["link"], "HEAD")
        check("HEAD media: headers, no body", st == 200 and body == b"" and mh3.get("Content-Length") == str(len(small)))

        # --- other ways to send the image --------------------------------------------------------
        st, _, obj, _ = upload(base64.b64encode(small), anon, filename=None, as_type="base64")
        check("type=base64 multipart", st == 200 and obj["data"]["size"] == len(small), (st, obj))
        st, _, obj, _ = upload(small, anon, path="/3/upload", as_type="file")
        check("/3/upload with type=file", st == 200 and obj["data"]["type"] == "image/png", (st, obj))
        st, _, obj, _ = upload(base64.b64encode(small), anon, filename=None)
        check("base64 without type is detected", st == 200 and obj["data"]["width"] == 10, (st, obj))
        form = urllib.parse.urlencode({"image": base64.b64encode(small).decode(), "type": "base64",
                                       "title": "form"}).encode()
        st, _, out = _request(base + "/3/image", "POST", form, dict(anon, **{"Content-Type": "application/x-www-form-urlencoded"}))
        check("x-www-form-urlencoded base64", st == 200 and j(out)["data"]["title"] == "form", (st, out[:200]))
        st, _, obj, _ = upload(small, anon, path="/3/image.json")
        check("/3/image.json accepted", st == 200, st)
        st, _, obj, _ = upload(small, anon, extra=[("name", "fox.png", None)])
        check("name field wins", obj["data"]["name"] == "fox.png", obj["data"]["name"])
        body, ctype = _multipart([("image", small, "c.png")])
        conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
        conn.putrequest("POST", "/3/image")
        conn.putheader("Authorization", anon["Authorization"])
        conn.putheader("Content-Type", ctype)
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        for i in range(0, len(body), 100):
            piece = body[i:i + 100]
            conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
        conn.send(b"0\r\n\r\n")
        r = conn.getresponse()
        out = r.read()
        check("chunked request body", r.status == 200 and j(out)["data"]["size"] == len(small), (r.status, out[:200]))
        conn.request("GET", "/3/image/" + first["id"], headers=anon)
        r = conn.getresponse()
        r.read()
        check("keep-alive: a second request on the same connection", r.status == 200, r.status)
        conn.close()

        # --- dimensions of every accepted type ----------------------------------------------------
        jpeg = make_jpeg(33, 17, b"hello")
        for label, data, mime, w, hh, anim in (
                ("JPEG", jpeg, "image/jpeg", 33, 17, False),
                ("GIF", _gif(12, 7, 1), "image/gif", 12, 7, False),
                ("animated GIF", _gif(12, 7, 3), "image/gif", 12, 7, True),
                ("WebP VP8L", _webp_vp8l(300, 200), "image/webp", 300, 200, False),
                ("WebP VP8", _webp_vp8(640, 480), "image/webp", 640, 480, False),
                ("WebP VP8X animated", _webp_vp8x(1000, 700, True), "image/webp", 1000, 700, True)):
            st, _, obj, _ = upload(data, anon)
            dd = (obj or {}).get("data") or {}
            check("%s: type, width, height, animated" % label, st == 200 and dd.get("type") == mime
                  and dd.get("width") == w and dd.get("height") == hh and dd.get("animated") is anim, (st, dd))
            check("%s: link extension" % label, dd.get("link", "").endswith("." + {"image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}[mime]))

        # --- re-encoding ---------------------------------------------------------------------------
        mid_png = _noise_png(40, 40, 2)   # ~4.9 KB: over anon 3000, under account 6000, under jpeg 9000
        check("(fixture) mid PNG size between thresholds", 3000 < len(mid_png) <= 6000, len(mid_png))
        st, _, obj, _ = upload(mid_png, anon)
        dd = obj["data"]
        st2, mh, served = _request(dd["link"])
        check("anonymous PNG over 1 MB-threshold: still PNG", dd["type"] == "image/png" and dd["link"].endswith(".png"))
        check("anonymous PNG over threshold: served bytes differ", served != mid_png and st2 == 200)
        check("anonymous PNG over threshold: size is the served length", dd["size"] == len(served) != len(mid_png), (dd["size"], len(served)))
        check("compressed PNG is a valid PNG with the same dimensions", _png_valid(served) and sniff(served).width == 40)
        check("ETag describes the served bytes", mh.get("ETag") == '"%s"' % hashlib.md5(served).hexdigest())
        st, _, obj, _ = upload(mid_png, alice)
        dd = obj["data"]
        st2, _, served = _request(dd["link"])
        check("account PNG under 5 MB-threshold: byte-identical", served == mid_png and dd["size"] == len(mid_png))
        check("account upload: account_url and account_id", dd["account_url"] == "alice" and dd["account_id"] == 1001, dd)
        big_png = _noise_png(60, 60, 3)   # ~10.9 KB: over png-to-jpeg 9000
        check("(fixture) big PNG over the JPEG threshold", 9000 < len(big_png) <= 20000, len(big_png))
        for label, auth in (("anonymous", anon), ("account", alice)):
            st, _, obj, _ = upload(big_png, auth)
            dd = obj["data"]
            st2, mh, served = _request(dd["link"])
            check("%s PNG over 5 MB-threshold becomes JPEG" % label, dd["type"] == "image/jpeg"
                  and dd["link"].endswith(".jpg") and mh.get("Content-Type") == "image/jpeg", dd)
            check("%s PNG->JPEG: valid-looking JPEG, same dimensions" % label, served[:3] == b"\xff\xd8\xff"
                  and served[-2:] == b"\xff\xd9" and sniff(served).width == 60 and sniff(served).height == 60
                  and dd["width"] == 60 and dd["height"] == 60)
            check("%s PNG->JPEG: size is the served length" % label, dd["size"] == len(served) != len(big_png))
        other_big = _noise_png(60, 60, 4)
        st, _, obj, _ = upload(other_big, anon)
        _, _, served_other = _request(obj["data"]["link"])
        check("different originals give different served JPEGs", served_other != served)
        big_jpeg = make_jpeg(50, 40, b"z" * 4000)
        st, _, obj, _ = upload(big_jpeg, anon)
        dd = obj["data"]
        _, _, served = _request(dd["link"])
        check("anonymous JPEG over threshold: recompressed, differs", dd["type"] == "image/jpeg" and served != big_jpeg
              and dd["size"] == len(served) and sniff(served).width == 50)
        st, _, obj, _ = upload(big_jpeg, alice)
        _, _, served = _request(obj["data"]["link"])
        check("account JPEG under its threshold: identical", served == big_jpeg)
        still_gif = _gif(8, 8, 1, pad=4000)
        st, _, obj, _ = upload(still_gif, anon)
        _, _, served = _request(obj["data"]["link"])
        check("still GIF over threshold: differs, still GIF", served != still_gif and served[:6] == b"GIF89a"
              and obj["data"]["size"] == len(served) and _gif_frames(served) == 1)
        anim_gif = _gif(8, 8, 2, pad=4000)
        st, _, obj, _ = upload(anim_gif, anon)
        _, _, served = _request(obj["data"]["link"])
        check("animated GIF over threshold: untouched", served == anim_gif and obj["data"]["animated"] is True)
        big_webp = _webp_vp8l(20, 20, pad=4000)
        st, _, obj, _ = upload(big_webp, anon)
        _, _, served = _request(obj["data"]["link"])
        check("still WebP over threshold: differs, valid RIFF", served != big_webp and served[:4] == b"RIFF"
              and struct.unpack("<I", served[4:8])[0] == len(served) - 8 and sniff(served).width == 20)

        # --- 400s -----------------------------------------------------------------------------
        huge = _noise_png(90, 90, 5)
        check("(fixture) huge PNG over --max-bytes", len(huge) > 20000, len(huge))
        before = control("/__control/state")[1]["uploads"]
        st, h, obj, _ = upload(huge, anon)
        check("over --max-bytes -> 400 error string", st == 400 and is_error_env(
            obj, 400, "/3/image", "POST", "File is over the size limit"), (st, obj))
        check("400 has rate headers", has_rate(h, True))
        st, _, obj, _ = upload(b"%PDF-1.4 not an image at all", anon, filename="x.pdf")
        check("unsupported type -> 400 error object", st == 400 and is_error_env(obj, 400, "/3/image", "POST")
              and obj["data"]["error"] == FILE_TYPE_INVALID, (st, obj))
        st, _, obj, _ = upload(b"!!!not base64!!!", anon, filename=None, as_type="base64")
        check("bad base64 -> 400 error object", st == 400 and obj["data"]["error"]["code"] == 1003, (st, obj))
        body, ctype = _multipart([("title", "no image", None)])
        st, _, out = _request(base + "/3/image", "POST", body, dict(anon, **{"Content-Type": ctype}))
        check("no image field -> 400", st == 400 and j(out)["data"]["error"] == "No image data was sent to the upload api")
        st, _, obj, _ = upload(b"https://example.com/a.png", anon, filename=None, as_type="url")
        check("type=url -> 400 (nothing fetched)", st == 400 and obj["success"] is False)
        check("400s store nothing", control("/__control/state")[1]["uploads"] == before)

        # --- info ------------------------------------------------------------------------------
        st, h, out = _request(base + "/3/image/" + first["id"], headers=anon)
        obj = j(out)
        check("GET /3/image/{id}", st == 200 and obj["data"]["id"] == first["id"] and obj["data"]["link"] == first["link"])
        check("GET info: no deletehash for Client-ID", "deletehash" not in obj["data"])
        check("GET info: rate headers, no post headers", has_rate(h, False), h)
        st, _, out = _request(base + "/3/image/" + first["id"])
        check("GET info without auth -> 401", st == 401, st)
        st, _, obj, _ = upload(small, alice)
        alice_img = obj["data"]
        st, _, out = _request(base + "/3/image/" + alice_img["id"], headers=alice)
        check("GET info: owner's Bearer sees deletehash", j(out)["data"].get("deletehash") == alice_img["deletehash"])
        st, _, out = _request(base + "/3/image/ZZZZZZZ", headers=anon)
        check("GET unknown image -> 404 envelope", st == 404 and is_error_env(
            j(out), 404, "/3/image/ZZZZZZZ", "GET", "Unable to find an image with the id, ZZZZZZZ"), out)
        st, _, out = _request(base + "/3/nothing-here", headers=anon)
        check("unknown /3 path -> 404 envelope", st == 404 and j(out)["success"] is False)
        st, _, out = _request(base + "/3/credits", headers=anon)
        cr = j(out)["data"]
        check("GET /3/credits", st == 200 and set(cr) == {"UserLimit", "UserRemaining", "UserReset", "ClientLimit",
                                                        "ClientRemaining"}, cr)

        # --- delete ---------------------------------------------------------------------------
        st, h, out = _request(base + "/3/image/" + first["deletehash"], "DELETE", headers=anon)
        check("DELETE by deletehash (Client-ID)", st == 200 and j(out) == {"data": True, "success": True, "status": 200}, out)
        check("DELETE has rate headers, no post headers", has_rate(h, False), h)
        st, mh, body = _request(first["link"])
        check("deleted image: 302 to removed.png", st == 302 and mh.get("Location") == base + "/media/removed.png", (st, mh))
        st, mh, body = _request(base + "/media/removed.png")
        rinfo = sniff(body)
        check("removed.png is a real 161x81 PNG", st == 200 and mh.get("Content-Type") == "image/png" and _png_valid(body)
              and rinfo.width == 161 and rinfo.height == 81)
        check("removed.png has a fixed ETag", mh.get("ETag") == '"%s"' % hashlib.md5(REMOVED_PNG).hexdigest())
        st, _, out = _request(base + "/3/image/" + first["deletehash"], "DELETE", headers=anon)
        check("DELETE again -> 404", st == 404 and j(out)["success"] is False)
        st, _, out = _request(base + "/3/image/" + first["id"], headers=anon)
        check("info of a deleted image -> 404", st == 404)
        st, mh, _ = _request(base + "/media/QQQQQQQ.png")
        check("unknown media id: 302 to removed.png", st == 302 and mh.get("Location", "").endswith("/removed.png"))
        st, _, out = _request(base + "/3/image/" + alice_img["id"], "DELETE", headers=bob)
        check("DELETE another account's id (Bearer) -> 403", st == 403 and j(out)["data"]["error"] == "Permission denied")
        st, _, out = _request(base + "/3/image/" + alice_img["id"], "DELETE", headers=anon)
        check("DELETE by id with Client-ID -> 404 (ids are not deletehashes)", st == 404)
        st, _, out = _request(base + "/3/image/" + alice_img["id"], "DELETE", headers=alice)
        check("DELETE by id (owner's Bearer)", st == 200 and j(out)["data"] is True)
        st, _, obj, _ = upload(small, bob)
        st, _, out = _request(base + "/3/image/" + obj["data"]["deletehash"], "DELETE", headers=alice)
        check("DELETE by deletehash works with any credential", st == 200)
        state_now = control("/__control/state")[1]
        check("state counts deletes", state_now["deletes"] == 3, state_now["deletes"])
        imgs = {i["id"]: i for i in state_now["images"]}
        check("state lists images with hashes", imgs[first["id"]]["deleted"] is True
              and imgs[first["id"]]["original_sha256"] == hashlib.sha256(small).hexdigest())

        # --- removed upstream ------------------------------------------------------------------
        st, _, obj, _ = upload(small, anon)
        victim = obj["data"]
        st, out = control("/__control/remove", {"id": victim["id"]})
        check("control remove", st == 200)
        st, mh, _ = _request(victim["link"])
        check("removed upstream: media 302 -> removed.png", st == 302 and mh["Location"].endswith("/removed.png"))
        st, _, _ = _request(base + "/3/image/" + victim["id"], headers=anon)
        check("removed upstream: info 404", st == 404)

        # --- injected failures -------------------------------------------------------------------
        def inject(**rule):
            st, out = control("/__control/fail", rule)
            return st == 200

        check("control rejects an unknown shape", control("/__control/fail", {"shape": "bogus"})[0] == 400)
        uploads_before = control("/__control/state")[1]["uploads"]
        check("inject over_capacity_403", inject(shape="over_capacity_403"))
        st, h, obj, _ = upload(small, anon)
        check("over_capacity_403 shape", st == 403 and obj == {"data": {"error": OVER_CAPACITY}, "success": False, "status": 403}, obj)
        check("over_capacity_403 has rate headers", has_rate(h, True))
        inject(shape="over_capacity_500")
        st, _, obj, _ = upload(small, anon)
        check("over_capacity_500 shape", st == 500 and obj == {"data": {"error": OVER_CAPACITY}, "success": False, "status": 500})
        inject(shape="503_empty")
        st, h, obj, raw = upload(small, anon)
        check("503_empty: empty body, no rate headers", st == 503 and raw == b"" and "X-RateLimit-UserLimit" not in h, (st, raw))
        inject(shape="503_html")
        st, h, obj, raw = upload(small, anon)
        check("503_html: HTML body", st == 503 and obj is None and b"over capacity" in raw
              and h.get("Content-Type", "").startswith("text/html"))
        inject(shape="error_string", message="Some error")
        st, _, obj, _ = upload(small, anon)
        check("error_string shape (message override)", st == 400 and is_error_env(obj, 400, "/3/image", "POST", "Some error"))
        inject(shape="error_string")
        st, _, obj, _ = upload(small, anon)
        check("error_string default message", obj["data"]["error"] == "File is over the size limit")
        inject(shape="error_object")
        st, _, obj, _ = upload(small, anon)
        check("error_object shape", st == 400 and obj["data"]["error"] == FILE_TYPE_INVALID
              and obj["data"]["request"] == "/3/image")
        inject(shape="errors_array")
        st, h, obj, _ = upload(small, anon)
        e = (obj or {}).get("errors", [{}])[0]
        check("errors_array shape", st == 400 and "data" not in obj and set(e) == {"id", "code", "status", "detail"}
              and e["code"] == "400" and e["status"] == "Bad Request", obj)
        check("errors_array content type", h.get("Content-Type") == "application/vnd.imgur.v1+json")
        inject(shape="unauthorized")
        st, _, obj, _ = upload(small, anon)
        check("unauthorized shape", st == 401 and obj["data"]["error"] == "Authentication required")
        inject(shape="invalid_token")
        st, _, obj, _ = upload(small, alice)
        check("invalid_token shape", st == 403 and obj["data"]["error"] == "The access token provided is invalid.")
        inject(shape="rate_limited")
        st, h, obj, _ = upload(small, anon)
        check("rate_limited shape", st == 429 and is_error_env(obj, 429, "/3/image", "POST", "Too Many Requests"), obj)
        check("rate_limited headers say 0 left", has_rate(h, True) and h["X-Post-Rate-Limit-Remaining"] == "0"
              and h["X-RateLimit-UserRemaining"] == "0", h)
        inject(shape="rate_limited_errors")
        st, h, obj, _ = upload(small, anon)
        check("rate_limited_errors shape", st == 429 and obj["errors"][0]["code"] == "429"
              and obj["errors"][0]["status"] == "Too Many Requests" and h["X-Post-Rate-Limit-Remaining"] == "0")
        inject(shape="upload_too_fast")
        st, _, obj, _ = upload(small, anon)
        check("upload_too_fast shape", st == 429 and obj["data"]["error"]["code"] == 429
              and obj["data"]["error"]["type"] == "ImgurException")
        inject(shape="over_capacity_403", status=502)
        st, _, obj, _ = upload(small, anon)
        check("status override", st == 502 and obj["status"] == 502)
        check("no injected failure stored anything", control("/__control/state")[1]["uploads"] == uploads_before)
        inject(shape="over_capacity_500", count=2)
        s1 = upload(small, anon)[0]
        s2 = upload(small, anon)[0]
        s3 = upload(small, anon)[0]
        check("count=2 fails exactly the next two", (s1, s2, s3) == (500, 500, 200), (s1, s2, s3))
        inject(shape="503_empty", match="delete")
        st, _, obj, _ = upload(small, anon)
        check("match=delete leaves uploads alone", st == 200)
        st, _, _ = _request(base + "/3/image/" + obj["data"]["deletehash"], "DELETE", headers=anon)
        check("match=delete fails the delete", st == 503)
        st, _, _ = _request(base + "/3/image/" + obj["data"]["deletehash"], "DELETE", headers=anon)
        check("then the delete goes through", st == 200)
        st, _, obj, _ = upload(small, anon)
        inject(shape="503_html", match="media")
        st, _, _ = _request(obj["data"]["link"])
        check("match=media fails a media GET", st == 503)
        st, _, body = _request(obj["data"]["link"])
        check("then media serves", st == 200 and body == small)
        inject(shape="503_empty", match="info")
        st, _, _ = _request(base + "/3/image/" + obj["data"]["id"], headers=anon)
        check("match=info fails GET info", st == 503)

        n_before = control("/__control/state")[1]["uploads"]
        inject(shape="drop_after_store")
        body, ctype = _multipart([("image", small, "drop.png")])
        dropped = False
        try:
            _request(base + "/3/image", "POST", body, dict(anon, **{"Content-Type": ctype}))
        except (http.client.HTTPException, OSError, urllib.error.URLError):
            dropped = True
        check("drop_after_store: no answer", dropped)
        s = control("/__control/state")[1]
        check("drop_after_store: the upload is stored", s["uploads"] == n_before + 1
              and any(i["name"] == "drop.png" for i in s["images"]), s["uploads"])
        inject(shape="drop_before_store")
        dropped = False
        try:
            _request(base + "/3/image", "POST", body, dict(anon, **{"Content-Type": ctype}))
        except (http.client.HTTPException, OSError, urllib.error.URLError):
            dropped = True
        check("drop_before_store: no answer", dropped)
        check("drop_before_store: nothing stored", control("/__control/state")[1]["uploads"] == n_before + 1)
        st, _, _, _ = upload(small, anon)
        check("server still fine after drops", st == 200)
        inject(shape="over_capacity_403", delay=0.3)
        t0 = time.time()
        st = upload(small, anon)[0]
        check("delay before answering", st == 403 and time.time() - t0 >= 0.3)
        check("state lists no pending rule", control("/__control/state")[1]["pending"] == [])

        # --- natural rate limits ------------------------------------------------------------------
        st, out = control("/__control/rate", {"post_limit": 2, "post_window": 120})
        check("control rate", st == 200 and out["limits"]["post_limit"] == 2)
        n_before = control("/__control/state")[1]["uploads"]
        s1, h1 = upload(small, anon)[:2]
        s2, h2 = upload(small, anon)[:2]
        s3, h3, obj, _ = upload(small, anon)
        check("post limit: third POST -> 429", (s1, s2, s3) == (200, 200, 429), (s1, s2, s3))
        check("post limit 429 envelope", is_error_env(obj, 429, "/3/image", "POST", "Too Many Requests"), obj)
        check("post limit headers", h2["X-Post-Rate-Limit-Remaining"] == "0" and h3["X-Post-Rate-Limit-Remaining"] == "0"
              and h3["X-Post-Rate-Limit-Limit"] == "2" and 0 < int(h3["X-Post-Rate-Limit-Reset"]) <= 120, h3)
        check("429 stores nothing", control("/__control/state")[1]["uploads"] == n_before + 2)
        st, _, _ = _request(base + "/3/image/" + victim["id"], headers=anon)
        check("GETs are not POST-limited", st == 404, st)
        control("/__control/rate", {"rate_limit_shape": "errors"})
        s4, h4, obj, _ = upload(small, anon)
        check("post_limit 0 with errors shape -> 429 errors array", s4 == 429 and obj["errors"][0]["code"] == "429"
              and h4["X-Post-Rate-Limit-Remaining"] == "0", (s4, obj))
        control("/__control/rate", {"client_limit": 25, "upload_cost": 10, "rate_limit_shape": "envelope",
                                    "post_limit": 100})
        s = [upload(small, anon)[:2] for _ in range(3)]
        check("client credits: 25 credits = 2 uploads, then 429", [x[0] for x in s] == [200, 200, 429], [x[0] for x in s])
        check("client remaining header", s[1][1]["X-RateLimit-ClientRemaining"] == "5"
              and s[2][1]["X-RateLimit-ClientRemaining"] == "5", s[2][1])
        st, h, _, _ = upload(small, alice)
        check("client buckets are per credential", st == 200, st)
        control("/__control/rate", {"user_limit": 3, "client_limit": 1000, "upload_cost": 1})
        codes = [_request(base + "/3/image/" + victim["id"], headers=anon)[0] for _ in range(4)]
        check("user credits: 3 calls then 429", codes == [404, 404, 404, 429], codes)
        control("/__control/rate", {"user_limit": 100, "user_reset_style": "seconds"})
        st, h, _ = _request(base + "/3/credits", headers=anon)
        check("user-reset-style seconds", 0 < int(h["X-RateLimit-UserReset"]) <= 3600, h["X-RateLimit-UserReset"])

        # --- reset -------------------------------------------------------------------------------
        st, out = control("/__control/reset", {})
        s = control("/__control/state")[1]
        check("reset clears everything", st == 200 and s["uploads"] == 0 and s["images"] == [] and s["deletes"] == 0
              and s["limits"]["post_limit"] == 1250 and s["limits"]["user_reset_style"] == "epoch")
        check("reset removes stored files", os.listdir(data_dir) == [], os.listdir(data_dir))
        st, mh, _ = _request(first["link"])
        check("after reset old links redirect to removed.png", st == 302)
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
