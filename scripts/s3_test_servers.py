#!/usr/bin/env python3
"""Helpers for the S3 test servers of scripts/servers.sh (SeaweedFS, moto). Not used by aisync.

  ports N          N loopback ports P in [10000, 20000) with P and P+10000 both free (SeaweedFS
                   puts a process's gRPC at its HTTP port + 10000).
  credentials      a random access key and secret, AWS-shaped: "KEY SECRET".
  moto-server ARGS moto's server (moto.server.main ARGS), its signature check fixed to check the
                   request as sent, not werkzeug's re-quoted URL (getmoto/moto#5948).
  moto-bootstrap URL [WAIT]
                   on a moto server started with INITIAL_NO_AUTH_ACTION_COUNT=0: lifts
                   authentication for a moment (POST /moto-api/reset-auth), creates the IAM user
                   `aisync` with s3:* and an access key, enforces authentication again, prints
                   "KEY SECRET".
  probe URL BUCKET KEY SECRET [WAIT]
                   waits (bounded) until a SigV4-signed CreateBucket succeeds, then checks a signed
                   PUT/GET/ListObjectsV2/DELETE of a probe object whose key needs percent-encoding,
                   that an unsigned request and a wrong secret are refused, and that a second PUT
                   with If-None-Match: * answers 412; prints one summary line. Exit 1 with the
                   reason otherwise.

Signing is botocore's (a dependency of moto; scripts/test.sh installs it too).
"""

import http.client
import json
import random
import secrets
import socket
import string
import sys
import time
import urllib.parse
import xml.etree.ElementTree as ET


def fail(message):
    print(f"s3_test_servers.py: {message}", file=sys.stderr)
    sys.exit(1)


def port_free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def cmd_ports(count):
    # Below the ephemeral range (32768+ on Linux): an outgoing connection never takes these.
    chosen = []
    candidates = list(range(10000, 20000))
    random.shuffle(candidates)
    for port in candidates:
        if port_free(port) and port_free(port + 10000):
            chosen.append(port)
            if len(chosen) == count:
                print(" ".join(map(str, chosen)))
                return
    fail(f"no {count} free port pairs in 10000-29999")


def cmd_credentials():
    upper = string.ascii_uppercase + string.digits
    key = "AKIA" + "".join(secrets.choice(upper) for _ in range(16))
    alphabet = string.ascii_letters + string.digits + "+/"
    secret = "".join(secrets.choice(alphabet) for _ in range(40))
    print(key, secret)


def send(method, url, body=b"", headers=None, credentials=None, region="us-east-1", service="s3", timeout=10):
    """One request, signed with SigV4 (payload hashed) when credentials are given.
    Returns (status, headers, body); raises OSError when the server cannot be reached."""
    headers = dict(headers or {})
    if credentials is not None:
        from botocore.auth import S3SigV4Auth, SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        request = AWSRequest(method=method, url=url, data=body, headers=headers)
        signer = S3SigV4Auth if service == "s3" else SigV4Auth
        signer(Credentials(*credentials), service, region).add_auth(request)
        headers = dict(request.headers.items())
    parts = urllib.parse.urlsplit(url)
    path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request(method, path, body=body if body or method in ("PUT", "POST") else None, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def error_code(body):
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return ""
    for element in root.iter():
        if element.tag.split("}")[-1] == "Code":
            return element.text or ""
    return ""


def describe(status, body):
    code = error_code(body)
    return f"{status} {code}".strip()


def cmd_probe(url, bucket, key, secret, wait_seconds):
    credentials = (key, secret)
    deadline = time.monotonic() + wait_seconds
    last = "no answer"

    def retry(what, attempt, accept, retry_4xx=False):
        nonlocal last
        while True:
            try:
                status, headers, body = attempt()
                if accept(status, body):
                    return status, headers, body
                last = f"{what}: {describe(status, body)} {body[:300]!r}"
                if 400 <= status < 500 and not retry_4xx:
                    fail(last)
            except OSError as error:
                last = f"{what}: {error}"
            if time.monotonic() > deadline:
                fail(f"not ready within {wait_seconds:g}s ({last})")
            time.sleep(0.1)

    bucket_url = f"{url}/{bucket}"
    # The bucket, created by a signed request; 200 once the gateway knows the identities (a
    # 403 before that is retried).
    retry("signed CreateBucket", lambda: send("PUT", bucket_url, credentials=credentials),
          lambda status, body: status == 200 or error_code(body) == "BucketAlreadyOwnedByYou", retry_4xx=True)

    # A key that needs percent-encoding, listed by a prefix that does too: a server that checks
    # signatures against a re-quoted URL refuses these.
    folder = f".aisync-probe-{secrets.token_hex(6)}/"
    name = folder + "a+b=c é"
    object_url = f"{bucket_url}/{urllib.parse.quote(name, safe='/~')}"
    payload = secrets.token_bytes(64)
    # A cluster grows its first volumes on the first write: retry 5xx until the deadline.
    _, headers, _ = retry("signed PUT If-None-Match: *",
                          lambda: send("PUT", object_url, payload, {"If-None-Match": "*"}, credentials),
                          lambda status, body: status == 200)
    etag = headers.get("etag", "")
    status, _, body = retry("signed GET", lambda: send("GET", object_url, credentials=credentials),
                            lambda status, body: status == 200)
    if body != payload:
        fail("signed GET of the probe returned other bytes than were put")
    query = urllib.parse.urlencode({"delimiter": "/", "list-type": "2", "prefix": folder}, quote_via=urllib.parse.quote, safe="-_.~")
    status, _, body = send("GET", f"{bucket_url}?{query}", credentials=credentials)
    if status != 200 or name.encode() not in body:
        fail(f"a signed ListObjectsV2 with prefix {folder!r} answered {describe(status, body)} {body[:300]!r}")

    results = {}
    status, _, body = send("PUT", object_url, payload, {"If-None-Match": "*"}, credentials)
    results["if-none-match"] = describe(status, body)
    if status != 412:
        fail(f"a second PUT with If-None-Match: * answered {describe(status, body)}, not 412")
    status, _, body = send("PUT", object_url, payload, {"If-Match": '"0123456789abcdef0123456789abcdef"'}, credentials)
    results["if-match-other"] = describe(status, body)
    status, _, body = send("PUT", object_url, payload, {"If-Match": etag}, credentials)
    results["if-match-same"] = describe(status, body)

    status, _, body = send("GET", object_url)
    results["unsigned"] = describe(status, body)
    if status < 400:
        fail(f"an unsigned GET answered {status}: authentication is not enforced")
    status, _, body = send("GET", object_url, credentials=(key, secret[:-1] + ("A" if secret[-1] != "A" else "B")))
    results["bad-secret"] = describe(status, body)
    if status != 403:
        fail(f"a GET signed with a wrong secret answered {describe(status, body)}, not 403")

    status, _, body = send("DELETE", object_url, credentials=credentials)
    if status not in (200, 204):
        fail(f"signed DELETE of the probe answered {describe(status, body)}")
    # SeaweedFS keeps the emptied folder, listed as a common prefix, until it is deleted too
    # (elsewhere a no-op).
    send("DELETE", f"{bucket_url}/{urllib.parse.quote(folder, safe='/~')}", credentials=credentials)
    print(" ".join(f"{k}={v.replace(' ', '/')}" for k, v in results.items()))


def moto_post(url, path, data, content_type, credentials=None, service="s3"):
    status, _, body = send("POST", url + path, data.encode(), {"Content-Type": content_type}, credentials, service=service)
    if status != 200:
        fail(f"moto {path} {data[:60]!r} answered {status}: {body[:300]!r}")
    return body


def cmd_moto_bootstrap(url, wait_seconds):
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            # Authentication off (until the count below is reached), for the IAM calls.
            moto_post(url, "/moto-api/reset-auth", "inf", "text/plain")
            break
        except OSError as error:
            if time.monotonic() > deadline:
                fail(f"moto did not answer within {wait_seconds:g}s ({error})")
            time.sleep(0.05)

    def iam(**params):
        params["Version"] = "2010-05-08"
        # Signed with a made-up key (authentication is off for now): moto's server picks the
        # service from the signature's credential scope.
        return moto_post(url, "/", urllib.parse.urlencode(params), "application/x-www-form-urlencoded",
                         ("bootstrap", "bootstrap"), "iam")

    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
    iam(Action="CreateUser", UserName="aisync")
    iam(Action="PutUserPolicy", UserName="aisync", PolicyName="s3", PolicyDocument=json.dumps(policy))
    body = iam(Action="CreateAccessKey", UserName="aisync")
    root = ET.fromstring(body)
    found = {}
    for element in root.iter():
        tag = element.tag.split("}")[-1]
        if tag in ("AccessKeyId", "SecretAccessKey"):
            found[tag] = element.text
    if len(found) != 2:
        fail(f"moto CreateAccessKey answered no key: {body[:300]!r}")
    # From here on every request must be signed by a key moto knows.
    moto_post(url, "/moto-api/reset-auth", "0", "text/plain")
    print(found["AccessKeyId"], found["SecretAccessKey"])


def cmd_moto_server(args):
    """moto's server, with one fix. With authentication on, moto recomputes a request's SigV4
    signature from werkzeug's `request.url`, which unquotes and re-quotes the path and query:
    `prefix=a%2Fb` becomes `prefix=a/b`, a key `a%2Bb` becomes `a+b`, so any ListObjectsV2 with a
    prefix or delimiter, and any key with `+ = & ;` or non-ASCII, fails with SignatureDoesNotMatch
    (boto3's own requests too). Here the check sees the request target as sent (RAW_URI)."""
    from urllib.parse import urlsplit

    from moto.core.authorization import ActionAuthenticatorMixin
    from moto.server import main as moto_main

    original = ActionAuthenticatorMixin._authenticate_and_authorize_action

    def authenticate_as_sent(self, iam_request_cls, resource="*"):
        environ = getattr(getattr(self, "request", None), "environ", None) or {}
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
        if not raw or not raw.startswith("/"):
            return original(self, iam_request_cls, resource)
        parsed = urlsplit(self.uri)
        saved = self.uri
        self.uri = f"{parsed.scheme}://{parsed.netloc}{raw}"
        try:
            return original(self, iam_request_cls, resource)
        finally:
            self.uri = saved

    ActionAuthenticatorMixin._authenticate_and_authorize_action = authenticate_as_sent
    moto_main(args)


def main(argv):
    if argv[:1] == ["moto-server"]:
        cmd_moto_server(argv[1:])
    elif len(argv) == 2 and argv[0] == "ports":
        cmd_ports(int(argv[1]))
    elif argv == ["credentials"]:
        cmd_credentials()
    elif len(argv) in (2, 3) and argv[0] == "moto-bootstrap":
        cmd_moto_bootstrap(argv[1], float(argv[2]) if len(argv) == 3 else 20)
    elif len(argv) in (5, 6) and argv[0] == "probe":
        cmd_probe(argv[1], argv[2], argv[3], argv[4], float(argv[5]) if len(argv) == 6 else 20)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main(sys.argv[1:])
