#!/usr/bin/env bash
# Fuzzes the decoders that read hostile bytes (journal lines, segments, remote/state files,
# PROPFIND answers, Imgur answers, image headers, imports, zip, DEFLATE) with libFuzzer + ASan.
#
# Usage:
#   scripts/fuzz.sh              build every target, then fuzz each for FUZZ_SECONDS
#   scripts/fuzz.sh --list       print the target names (one per line) and exit
#   scripts/fuzz.sh --build-only build every selected target and exit
#
# Environment:
#   FUZZ_SECONDS=600        seconds of fuzzing per target (0: only replay corpus and regressions)
#   FUZZ_TARGETS="a b"      only these targets (default: every Tests/Fuzz/<target>.swift)
#   FUZZ_BUILD_DIR=DIR      where the instrumented build, binaries and crash files go
#                           (default .build/fuzz; never the main .build/debug or release)
#   FUZZ_ARGS="..."         extra libFuzzer flags for every run (e.g. "-max_len=16384")
#   FUZZ_JOBS=N             targets fuzzed at once (default: the number of cores)
#
# How it works: the library modules are built once by SwiftPM in their own scratch dir with
# `-sanitize=fuzzer,address -enable-testing` (coverage + ASan, internal symbols reachable), then
# each harness in Tests/Fuzz/ is compiled with `@testable import` against those modules and
# linked with their objects into a libFuzzer binary. Each target first replays
# Tests/Fuzz/regressions/<target>/ (past crashes, which must stay fixed), then fuzzes a temporary
# copy of Tests/Fuzz/corpus/<target>/ (the repository is never written) with
# -rss_limit_mb=512 -malloc_limit_mb=512 -timeout=10, so a trap, an ASan report, a hang or a
# huge allocation all count as findings (propfind runs without the RSS limit: FoundationXML's
# RSS creeps up over a long run whatever the input). Exit status: 0 when
# nothing was found, 1 on any finding (each crash file is printed, with the command that
# reproduces it), 2 on a build error.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

export PATH="$PATH:/opt/swift/usr/bin"
fuzz_dir=Tests/Fuzz
build_dir=${FUZZ_BUILD_DIR:-$root/.build/fuzz}
case $build_dir in /*) ;; *) build_dir=$root/$build_dir ;; esac
seconds=${FUZZ_SECONDS:-600}

all_targets=$(cd "$fuzz_dir" && ls -1 ./*.swift | sed 's|^\./||; s|\.swift$||' | sort)
if [ "${1:-}" = "--list" ]; then
  echo "$all_targets"
  exit 0
fi
targets=${FUZZ_TARGETS:-$all_targets}
for t in $targets; do
  [ -f "$fuzz_dir/$t.swift" ] || { echo "fuzz.sh: no target '$t' (see scripts/fuzz.sh --list)" >&2; exit 64; }
done
command -v swift >/dev/null || { echo "fuzz.sh: the Swift toolchain is not installed" >&2; exit 69; }

# ---- build ----
# The library layers every harness may use; building these two targets builds them all.
modules="AISyncCore AISyncFiles AISyncStore AISyncHTTP AISyncRemote AISyncImgur AISyncSync AISyncImport"
spm=(swift build --scratch-path "$build_dir/spm" -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
echo "== fuzz: building the instrumented library in $build_dir/spm"
mkdir -p "$build_dir/bin"
for top in AISyncSync AISyncImport; do
  if ! "${spm[@]}" --target "$top" >"$build_dir/build.log" 2>&1; then
    tail -n 50 "$build_dir/build.log" >&2
    echo "fuzz.sh: building the instrumented library failed (log: $build_dir/build.log)" >&2
    exit 2
  fi
done
bin=$("${spm[@]}" --show-bin-path)
objects=()
for m in $modules; do objects+=("$bin/$m.build"/*.o); done
for t in $targets; do
  out=$build_dir/bin/$t
  # Relink only when the harness or a library object is newer than the binary.
  if [ -x "$out" ] && [ -z "$(find "$fuzz_dir/$t.swift" "${objects[@]}" -newer "$out" -print -quit)" ]; then continue; fi
  echo "== fuzz: compiling $t"
  swiftc -O -parse-as-library -sanitize=fuzzer,address -module-name "Fuzz_${t//-/_}" -I "$bin/Modules" \
    "$fuzz_dir/$t.swift" "${objects[@]}" -o "$out" 2> >(grep -v 'warning: Cannot export local symbol' >&2) \
    || { echo "fuzz.sh: building target $t failed" >&2; exit 2; }
done
[ "${1:-}" = "--build-only" ] && exit 0

# ---- run ----
# The Swift runtime's backtracer would otherwise catch a trap first and can take minutes.
export SWIFT_BACKTRACE=enable=no
# A smaller quarantine than ASan's 256 MB, so a long run stays far below -rss_limit_mb.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=64}
limits=(-rss_limit_mb=512 -malloc_limit_mb=512 -timeout=10)
artifacts=$build_dir/artifacts
mkdir -p "$artifacts"
work=$(mktemp -d "${TMPDIR:-/tmp}/aisync-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# One target: replay its regressions, then fuzz a copy of its corpus. Writes its summary line to
# $work/$t.summary and, on a finding, its name to $work/$t.failed; its messages go to
# $work/$t.out (printed in target order once every job ended, so parallel runs never interleave).
run_target() {
  local t=$1 exe=$build_dir/bin/$1 log=$work/$1.log regressions=$fuzz_dir/regressions/$1
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    echo "== fuzz: $t: replaying $(ls -1 "$regressions" | wc -l) regression inputs"
    if ! "$exe" "${limits[@]}" "$regressions"/* >"$log" 2>&1; then
      tail -n 40 "$log"
      echo "fuzz.sh: $t: a regression input crashes again (see above); reproduce with: $exe $regressions/<file>"
      echo "$t (regression)" >"$work/$t.failed"
      echo "$t: a regression input crashes" >"$work/$t.summary"
      return
    fi
  fi
  local corpus=$work/corpus-$t
  mkdir -p "$corpus"
  [ -d "$fuzz_dir/corpus/$t" ] && cp -R "$fuzz_dir/corpus/$t/." "$corpus/"
  local rss=512
  # A propfind run's RSS grows by about 2 KB per input inside FoundationXML/libxml2 (it leaks a
  # CFString per XML error, seen with LeakSanitizer, and holds more), ~400 MB a minute: no RSS
  # limit there (0); -malloc_limit_mb=512 still catches one huge allocation.
  [ "$t" = propfind ] && rss=0
  echo "== fuzz: $t: ${seconds}s"
  # -max_total_time=0 would mean "no limit": 0 runs the corpus once instead.
  local duration=(-max_total_time="$seconds")
  [ "$seconds" = 0 ] && duration=(-runs=0)
  local status=0
  # shellcheck disable=SC2086
  "$exe" "${limits[@]}" -rss_limit_mb=$rss "${duration[@]}" -print_final_stats=1 \
    -artifact_prefix="$artifacts/$t-" ${FUZZ_ARGS:-} "$corpus" >"$log" 2>&1 || status=$?
  local stats execs
  stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  echo "   $t: ${stats:-no stats}${execs:+ (average $execs exec/s)}"
  echo "$t: exit $status, ${execs:-?} exec/s, $(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)" >"$work/$t.summary"
  if [ "$status" != 0 ]; then
    grep -E 'ERROR|Fatal error|Precondition failed|SUMMARY|==[0-9]+==|Test unit written|Base64' "$log" | head -n 20 || true
    tail -n 30 "$log" >"$artifacts/$t.log.tail"
    local crash
    crash=$(sed -n "s/.*Test unit written to //p" "$log" | tail -n 1)
    echo "fuzz.sh: $t: FINDING (exit $status): ${crash:-see $artifacts/$t.log.tail}"
    [ -n "$crash" ] && echo "   reproduce: SWIFT_BACKTRACE=enable=no $exe $crash"
    echo "$t" >"$work/$t.failed"
  fi
}

# FUZZ_JOBS targets at a time (default: one per core); each libFuzzer run is single-threaded.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
echo "== fuzz: running $(echo $targets | wc -w) targets, $jobs at a time"
running=0
for t in $targets; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" >"$work/$t.out" 2>&1 &
  running=$((running + 1))
done
wait || true

failed=()
summary=()
for t in $targets; do
  cat "$work/$t.out"
  summary+=("$(cat "$work/$t.summary" 2>/dev/null || echo "$t: no result")")
  if [ -f "$work/$t.failed" ]; then failed+=("$(cat "$work/$t.failed")"); fi
  if [ ! -f "$work/$t.summary" ]; then failed+=("$t (ended without a result)"); fi
done

echo "== fuzz: summary"
printf '   %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: findings in: ${failed[*]} (crash files in $artifacts)" >&2
  exit 1
fi
echo "fuzz.sh: no findings"
