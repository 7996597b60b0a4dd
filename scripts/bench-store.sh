#!/usr/bin/env bash
# Store speed, measured as ratios against references run in the same script:
#  1. adding chats one `aisync chat new` process at a time, vs `aisync --version` (process
#     start-up) -- at the start and again once the store holds BENCH_CHATS chats;
#  2. `aisync list --json` on a BENCH_LIST-record store, with the index current (warm) and
#     after deleting the index (cold rebuild), vs start-up and vs `cat` of the journal.
# Usage: scripts/bench-store.sh   (BENCH_CHATS=10000 BENCH_LIST=100000 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
CHATS=${BENCH_CHATS:-10000}
LIST=${BENCH_LIST:-100000}
SAMPLE=200
if [ -z "${AISYNC_BIN:-}" ]; then
  AISYNC_BIN=$(bash scripts/build-release.sh)
fi
bench=${AISYNC_BENCH_BIN:-$(dirname "$AISYNC_BIN")/aisync-bench}  # built beside aisync by build-release.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
per() { python3 -c "print(f'{($2-$1)/$3*1000:.2f}')"; }   # per START END COUNT -> ms each
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }

store=$work/chats
"$AISYNC_BIN" --store "$store" init --name bench >/dev/null

t0=$(now); for _ in $(seq $SAMPLE); do "$AISYNC_BIN" --version >/dev/null; done; t1=$(now)
startup=$(per "$t0" "$t1" $SAMPLE)
t0=$(now); for i in $(seq $SAMPLE); do "$AISYNC_BIN" chat new --store "$store" --title "chat $i" >/dev/null; done; t1=$(now)
first=$(per "$t0" "$t1" $SAMPLE)
t0=$(now); for i in $(seq $((CHATS - 2 * SAMPLE))); do "$AISYNC_BIN" chat new --store "$store" --title "chat $i" >/dev/null; done; t1=$(now)
t0=$(now); for i in $(seq $SAMPLE); do "$AISYNC_BIN" chat new --store "$store" --title "chat $i" >/dev/null; done; t1=$(now)
last=$(per "$t0" "$t1" $SAMPLE)
count=$("$AISYNC_BIN" list --store "$store" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
echo "chat new, one process each: start-up ${startup} ms; first ${SAMPLE}: ${first} ms each ($(ratio "$first" "$startup")x start-up); last ${SAMPLE} at ${count} chats: ${last} ms each ($(ratio "$last" "$startup")x start-up)"

big=$work/big
"$AISYNC_BIN" --store "$big" init --name bench >/dev/null
"$bench" generate "$LIST" --store "$big" >/dev/null
"$AISYNC_BIN" list --store "$big" --json >/dev/null   # brings the index up to date
t0=$(now); n=$("$AISYNC_BIN" list --store "$big" --json | python3 -c 'import sys; print(sys.stdin.read().count("\"id\":"))'); t1=$(now)
t0=$(now); for _ in 1 2 3; do "$AISYNC_BIN" list --store "$big" --json >/dev/null; done; t1=$(now)
warm=$(per "$t0" "$t1" 3)
t0=$(now); for _ in 1 2 3; do cat "$big/journal.jsonl" >/dev/null; done; t1=$(now)
cat_ms=$(per "$t0" "$t1" 3)
rm -rf "$big/index"
t0=$(now); "$AISYNC_BIN" list --store "$big" --json >/dev/null; t1=$(now)
cold=$(per "$t0" "$t1" 1)
echo "list --json of ${n} records: warm ${warm} ms ($(ratio "$warm" "$startup")x start-up, $(ratio "$warm" "$cat_ms")x cat of the journal); cold rebuild without index ${cold} ms"
