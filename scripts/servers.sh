#!/usr/bin/env bash
# Real servers for the sync integration tests (issue 3), each on a free loopback port with its
# own temporary config, HTTP Basic auth (user `aisync`, a random password) and data directory:
#
#   apache  Apache httpd + mod_dav/mod_dav_fs       WebDAV      AISYNC_TEST_APACHE_URL
#   rclone  rclone serve webdav                     WebDAV      AISYNC_TEST_RCLONE_URL
#   nginx   nginx dav_methods PUT DELETE MKCOL      plain HTTP  AISYNC_TEST_NGINX_URL (no PROPFIND)
#
# Usage: scripts/servers.sh start|stop|status
#   start   installs what is missing (Debian: apache2 nginx rclone apache2-utils curl python3),
#           (re)starts the three servers and writes $STATE/env (KEY=VALUE lines, for `set -a; . env`).
#   stop    stops everything a previous `start` started (by pid file) and deletes the data;
#           idempotent. Configs and logs stay in $STATE for post-mortems.
# $STATE is $AISYNC_SERVERS_DIR, default /tmp/aisync-servers. Nothing is installed as a system
# service and nothing outside $STATE is configured.
set -euo pipefail

STATE=${AISYNC_SERVERS_DIR:-/tmp/aisync-servers}
USER_NAME=aisync
SERVERS=(apache rclone nginx)
WAIT_SECONDS=${AISYNC_SERVERS_WAIT:-20}

say() { printf '%s\n' "$*"; }
die() { printf 'servers.sh: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }
as_root() { if is_root; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]; }
bin() { command -v "$1" 2>/dev/null || { [ -x "/usr/sbin/$1" ] && echo "/usr/sbin/$1"; } || echo "/sbin/$1"; }

install_missing() {
  local missing=() pair
  for pair in apache2:apache2 nginx:nginx rclone:rclone htpasswd:apache2-utils curl:curl python3:python3; do
    have "${pair%%:*}" || missing+=("${pair#*:}")
  done
  # mod_dav_fs ships with apache2, but check: a minimal image could lack it.
  [ -f /usr/lib/apache2/modules/mod_dav_fs.so ] || missing+=(apache2)
  [ ${#missing[@]} = 0 ] && return 0
  say "servers.sh: installing ${missing[*]}"
  # Debian starts apache2 and nginx as services on port 80 when they are installed: not wanted
  # here (each test server is started on its own), and nginx's start fails when apache2 holds
  # the port, which fails the install. A policy-rc.d that refuses service starts (exit 101)
  # prevents both, unless the machine already has one.
  local policy=/usr/sbin/policy-rc.d added=""
  if is_root && [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# temporary, from aisync scripts/servers.sh\nexit 101\n' >"$policy" && chmod 0755 "$policy" && added=1
  fi
  local ok=1
  as_root apt-get update -qq || ok=""
  [ -n "$ok" ] && { as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || ok=""; }
  [ -n "$added" ] && rm -f "$policy"
  [ -n "$ok" ] || die "apt-get install ${missing[*]} failed"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

random_password() {
  python3 -c 'import secrets; print(secrets.token_urlsafe(18))'
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# Waits (bounded) until an authenticated request to the server answers, then checks that
# Basic auth is enforced and that the DAV root is writable (a PUT and a DELETE of a probe).
wait_ready() { # wait_ready NAME URL PASSWORD PID
  local name=$1 url=$2 password=$3 pid=$4 code deadline
  deadline=$(( $(date +%s) + WAIT_SECONDS ))
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -u "$USER_NAME:$password" "$url/" 2>/dev/null || true)
    [ "$code" != 000 ] && [ -n "$code" ] && break
    pid_alive "$pid" || { say "$name exited while starting"; return 1; }
    [ "$(date +%s)" -lt "$deadline" ] || { say "$name did not answer within ${WAIT_SECONDS}s"; return 1; }
    sleep 0.05
  done
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url/.aisync-probe")
  [ "$code" = 401 ] || { say "$name: expected 401 without credentials, got $code"; return 1; }
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -u "$USER_NAME:$password" -T - "$url/.aisync-probe" <<<"probe")
  case $code in 200|201|204) ;; *) say "$name: PUT of a probe file answered $code (is the data directory writable?)"; return 1 ;; esac
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -u "$USER_NAME:$password" -X DELETE "$url/.aisync-probe")
  case $code in 200|204) ;; *) say "$name: DELETE of a probe file answered $code"; return 1 ;; esac
}

# ---------------------------------------------------------------------------------------------
# Apache httpd + mod_dav_fs, standalone (never the system service)

start_apache() { # start_apache PORT PASSWORD
  local port=$1 password=$2 d="$STATE/apache" mods=/usr/lib/apache2/modules
  rm -rf "$d"; mkdir -p "$d/www/dav" "$d/lock" "$d/logs" "$d/run"
  htpasswd -bcB "$d/htpasswd" "$USER_NAME" "$password" >/dev/null 2>&1
  local run_as=""
  if is_root; then
    # Apache refuses `User root`; its children run as www-data, which must own the DAV data.
    chown -R www-data:www-data "$d/www" "$d/lock"
    chmod 0644 "$d/htpasswd"
    run_as=$'User www-data\nGroup www-data'
  fi
  cat >"$d/httpd.conf" <<EOF
# aisync test server: WebDAV (mod_dav_fs) with Basic auth. Generated by scripts/servers.sh.
ServerRoot "$d"
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile "$d/run/httpd.pid"
DefaultRuntimeDir "$d/run"
ErrorLog "$d/logs/error.log"
LogLevel warn
$run_as
LoadModule mpm_event_module $mods/mod_mpm_event.so
LoadModule authn_core_module $mods/mod_authn_core.so
LoadModule authn_file_module $mods/mod_authn_file.so
LoadModule authz_core_module $mods/mod_authz_core.so
LoadModule authz_user_module $mods/mod_authz_user.so
LoadModule auth_basic_module $mods/mod_auth_basic.so
LoadModule dav_module $mods/mod_dav.so
LoadModule dav_fs_module $mods/mod_dav_fs.so
LogFormat "%h %u \"%r\" %>s %b" short
CustomLog "$d/logs/access.log" short
KeepAlive On
MaxKeepAliveRequests 10000
KeepAliveTimeout 15
Timeout 60
LimitRequestBody 0
DavLockDB "$d/lock/DavLock"
DocumentRoot "$d/www"
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "$d/www/dav">
    Dav On
    AuthType Basic
    AuthName "aisync"
    AuthBasicProvider file
    AuthUserFile "$d/htpasswd"
    Require valid-user
</Directory>
EOF
  "$(bin apache2)" -f "$d/httpd.conf" -k start >>"$d/logs/error.log" 2>&1 || return 1
  # -k start returns once the parent has detached; the pid file follows shortly.
  local deadline=$(( $(date +%s) + WAIT_SECONDS ))
  until [ -s "$d/run/httpd.pid" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { say "apache wrote no pid file"; return 1; }
    sleep 0.05
  done
  cp "$d/run/httpd.pid" "$d/pid"
  wait_ready apache "http://127.0.0.1:$port/dav" "$password" "$(cat "$d/pid")"
}

# ---------------------------------------------------------------------------------------------
# rclone serve webdav

start_rclone() { # start_rclone PORT PASSWORD
  local port=$1 password=$2 d="$STATE/rclone"
  rm -rf "$d"; mkdir -p "$d/root/dav" "$d/logs"
  : >"$d/rclone.conf"
  # setsid: its own process group, so `stop` can end it and nothing else.
  RCLONE_CONFIG="$d/rclone.conf" setsid rclone serve webdav "$d/root" \
    --addr "127.0.0.1:$port" --user "$USER_NAME" --pass "$password" \
    --log-file "$d/logs/error.log" --log-level NOTICE \
    </dev/null >>"$d/logs/error.log" 2>&1 &
  echo $! >"$d/pid"
  wait_ready rclone "http://127.0.0.1:$port/dav" "$password" "$(cat "$d/pid")"
}

# ---------------------------------------------------------------------------------------------
# nginx as a plain HTTP remote: PUT/DELETE/MKCOL, no PROPFIND (no dav_ext)

start_nginx() { # start_nginx PORT PASSWORD
  local port=$1 password=$2 d="$STATE/nginx"
  rm -rf "$d"; mkdir -p "$d/root/dav" "$d/logs" "$d/tmp"
  htpasswd -bcB "$d/htpasswd" "$USER_NAME" "$password" >/dev/null 2>&1
  local user_line=""
  is_root && user_line="user root root;"
  cat >"$d/nginx.conf" <<EOF
# aisync test server: plain HTTP with PUT/DELETE/MKCOL, Basic auth. Generated by scripts/servers.sh.
$user_line
daemon on;
worker_processes 2;
pid $d/nginx.pid;
error_log $d/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log $d/logs/access.log;
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
    client_max_body_size 0;
    keepalive_requests 10000;
    server {
        listen 127.0.0.1:$port;
        root $d/root;
        location /dav {
            auth_basic "aisync";
            auth_basic_user_file $d/htpasswd;
            dav_methods PUT DELETE MKCOL;
            create_full_put_path on;
            dav_access user:rw group:rw all:r;
        }
    }
}
EOF
  "$(bin nginx)" -e "$d/logs/error.log" -p "$d" -c "$d/nginx.conf" >>"$d/logs/error.log" 2>&1 || return 1
  local deadline=$(( $(date +%s) + WAIT_SECONDS ))
  until [ -s "$d/nginx.pid" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { say "nginx wrote no pid file"; return 1; }
    sleep 0.05
  done
  cp "$d/nginx.pid" "$d/pid"
  wait_ready nginx "http://127.0.0.1:$port/dav" "$password" "$(cat "$d/pid")"
}

# ---------------------------------------------------------------------------------------------

stop_one() { # stop_one NAME
  local name=$1 d="$STATE/$1" pid pgid deadline
  [ -f "$d/pid" ] || return 0
  pid=$(cat "$d/pid" 2>/dev/null || true)
  if pid_alive "$pid"; then
    # All three run as the leader of their own process group (apache and nginx detach with
    # setsid, rclone is started with setsid): signal the group, so workers go too.
    pgid=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f3 || true)
    [ "$pgid" = "$pid" ] || pgid=""
    if [ -n "$pgid" ]; then kill -TERM -- "-$pgid" 2>/dev/null || true; else kill -TERM "$pid" 2>/dev/null || true; fi
    deadline=$(( $(date +%s) + 10 ))
    while pid_alive "$pid" && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.05; done
    if pid_alive "$pid" || { [ -n "$pgid" ] && kill -0 -- "-$pgid" 2>/dev/null; }; then
      if [ -n "$pgid" ]; then kill -KILL -- "-$pgid" 2>/dev/null || true; else kill -KILL "$pid" 2>/dev/null || true; fi
    fi
  fi
  rm -f "$d/pid"
  # The data goes; configs and logs stay for post-mortems.
  rm -rf "$d/www" "$d/root" "$d/tmp" "$d/lock"
}

stop_all() {
  local s
  for s in "${SERVERS[@]}"; do stop_one "$s"; done
  rm -f "$STATE/env"
}

start_all() {
  install_missing
  stop_all
  mkdir -p "$STATE"
  chmod 0755 "$STATE"
  local password s port url attempt ok out failed=()
  password=$(random_password)
  declare -A urls
  for s in "${SERVERS[@]}"; do
    ok=""
    # The port is free when picked but could be taken before the server binds it: retry.
    for attempt in 1 2 3; do
      port=$(free_port)
      url="http://127.0.0.1:$port/dav"
      if out=$("start_$s" "$port" "$password" 2>&1); then ok=1; break; fi
      stop_one "$s"
      grep -qiE 'address already in use|could not bind' "$STATE/$s/logs/error.log" 2>/dev/null || break
    done
    if [ -n "$ok" ]; then
      urls[$s]=$url
      printf '%-7s %-32s pid %-8s ok\n' "$s" "$url" "$(cat "$STATE/$s/pid")"
    else
      printf '%-7s %-32s FAILED\n' "$s" "$url" >&2
      [ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /' >&2
      if [ -f "$STATE/$s/logs/error.log" ]; then
        echo "    --- tail of $STATE/$s/logs/error.log" >&2
        tail -n 20 "$STATE/$s/logs/error.log" | sed 's/^/    /' >&2
      fi
      failed+=("$s")
    fi
  done
  if [ ${#failed[@]} -gt 0 ]; then
    stop_all
    die "could not start: ${failed[*]}"
  fi
  umask 077
  cat >"$STATE/env.tmp" <<EOF
AISYNC_TEST_APACHE_URL=${urls[apache]}
AISYNC_TEST_RCLONE_URL=${urls[rclone]}
AISYNC_TEST_NGINX_URL=${urls[nginx]}
AISYNC_TEST_USER=$USER_NAME
AISYNC_TEST_PASSWORD=$password
AISYNC_TEST_APACHE_ROOT=$STATE/apache/www
AISYNC_TEST_RCLONE_ROOT=$STATE/rclone/root
AISYNC_TEST_NGINX_ROOT=$STATE/nginx/root
EOF
  mv "$STATE/env.tmp" "$STATE/env"
  say "env     $STATE/env"
}

status_all() {
  local s pid rc=0
  for s in "${SERVERS[@]}"; do
    pid=$(cat "$STATE/$s/pid" 2>/dev/null || true)
    if pid_alive "$pid"; then printf '%-7s running (pid %s)\n' "$s" "$pid"; else printf '%-7s stopped\n' "$s"; rc=3; fi
  done
  return $rc
}

case "${1:-}" in
  start) start_all ;;
  stop) stop_all; say "servers stopped ($STATE)" ;;
  status) status_all ;;
  *) echo "usage: $0 start|stop|status   (state in \$AISYNC_SERVERS_DIR, default /tmp/aisync-servers)" >&2; exit 64 ;;
esac
