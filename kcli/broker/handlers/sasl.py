"""SaslHandshake and SaslAuthenticate: SASL/PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802)
against the cluster's users (``Cluster.users``: salted SCRAM credentials, no passwords), and,
when the cluster offers it (``Cluster.unsecured_oauthbearer``), OAUTHBEARER with Kafka's default
unsecured validator (kcli.broker.oauth).

As Kafka serves them: the handshake names the mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512;
another gets UNSUPPORTED_SASL_MECHANISM and the enabled list, then the connection closes). PLAIN
is one SaslAuthenticate carrying ``authzid NUL user NUL password``, answered with PlainSaslServer's
messages; its password is checked against the user's SCRAM credential. SCRAM is two: the
client-first message (answered with the server-first: nonce, salt, iterations) and the
client-final one (its proof checked, answered with the server signature), as ScramSaslServer.
A SCRAM failure gets SaslServerAuthenticator's generic message ("Authentication failed during
authentication due to invalid credentials with SASL mechanism ..."), except a foreign authzid.
A failure closes the connection after the response. Once authenticated, and on a PLAINTEXT
listener, both APIs get ILLEGAL_SASL_STATE, as KafkaApis answers them. Sessions never expire
(SessionLifetimeMs 0: ``connections.max.reauth.ms`` unset, no re-authentication).

SaslHandshake v0-1 is advertised, as Kafka does (librdkafka before 2.11.1, kcat's included, only
handshakes when the range holds v0), but a v0 handshake closes the connection: v0's tokens
follow without Kafka headers, an exchange this broker does not serve. Every client that knows
SaslAuthenticate (Kafka's since 1.0, librdkafka since 0.11) asks v1.
"""

from __future__ import annotations

import logging
import time

from kcli.broker import oauth, scram
from kcli.broker.apikeys import SASL_AUTHENTICATE, SASL_HANDSHAKE
from kcli.broker.dispatch import RequestContext, handles
from kcli.broker.errors import BrokerError, Err
from kcli.protocol import RESPONSES

log = logging.getLogger("kcli.broker")
MECHANISMS = ["PLAIN", *scram.MECHANISMS]


def check_plain(users: dict[str, dict[str, scram.Credential]], token: bytes) -> str:
    """The user a PLAIN response authenticates; raises BrokerError (SASL_AUTHENTICATION_FAILED,
    Kafka's message) unless the password is right. PlainSaslServer.evaluateResponse's checks in
    order."""
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
    if not any(scram.verify_password(c, password) for c in users.get(user, {}).values()):
        raise fail("Authentication failed: Invalid username or password")
    if authzid and authzid != user:
        raise fail("Authentication failed: Client requested an authorization id that is "
                   "different from username")
    return user


def _oauth_step(ctx: RequestContext, token: bytes) -> bytes:
    """OAUTHBEARER (kcli.broker.oauth): the client's first message authenticates its token's
    ``sub``, or gets the error challenge; the client's answer to that fails the login. The
    token's times are the client's: real time, not the cluster's clock."""
    conn = ctx.connection
    if conn.exchange is not None:                 # after our error challenge
        raise BrokerError(Err.SASL_AUTHENTICATION_FAILED, conn.exchange)
    try:
        conn.user = oauth.principal_name(token, int(time.time() * 1000))
    except oauth.OAuthError as e:
        if not e.challenge:
            raise BrokerError(Err.SASL_AUTHENTICATION_FAILED, e.message) from None
        conn.exchange = e.message
        return e.message.encode()
    conn.sasl = "done"
    return b""


def _scram_step(ctx: RequestContext, token: bytes) -> bytes:
    """The server's next SCRAM message: the server-first, then the server-final (the connection
    then authenticated as its user)."""
    conn = ctx.connection
    try:
        if conn.exchange is None:
            mechanism = conn.mechanism or ""
            conn.exchange = scram.ScramServer(mechanism)
            users = ctx.cluster.users
            return conn.exchange.first(token, lambda u: users.get(u, {}).get(mechanism))
        answer = conn.exchange.final(token)
    except scram.ScramError as e:
        raise BrokerError(Err.SASL_AUTHENTICATION_FAILED, e.message or (
            "Authentication failed during authentication due to invalid credentials with SASL "
            f"mechanism {conn.mechanism}")) from None
    conn.user, conn.exchange = conn.exchange.user, None
    conn.sasl = "done"
    return answer


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
    mechanisms = MECHANISMS + (["OAUTHBEARER"] if ctx.cluster.unsecured_oauthbearer else [])
    if req.mechanism not in mechanisms:
        conn.close = True
        return R(version=ctx.api_version, error_code=Err.UNSUPPORTED_SASL_MECHANISM,
                 mechanisms=mechanisms)
    conn.sasl, conn.mechanism = "authenticate", req.mechanism
    return R(version=ctx.api_version, error_code=0, mechanisms=mechanisms)


@handles(SASL_AUTHENTICATE, 0, 2)
async def sasl_authenticate(ctx: RequestContext, req):
    R, conn = RESPONSES[SASL_AUTHENTICATE], ctx.connection
    if conn.sasl == "done":
        return R(version=ctx.api_version, error_code=Err.ILLEGAL_SASL_STATE,
                 error_message="SaslAuthenticate request received after successful "
                               "authentication", auth_bytes=b"", session_lifetime_ms=0)
    answer: bytes
    try:
        if conn.mechanism == "PLAIN":
            conn.user, conn.sasl, answer = check_plain(ctx.cluster.users, req.auth_bytes), "done", b""
        elif conn.mechanism == "OAUTHBEARER":
            answer = _oauth_step(ctx, req.auth_bytes)
        else:
            answer = _scram_step(ctx, req.auth_bytes)
    except BrokerError as e:
        conn.close = True
        return R(version=ctx.api_version, error_code=e.code, error_message=e.message,
                 auth_bytes=b"", session_lifetime_ms=0)
    return R(version=ctx.api_version, error_code=0, error_message=None, auth_bytes=answer,
             session_lifetime_ms=0)
