#!/usr/bin/env bash
# aisync's hand-written cryptography in a release build (issue 12), one run, each figure beside
# its reference measured in the same run:
#  1. XChaCha20-Poly1305 sealing (`aisync-bench seal-speed`, 16 KiB messages) beside
#     `openssl speed -evp chacha20-poly1305` at 16 KiB on one core (target >= 50 %, moonshot 80 %),
#     then aisync's portable Swift code alone (used where the system has no libcrypto);
#  2. scrypt with the parameters aisync stores with a wrapped key (N=2^16, r=8, p=3: 64 MiB;
#     target 0.5-1 s), its result checked against Python's hashlib.scrypt;
#  3. RFC 7914's fourth vector (N=2^20, r=8, p=1: 1 GiB), too large for the debug test suite;
#  4. push and pull of BENCH_CHATS chats (10,000) through an encrypted folder remote beside the
#     same through a plain one (target <= 1.3x), the key remembered (--remember), so the
#     figures are the cost of sealing and opening; one unlock (scrypt) is timed apart.
# Usage: scripts/bench-crypto.sh   Environment: AISYNC_BIN, SEAL_MB (default 256), BENCH_CHATS
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "bench-crypto: $*" >&2; exit 2; }
command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"
if [[ -n "${AISYNC_BIN:-}" ]]; then bin=$AISYNC_BIN; else
  bin=$(bash "$root/scripts/build-release.sh") || die "swift build failed"
fi
bench=${AISYNC_BENCH_BIN:-$(dirname "$bin")/aisync-bench}  # built beside aisync by build-release.sh

echo "== XChaCha20-Poly1305"
ours=$("$bench" seal-speed "${SEAL_MB:-256}" | awk '{print $1}')
# openssl's table: "chacha20-poly1305  <16> <64> <256> <1024> <8192> <16384>" in 1000s of bytes/s.
ref=$(openssl speed -seconds 2 -evp chacha20-poly1305 2>/dev/null | awk 'tolower($1) == "chacha20-poly1305" {v=$NF} END {sub(/k$/, "", v); print v / 1000}')
[[ -n "$ref" ]] || die "no figure from openssl speed"
awk -v o="$ours" -v r="$ref" 'BEGIN { printf "aisync %.0f MB/s, openssl %.0f MB/s -> %.0f %% (target >= 50 %%, moonshot 80 %%)\n", o, r, 100 * o / r }'
# The same with aisync's own Swift code (what runs where libcrypto is absent), for the record.
portable=$("$bench" seal-speed --portable "$(( ${SEAL_MB:-256} / 4 ))" | awk '{print $1}')
awk -v o="$portable" -v r="$ref" 'BEGIN { printf "aisync portable Swift code %.0f MB/s -> %.0f %% of openssl\n", o, 100 * o / r }'

echo "== scrypt N=2^16 r=8 p=3 (what keys.json stores)"
read -r key seconds < <("$bench" scrypt "correct horse" "aisync-salt" 65536 8 3)
want=$(python3 -c 'import hashlib; print(hashlib.scrypt(b"correct horse", salt=b"aisync-salt", n=65536, r=8, p=3, dklen=64, maxmem=1<<28).hex())')
[[ "$key" == "$want" ]] || die "scrypt differs from hashlib.scrypt: $key"
echo "aisync ${seconds} s (target 0.5-1 s), same key as hashlib.scrypt"

echo "== RFC 7914 vector 4 (N=2^20, r=8, p=1)"
read -r key seconds < <("$bench" scrypt "pleaseletmein" "SodiumChloride" 1048576 8 1)
[[ "$key" == "2101cb9b6a511aaeaddbbe09cf70f881ec568d574a2ffd4dabe5ee9820adaa478e56fd8f4ba5d09ffa1c6d927c40f4c337304049e8a952fbcbf45c6fa77a41a4" ]] \
  || die "RFC 7914 vector 4 differs: $key"
echo "matches the RFC (${seconds} s)"

N=${BENCH_CHATS:-10000}
echo "== push and pull of $N chats: encrypted folder remote vs plain"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
a() { "$bin" --store "$@"; }
timed() { /usr/bin/time -f "%e" -o "$work/time" "$@" >/dev/null; cat "$work/time"; }
a "$work/laptop" init --name laptop >/dev/null
"$bench" generate --store "$work/laptop" "$N" >/dev/null
mkdir -p "$work/plain" "$work/sealed"
a "$work/laptop" remote add plain "file://$work/plain"
a "$work/laptop" remote add sealed "file://$work/sealed" --encrypt
export AISYNC_PASSPHRASE="bench passphrase"
# Sets up the key (one scrypt) and remembers it, so the timed push is sealing alone.
unlock_s=$(timed "$bin" --store "$work/laptop" push sealed --dry-run --remember)
push_plain=$(timed "$bin" --store "$work/laptop" push plain)
push_sealed=$(timed "$bin" --store "$work/laptop" push sealed)
for kind in plain sealed; do
  a "$work/restore-$kind" init --name restore >/dev/null
  a "$work/restore-$kind" remote add "$kind" "file://$work/$kind"
done
a "$work/restore-sealed" pull sealed --dry-run --remember >/dev/null
pull_plain=$(timed "$bin" --store "$work/restore-plain" pull plain)
pull_sealed=$(timed "$bin" --store "$work/restore-sealed" pull sealed)
count=$(a "$work/restore-sealed" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[[ "$count" == "$N" ]] || die "the encrypted restore holds $count records, not $N"
if grep -rqa "Generated chat" "$work/sealed"; then die "plaintext found on the encrypted remote"; fi
awk -v a="$push_plain" -v b="$push_sealed" -v c="$pull_plain" -v d="$pull_sealed" -v u="$unlock_s" 'BEGIN {
  printf "push: plain %.2f s, encrypted %.2f s -> %.2fx (target <= 1.3x)\n", a, b, b / a
  printf "pull: plain %.2f s, encrypted %.2f s -> %.2fx (target <= 1.3x)\n", c, d, d / c
  printf "first unlock (creating the key: scrypt + keys.json): %.2f s\n", u }'
du -sb "$work/plain" "$work/sealed" | awk '{printf "remote bytes %s: %d\n", $2, $1}'
