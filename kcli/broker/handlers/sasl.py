"""SaslHandshake and SaslAuthenticate: SASL/PLAIN (RFC 4616) against ``Cluster.sasl_users``.

As Kafka serves them: the handshake names the mechanism (PLAIN is the only one enabled; another
gets UNSUPPORTED_SASL_MECHANISM and the enabled list, then the connection closes), one
SaslAuthenticate carries ``authzid NUL user NUL password`` and answers with PlainSaslServer's
messages (a failure closes the connection after the response). Once authenticated, and on a
PLAINTEXT listener, both APIs get ILLEGAL_SASL_STATE, as KafkaApis answers them. Sessions never
expire (SessionLifetimeMs 0: ``connections.max.reauth.ms`` unset, no re-authentication).

SaslHandshake v0-1 is advertised, as Kafka does (librdkafka before 2.11.1, kcat's included, only
handshakes when the range holds v0), but a v0 handshake closes the connection: v0's tokens
follow without Kafka headers, an exchange this broker does not serve. Every client that knows
SaslAuthenticate (Kafka's since 1.0, librdkafka since 0.11) asks v1.
"""

from __future__ import annotations

import hmac
import logging

from kcli.broker.apikeys import SASL_AUTHENTICATE, SASL_HANDSHAKE
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.protocol import RESPONSES

log = logging.getLogger("kcli.broker")
MECHANISMS = ["PLAIN"]


def check_plain(users: dict[str, str], token: bytes) -> None:
    """Raise BrokerError (SASL_AUTHENTICATION_FAILED, Kafka's message) unless ``token`` is a
    PLAIN response with the right password; PlainSaslServer.evaluateResponse's checks in order."""
    tokens = token.decode("utf-8", "replace").split("\0", 3)

    def fail(message: str) -> BrokerError:
        return BrokerError(Err.SASL_AUTHENTICATION_FAILED, message)

    if len(tokens) != 3:
        raise fail(f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(tokens)}")
    authzid, user, password = tokens
    if not user:
        raise fail("Authentication failed: username not specified")
    if not password:
        raise fail("Authentication failed: password not specified")
    expected = users.get(user)
    if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
        raise fail("Authentication failed: Invalid username or password")
    if authzid and authzid != user:
        raise fail("Authentication failed: Client requested an authorization id that is "
                   "different from username")


@handles(SASL_HANDSHAKE, 0, 1)
async def sasl_handshake(ctx: RequestContext, req):
    R, conn = RESPONSES[SASL_HANDSHAKE], ctx.connection
    if conn.sasl == "done":
        return R(version=ctx.api_version, error_code=Err.ILLEGAL_SASL_STATE, mechanisms=[])
    if ctx.api_version == 0:
        log.info("node %d: SaslHandshake v0 (raw SASL tokens) is not served; closing the "
                 "connection", ctx.node_id)
        conn.close = True
        return None
    if req.mechanism not in MECHANISMS:
        conn.close = True
        return R(version=ctx.api_version, error_code=Err.UNSUPPORTED_SASL_MECHANISM,
                 mechanisms=MECHANISMS)
    conn.sasl = "authenticate"
    return R(version=ctx.api_version, error_code=0, mechanisms=MECHANISMS)


@handles(SASL_AUTHENTICATE, 0, 2)
async def sasl_authenticate(ctx: RequestContext, req):
    R, conn = RESPONSES[SASL_AUTHENTICATE], ctx.connection
    if conn.sasl == "done":
        return R(version=ctx.api_version, error_code=Err.ILLEGAL_SASL_STATE,
                 error_message="SaslAuthenticate request received after successful "
                               "authentication", auth_bytes=b"", session_lifetime_ms=0)
    try:
        check_plain(ctx.cluster.sasl_users, req.auth_bytes)
    except BrokerError as e:
        conn.close = True
        return R(version=ctx.api_version, error_code=e.code, error_message=e.message,
                 auth_bytes=b"", session_lifetime_ms=0)
    conn.sasl = "done"
    return R(version=ctx.api_version, error_code=0, error_message=None, auth_bytes=b"",
             session_lifetime_ms=0)
