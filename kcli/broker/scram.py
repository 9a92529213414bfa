"""Salted SCRAM credentials (RFC 5802, as Kafka's ScramFormatter computes them) and the server
side of one SCRAM exchange, as Kafka's ScramSaslServer runs it. Pure: no I/O, no broker state.

A credential keeps the salt, the iteration count, StoredKey and ServerKey; never the password.
SASL/PLAIN logins are checked against the same credentials (``verify_password``), so the broker
keeps one store of users whatever the mechanism.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
from dataclasses import dataclass

# Kafka's ScramMechanism: name -> (hash, minimum iterations)
MECHANISMS = {"SCRAM-SHA-256": ("sha256", 4096), "SCRAM-SHA-512": ("sha512", 4096)}
# the numbers DescribeUserScramCredentials and AlterUserScramCredentials carry
MECHANISM_TYPES = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}
DEFAULT_ITERATIONS = 4096
MAX_ITERATIONS = 16384        # Kafka's ScramMechanism maxIterations


class ScramError(Exception):
    """A failed exchange step; ``message`` is what Kafka answers (None: its generic
    "Authentication failed during authentication due to invalid credentials ...")."""

    def __init__(self, message: str | None = None):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Credential:
    mechanism: str
    salt: bytes
    iterations: int
    stored_key: bytes
    server_key: bytes

    def to_json(self) -> dict:
        enc = lambda b: base64.b64encode(b).decode()  # noqa: E731
        return {"salt": enc(self.salt), "iterations": self.iterations,
                "stored_key": enc(self.stored_key), "server_key": enc(self.server_key)}

    @classmethod
    def from_json(cls, mechanism: str, d: dict) -> "Credential":
        dec = base64.b64decode
        return cls(mechanism, dec(d["salt"]), d["iterations"], dec(d["stored_key"]),
                   dec(d["server_key"]))


def _hmac(algo: str, key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, algo).digest()


def salted_password(mechanism: str, password: bytes, salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac(MECHANISMS[mechanism][0], password, salt, iterations)


def from_salted(mechanism: str, salted: bytes, salt: bytes, iterations: int) -> Credential:
    """The credential of a salted password (AlterUserScramCredentials sends this)."""
    algo = MECHANISMS[mechanism][0]
    client_key = _hmac(algo, salted, b"Client Key")
    return Credential(mechanism, salt, iterations, hashlib.new(algo, client_key).digest(),
                      _hmac(algo, salted, b"Server Key"))


def make_credential(mechanism: str, password: str, iterations: int = DEFAULT_ITERATIONS,
                    salt: bytes | None = None) -> Credential:
    salt = os.urandom(32) if salt is None else salt
    return from_salted(mechanism, salted_password(mechanism, password.encode(), salt, iterations),
                       salt, iterations)


def verify_password(credential: Credential, password: str) -> bool:
    again = make_credential(credential.mechanism, password, credential.iterations, credential.salt)
    return hmac.compare_digest(again.stored_key, credential.stored_key)


def _sasl_name(name: str) -> str:
    """A SCRAM saslname decoded (RFC 5802: '=2C' is ',' and '=3D' is '='), as ScramFormatter."""
    return name.replace("=2C", ",").replace("=3D", "=")


_CLIENT_FIRST = re.compile(
    r"n,(a=(?P<authzid>[^,]*))?,(?P<bare>n=(?P<saslname>[^,]*),r=(?P<nonce>[\x21-\x2b\x2d-\x7e]+)"
    r"(?P<extensions>(,[^,]*)*))$")
_CLIENT_FINAL = re.compile(
    r"(?P<without_proof>c=(?P<channel>[a-zA-Z0-9/+]+=*),r=(?P<nonce>[\x21-\x2b\x2d-\x7e]+)"
    r"(,[^,]*)*?),p=(?P<proof>[a-zA-Z0-9/+]+=*)$")
SUPPORTED_EXTENSIONS = {"tokenauth"}


class ScramServer:
    """One connection's SCRAM exchange: ``first(message)`` names the user and answers the
    server-first message; ``look_up(user)`` (set by the caller) gives that user's credential or
    None. ``final(message)`` checks the proof and answers the server-final message."""

    def __init__(self, mechanism: str, server_nonce: str | None = None):
        self.mechanism = mechanism
        self._server_nonce = server_nonce or base64.b64encode(os.urandom(24)).decode()
        self.algo = MECHANISMS[mechanism][0]
        self.user: str | None = None
        self._credential: Credential | None = None
        self._first_bare = self._server_first = ""
        self._nonce = ""

    def first(self, message: bytes, look_up) -> bytes:
        m = _CLIENT_FIRST.match(message.decode("utf-8", "replace"))
        if m is None:
            raise ScramError()                                   # "Invalid SCRAM client first message"
        extensions = {e.split("=", 1)[0] for e in m["extensions"].split(",") if e}
        if not extensions <= SUPPORTED_EXTENSIONS or "tokenauth" in extensions:
            raise ScramError()                                   # no delegation tokens here
        user = _sasl_name(m["saslname"])
        credential = look_up(user)
        if credential is None:
            raise ScramError()                                   # "Invalid user credentials"
        if m["authzid"] and m["authzid"] != user:
            raise ScramError("Authentication failed: Client requested an authorization id that "
                             "is different from username")
        self.user, self._credential = user, credential
        self._first_bare = m["bare"]
        self._nonce = m["nonce"] + self._server_nonce
        self._server_first = (f"r={self._nonce},s={base64.b64encode(credential.salt).decode()},"
                              f"i={credential.iterations}")
        return self._server_first.encode()

    def final(self, message: bytes) -> bytes:
        m = _CLIENT_FINAL.match(message.decode("utf-8", "replace"))
        if m is None or self._credential is None or m["nonce"] != self._nonce:
            raise ScramError()
        auth_message = f"{self._first_bare},{self._server_first},{m['without_proof']}".encode()
        signature = _hmac(self.algo, self._credential.stored_key, auth_message)
        proof = base64.b64decode(m["proof"])
        if len(proof) != len(signature):
            raise ScramError()
        client_key = bytes(a ^ b for a, b in zip(signature, proof))
        if not hmac.compare_digest(hashlib.new(self.algo, client_key).digest(),
                                   self._credential.stored_key):
            raise ScramError()                                   # "Invalid client credentials"
        server_signature = _hmac(self.algo, self._credential.server_key, auth_message)
        return b"v=" + base64.b64encode(server_signature)
