#!/usr/bin/env python3
"""Writes a valid 1x1 PNG of about MEGABYTES MB: its text chunk carries random hex digits, so
no two are alike. For the large-picture benchmark and tests.

Usage: make_png.py PATH MEGABYTES
"""
import os
import struct
import sys
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


path, megabytes = sys.argv[1], int(sys.argv[2])
text = b"Comment\x00" + os.urandom(megabytes << 19).hex().encode()
with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
            + chunk(b"tEXt", text) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b""))
