"""SASL/OAUTHBEARER tokens for kcli's own connection (``kcli.admin.wire``), from the same
settings librdkafka gets (``kcli.admin.settings.normalize_properties`` made them from Java's):

- OIDC (``sasl.oauthbearer.method=oidc``): the client-credentials grant (RFC 6749 §4.4) at
  ``sasl.oauthbearer.token.endpoint.url``, as librdkafka does it: a form POST with the client id
  and secret in HTTP Basic authentication and the scope, answered with ``access_token``;
- unsecured (``enable.sasl.oauthbearer.unsecure.jwt``): an unsigned JWT (alg "none") for the
  principal, as Kafka's OAuthBearerUnsecuredLoginCallbackHandler makes one.

The standard library does the HTTP and the encoding: no dependency for two small requests."""

from __future__ import annotations

import base64
import json
import time
import urllib.parse
import urllib.request

from kafka.net.sasl.oauth import AbstractTokenProvider

from kcli.errors import OperationError, UsageError


def token_provider(props: dict[str, str]) -> AbstractTokenProvider:
    if props.get("sasl.oauthbearer.method", "").lower() == "oidc":
        return OidcToken(props["sasl.oauthbearer.token.endpoint.url"],
                         props.get("sasl.oauthbearer.client.id", ""),
                         props.get("sasl.oauthbearer.client.secret", ""),
                         props.get("sasl.oauthbearer.scope"))
    if props.get("enable.sasl.oauthbearer.unsecure.jwt", "").lower() == "true":
        config = dict(item.split("=", 1) for item in props.get("sasl.oauthbearer.config", "").split()
                      if "=" in item)
        return UnsecuredToken(config.get("principal", ""))
    raise UsageError("SASL OAUTHBEARER needs sasl.oauthbearer.method=oidc or "
                     "enable.sasl.oauthbearer.unsecure.jwt=true")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class UnsecuredToken(AbstractTokenProvider):
    def __init__(self, principal: str):
        self.principal = principal

    def token(self) -> str:
        now = int(time.time())
        claims = {"sub": self.principal, "iat": now, "exp": now + 3600}
        return f"{_b64(json.dumps({'alg': 'none'}).encode())}.{_b64(json.dumps(claims).encode())}."


class OidcToken(AbstractTokenProvider):
    """One token for every connection of the process, fetched again after 80% of its lifetime
    (``expires_in``), as librdkafka refreshes it."""

    def __init__(self, endpoint: str, client_id: str, secret: str, scope: str | None, timeout_s: float = 10):
        self.endpoint, self.client_id, self.secret = endpoint, client_id, secret
        self.scope, self.timeout_s = scope, timeout_s
        self._token, self._refresh_at = "", 0.0

    def token(self) -> str:
        if not self._token or time.monotonic() >= self._refresh_at:
            answer = self._fetch()
            self._token = answer["access_token"]
            lifetime = answer.get("expires_in")
            self._refresh_at = time.monotonic() + 0.8 * (lifetime if isinstance(lifetime, (int, float)) else 60)
        return self._token

    def _fetch(self) -> dict:
        form = {"grant_type": "client_credentials"} | ({"scope": self.scope} if self.scope else {})
        basic = base64.b64encode(f"{self.client_id}:{self.secret}".encode()).decode()
        request = urllib.request.Request(
            self.endpoint, data=urllib.parse.urlencode(form).encode(), method="POST",
            headers={"Authorization": f"Basic {basic}", "Accept": "application/json",
                     "Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as resp:
                answer = json.loads(resp.read())
            if not isinstance(answer, dict) or not isinstance(answer.get("access_token"), str):
                raise ValueError("the answer has no access_token")
            return answer
        except (OSError, ValueError) as exc:
            raise OperationError(f"No OAUTHBEARER token from {self.endpoint}: {exc}") from None
