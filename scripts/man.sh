#!/usr/bin/env bash
# Writes aisync.1, the man page, from the command table of the built aisync (the same table
# `aisync help` prints). Install: sudo install -m 644 aisync.1 /usr/local/share/man/man1/
# Usage: scripts/man.sh [OUTPUT]     Environment: AISYNC_BIN (default: a release build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n "${AISYNC_BIN:-}" ]]; then bin=$AISYNC_BIN; else
  (cd "$root" && swift build -c release --product aisync) >&2
  bin="$(cd "$root" && swift build -c release --show-bin-path)/aisync"
fi
out=${1:-aisync.1}
"$bin" manpage > "$out"
echo "wrote $out (view: man -l $out)"
