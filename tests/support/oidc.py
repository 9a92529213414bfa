"""An OAuth 2 token endpoint on 127.0.0.1 for tests: the client-credentials grant (RFC 6749
§4.4) with the client's id and secret in HTTP Basic authentication, answered with an unsigned JWT
(alg "none") for that client, which Kafka's default OAUTHBEARER validator accepts. It counts the
tokens it issued."""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def unsigned_jwt(subject: str, scope: str | None = None, lifetime_s: int = 3600) -> str:
    now = int(time.time())
    claims = {"sub": subject, "iat": now, "exp": now + lifetime_s} | ({"scope": scope} if scope else {})
    return f"{_b64({'alg': 'none'})}.{_b64(claims)}."


class TokenEndpoint:
    """``with TokenEndpoint({"kcli": "s3cret"}) as idp: idp.url``; ``idp.issued`` lists the
    (client id, scope) of every token handed out."""

    def __init__(self, clients: dict[str, str]):
        self.clients = dict(clients)
        self.issued: list[tuple[str, str | None]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):      # http.server's name
                length = min(int(self.headers.get("Content-Length") or 0), 65536)
                form = urllib.parse.parse_qs(self.rfile.read(length).decode())
                client = endpoint._client(self.headers.get("Authorization", ""))
                if client is None or form.get("grant_type") != ["client_credentials"]:
                    return self._answer(401, {"error": "invalid_client"})
                scope = form.get("scope", [None])[0]
                endpoint.issued.append((client, scope))
                self._answer(200, {"access_token": unsigned_jwt(client, scope),
                                   "token_type": "Bearer", "expires_in": 3600})

            def _answer(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/token"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                       daemon=True)

    def _client(self, authorization: str) -> str | None:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            client, _, secret = base64.b64decode(value).decode().partition(":")
        except ValueError:
            return None
        return client if self.clients.get(client) == secret else None

    def __enter__(self) -> "TokenEndpoint":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
