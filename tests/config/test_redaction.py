"""One secret test (``kcli.redaction.is_secret``) for every place that hides a value: the
messages of the CLI and the drop-ins (``secret_values``) and the config views (``redact``)."""

from __future__ import annotations

import pytest

from kcli.redaction import is_secret, redact, secret_values

SECRETS = ["sasl.password", "sasl.jaas.config", "ssl.key.password", "ssl.keystore.password",
           "ssl.truststore.password", "ssl.key.pem", "ssl.keystore.key", "sasl.oauthbearer.client.secret",
           "sasl.oauthbearer.assertion.private.key.pem", "sasl.oauthbearer.assertion.private.key.passphrase",
           "SASL.PASSWORD"]
PLAIN = ["bootstrap.servers", "sasl.username", "sasl.mechanism", "ssl.key.location", "ssl.keystore.location",
         "ssl.truststore.location", "ssl.keystore.type", "security.protocol", "client.id"]


@pytest.mark.parametrize("key", SECRETS)
def test_secret_keys_are_hidden_everywhere(key):
    assert is_secret(key)
    assert redact(key, "s3cr3t-value") == "[redacted]"
    assert secret_values({key: "s3cr3t-value", "client.id": "me"}) == ["s3cr3t-value"]


@pytest.mark.parametrize("key", PLAIN)
def test_other_keys_are_shown(key):
    assert not is_secret(key)
    assert redact(key, "v") == "v" and secret_values({key: "v"}) == []
