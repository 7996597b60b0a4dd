#!/usr/bin/env bash
# Builds aisync and walks through a real session in a throw-away store:
# a chat with messages, a generated picture, a storybook illustrated with it, a store check,
# and a second device: edits on both merge, a title changed on both is a conflict, resolved.
# Usage: scripts/demo.sh [STORE_DIR]. AISYNC_BIN=PATH runs that binary instead of building one
# (scripts/test.sh runs the demo with its debug build, so the README's first command is tested).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
if [ -z "${AISYNC_BIN:-}" ]; then
  swift build -c release --product aisync >/dev/null
  AISYNC_BIN="$(swift build -c release --show-bin-path)/aisync"
fi
aisync() { "$AISYNC_BIN" "$@"; }
fail() { echo "demo.sh: $*" >&2; exit 1; }
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
# Both devices add a message to the same chat while apart: both messages are kept, no conflict.
aisync chat say "$chat" --role user "Add a day trip?" >/dev/null
aisync --store "$other" chat say "$chat" --role user "Where to eat?" >/dev/null
step aisync sync "(both devices)"; aisync --store "$other" sync; aisync sync; aisync --store "$other" sync
step aisync show "$chat"; aisync show "$chat"
for text in "Add a day trip?" "Where to eat?"; do
  aisync --store "$other" show "$chat" | grep -qF "$text" || fail "the other device lacks the message '$text'"
done
# Both rename it while apart: the same field changed on two devices is a conflict, and the losing
# title is kept until someone chooses; here we keep the one that lost.
aisync rename "$chat" "Lisbon, 3 days" >/dev/null
aisync --store "$other" rename "$chat" "Lisbon in May" >/dev/null
step aisync sync "(both devices, after renaming the chat on each)"
aisync --store "$other" sync; aisync sync; aisync --store "$other" sync
step aisync conflicts; aisync conflicts
keep=$(aisync conflicts --json | python3 -c '
import json, sys
conflicts = json.load(sys.stdin)
if not conflicts: sys.exit("demo.sh: renaming the chat on both devices made no conflict")
loser = next(v for v in conflicts[0]["fields"][0]["values"] if not v["winner"])
print(loser["version"][:12], loser["value"])')
kept=${keep#* }; keep=${keep%% *}
step aisync resolve "$chat" --keep "$keep"; aisync resolve "$chat" --keep "$keep"
aisync sync >/dev/null; aisync --store "$other" sync >/dev/null
step "aisync --store other-device conflicts"; aisync --store "$other" conflicts
[ "$(aisync --store "$other" conflicts --json)" = "[]" ] || fail "the conflict is still open on the other device"
aisync --store "$other" show "$chat" | head -1 | grep -qF "$kept" || fail "the kept title did not reach the other device"
echo; echo "The demo stores are in $(dirname "$AISYNC_HOME")"
