#!/usr/bin/env bash
# aisync's hand-written cryptography in a release build (issue 12), one run, each figure beside
# its reference measured in the same run:
#  1. XChaCha20-Poly1305 sealing (`aisync debug-seal-speed`, 16 KiB messages) beside
#     `openssl speed -evp chacha20-poly1305` at 16 KiB on one core (target >= 50 %, moonshot 80 %);
#  2. scrypt with the parameters aisync stores with a wrapped key (N=2^17, r=8, p=1; target
#     0.5-1 s), its result checked against Python's hashlib.scrypt;
#  3. RFC 7914's fourth vector (N=2^20, r=8, p=1: 1 GiB), too large for the debug test suite.
# Usage: scripts/bench-crypto.sh            Environment: AISYNC_BIN, SEAL_MB (default 256)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "bench-crypto: $*" >&2; exit 2; }
command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"
if [[ -n "${AISYNC_BIN:-}" ]]; then bin=$AISYNC_BIN; else
  (cd "$root" && swift build -c release --product aisync) >&2 || die "swift build failed"
  bin="$(cd "$root" && swift build -c release --show-bin-path)/aisync"
fi

echo "== XChaCha20-Poly1305"
ours=$("$bin" debug-seal-speed "${SEAL_MB:-256}" | awk '{print $1}')
# openssl's table: "chacha20-poly1305  <16> <64> <256> <1024> <8192> <16384>" in 1000s of bytes/s.
ref=$(openssl speed -seconds 2 -evp chacha20-poly1305 2>/dev/null | awk 'tolower($1) == "chacha20-poly1305" {v=$NF} END {sub(/k$/, "", v); print v / 1000}')
[[ -n "$ref" ]] || die "no figure from openssl speed"
awk -v o="$ours" -v r="$ref" 'BEGIN { printf "aisync %.0f MB/s, openssl %.0f MB/s -> %.0f %% (target >= 50 %%, moonshot 80 %%)\n", o, r, 100 * o / r }'

echo "== scrypt N=2^17 r=8 p=1"
read -r key seconds < <("$bin" debug-scrypt "correct horse" "aisync-salt" 131072 8 1)
want=$(python3 -c 'import hashlib; print(hashlib.scrypt(b"correct horse", salt=b"aisync-salt", n=131072, r=8, p=1, dklen=64, maxmem=1<<28).hex())')
[[ "$key" == "$want" ]] || die "scrypt differs from hashlib.scrypt: $key"
echo "aisync ${seconds} s (target 0.5-1 s), same key as hashlib.scrypt"

echo "== RFC 7914 vector 4 (N=2^20, r=8, p=1)"
read -r key seconds < <("$bin" debug-scrypt "pleaseletmein" "SodiumChloride" 1048576 8 1)
[[ "$key" == "2101cb9b6a511aaeaddbbe09cf70f881ec568d574a2ffd4dabe5ee9820adaa478e56fd8f4ba5d09ffa1c6d927c40f4c337304049e8a952fbcbf45c6fa77a41a4" ]] \
  || die "RFC 7914 vector 4 differs: $key"
echo "matches the RFC (${seconds} s)"
