"""Which client properties are secrets, and keeping their values out of everything kcli prints
(messages built from any exception included). Pure."""

from __future__ import annotations


SECRET_KEYS = ("password", "secret", "jaas", "token", "key.pem", "credentials")


def redact(key: str, value: str) -> str:
    return "[redacted]" if any(s in key.lower() for s in SECRET_KEYS) else value


def is_secret(key: str) -> bool:
    return any(s in key.lower() for s in SECRET_KEYS)


def secret_values(props: dict[str, str]) -> list[str]:
    """Every secret value in ``props`` (longest first), for redacting free text."""
    return sorted({v for k, v in props.items() if is_secret(k) and v}, key=len, reverse=True)


def redact_text(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text
