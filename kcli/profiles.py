"""Named clusters in ``$XDG_CONFIG_HOME/kcli/config.toml`` (default ``~/.config/kcli/config.toml``)::

    default_profile = "dev"

    [profiles.dev]
    bootstrap_servers = "127.0.0.1:9092"

    [profiles.prod]
    bootstrap_servers = "kafka-1:9093,kafka-2:9093"
    properties_file = "~/.config/kcli/prod.properties"   # relative paths: to this file's folder
    properties = { "security.protocol" = "SASL_SSL", "sasl.mechanism" = "SCRAM-SHA-512" }

A profile is chosen by ``--profile``, else ``KCLI_PROFILE``, else ``default_profile``. Its
properties are the file's, then the inline table's (inline wins); the command line
(``-b``/``KCLI_BOOTSTRAP_SERVER``, ``--command-config``) overrides the profile key by key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kcli.admin.settings import normalize_properties, read_properties
from kcli.errors import UsageError

PROFILE_ENV = "KCLI_PROFILE"


@dataclass
class Profile:
    name: str
    bootstrap_servers: str | None = None
    properties: dict[str, str] = field(default_factory=dict)


def config_path(environ=os.environ) -> Path:
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "kcli" / "config.toml"


def _load(path: Path) -> dict:
    if not path.is_file():
        return {}
    import tomllib                               # only when there is a file: start-up time

    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"Cannot read the kcli config file '{path}': {exc}") from None


def profile_names(path: Path | None = None) -> list[str]:
    profiles = _load(path or config_path()).get("profiles", {})
    return sorted(profiles) if isinstance(profiles, dict) else []


def _scalar(key: str, value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise UsageError(f"Profile property '{key}' must be a string, number or boolean")


def load_profile(requested: str | None, path: Path | None = None) -> Profile | None:
    """The chosen profile (``requested`` is ``--profile`` or ``KCLI_PROFILE``; the file's
    ``default_profile`` otherwise), or None when no profile is chosen."""
    path = path or config_path()
    doc = _load(path)
    name = requested or doc.get("default_profile")
    if not name:
        return None
    profiles = doc.get("profiles", {})
    if not isinstance(profiles, dict) or not isinstance(profiles.get(name), dict):
        known = ", ".join(sorted(profiles)) if isinstance(profiles, dict) and profiles else "none"
        raise UsageError(f"Unknown profile '{name}' (defined in {path}: {known})")
    body = profiles[name]
    props: dict[str, str] = {}
    if body.get("properties_file"):
        file = Path(os.path.expanduser(str(body["properties_file"])))
        if not file.is_absolute():
            file = path.parent / file
        props.update(read_properties(str(file)))
    inline = body.get("properties", {})
    if not isinstance(inline, dict):
        raise UsageError(f"Profile '{name}': properties must be a table of key = value")
    props.update(normalize_properties({k: _scalar(k, v) for k, v in inline.items()}))
    servers = body.get("bootstrap_servers")
    if isinstance(servers, list):
        servers = ",".join(map(str, servers))
    return Profile(name, str(servers) if servers else None, props)


def resolve(profile: Profile | None, bootstrap: str | None, command_config: dict[str, str],
            default_bootstrap: str) -> tuple[str, dict[str, str]]:
    """Bootstrap servers and properties: the command line over the profile, key by key."""
    props = dict(profile.properties) if profile else {}
    props.update(command_config)
    servers = bootstrap or (profile.bootstrap_servers if profile else None) or default_bootstrap
    return servers, props
