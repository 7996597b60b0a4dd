#!/usr/bin/env bash
# Compares the pure-Swift SHA-256 (`aisync-bench hash FILE`) with coreutils `sha256sum`
# on the same random file: checks the digests match and reports best-of-N wall times.
#
# Usage: scripts/bench-sha256.sh
# Environment:
#   AISYNC_BIN  use this aisync binary instead of building the package (release)
#   SIZE_MB     size of the random test file in MiB (default 256)
#   RUNS        timed runs per tool, best one is reported (default 3)
# Exit status: 0 digests match, 1 digests differ, 2 setup or command failure.
set -euo pipefail

SIZE_MB=${SIZE_MB:-256}
RUNS=${RUNS:-3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "bench-sha256: $*" >&2; exit 2; }
command -v sha256sum >/dev/null || die "sha256sum not found"

if [[ -n "${AISYNC_BIN:-}" ]]; then
    bin=$AISYNC_BIN
else
    # Incremental: reuses an existing release build when nothing changed.
    bin=$(bash "$root/scripts/build-release.sh") || die "swift build failed"
fi
bin=${AISYNC_BENCH_BIN:-$(dirname "$bin")/aisync-bench}  # built beside aisync by build-release.sh
[[ -x "$bin" ]] || die "not an executable: $bin"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-sha256.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
file="$tmp/random.bin"
head -c "$((SIZE_MB * 1024 * 1024))" /dev/urandom > "$file" || die "cannot create $file"
cat "$file" > /dev/null  # warm the page cache so both tools read from memory

# Runs "$@" once with stdout to file $1; sets $elapsed to the wall time in seconds.
elapsed=""
timed() {
    local out=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    "$@" > "$out" || die "command failed: $*"
    t1=$(date +%s.%N)
    elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }

best_sum="" best_ai=""
for ((i = 1; i <= RUNS; i++)); do  # alternate the tools so background noise hits both
    timed "$tmp/sha256sum.out" sha256sum "$file"
    best_sum=$(min "$best_sum" "$elapsed")
    timed "$tmp/aisync.out" "$bin" hash "$file"
    best_ai=$(min "$best_ai" "$elapsed")
done

read -r sum_hex _ < "$tmp/sha256sum.out"
read -r ai_hex _ < "$tmp/aisync.out"
echo "file:      $SIZE_MB MiB random, best of $RUNS"
echo "sha256sum: ${best_sum}s  $sum_hex"
echo "aisync:    ${best_ai}s  $ai_hex  ($bin hash)"
awk -v a="$best_ai" -v s="$best_sum" -v mb="$SIZE_MB" 'BEGIN {
    printf "ratio:     %.3f (aisync time / sha256sum time; < 1 means aisync is faster)\n", a / s
    printf "speed:     sha256sum %.0f MiB/s, aisync %.0f MiB/s\n", mb / s, mb / a
}'
if ! cmp -s "$tmp/sha256sum.out" "$tmp/aisync.out"; then
    [[ "$sum_hex" == "$ai_hex" ]] || { echo "FAIL: digests differ" >&2; exit 1; }
    echo "note: digests match but output lines differ from sha256sum's format" >&2
fi
echo "OK: digests match"
