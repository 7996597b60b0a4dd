#!/usr/bin/env bash
# S3 speed on the loopback SeaweedFS cluster (master, three volume servers, filer and S3
# gateway, started by servers.sh), measured in one run (issue 27):
#  1. push of N chats to a fresh folder of the bucket (three times, each to a new folder; the
#     fastest): time; requests, counted by a
#     pass-through proxy (fault_proxy.py, no faults) in an identical push to another folder;
#  2. a sync with nothing new: requests;
#  3. pull of everything into a new store (three times, each into a new store; the fastest):
#     time and requests;
#  4. the same N chats as N JSON files with rclone's S3 backend: `rclone copy` up to a new
#     folder and down into an empty one (three times each; the fastest); the ratios against 1 and 3;
#  5. a 200 MB picture: aisync push (multipart) and pull into a new store, next to
#     `curl --aws-sigv4` PUT (with the SHA-256 the signature needs, computed by sha256sum) and
#     GET of the same bytes: the object aisync stored (the ratio's reference: the same object
#     as the store holds it), and curl's own upload (shown; SeaweedFS serves an object made by
#     a multipart upload more slowly to any client, docs/PERFORMANCE.md 3.10). Down: three of
#     each, alternating; the fastest of each.
# Targets: push and pull >= 50x rclone in <= 40 requests each; a sync with nothing new 1 request;
# the 200 MB picture up and down <= 1.5x curl.
# Usage: scripts/bench-s3.sh   (BENCH_CHATS=10000, BENCH_PICTURE_MB=200 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
N=${BENCH_CHATS:-10000}
MB=${BENCH_PICTURE_MB:-200}
if [ -z "${AISYNC_BIN:-}" ]; then
  AISYNC_BIN=$(bash scripts/build-release.sh)
fi
bench=${AISYNC_BENCH_BIN:-$(dirname "$AISYNC_BIN")/aisync-bench}
work=$(mktemp -d); chmod 755 "$work"
export AISYNC_SERVERS_DIR=$work/servers
proxy_pid=
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  bash scripts/servers.sh stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
bash scripts/servers.sh start >/dev/null
set -a; . "$AISYNC_SERVERS_DIR/env"; set +a
endpoint=$AISYNC_TEST_SEAWEED_S3_URL
bucket=$AISYNC_TEST_SEAWEED_BUCKET
region=$AISYNC_TEST_SEAWEED_REGION
export AWS_ACCESS_KEY_ID=$AISYNC_TEST_SEAWEED_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$AISYNC_TEST_SEAWEED_SECRET_KEY
export AWS_REGION=$region
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2-$1:.3f}')"; }
ratio() { python3 -c "print(f'{$1/$2:.1f}')"; }
fastest() { python3 -c "import sys; print(f'{min(map(float, sys.argv[1:])):.3f}')" "$@"; }
aisync() { "$AISYNC_BIN" "$@"; }

# The counting proxy: every request to the gateway is one line of its log.
python3 scripts/fault_proxy.py --upstream "$endpoint" --port 0 --rate 0 --log "$work/proxy.log" >"$work/proxy.port" &
proxy_pid=$!
for _ in $(seq 100); do [ -s "$work/proxy.port" ] && break; sleep 0.05; done
counted="http://127.0.0.1:$(head -1 "$work/proxy.port")"
requests() { if [ -f "$work/proxy.log" ]; then wc -l <"$work/proxy.log"; else echo 0; fi; }

store=$work/store
aisync --store "$store" init --name bench >/dev/null
"$bench" generate "$N" --store "$store" >/dev/null
aisync --store "$store" remote add counted "s3://$bucket/bench-counted" --endpoint "$counted" >/dev/null

# Three pushes, each to a fresh folder of the bucket (each a first push of everything); the
# fastest counts, as for rclone's three uploads below. The first is the folder pulled later.
push_runs=()
for i in 1 2 3; do
  name=cloud; [ "$i" -gt 1 ] && name=cloud$i
  folder=bench-aisync; [ "$i" -gt 1 ] && folder=bench-aisync$i
  aisync --store "$store" remote add "$name" "s3://$bucket/$folder" --endpoint "$endpoint" >/dev/null
  t0=$(now); aisync --store "$store" push "$name" >/dev/null; t1=$(now)
  push_runs+=("$(secs "$t0" "$t1")")
done
push_s=$(fastest "${push_runs[@]}")
before=$(requests); aisync --store "$store" push counted >/dev/null; push_requests=$(( $(requests) - before ))
before=$(requests); aisync --store "$store" sync counted >/dev/null; idle_requests=$(( $(requests) - before ))

# Three pulls, each into a new store; the fastest counts (as for rclone below: this VM's speed
# swings from one second to the next, so both sides' fastest of three are compared).
pull_runs=()
for i in 1 2 3; do
  fresh=$work/fresh$i
  aisync --store "$fresh" init --name fresh >/dev/null
  aisync --store "$fresh" remote add cloud "s3://$bucket/bench-aisync" --endpoint "$endpoint" >/dev/null
  t0=$(now); aisync --store "$fresh" pull cloud >/dev/null; t1=$(now)
  pull_runs+=("$(secs "$t0" "$t1")")
done
pull_s=$(fastest "${pull_runs[@]}")
counted_fresh=$work/counted-fresh
aisync --store "$counted_fresh" init --name counted >/dev/null
aisync --store "$counted_fresh" remote add counted "s3://$bucket/bench-counted" --endpoint "$counted" >/dev/null
before=$(requests); aisync --store "$counted_fresh" pull counted >/dev/null; pull_requests=$(( $(requests) - before ))
records=$(aisync --store "$work/fresh1" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')

# The same chats as one JSON file each (the record bodies aisync stores), with rclone.
files=$work/files; mkdir -p "$files"
python3 scripts/chats_as_files.py "$store" "$files"
count=$(ls "$files" | wc -l)
# rclone's S3 backend, configured from the environment (no secret in argv). rclone 1.60 fails
# to start when AWS_CA_BUNDLE is set ("HTTPClient's transport unsupported type"); this server
# is plain HTTP on loopback, so it is unset.
unset AWS_CA_BUNDLE
rclone_or_die() { rclone "$@" 2>>"$work/rclone.err" || { cat "$work/rclone.err" >&2; exit 1; }; }
export RCLONE_CONFIG_SW_TYPE=s3 RCLONE_CONFIG_SW_PROVIDER=Other RCLONE_CONFIG_SW_ENDPOINT=$endpoint
export RCLONE_CONFIG_SW_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID RCLONE_CONFIG_SW_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY
export RCLONE_CONFIG_SW_REGION=$region RCLONE_CONFIG_SW_FORCE_PATH_STYLE=true
rclone_up_runs=()
for i in 1 2 3; do
  folder=bench-rclone; [ "$i" -gt 1 ] && folder=bench-rclone$i
  t0=$(now); rclone_or_die copy "$files" "sw:$bucket/$folder"; t1=$(now)
  rclone_up_runs+=("$(secs "$t0" "$t1")")
done
rclone_up_s=$(fastest "${rclone_up_runs[@]}")
rclone_down_runs=()
for i in 1 2 3; do
  t0=$(now); rclone_or_die copy "sw:$bucket/bench-rclone" "$work/rclone-down$i"; t1=$(now)
  rclone_down_runs+=("$(secs "$t0" "$t1")")
done
rclone_down_s=$(fastest "${rclone_down_runs[@]}")
down_count=$(ls "$work/rclone-down1" | wc -l)

# A picture of MB megabytes: a PNG whose text chunk carries random bytes.
picture=$work/picture.png
python3 scripts/make_png.py "$picture" "$MB"
size=$(stat -c %s "$picture")
big=$work/big
aisync --store "$big" init --name big >/dev/null
aisync --store "$big" image add "$picture" >/dev/null
aisync --store "$big" remote add cloud "s3://$bucket/bench-big" --endpoint "$endpoint" >/dev/null
t0=$(now); aisync --store "$big" push >/dev/null; t1=$(now)
big_up_s=$(secs "$t0" "$t1")

# curl signs with Signature V4 and sends the payload's SHA-256, which it needs as a header.
curl_config=$work/curl.conf
printf 'user = "%s:%s"\n' "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" >"$curl_config"
chmod 600 "$curl_config"
t0=$(now)
hash=$(sha256sum "$picture" | cut -d' ' -f1)
t_hash=$(now)
curl -sf -K "$curl_config" --aws-sigv4 "aws:amz:$region:s3" -H "x-amz-content-sha256: $hash" \
  -T "$picture" "$endpoint/$bucket/bench-curl/picture.png" -o /dev/null
t1=$(now)
curl_up_s=$(secs "$t0" "$t1"); curl_put_s=$(secs "$t_hash" "$t1")
# Down, alternating: an aisync pull into a new store, then curl's GET, three times; the
# fastest of each (the first read of a just-written object is slower on the store, whoever
# makes it).
empty=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
big_down_runs=()
curl_down_runs=()
curl_own_runs=()
stored_key=bench-big/objects/${hash:0:2}/$hash
curl_get() { # curl_get KEY: GET of the object KEY into curl-down.png, compared with the picture
  curl -sf -K "$curl_config" --aws-sigv4 "aws:amz:$region:s3" -H "x-amz-content-sha256: $empty" \
    "$endpoint/$bucket/$1" -o "$work/curl-down.png"
}
for i in 1 2 3; do
  bigfresh=$work/bigfresh$i
  aisync --store "$bigfresh" init --name bigfresh >/dev/null
  aisync --store "$bigfresh" remote add cloud "s3://$bucket/bench-big" --endpoint "$endpoint" >/dev/null
  t0=$(now); aisync --store "$bigfresh" pull >/dev/null; t1=$(now)
  big_down_runs+=("$(secs "$t0" "$t1")")
  rm -rf "$bigfresh"
  t0=$(now); curl_get "$stored_key"; t1=$(now)
  curl_down_runs+=("$(secs "$t0" "$t1")")
  cmp -s "$picture" "$work/curl-down.png" || { echo "bench-s3: curl's download differs" >&2; exit 1; }
  rm -f "$work/curl-down.png"
  t0=$(now); curl_get bench-curl/picture.png; t1=$(now)
  curl_own_runs+=("$(secs "$t0" "$t1")")
  cmp -s "$picture" "$work/curl-down.png" || { echo "bench-s3: curl's download differs" >&2; exit 1; }
  rm -f "$work/curl-down.png"
done
big_down_s=$(fastest "${big_down_runs[@]}")
curl_down_s=$(fastest "${curl_down_runs[@]}")
curl_own_s=$(fastest "${curl_own_runs[@]}")

echo "SeaweedFS cluster (3 volume servers, replication 001), $N chats, rclone $(rclone version | head -1 | cut -d' ' -f2), curl $(curl --version | head -1 | cut -d' ' -f2)"
echo "push of $N chats: ${push_s} s (fastest of ${push_runs[*]}) in $push_requests requests; rclone copy of $count JSON files: ${rclone_up_s} s (fastest of ${rclone_up_runs[*]}); aisync is $(ratio "$rclone_up_s" "$push_s")x faster (target >= 50x, <= 40 requests)"
echo "pull of $records records into a new store: ${pull_s} s (fastest of ${pull_runs[*]}) in $pull_requests requests; rclone copy down of $down_count files: ${rclone_down_s} s (fastest of ${rclone_down_runs[*]}); aisync is $(ratio "$rclone_down_s" "$pull_s")x faster (target >= 50x, <= 40 requests)"
echo "sync with nothing new: $idle_requests request(s) (target 1)"
echo "picture of $size bytes up: aisync push ${big_up_s} s; curl --aws-sigv4 ${curl_up_s} s (${curl_put_s} s PUT + sha256sum); aisync/curl $(ratio "$big_up_s" "$curl_up_s") (target <= 1.5)"
echo "picture down: aisync pull into a new store ${big_down_s} s (fastest of ${big_down_runs[*]}); curl GET of the same object ${curl_down_s} s (fastest of ${curl_down_runs[*]}); aisync/curl $(ratio "$big_down_s" "$curl_down_s") (target <= 1.5); curl GET of its own single-PUT upload ${curl_own_s} s (fastest of ${curl_own_runs[*]})"
