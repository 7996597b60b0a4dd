#!/usr/bin/env bash
# Records v2 (issue 7): what one long chat costs, measured against its own text size.
#  1. BENCH_MESSAGES (1,000) messages of BENCH_MESSAGE_BYTES (2 KB) added one `aisync chat say`
#     process at a time: local objects + journal bytes / text bytes (target <= 1.5);
#  2. the first push of that chat to a folder remote: bytes pushed / text bytes (<= 1.5), and
#     the push of one more message (<= 4 KB);
#  3. `aisync show` of the chat, best of 5 (<= 50 ms), next to `aisync --version` (start-up);
#  4. `aisync list --json` of BENCH_LIST (100,000) records with the index current (<= 0.4 s).
# Usage: scripts/bench-records.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
MESSAGES=${BENCH_MESSAGES:-1000}
SIZE=${BENCH_MESSAGE_BYTES:-2048}
LIST=${BENCH_LIST:-100000}
if [ -z "${AISYNC_BIN:-}" ]; then
  AISYNC_BIN=$(bash scripts/build-release.sh)
fi
bench=${AISYNC_BENCH_BIN:-$(dirname "$AISYNC_BIN")/aisync-bench}  # built beside aisync by build-release.sh
work=$(mktemp -d); [ -n "${BENCH_KEEP:-}" ] && echo "keeping $work" || trap 'rm -rf "$work"' EXIT
A() { "$AISYNC_BIN" --store "$work/store" "$@"; }
best_ms() { # best_ms N COMMAND...: the best wall time of N runs, in ms
  local n=$1; shift
  python3 - "$n" "$@" <<'PY'
import subprocess, sys, time
n, cmd = int(sys.argv[1]), sys.argv[2:]
best = min((lambda t: (subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True), time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(n))
print(f"{best * 1000:.1f}")
PY
}
files_bytes() { find "$@" -type f -printf '%s\n' 2>/dev/null | awk '{s+=$1} END {print s+0}'; }

A init --name bench >/dev/null
chat=$(A chat new --title "A long conversation" --model gpt-4o)
python3 - "$work/messages" "$MESSAGES" "$SIZE" <<'PY'
import os, random, sys
out, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out)
rng = random.Random(7)
words = "the a of lisbon tram castle pastel nata fado river tile sunset hill bridge museum coffee".split()
for i in range(n):
    text = ""
    while len(text.encode()) < size:
        text += rng.choice(words) + " "
    open(f"{out}/{i}", "w").write(text.encode()[:size].decode(errors="ignore"))
PY
text_bytes=$(files_bytes "$work/messages")
t0=$(date +%s.%N)
for i in $(seq 0 $((MESSAGES - 1))); do
  role=user; [ $((i % 2)) = 1 ] && role=assistant
  A chat say "$chat" --role "$role" - < "$work/messages/$i" >/dev/null
done
t1=$(date +%s.%N)
local_bytes=$(files_bytes "$work/store/objects" "$work/store/journal.jsonl")
echo "chat say x${MESSAGES} of ${SIZE} B: $(python3 -c "print(f'{($t1-$t0)/$MESSAGES*1000:.1f}')") ms each; text ${text_bytes} B; objects + journal ${local_bytes} B = $(python3 -c "print(f'{$local_bytes/$text_bytes:.3f}')")x the text (target <= 1.5)"

mkdir -p "$work/remote"
A remote add bench "file://$work/remote" >/dev/null
pushed=$(A push --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes"])')
remote_bytes=$(files_bytes "$work/remote")
echo "push of the whole chat: ${pushed} B sent, ${remote_bytes} B on the remote = $(python3 -c "print(f'{$pushed/$text_bytes:.3f}')")x the text (target <= 1.5)"
A chat say "$chat" --role user - < "$work/messages/0" >/dev/null
one=$(A push --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes"])')
echo "push of one more ${SIZE} B message: ${one} B (target <= 4096)"

startup=$(best_ms 5 "$AISYNC_BIN" --version)
show=$(best_ms 5 "$AISYNC_BIN" --store "$work/store" show "$chat")
echo "show of the ${MESSAGES}-message chat: ${show} ms, best of 5 (target <= 50; start-up ${startup} ms)"

"$AISYNC_BIN" --store "$work/big" init --name bench >/dev/null
"$bench" generate --store "$work/big" "$LIST" >/dev/null
"$AISYNC_BIN" --store "$work/big" list --json >/dev/null   # brings the index up to date
list=$(best_ms 3 "$AISYNC_BIN" --store "$work/big" list --json)
echo "list --json of ${LIST} records: ${list} ms, best of 3 (target <= 400)"
