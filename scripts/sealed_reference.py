#!/usr/bin/env python3
"""An independent implementation of aisync's encrypted remote formats, from their written
description (Sources/AISyncCore/Crypto/SealedFile.swift, KeyFile.swift), on Python's
`cryptography` package and hashlib: the Swift code is checked against it, both ways.

Reads JSON lines on stdin, writes one JSON line per input:
  {"op": "open", "key": hex, "remote": s, "path": s, "sealed": hex}      -> {"plain": hex} or {"error": s}
  {"op": "seal", "key": hex, "remote": s, "path": s, "salt": hex, "plain": hex} -> {"sealed": hex}
  {"op": "unwrap", "file": {...keys.json...}, "passphrase": s}             -> {"master": hex} or {"error": s}
  {"op": "name", "master": hex, "digest": hex64}                           -> {"name": hex}
"""
import hashlib
import hmac
import json
import struct
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from crypto_reference import hchacha20

CHUNK = 64 * 1024
MAGIC = b"aisyncE1"


def hkdf(secret, salt, info):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt or None, info=info).derive(secret)


def data_key(master):
    return hkdf(master, b"", b"aisync-e1 data")


def padme(n):
    if n <= 2:
        return n
    e = n.bit_length() - 1
    s = e.bit_length()
    mask = (1 << (e - s)) - 1
    return (n + mask) & ~mask


def nonce(i, last):
    return b"\0\0\0" + struct.pack(">Q", i) + (b"\1" if last else b"\0")


def seal(key, remote, path, salt, plain):
    binding = f"{remote}\n{path}".encode()
    framed_len = padme(4 + len(binding) + 8 + len(plain))
    framed = struct.pack("<I", len(binding)) + binding + struct.pack("<Q", len(plain)) + plain
    framed += b"\0" * (framed_len - len(framed))
    header = MAGIC + salt + struct.pack("<Q", framed_len)
    aead = ChaCha20Poly1305(hkdf(key, salt, b"aisync-e1 file"))
    chunks = [framed[i:i + CHUNK] for i in range(0, len(framed), CHUNK)]
    out = header
    for i, c in enumerate(chunks):
        out += aead.encrypt(nonce(i, i == len(chunks) - 1), c, header)
    return out


def open_sealed(key, remote, path, sealed):
    if sealed[:8] != MAGIC or len(sealed) < 40:
        return None, "not sealed"
    header = sealed[:40]
    (framed_len,) = struct.unpack("<Q", header[32:40])
    chunks = (framed_len + CHUNK - 1) // CHUNK
    if len(sealed) != 40 + framed_len + 16 * chunks:
        return None, "size"
    aead = ChaCha20Poly1305(hkdf(key, header[8:32], b"aisync-e1 file"))
    framed = b""
    at = 40
    for i in range(chunks):
        size = min(CHUNK, framed_len - i * CHUNK) + 16
        try:
            framed += aead.decrypt(nonce(i, i == chunks - 1), sealed[at:at + size], header)
        except Exception:
            return None, "tag"
        at += size
    (blen,) = struct.unpack("<I", framed[:4])
    if framed[4:4 + blen] != f"{remote}\n{path}".encode():
        return None, "binding"
    (plen,) = struct.unpack("<Q", framed[4 + blen:12 + blen])
    return framed[12 + blen:12 + blen + plen], None


def unwrap(file, passphrase):
    for slot in file["slots"]:
        salt = bytes.fromhex(slot["salt"])
        kek = hashlib.scrypt(passphrase.encode(), salt=salt, n=slot["n"], r=slot["r"], p=slot["p"], maxmem=1 << 30, dklen=32)
        aad = f"aisync-keyslot-1\n{file['remote']}\n{slot['id']}\n{slot['n']}\n{slot['r']}\n{slot['p']}\n{slot['salt']}".encode()
        n = bytes.fromhex(slot["nonce"])
        sub = hchacha20(kek, n[:16])
        try:
            return ChaCha20Poly1305(sub).decrypt(b"\0\0\0\0" + n[16:], bytes.fromhex(slot["wrapped"]), aad), None
        except Exception:
            continue
    return None, "no slot opens"


def main():
    for line in sys.stdin:
        case = json.loads(line)
        op = case["op"]
        if op == "open":
            plain, error = open_sealed(data_key(bytes.fromhex(case["key"])), case["remote"], case["path"], bytes.fromhex(case["sealed"]))
            print(json.dumps({"error": error} if error else {"plain": plain.hex()}))
        elif op == "seal":
            print(json.dumps({"sealed": seal(data_key(bytes.fromhex(case["key"])), case["remote"], case["path"],
                                             bytes.fromhex(case["salt"]), bytes.fromhex(case["plain"])).hex()}))
        elif op == "unwrap":
            master, error = unwrap(case["file"], case["passphrase"])
            print(json.dumps({"error": error} if error else {"master": master.hex()}))
        elif op == "name":
            names = hkdf(bytes.fromhex(case["master"]), b"", b"aisync-e1 names")
            print(json.dumps({"name": hmac.new(names, case["digest"].encode(), hashlib.sha256).hexdigest()}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
