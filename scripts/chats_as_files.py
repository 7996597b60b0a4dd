#!/usr/bin/env python3
"""Writes each record of an aisync store as one JSON file (its fields and messages, as the
creating version carries them), for the benchmarks that move the same chats with rclone and
curl. Records v2.

Usage: chats_as_files.py STORE OUT_DIR
"""
import json
import os
import sys

store, out = sys.argv[1], sys.argv[2]
for line in open(os.path.join(store, "journal.jsonl")):
    v = json.loads(line)
    record = {op.get("elem", op["field"]): op.get("value") for op in v["ops"] if "field" in op}
    with open(os.path.join(out, v["record"] + ".json"), "w") as dst:
        json.dump(record, dst, sort_keys=True, separators=(",", ":"))
