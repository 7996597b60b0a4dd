#!/usr/bin/env bash
# Sync speed against the loopback Apache mod_dav server, measured in one run:
#  1. HTTP requests to push N chats (counted in Apache's access log), and the time;
#  2. requests made by `aisync sync` when nothing is new on either side;
#  3. the same N chats as N JSON files copied with `rclone copy` to the same server, and the
#     ratio of the two times;
#  4. a second device that pulled everything, edited one chat and pulled one more change:
#     the bytes its push sends, next to the bytes of its own new journal lines (only its own
#     versions may go out, never what it pulled).
# Usage: scripts/bench-sync.sh   (BENCH_CHATS=10000 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
N=${BENCH_CHATS:-10000}
if [ -z "${AISYNC_BIN:-}" ]; then
  AISYNC_BIN=$(bash scripts/build-release.sh)
fi
bench=${AISYNC_BENCH_BIN:-$(dirname "$AISYNC_BIN")/aisync-bench}  # built beside aisync by build-release.sh
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
"$bench" generate "$N" --store "$store" >/dev/null
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
python3 scripts/chats_as_files.py "$store" "$files"
count=$(ls "$files" | wc -l)
mkcol "$AISYNC_TEST_APACHE_URL/rclone"
pass=$(rclone obscure "$AISYNC_PASSWORD")
t0=$(now)
rclone copy "$files" ":webdav:rclone" --webdav-url "$AISYNC_TEST_APACHE_URL" --webdav-user "$AISYNC_USER" --webdav-pass "$pass" 2>"$work/rclone.err"
t1=$(now)
rclone_s=$(python3 -c "print(f'{$t1-$t0:.3f}')")
ratio=$(python3 -c "print(f'{$rclone_s/$aisync_s:.1f}')")

# 4. Only this device's versions go out after a pull.
phone=$work/phone
"$AISYNC_BIN" --store "$phone" init --name phone >/dev/null
"$AISYNC_BIN" --store "$phone" remote add apache "$AISYNC_TEST_APACHE_URL/aisync"
"$AISYNC_BIN" --store "$phone" pull >/dev/null
phone_start=$(stat -c %s "$phone/journal.jsonl")
chat=$("$AISYNC_BIN" --store "$phone" list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
"$AISYNC_BIN" --store "$phone" chat say "$chat" --role user "one local message from the phone" >/dev/null
local_bytes=$(( $(stat -c %s "$phone/journal.jsonl") - phone_start ))
"$AISYNC_BIN" --store "$store" chat new --title "one more from the laptop" >/dev/null
"$AISYNC_BIN" --store "$store" push >/dev/null
"$AISYNC_BIN" --store "$phone" pull >/dev/null
relay=$("$AISYNC_BIN" --store "$phone" push --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["pushed"], r["bytes"])')

echo "push of $N chats: $push_requests HTTP requests, ${aisync_s} s"
echo "sync with nothing new ($N records): $idle_requests HTTP request(s)"
echo "rclone copy of the same $count chats as JSON files: ${rclone_s} s"
echo "aisync push is ${ratio}x faster than rclone copy"
echo "push after pull with one local edit: ${relay% *} version(s), ${relay#* } bytes sent (segment + head) for ${local_bytes} bytes of local journal lines"
