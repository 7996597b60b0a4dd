#!/usr/bin/env python3
"""Reference results for aisync's hand-written cryptography, from independent implementations:
Python's `cryptography` package (ChaCha20, ChaCha20-Poly1305, Poly1305, HKDF) and the standard
library (hmac, hashlib.pbkdf2_hmac, hashlib.scrypt). XChaCha20-Poly1305 is ChaCha20-Poly1305
from `cryptography` under a subkey from the HChaCha20 below (a few lines of the draft's
pseudocode, written apart from the Swift code).

Usage: crypto_reference.py SEED COUNT    prints COUNT random cases per primitive as JSON lines:
  {"kind": "...", ...inputs..., "expected": "<hex>"}   (all byte strings in hex)
"""
import hashlib
import hmac
import json
import random
import struct
import sys

from cryptography.hazmat.primitives import hashes, poly1305
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def rotl(v, n):
    return ((v << n) & 0xFFFFFFFF) | (v >> (32 - n))


def hchacha20(key, nonce16):
    x = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", nonce16))

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return struct.pack("<8I", *(x[0:4] + x[12:16]))


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)

    def rand(n):
        return bytes(rng.getrandbits(8) for _ in range(n))

    def length():
        # Mostly short, some across block edges, a few long.
        return rng.choice([0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, rng.randrange(0, 2000), rng.randrange(0, 70000)])

    out = []
    for _ in range(count):
        key, nonce, aad, pt = rand(32), rand(12), rand(rng.choice([0, 1, 12, 16, 33])), rand(length())
        counter = rng.getrandbits(32) if rng.random() < 0.2 else 1
        stream = Cipher(algorithms.ChaCha20(key, struct.pack("<I", counter) + nonce), None).encryptor().update(pt)
        out.append({"kind": "chacha20", "key": key.hex(), "nonce": nonce.hex(), "counter": counter, "input": pt.hex(), "expected": stream.hex()})
        out.append({"kind": "chachapoly", "key": key.hex(), "nonce": nonce.hex(), "aad": aad.hex(), "input": pt.hex(),
                    "expected": ChaCha20Poly1305(key).encrypt(nonce, pt, aad).hex()})
        xnonce = rand(24)
        sub = hchacha20(key, xnonce[:16])
        out.append({"kind": "xchachapoly", "key": key.hex(), "nonce": xnonce.hex(), "aad": aad.hex(), "input": pt.hex(),
                    "expected": ChaCha20Poly1305(sub).encrypt(b"\0\0\0\0" + xnonce[16:], pt, aad).hex()})
        out.append({"kind": "poly1305", "key": key.hex(), "input": pt.hex(), "expected": poly1305.Poly1305.generate_tag(key, pt).hex()})
        mkey = rand(rng.choice([0, 1, 32, 64, 65, 200]))
        out.append({"kind": "hmac", "key": mkey.hex(), "input": pt.hex(), "expected": hmac.new(mkey, pt, hashlib.sha256).digest().hex()})
        salt, info, n = rand(rng.choice([0, 16, 80])), rand(rng.choice([0, 10, 80])), rng.choice([1, 32, 33, 100, 255])
        okm = HKDF(algorithm=hashes.SHA256(), length=n, salt=salt or None, info=info).derive(mkey)
        out.append({"kind": "hkdf", "key": mkey.hex(), "salt": salt.hex(), "info": info.hex(), "length": n, "expected": okm.hex()})
        iterations, n = rng.choice([1, 2, 3, 50]), rng.choice([1, 32, 33, 64, 100])
        out.append({"kind": "pbkdf2", "key": mkey.hex(), "salt": salt.hex(), "iterations": iterations, "length": n,
                    "expected": hashlib.pbkdf2_hmac("sha256", mkey, salt, iterations, n).hex()})
        sn, sr, sp = rng.choice([2, 4, 16, 64]), rng.choice([1, 2, 8]), rng.choice([1, 2])
        out.append({"kind": "scrypt", "key": mkey.hex(), "salt": salt.hex(), "n": sn, "r": sr, "p": sp, "length": 64,
                    "expected": hashlib.scrypt(mkey, salt=salt, n=sn, r=sr, p=sp, dklen=64, maxmem=1 << 26).hex()})
    for case in out:
        print(json.dumps(case))


if __name__ == "__main__":
    main()
