"""SASL/OAUTHBEARER (RFC 7628) with Kafka's default, unsecured validator
(OAuthBearerUnsecuredValidatorCallbackHandler): the token is an unsecured JWS (RFC 7515 with
``"alg":"none"`` and an empty signature, as librdkafka's ``enable.sasl.oauthbearer.unsecure.jwt``
and Java's OAuthBearerUnsecuredLoginCallbackHandler make them), its ``sub`` claim the principal's
name. Pure: no I/O, no broker state.

Kafka's checks, in its order: the client's first message (``n,[a=AUTHZID],`` then ``auth=Bearer
TOKEN`` among key-value pairs, each ended by ``\\x01``, the whole by another); the JWS's three
parts, the header's ``alg`` ``none``; the claims ``exp`` (a number of seconds, required), ``iat``
(a number, optional) and ``sub`` (a non-empty string, required); not issued in the future,
not expired, issued before it expires (no clock skew allowed: Kafka's default 0). A token that
fails any check is answered, as OAuthBearerSaslServer answers it, with the error challenge
``{"status":"invalid_token"}``; the client's ``\\x01`` after it fails the login with those same
words. A foreign authorization id fails it at once.

Anyone can make such a token for any name: the broker offers OAUTHBEARER only when asked.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import TypeGuard

INVALID_TOKEN = json.dumps({"status": "invalid_token"}, separators=(",", ":"))
_FIRST = re.compile(r"n,(?:a=(?P<authzid>[^,]+))?,(?P<kvpairs>(?:\x01[^\x01]*)*)\x01\x01\Z", re.S)


class OAuthError(Exception):
    """The login fails with ``message`` (SASL_AUTHENTICATION_FAILED); ``challenge``: it fails
    only after this error challenge and the client's answer to it (an invalid token)."""

    def __init__(self, message: str, challenge: bool = False):
        super().__init__(message)
        self.message, self.challenge = message, challenge


def principal_name(first_message: bytes, now_ms: int) -> str:
    """The name (``sub``) the client's first message authenticates; raises OAuthError."""
    text = first_message.decode("utf-8", "replace")
    m = _FIRST.fullmatch(text)
    if m is None:
        raise OAuthError("Invalid OAUTHBEARER client first message")
    pairs = dict(kv.split("=", 1) for kv in m["kvpairs"].split("\x01")[1:] if "=" in kv)
    auth = pairs.get("auth", "")
    if not auth.startswith("Bearer "):
        raise OAuthError("Invalid OAUTHBEARER client first message")
    name = _validated_sub(auth.removeprefix("Bearer ").strip(), now_ms)
    authzid = m["authzid"]
    if authzid and authzid != name:
        raise OAuthError(f"Authentication failed: Client requested an authorization id ({authzid}) that is "
                         f"different from the token's principal name ({name})")
    return name


def _validated_sub(token: str, now_ms: int) -> str:
    parts = token.split(".")
    if len(parts) != 3 or parts[2]:
        raise OAuthError(INVALID_TOKEN, challenge=True)
    header, claims = (_json_part(p) for p in parts[:2])
    if header.get("alg") != "none":
        raise OAuthError(INVALID_TOKEN, challenge=True)
    exp, iat, sub = claims.get("exp"), claims.get("iat", 0), claims.get("sub")
    if not _is_number(exp) or not _is_number(iat) or not isinstance(sub, str) or not sub.strip():
        raise OAuthError(INVALID_TOKEN, challenge=True)
    if "iat" in claims and iat * 1000 > now_ms or exp * 1000 <= now_ms or iat > exp:
        raise OAuthError(INVALID_TOKEN, challenge=True)
    return sub


def _json_part(part: str) -> dict:
    try:
        doc = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (binascii.Error, ValueError):
        raise OAuthError(INVALID_TOKEN, challenge=True) from None
    if not isinstance(doc, dict):
        raise OAuthError(INVALID_TOKEN, challenge=True)
    return doc


def _is_number(v: object) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)
