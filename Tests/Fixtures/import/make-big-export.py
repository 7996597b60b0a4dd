#!/usr/bin/env python3
"""Writes a synthetic ChatGPT conversations.json of about SIZE megabytes, for timing imports.

Usage: make-big-export.py OUT.json [SIZE_MB]   (each conversation: 20 messages in a chain,
with one regenerated answer on a side branch)."""
import json, random, sys

out, size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 50
random.seed(7)
words = "fox owl tram Lisbon river story moon garden window lantern bridge coffee letter".split()
def text(n): return " ".join(random.choice(words) for _ in range(n))
with open(out, "w") as f:
    f.write("[")
    written, n = 0, 0
    while written < size * 1_000_000:
        t = 1.6e9 + n * 1000.0
        mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["n0"]}}
        for i in range(20):
            role = "user" if i % 2 == 0 else "assistant"
            mapping[f"n{i}"] = {"id": f"n{i}", "parent": "root" if i == 0 else f"n{i-1}", "children": [f"n{i+1}"] if i < 19 else [],
                                "message": {"id": f"n{i}", "author": {"role": role}, "create_time": t + i, "weight": 1.0,
                                            "content": {"content_type": "text", "parts": [text(60)]}, "metadata": {}}}
        mapping["alt"] = {"id": "alt", "parent": "n0", "children": [], "message": {"id": "alt", "author": {"role": "assistant"},
                          "create_time": t + 0.5, "content": {"content_type": "text", "parts": [text(60)]}, "metadata": {}}}
        chunk = json.dumps({"id": f"conv-{n}", "title": text(4), "create_time": t, "update_time": t + 20, "current_node": "n19",
                            "default_model_slug": "gpt-4o", "mapping": mapping})
        f.write(("," if n else "") + chunk)
        written += len(chunk)
        n += 1
    f.write("]")
print(f"{out}: {n} conversations, {written / 1e6:.0f} MB")
