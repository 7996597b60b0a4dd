#!/usr/bin/env bash
# Builds aisync and walks through a real session in a throw-away store:
# a chat with messages, a generated picture, a storybook illustrated with it, a conflict-free
# history, and a store check. Usage: scripts/demo.sh [STORE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
swift build -c release --product aisync >/dev/null
aisync() { "$(swift build -c release --show-bin-path)/aisync" "$@"; }
export AISYNC_HOME=${1:-$(mktemp -d)/store}
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step aisync init --name demo-laptop;  aisync init --name demo-laptop
step aisync chat new --title "Lisbon trip" --model gpt-4o
chat=$(aisync chat new --title "Lisbon trip" --model gpt-4o); echo "$chat"
step aisync chat say "$chat" --role user "Three things to see in Lisbon?"
aisync chat say "$chat" --role user "Three things to see in Lisbon?" >/dev/null
aisync chat say "$chat" --role assistant "Alfama, Belém Tower, and the LX Factory." >/dev/null

# A small real PNG standing in for a DALL·E picture.
png=$(dirname "$AISYNC_HOME")/fox.png
python3 - "$png" <<'PY'
import struct, sys, zlib
w, h = 64, 48
raw = b"".join(b"\x00" + b"".join(bytes((x * 4 % 256, y * 5 % 256, 128)) for x in range(w)) for y in range(h))
chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PY
step aisync image add fox.png --prompt "a red fox reading a book, watercolor" --model dall-e-3
image=$(aisync image add "$png" --prompt "a red fox reading a book, watercolor" --model dall-e-3); echo "$image"
step aisync story new --title "The Reading Fox" --moral "Curiosity opens doors" --page ... --image "$image"
story=$(aisync story new --title "The Reading Fox" --moral "Curiosity opens doors" \
  --page "Once upon a time a fox found a book." --page "She read it all night." --image "$image"); echo "$story"
step aisync favorite "$story"; aisync favorite "$story"
step aisync list; aisync list
step aisync show "$chat"; aisync show "$chat"
step aisync show "$story" --json; aisync show "$story" --json
step aisync image save "$image" restored.png; aisync image save "$image" "$png.restored"
cmp "$png" "$png.restored" && echo "restored bytes are identical to the original"
step aisync log; aisync log
step aisync status; aisync status
step aisync fsck; aisync fsck

# A second device: a folder remote (a USB stick or a mounted cloud drive looks the same).
remote=$(dirname "$AISYNC_HOME")/remote
other=$(dirname "$AISYNC_HOME")/other-device
mkdir -p "$remote"
step aisync remote add usb "file://$remote"; aisync remote add usb "file://$remote"
step aisync push; aisync push
step "aisync --store other-device init --name demo-phone"; aisync --store "$other" init --name demo-phone
aisync --store "$other" remote add usb "file://$remote"
step aisync --store other-device pull; aisync --store "$other" pull
step aisync --store other-device list; aisync --store "$other" list
aisync --store "$other" image save "$image" "$png.phone"
cmp "$png" "$png.phone" && echo "the picture arrived byte for byte"
# Both devices edit the same chat while apart: a conflict, kept and resolved.
aisync chat say "$chat" --role user "Add a day trip?" >/dev/null
aisync --store "$other" chat say "$chat" --role user "Where to eat?" >/dev/null
step aisync sync "(both devices)"; aisync --store "$other" sync; aisync sync; aisync --store "$other" sync
step aisync conflicts; aisync conflicts
keep=$(aisync conflicts --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["versions"][0]["version"][:12])')
step aisync resolve "$chat" --keep "$keep"; aisync resolve "$chat" --keep "$keep"
aisync sync >/dev/null; aisync --store "$other" sync >/dev/null
step "aisync --store other-device conflicts"; aisync --store "$other" conflicts
echo; echo "The demo stores are in $(dirname "$AISYNC_HOME")"
