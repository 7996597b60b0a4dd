#!/usr/bin/env bash
# Close to the wire (issue 29): push and restore beside the time their bytes take on their own,
# against the loopback Apache mod_dav server, in one run, release build:
#  1. BENCH_CHATS (10000) chats: push to a new folder, and pull into a new store, each the
#     fastest of 3; beside curl moving the same bytes (every file the push wrote, joined into
#     one file) in one request, `curl -T` up and `curl -o` down, the fastest of 3 each.
#     Targets: push <= 10x curl's PUT, pull <= 10x curl's GET.
#  2. BENCH_LINK_CHATS (100000) chats pulled into a new store through a link of BENCH_LINK_RATE
#     (10000000) bytes a second each way (scripts/throttle_proxy.py on loopback), beside the
#     time the remote's bytes take to cross that link (bytes / rate; curl fetching the same
#     files through the same proxy on one connection is printed as a check of the proxy).
#     Target: <= 1.2x. 0 skips it.
#  3. BENCH_BIG (1000000) records: pull into a new store (target <= 60 s, peak RSS <= 64 MB)
#     and `list --json` (target <= 1 s). About 3 minutes; 0 skips it.
# Times are wall-clock (`date` around the command), peak RSS from /usr/bin/time.
# Usage: scripts/bench-wire.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
N=${BENCH_CHATS:-10000}
LINK_N=${BENCH_LINK_CHATS:-100000}
RATE=${BENCH_LINK_RATE:-10000000}
BIG=${BENCH_BIG:-1000000}
if [ -z "${AISYNC_BIN:-}" ]; then
  AISYNC_BIN=$(bash scripts/build-release.sh)
fi
bench=${AISYNC_BENCH_BIN:-$(dirname "$AISYNC_BIN")/aisync-bench}  # built beside aisync by build-release.sh
work=$(mktemp -d); chmod 755 "$work"
export AISYNC_SERVERS_DIR=$work/servers
proxy_pid=
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  bash scripts/servers.sh stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
bash scripts/servers.sh start >/dev/null
set -a; . "$AISYNC_SERVERS_DIR/env"; set +a
export AISYNC_USER=$AISYNC_TEST_USER AISYNC_PASSWORD=$AISYNC_TEST_PASSWORD
url=$AISYNC_TEST_APACHE_URL
hostport=${url#http://}; hostport=${hostport%%/*}
dav=${url#http://"$hostport"}   # the path of the WebDAV folder, /dav
root=$AISYNC_TEST_APACHE_ROOT$dav
auth=(-u "$AISYNC_USER:$AISYNC_PASSWORD")
mkcol() { curl -sf "${auth[@]}" -X MKCOL "$1/" >/dev/null; }
timed() { # timed COMMAND...: prints "seconds rss_kb" (stdout discarded); fails as the command does
  local s e
  s=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$work/time" "$@" >/dev/null || { echo "bench-wire: ${1##*/} failed" >&2; return 1; }
  e=$(date +%s.%N)
  echo "$(python3 -c "print(f'{$e-$s:.4f}')") $(cat "$work/time")"
}
fastest() { python3 -c "import sys; print(min(map(float, sys.argv[1:])))" "$@"; }
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
mb() { python3 -c "print(f'{$1/1024:.1f}')"; }   # KB -> MB, one decimal
a() { "$AISYNC_BIN" --store "$@"; }
new_store() { # new_store DIR REMOTE_URL: an empty store with one remote
  a "$1" init --name "${1##*/}" >/dev/null
  a "$1" remote add r "$2"
}
generated() { # generated DIR COUNT: a store holding COUNT generated chats
  a "$1" init --name "${1##*/}" >/dev/null
  "$bench" generate --store "$1" "$2" >/dev/null
}
remote_bytes() { find "$root/$1" -type f -printf '%s\n' | awk '{s += $1} END {print s}'; }

# ---- 1. N chats beside curl ----
if [ "$N" -gt 0 ]; then
  generated "$work/laptop" "$N"
  push=(); pull=(); put=(); get=(); push_kb=0; pull_kb=0
  for round in 1 2 3; do
    mkcol "$url/small$round"
    a "$work/laptop" remote add "small$round" "$url/small$round"
    t=$(timed "$AISYNC_BIN" --store "$work/laptop" push "small$round")
    read -r s kb <<<"$t"
    push+=("$s"); push_kb=$(( kb > push_kb ? kb : push_kb ))
    new_store "$work/restored$round" "$url/small$round"
    t=$(timed "$AISYNC_BIN" --store "$work/restored$round" pull)
    read -r s kb <<<"$t"
    pull+=("$s"); pull_kb=$(( kb > pull_kb ? kb : pull_kb ))
  done
  count=$(a "$work/restored1" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
  [ "$count" = "$N" ] || { echo "bench-wire: the restored store holds $count records, not $N" >&2; exit 1; }
  # The same bytes as one file: everything the first push wrote, joined.
  find "$root/small1" -type f -print0 | sort -z | xargs -0 cat >"$work/joined"
  bytes=$(stat -c %s "$work/joined")
  mkcol "$url/curl"
  for round in 1 2 3; do
    t=$(timed curl -sf "${auth[@]}" -T "$work/joined" "$url/curl/joined$round")
    read -r s _ <<<"$t"
    put+=("$s")
    t=$(timed curl -sf "${auth[@]}" -o "$work/got$round" "$url/curl/joined$round")
    read -r s _ <<<"$t"
    get+=("$s")
    cmp -s "$work/joined" "$work/got$round" || { echo "bench-wire: curl fetched other bytes" >&2; exit 1; }
  done
  push_s=$(fastest "${push[@]}"); pull_s=$(fastest "${pull[@]}")
  put_s=$(fastest "${put[@]}"); get_s=$(fastest "${get[@]}")
  echo "== $N chats ($bytes bytes on the remote; fastest of 3: aisync push ${push[*]}, pull ${pull[*]}; curl -T ${put[*]}, -o ${get[*]})"
  echo "push:  $push_s s, peak RSS $(mb "$push_kb") MB; curl -T $put_s s -> $(ratio "$push_s" "$put_s")x (target <= 10x)"
  echo "pull into a new store:  $pull_s s, peak RSS $(mb "$pull_kb") MB; curl -o $get_s s -> $(ratio "$pull_s" "$get_s")x (target <= 10x)"
fi

# ---- 2. LINK_N chats through a throttled link ----
if [ "$LINK_N" -gt 0 ]; then
  generated "$work/linked" "$LINK_N"
  mkcol "$url/linked"
  a "$work/linked" remote add r "$url/linked"
  a "$work/linked" push >/dev/null
  python3 scripts/throttle_proxy.py --upstream "$hostport" --rate "$RATE" >"$work/proxy.port" &
  proxy_pid=$!
  for _ in $(seq 100); do [ -s "$work/proxy.port" ] && break; sleep 0.05; done
  [ -s "$work/proxy.port" ] || { echo "bench-wire: the throttling proxy did not start" >&2; exit 1; }
  slow="http://127.0.0.1:$(head -1 "$work/proxy.port")$dav"
  bytes=$(remote_bytes linked)
  new_store "$work/linked-restored" "$slow/linked"
  t=$(timed "$AISYNC_BIN" --store "$work/linked-restored" pull)
  read -r link_s link_kb <<<"$t"
  count=$(a "$work/linked-restored" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
  [ "$count" = "$LINK_N" ] || { echo "bench-wire: the restored store holds $count records, not $LINK_N" >&2; exit 1; }
  mkdir -p "$work/curl-linked"
  (cd "$root" && find linked -type f) | while read -r f; do
    printf 'url = "%s/%s"\noutput = "%s/curl-linked/%s"\n' "$slow" "$f" "$work" "$(echo "$f" | tr / _)"
  done >"$work/curl.cfg"
  t=$(timed curl -sf "${auth[@]}" -K "$work/curl.cfg")
  read -r curl_s _ <<<"$t"
  cross_s=$(python3 -c "print(f'{$bytes/$RATE:.3f}')")
  echo "== $LINK_N chats over a $(python3 -c "print(f'{$RATE/1e6:g}')") MB/s link ($bytes bytes on the remote: $cross_s s on the link; curl fetching the same files through it: $curl_s s)"
  echo "pull into a new store:  $link_s s, peak RSS $(mb "$link_kb") MB -> $(ratio "$link_s" "$cross_s")x the bytes' time (target <= 1.2x)"
  kill "$proxy_pid" 2>/dev/null || true; proxy_pid=
fi

# ---- 3. BIG records ----
if [ "$BIG" -gt 0 ]; then
  generated "$work/big" "$BIG"
  mkcol "$url/big"
  a "$work/big" remote add r "$url/big"
  a "$work/big" push >/dev/null
  new_store "$work/big-restored" "$url/big"
  t=$(timed "$AISYNC_BIN" --store "$work/big-restored" pull)
  read -r big_s big_kb <<<"$t"
  t=$(timed "$AISYNC_BIN" --store "$work/big-restored" list --json)
  read -r list_s list_kb <<<"$t"
  echo "== $BIG records"
  echo "pull into a new store:  $big_s s (target <= 60 s), peak RSS $(mb "$big_kb") MB (target <= 64 MB)"
  echo "list --json:  $list_s s (target <= 1 s), peak RSS $(mb "$list_kb") MB"
fi
