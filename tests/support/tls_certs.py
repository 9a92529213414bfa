"""Short-lived test certificates made with the ``openssl`` command line: a CA, a server
certificate it signed for 127.0.0.1 and localhost, one it signed for another name only, and a
second CA that signed neither (a client trusting it must refuse the broker)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

OPENSSL = shutil.which("openssl")
KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
SERVER_EXTENSIONS = ("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                     "extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\n"
                     "authorityKeyIdentifier=keyid\nsubjectAltName={san}\n")


@dataclass(frozen=True)
class Certs:
    ca: str                          # the CA that signed both server certificates
    other_ca: str                    # a CA that signed nothing the broker serves
    server: tuple[str, str]          # (certfile, keyfile): SAN IP:127.0.0.1, DNS:localhost
    mismatched: tuple[str, str]      # SAN DNS:kafka.example.invalid only


def _openssl(*args: str) -> None:
    subprocess.run([OPENSSL, *args], check=True, capture_output=True, timeout=30)


def _ca(directory: Path, name: str) -> tuple[str, str]:
    cert, key = str(directory / f"{name}.pem"), str(directory / f"{name}.key")
    _openssl("req", "-x509", *KEY, "-keyout", key, "-out", cert, "-days", "1",
             "-subj", f"/CN=kcli test {name}",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return cert, key


def _server(directory: Path, name: str, ca: tuple[str, str], cn: str, san: str) -> tuple[str, str]:
    cert, key, csr = (str(directory / f"{name}{ext}") for ext in (".pem", ".key", ".csr"))
    ext = directory / f"{name}.ext"
    ext.write_text(SERVER_EXTENSIONS.format(san=san))
    _openssl("req", "-new", *KEY, "-keyout", key, "-out", csr, "-subj", f"/CN={cn}")
    _openssl("x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1], "-CAcreateserial",
             "-out", cert, "-days", "1", "-extfile", str(ext))
    return cert, key


def client_cert(directory: Path, ca_dir: Path, name: str = "client") -> tuple[str, str]:
    """(certfile, keyfile) of a client certificate (extendedKeyUsage clientAuth) signed by the CA
    ``make_certs`` made in ``ca_dir``."""
    cert, key, csr = (str(directory / f"{name}{ext}") for ext in (".pem", ".key", ".csr"))
    ext = directory / f"{name}.ext"
    ext.write_text("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                   "extendedKeyUsage=clientAuth\n")
    _openssl("req", "-new", *KEY, "-keyout", key, "-out", csr, "-subj", f"/CN={name}")
    _openssl("x509", "-req", "-in", csr, "-CA", str(ca_dir / "ca.pem"), "-CAkey", str(ca_dir / "ca.key"),
             "-CAcreateserial", "-out", cert, "-days", "1", "-extfile", str(ext))
    return cert, key


def make_certs(directory: Path) -> Certs:
    assert OPENSSL, "openssl is part of the project's test setup (scripts/test.sh)"
    ca = _ca(directory, "ca")
    return Certs(
        ca=ca[0], other_ca=_ca(directory, "other-ca")[0],
        server=_server(directory, "server", ca, "localhost", "IP:127.0.0.1,DNS:localhost"),
        mismatched=_server(directory, "mismatched", ca, "kafka.example.invalid",
                           "DNS:kafka.example.invalid"))
