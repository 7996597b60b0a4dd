#!/usr/bin/env python3
"""Writes a test CA and server certificates into DIR, made fresh for each run (issue 31):
ca.pem; good.pem/good.key (localhost and 127.0.0.1, signed by the CA); expired.pem/.key
(the same names, signed by the CA, expired yesterday); other.pem/.key (signed by the CA for
other.example only); self.pem/.key (localhost, signed by itself).

Usage: make-certs.py DIR"""
import datetime, ipaddress, os, sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
now = datetime.datetime.now(datetime.timezone.utc)


def key():
    return ec.generate_private_key(ec.SECP256R1())


def write(name, cert, private):
    with open(os.path.join(out, name + ".pem"), "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    if private is not None:
        with open(os.path.join(out, name + ".key"), "wb") as f:
            f.write(private.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def certificate(subject_cn, public, issuer_cn, signer, names, start, end, ca=False):
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject_cn)]))
               .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_cn)]))
               .public_key(public).serial_number(x509.random_serial_number())
               .not_valid_before(start).not_valid_after(end)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                          encipher_only=False, decipher_only=False), critical=True)
    return builder.sign(signer, hashes.SHA256())


local = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
ca_key = key()
ca = certificate("aisync test CA", ca_key.public_key(), "aisync test CA", ca_key, None,
                 now - datetime.timedelta(days=1), now + datetime.timedelta(days=2), ca=True)
write("ca", ca, None)
for name, names, start, end in [
    ("good", local, now - datetime.timedelta(days=1), now + datetime.timedelta(days=1)),
    ("expired", local, now - datetime.timedelta(days=3), now - datetime.timedelta(days=1)),
    ("other", [x509.DNSName("other.example")], now - datetime.timedelta(days=1), now + datetime.timedelta(days=1)),
]:
    k = key()
    write(name, certificate(name, k.public_key(), "aisync test CA", ca_key, names, start, end), k)
k = key()
write("self", certificate("localhost", k.public_key(), "localhost", k, local,
                          now - datetime.timedelta(days=1), now + datetime.timedelta(days=1)), k)
