#!/usr/bin/env bash
# Sync speed against the loopback Apache mod_dav server, measured in one run:
#  1. HTTP requests to push N chats (counted in Apache's access log), and the time;
#  2. requests made by `aisync sync` when nothing is new on either side;
#  3. the same N chats as N JSON files copied with `rclone copy` to the same server, and the
#     ratio of the two times.
# Usage: scripts/bench-sync.sh   (BENCH_CHATS=10000 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
N=${BENCH_CHATS:-10000}
if [ -z "${AISYNC_BIN:-}" ]; then
  swift build -c release --product aisync >/dev/null
  AISYNC_BIN=$(swift build -c release --show-bin-path)/aisync
fi
work=$(mktemp -d); chmod 755 "$work"
export AISYNC_SERVERS_DIR=$work/servers
trap 'bash scripts/servers.sh stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
bash scripts/servers.sh start >/dev/null
set -a; . "$AISYNC_SERVERS_DIR/env"; set +a
export AISYNC_USER=$AISYNC_TEST_USER AISYNC_PASSWORD=$AISYNC_TEST_PASSWORD
log=$AISYNC_SERVERS_DIR/apache/logs/access.log
requests() { wc -l <"$log"; }
now() { date +%s.%N; }
mkcol() { curl -sf -u "$AISYNC_USER:$AISYNC_PASSWORD" -X MKCOL "$1/" >/dev/null; }

store=$work/store
"$AISYNC_BIN" --store "$store" init --name bench >/dev/null
"$AISYNC_BIN" --store "$store" debug-generate "$N" >/dev/null
mkcol "$AISYNC_TEST_APACHE_URL/aisync"
"$AISYNC_BIN" --store "$store" remote add apache "$AISYNC_TEST_APACHE_URL/aisync"

before=$(requests); t0=$(now)
"$AISYNC_BIN" --store "$store" push >/dev/null
t1=$(now); after=$(requests)
push_requests=$((after - before))
aisync_s=$(python3 -c "print(f'{$t1-$t0:.3f}')")

before=$(requests)
"$AISYNC_BIN" --store "$store" sync >/dev/null
idle_requests=$(( $(requests) - before ))

# The same chats as one JSON file each (the record bodies aisync stores).
files=$work/files; mkdir -p "$files"
python3 - "$store" "$files" <<'PY'
import json, os, sys
store, out = sys.argv[1], sys.argv[2]
for line in open(os.path.join(store, "journal.jsonl")):
    v = json.loads(line)
    body = os.path.join(store, "objects", v["body"][:2], v["body"])
    with open(body, "rb") as src, open(os.path.join(out, v["record"] + ".json"), "wb") as dst:
        dst.write(src.read())
PY
count=$(ls "$files" | wc -l)
mkcol "$AISYNC_TEST_APACHE_URL/rclone"
pass=$(rclone obscure "$AISYNC_PASSWORD")
t0=$(now)
rclone copy "$files" ":webdav:rclone" --webdav-url "$AISYNC_TEST_APACHE_URL" --webdav-user "$AISYNC_USER" --webdav-pass "$pass" 2>"$work/rclone.err"
t1=$(now)
rclone_s=$(python3 -c "print(f'{$t1-$t0:.3f}')")
ratio=$(python3 -c "print(f'{$rclone_s/$aisync_s:.1f}')")

echo "push of $N chats: $push_requests HTTP requests, ${aisync_s} s"
echo "sync with nothing new ($N records): $idle_requests HTTP request(s)"
echo "rclone copy of the same $count chats as JSON files: ${rclone_s} s"
echo "aisync push is ${ratio}x faster than rclone copy"
