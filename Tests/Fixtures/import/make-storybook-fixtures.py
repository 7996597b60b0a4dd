#!/usr/bin/env python3
"""Writes the storybook-with-pictures fixtures (issue 26). Run from this folder. Python 3
stdlib only: the pictures are tiny real PNGs (zlib), the 4x3 JPEG of the CLI fixtures and a
1x1 lossless WebP. (Zips with hostile entry names are written byte by byte in the tests:
Tests/AISyncTestSupport/HostileZip.swift.)"""
import base64, json, os, shutil, struct, zipfile, zlib


def png(r, g, b, width=3, height=2):
    """A real RGB PNG of one colour (every colour gives other bytes, so another sha256)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes([r, g, b]) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


JPEG = bytes.fromhex(
    "ffd8ffe000104a46494600010100000100010000ffdb004300080606070605080707070909080a0c140d0c0b0b0c1912130f141d1a1f1e1d1a1c1c20"
    "242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ffdb0043010909090c0b0c180d0d1832211c21323232323232323232323232"
    "3232323232323232323232323232323232323232323232323232323232323232323232323232ffc00011080003000403012200021101031101ffc400"
    "1f0000010501010101010100000000000000000102030405060708090a0bffc400b5100002010303020403050504040000017d010203000411051221"
    "31410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a53545556"
    "5758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6"
    "c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffc4001f0100030101010101010101010000000000000102030405"
    "060708090a0bffc400b51100020102040403040705040400010277000102031104052131061241510761711322328108144291a1b1c109233352f015"
    "6272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a828384"
    "85868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9ea"
    "f2f3f4f5f6f7f8f9faffda000c03010002110311003f00c7a28a2bf4c3f3d3ffd9")
# A 1x1 lossless WebP (VP8L).
WEBP = base64.b64decode("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")

STORY = {"title": "The Owl Who Counted Stars", "moral": "Small steps reach far.",
         "story": ["An owl lived in an old oak.", "Every night she counted stars.",
                   "One night a cloud hid them all.", "She waited, and counted the rain instead.",
                   "When the sky cleared, she had a new friend.", "The rain had counted with her."],
         "imagePrompts": ["an owl in an oak at night, watercolor", "an owl watching rain, watercolor",
                          "an owl and a raindrop friend under the stars, watercolor"]}


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)


def put(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def story_json(story=STORY):
    return json.dumps(story, indent=1, ensure_ascii=False) + "\n"


# Pictures named without page numbers: they go to the pages in name order. A text file
# named .png and a notes file are skipped with a note (an extension is never trusted).
fresh("storybook-pictures")
put("storybook-pictures/story.json", story_json())
put("storybook-pictures/a-forest.png", png(200, 30, 30))
put("storybook-pictures/b-rain.jpg", JPEG)
put("storybook-pictures/c-stars.png", png(30, 30, 200))
put("storybook-pictures/fake.png", "this is not a picture\n")
put("storybook-pictures/notes.txt", "drawn by hand\n")

# Page numbers in the names, listed out of order, in three spellings, plus one past the last page.
fresh("storybook-numbered")
put("storybook-numbered/story.json", story_json())
put("storybook-numbered/page-3.png", png(10, 200, 10))
put("storybook-numbered/p1.webp", WEBP)
put("storybook-numbered/story_page_2.jpg", JPEG)
put("storybook-numbered/page-9.png", png(90, 90, 90))

# A DALL·E response beside the story: its two pictures illustrate pages 1 and 2; page 3 stays bare.
fresh("storybook-dalle")
put("storybook-dalle/story.json", story_json({k: v for k, v in STORY.items() if k != "imagePrompts"}))
put("storybook-dalle/response.json", json.dumps({"created": 1700000000, "data": [
    {"b64_json": base64.b64encode(png(250, 200, 0)).decode(), "revised_prompt": "An owl in an oak, yellow moon"},
    {"b64_json": base64.b64encode(png(0, 150, 150)).decode(), "revised_prompt": "Rain over the oak"}]}) + "\n")

# The story and its pictures zipped, in one folder of the zip (as zipping a folder does).
with zipfile.ZipFile("storybook.zip", "w") as z:
    z.writestr("owl/story.json", story_json(), compress_type=zipfile.ZIP_DEFLATED)
    z.writestr("owl/page-2.png", png(120, 0, 120), compress_type=zipfile.ZIP_STORED)
    z.writestr("owl/page-1.jpg", JPEG, compress_type=zipfile.ZIP_DEFLATED)
    z.writestr("owl/readme.txt", "pictures by the owl", compress_type=zipfile.ZIP_DEFLATED)
    z.writestr("other/page-3.png", png(1, 2, 3), compress_type=zipfile.ZIP_STORED)
