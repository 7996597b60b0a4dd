#!/usr/bin/env bash
# `aisync watch` (issue 28) against the loopback Apache mod_dav server, release build:
#  1. change-to-other-device latency: A and B both run `aisync watch --interval 1s --debounce
#     200ms --json`; BENCH_EDITS (20) times, a separate `aisync chat new` on A, then the time
#     until B's watch reports the sync that pulled it (its JSON line's time); the median and
#     the worst. Target: median <= 2 s.
#  2. an idle watcher over a store of BENCH_IDLE_RECORDS (100,000) chats, in sync with the
#     remote, polling every 100 ms: CPU time (user + system, from /proc) per timer-driven
#     cycle over BENCH_CYCLES (1,000) cycles, and how much its RSS grew over them.
#     Targets: <= 20 ms per cycle, RSS growth <= 2 MB.
# Usage: scripts/bench-watch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
EDITS=${BENCH_EDITS:-20}
RECORDS=${BENCH_IDLE_RECORDS:-100000}
CYCLES=${BENCH_CYCLES:-1000}
if [ -z "${AISYNC_BIN:-}" ]; then
  AISYNC_BIN=$(bash scripts/build-release.sh)
fi
bench=${AISYNC_BENCH_BIN:-$(dirname "$AISYNC_BIN")/aisync-bench}
work=$(mktemp -d); chmod 755 "$work"
export AISYNC_SERVERS_DIR=$work/servers
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  bash scripts/servers.sh stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
bash scripts/servers.sh start >/dev/null
set -a; . "$AISYNC_SERVERS_DIR/env"; set +a
export AISYNC_USER=$AISYNC_TEST_USER AISYNC_PASSWORD=$AISYNC_TEST_PASSWORD
aisync() { "$AISYNC_BIN" "$@"; }
mkcol() { curl -sf -u "$AISYNC_USER:$AISYNC_PASSWORD" -X MKCOL "$1/" >/dev/null; }
now() { date +%s.%N; }
# Lines of a watcher's JSON output: the number of `synced` events so far.
synced() { grep -c '"event":"synced"' "$1" 2>/dev/null || true; }

# 1. Latency between two watching devices.
url=$AISYNC_TEST_APACHE_URL/bench-watch
mkcol "$url"
for d in a b; do
  aisync --store "$work/$d" init --name "$d" >/dev/null
  aisync --store "$work/$d" remote add origin "$url" >/dev/null
done
"$AISYNC_BIN" --store "$work/a" watch --interval 1s --debounce 200ms --json >"$work/a.jsonl" 2>"$work/a.err" &
pids+=($!)
"$AISYNC_BIN" --store "$work/b" watch --interval 1s --debounce 200ms --json >"$work/b.jsonl" 2>"$work/b.err" &
pids+=($!)
for _ in $(seq 100); do [ "$(synced "$work/b.jsonl")" -ge 1 ] && break; sleep 0.1; done
latencies=()
for i in $(seq "$EDITS"); do
  # Start between two polls, at a random point of B's second.
  sleep "0.$(( RANDOM % 9 + 1 ))"
  t0=$(now)
  aisync --store "$work/a" chat new --title "edit $i" >/dev/null
  got=""
  for _ in $(seq 200); do
    got=$(python3 - "$work/b.jsonl" "$t0" <<'PY'
import json, sys, datetime
t0 = float(sys.argv[2])
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") != "synced" or e["report"]["pulled"] < 1:
        continue
    t = datetime.datetime.fromisoformat(e["time"].replace("Z", "+00:00")).timestamp()
    if t > t0:
        print(f"{t - t0:.3f}")
        break
PY
)
    [ -n "$got" ] && break
    sleep 0.05
  done
  [ -n "$got" ] || { echo "bench-watch: edit $i never reached b" >&2; exit 1; }
  latencies+=("$got")
done
for p in "${pids[@]}"; do kill -TERM "$p"; rc=0; wait "$p" || rc=$?; [ "$rc" = 0 ] || { echo "bench-watch: a watcher ended with $rc" >&2; cat "$work"/*.err >&2; exit 1; }; done
pids=()
read -r median worst < <(python3 -c "import statistics,sys; v=list(map(float,sys.argv[1:])); print(f'{statistics.median(v):.2f} {max(v):.2f}')" "${latencies[@]}")

# 2. An idle watcher over a large store.
big=$work/big
aisync --store "$big" init --name big >/dev/null
"$bench" generate "$RECORDS" --store "$big" >/dev/null
mkcol "$AISYNC_TEST_APACHE_URL/bench-idle"
aisync --store "$big" remote add origin "$AISYNC_TEST_APACHE_URL/bench-idle" >/dev/null
aisync --store "$big" push >/dev/null
"$AISYNC_BIN" --store "$big" watch --interval 100ms --json >"$work/idle.jsonl" 2>"$work/idle.err" &
watcher=$!
pids+=("$watcher")
ticks=$(getconf CLK_TCK)
sample() { # sample: "cpu_seconds rss_kb" of the watcher
  python3 - "$watcher" "$ticks" <<'PY'
import sys
pid, ticks = sys.argv[1], int(sys.argv[2])
fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
cpu = (int(fields[11]) + int(fields[12])) / ticks
rss = next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS:"))
print(f"{cpu:.2f} {rss}")
PY
}
warm=50
until [ "$(synced "$work/idle.jsonl")" -ge "$warm" ]; do sleep 0.2; done
read -r cpu0 rss0 < <(sample)
n0=$(synced "$work/idle.jsonl")
until [ "$(synced "$work/idle.jsonl")" -ge $(( n0 + CYCLES )) ]; do sleep 0.5; done
read -r cpu1 rss1 < <(sample)
n1=$(synced "$work/idle.jsonl")
kill -TERM "$watcher"; wait "$watcher" || true
pids=()
moved=$(python3 -c "
import json,sys
n=0
for l in open(sys.argv[1]):
    e=json.loads(l)
    if e['event']=='synced' and (e['report']['pulled'] or e['report']['pushed']): n+=1
print(n)" "$work/idle.jsonl")
per_cycle=$(python3 -c "print(f'{($cpu1-$cpu0)*1000/($n1-$n0):.1f}')")
growth=$(python3 -c "print(f'{($rss1-$rss0)/1024:.1f}')")

echo "watch on Apache, $EDITS edits, --interval 1s --debounce 200ms"
echo "change-to-other-device latency: median ${median} s, worst ${worst} s (target: median <= 2 s); all: ${latencies[*]}"
echo "idle watcher over $RECORDS records, --interval 100ms, $(( n1 - n0 )) cycles: ${per_cycle} ms CPU per cycle (target <= 20 ms); RSS ${rss0} -> ${rss1} KB, grew ${growth} MB (target <= 2 MB); syncs that moved anything: $moved"
