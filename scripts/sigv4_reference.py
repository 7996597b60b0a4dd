#!/usr/bin/env python3
"""Reference signatures for aisync's hand-written AWS Signature Version 4, from botocore's own
S3 signer (botocore.auth.S3SigV4Auth, what the AWS CLI and boto3 use), on random requests.

Usage: sigv4_reference.py SEED COUNT    prints COUNT cases as JSON lines:
  {"method", "host", "path" (the object's name, not encoded), "query": [[name, value]...]
   (not encoded), "headers": [[name, value]...], "body": hex, "access_key", "secret_key",
   "token" (or null), "region", "time" (ms since 1970), "expected": {lowercase header: value}}
The request's path and query are percent-encoded the way S3 clients send them
(quote(path, safe="/~"), quote(x, safe="-_.~")); botocore signs what is sent.
"""
import datetime
import hashlib
import json
import random
import sys
from unittest import mock
from urllib.parse import quote

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

# Pieces that test the encoding: spaces, +, ~, %, =, &, /, unicode (two, three and four bytes).
PIECES = ["a", "Z", "0", "-", "_", ".", "~", " ", "+", "%", "%20", "=", "&", "/", "//", "é", "日本", "😀", "!", "*", "'",
          "(", ")", ",", ";", ":", "@", "$", "?", "#", "[", "]"]
KEY_PIECES = ["A", "k", "9", "+", "/", "=", " ", "~", "%"]


def text(rng, pieces, lo, hi):
    return "".join(rng.choice(pieces) for _ in range(rng.randint(lo, hi)))


def case(rng):
    method = rng.choice(["GET", "PUT", "HEAD", "DELETE", "POST"])
    host = rng.choice(["127.0.0.1:8333", "localhost:9000", "bucket.s3.eu-west-3.amazonaws.com", "s3.amazonaws.com"])
    path = "/" + text(rng, PIECES, 0, 12)
    query = [[text(rng, PIECES, 1, 6), text(rng, PIECES, 0, 6)] for _ in range(rng.choice([0, 0, 1, 2, 4]))]
    if rng.random() < 0.3:
        query.append(["list-type", "2"])
    if rng.random() < 0.2:
        query.append([rng.choice(["uploads", "delete"]), ""])
    headers = [["Host", host]]
    extra = [["If-None-Match", "*"], ["If-Match", '"%032x"' % rng.getrandbits(128)],
             ["Range", "bytes=%d-%d" % (rng.randint(0, 99), rng.randint(100, 999))],
             ["Content-Type", rng.choice(["application/octet-stream", "application/json;  charset=utf-8"])],
             ["x-amz-meta-note", "  two  spaces\tand tab  "]]
    headers += [h for h in extra if rng.random() < 0.3]
    body = bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 0, 1, 37, 1000])))
    access_key = "AKIA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
    secret_key = text(rng, KEY_PIECES, 40, 40)
    token = text(rng, KEY_PIECES, 20, 60) if rng.random() < 0.4 else None
    region = rng.choice(["us-east-1", "eu-west-3", "auto", "garage", ""])
    time_ms = rng.randint(946684800, 4102444799) * 1000

    url = "https://" + host + quote(path, safe="/~")
    if query:
        url += "?" + "&".join(quote(n, safe="-_.~") + "=" + quote(v, safe="-_.~") for n, v in query)
    request = AWSRequest(method=method, url=url, headers=dict(headers), data=body)
    request.context["payload_signing_enabled"] = True
    now = datetime.datetime.fromtimestamp(time_ms / 1000, datetime.timezone.utc).replace(tzinfo=None)
    signer = botocore.auth.S3SigV4Auth(Credentials(access_key, secret_key, token), "s3", region)
    with mock.patch("botocore.auth.get_current_datetime", return_value=now):
        signer.add_auth(request)
    names = ["x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "authorization"]
    expected = {n: request.headers[n] for n in names if n in request.headers}
    assert expected["x-amz-content-sha256"] == hashlib.sha256(body).hexdigest()
    return {"method": method, "host": host, "path": path, "query": query, "headers": headers, "body": body.hex(),
            "access_key": access_key, "secret_key": secret_key, "token": token, "region": region, "time": time_ms,
            "expected": expected}


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    for _ in range(count):
        print(json.dumps(case(rng)))


if __name__ == "__main__":
    main()
