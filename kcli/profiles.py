"""Named clusters in ``$XDG_CONFIG_HOME/kcli/config.toml`` (default ``~/.config/kcli/config.toml``)::

    default_profile = "dev"

    [profiles.dev]
    bootstrap_servers = "127.0.0.1:9092"

    [profiles.prod]
    bootstrap_servers = "kafka-1:9093,kafka-2:9093"
    properties_file = "~/.config/kcli/prod.properties"   # relative paths: to this file's folder
    properties = { "security.protocol" = "SASL_SSL", "sasl.mechanism" = "SCRAM-SHA-512" }

A profile is chosen by ``--profile``, else ``KCLI_PROFILE``, else ``default_profile``. Its
properties are the file's, then the inline table's (inline wins); the command line (``-b``,
``--command-config``) overrides the profile key by key. ``KCLI_BOOTSTRAP_SERVER`` overrides a
profile chosen by ``KCLI_PROFILE`` or ``default_profile``, never one typed as ``--profile``: what
is typed on the line wins over the environment (see ``resolve``).
"""

from __future__ import annotations

import os

from kcli.admin.settings import normalize_properties, read_properties
from kcli.errors import UsageError
from kcli.inputs import read_text, shown
from kcli.datatypes import field, datatype
from kcli.xdg import config_dir

TYPE_CHECKING = False
if TYPE_CHECKING:              # pathlib (~2 ms to import) only when a profile is read
    from pathlib import Path

PROFILE_ENV = "KCLI_PROFILE"


@datatype
class Profile:
    name: str
    bootstrap_servers: str | None = None
    properties: dict[str, str] = field(default_factory=dict)


def config_path(environ=os.environ) -> Path:
    from pathlib import Path

    return Path(config_dir("config.toml", environ=environ))


def _load(path: Path) -> dict:
    if not path.is_file():
        return {}
    return parse_config(read_text(str(path), "the kcli config file"), path)


def parse_config(text: str, path: Path) -> dict:
    """The TOML document of the config file at ``path``, its shape checked: ``default_profile``
    a profile name, ``profiles`` a table of tables. Any fault is a UsageError naming the file."""
    import tomllib                               # only when there is a file: start-up time

    where = f"the kcli config file '{shown(str(path), 200)}'"
    try:
        doc = tomllib.loads(text)
    except ValueError as exc:    # TOMLDecodeError, and an integer of over 4,300 digits
        raise UsageError(f"Cannot read {where}: {shown(str(exc), 200)}") from None
    except RecursionError:       # tomllib recurses into nested arrays and inline tables
        raise UsageError(f"Cannot read {where}: values nested too deeply") from None
    default = doc.get("default_profile")
    if default is not None and not (isinstance(default, str) and default.strip()):
        raise UsageError(f"In {where}: default_profile must be the name of a profile (a string)")
    profiles = doc.get("profiles", {})
    if not isinstance(profiles, dict) or not all(isinstance(b, dict) for b in profiles.values()):
        raise UsageError(f"In {where}: profiles must be a table of [profiles.NAME] tables")
    return doc


def profile_names(path: Path | None = None) -> list[str]:
    return sorted(_load(path or config_path()).get("profiles", {}))


def _scalar(key: str, value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise UsageError(f"Profile property '{shown(key)}' must be a string, number or boolean")


def _text(name: str, key: str, value) -> str | None:
    """A profile's string setting (None when absent; bootstrap_servers may be a list of
    strings); anything else, or a blank value, is refused."""
    if value is None:
        return None
    if key == "bootstrap_servers" and isinstance(value, list):
        if not value or not all(isinstance(v, str) and v.strip() for v in value):
            raise UsageError(f"Profile '{shown(name)}': bootstrap_servers must be host:port strings")
        value = ",".join(value)
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"Profile '{shown(name)}': {key} must be a non-empty string")
    return value


def load_profile(requested: str | None, path: Path | None = None) -> Profile | None:
    """The chosen profile (``requested`` is ``--profile`` or ``KCLI_PROFILE``; the file's
    ``default_profile`` otherwise), or None when no profile is chosen."""
    path = path or config_path()
    doc = _load(path)
    name = requested or doc.get("default_profile")
    if not name:
        return None
    profiles = doc.get("profiles", {})
    if name not in profiles:
        raise UsageError(f"Unknown profile '{shown(name)}' (defined in {shown(str(path), 200)}: "
                         f"{shown(', '.join(sorted(profiles)) or 'none', 300)})")
    body = profiles[name]
    props: dict[str, str] = {}
    properties_file = _text(name, "properties_file", body.get("properties_file"))
    if properties_file:
        from pathlib import Path

        file = Path(os.path.expanduser(properties_file))
        if not file.is_absolute():
            file = path.parent / file
        props.update(read_properties(str(file), f"profile '{shown(name)}' properties_file"))
    inline = body.get("properties", {})
    if not isinstance(inline, dict):
        raise UsageError(f"Profile '{shown(name)}': properties must be a table of key = value")
    props.update(normalize_properties({k: _scalar(k, v) for k, v in inline.items()}))
    servers = _text(name, "bootstrap_servers", body.get("bootstrap_servers"))
    return Profile(name, servers, props)


def resolve(profile: Profile | None, bootstrap: str | None, command_config: dict[str, str],
            default_bootstrap: str | None = None, *, env_bootstrap: str | None = None,
            profile_typed: bool = False) -> tuple[str | None, dict[str, str]]:
    """Bootstrap servers and properties, for the native commands and the drop-ins: the command
    line over the profile, key by key (``default_bootstrap`` when none names servers). The
    servers, most explicit first: ``-b`` typed (``bootstrap``); a profile typed as ``--profile``
    (``profile_typed``); ``KCLI_BOOTSTRAP_SERVER`` (``env_bootstrap``); a profile chosen by
    ``KCLI_PROFILE`` or ``default_profile``; the default. An exported variable must not send a
    command meant for the profile typed on the line to another cluster."""
    props = dict(profile.properties) if profile else {}
    props.update(command_config)
    chosen = profile.bootstrap_servers if profile else None
    servers = (bootstrap or (chosen if profile_typed else None) or env_bootstrap or chosen
               or default_bootstrap)
    return servers, props
