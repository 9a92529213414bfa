"""Which client properties are secrets, and keeping their values out of everything kcli prints
(messages built from any exception included). Pure."""

from __future__ import annotations


# A key is a secret when its name holds one of these (Java's and librdkafka's spellings):
# passwords, ``sasl.jaas.config``, OAUTHBEARER client secrets and tokens, inline PEM private keys
# (``ssl.key.pem``, Java's ``ssl.keystore.key``) and their passphrases.
SECRET_KEYS = ("password", "secret", "jaas", "token", "key.pem", "keystore.key", "passphrase", "credentials")


def is_secret(key: str) -> bool:
    """The one test of whether a client property (or a config entry) holds a secret."""
    return any(s in key.lower() for s in SECRET_KEYS)


def redact(key: str, value: str) -> str:
    return "[redacted]" if is_secret(key) else value


def secret_values(*props: dict[str, str]) -> list[str]:
    """Every secret value in the property sets ``props`` (longest first), for redacting free
    text: a profile's secret that the command line overrides stays hidden too."""
    return sorted({v for p in props for k, v in p.items() if is_secret(k) and v}, key=len, reverse=True)


def redact_text(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text
