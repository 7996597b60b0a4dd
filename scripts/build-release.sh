#!/usr/bin/env bash
# Builds the aisync CLI the way the README installs it and prints the binary's path;
# aisync-bench (what the benchmark scripts need beside it) is built next to it.
# On Linux the Swift runtime is linked in (--static-swift-stdlib): the binary runs without
# the toolchain's libraries and maps fewer pages (a no-op sync at 24 MB RSS instead of 30;
# the benchmarks' memory targets are measured on it). That link needs libcurl's development
# files (FoundationNetworking), installed here when missing and allowed (root or sudo).
# Usage: scripts/build-release.sh            (build output goes to stderr)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
flags=(-c release)
if [ "$(uname -s)" = Linux ]; then
  if ! ls /usr/lib/*/libcurl.so /usr/lib/libcurl.so >/dev/null 2>&1; then
    as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }
    { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcurl4-openssl-dev; } >&2 \
      || { echo "build-release.sh: linking the Swift runtime in needs libcurl's development files: apt-get install libcurl4-openssl-dev" >&2; exit 69; }
  fi
  flags+=(--static-swift-stdlib)
fi
swift build "${flags[@]}" --product aisync >&2
swift build "${flags[@]}" --product aisync-bench >&2
echo "$(swift build "${flags[@]}" --show-bin-path)/aisync"
