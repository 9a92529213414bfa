"""Where kcli keeps its files on this machine: the XDG base directories, one rule for every
command (rollback files, the expansion check's memory, Spark's logs, the profiles file, the
provisioned jars of scripts/provision-*.sh)."""

from __future__ import annotations

import os


def _home(variable: str, default: tuple[str, ...], environ) -> str:
    return environ.get(variable) or os.path.join(os.path.expanduser("~"), *default)


def state_dir(*parts: str, environ=os.environ) -> str:
    """``$XDG_STATE_HOME/kcli/<parts>`` (``~/.local/state`` when unset or empty)."""
    return os.path.join(_home("XDG_STATE_HOME", (".local", "state"), environ), "kcli", *parts)


def config_dir(*parts: str, environ=os.environ) -> str:
    """``$XDG_CONFIG_HOME/kcli/<parts>`` (``~/.config`` when unset or empty)."""
    return os.path.join(_home("XDG_CONFIG_HOME", (".config",), environ), "kcli", *parts)


def cache_dir(*parts: str, environ=os.environ) -> str:
    """``$KCLI_CACHE_DIR/<parts>``, else ``$XDG_CACHE_HOME/kcli/<parts>`` (``~/.cache``): where
    scripts/provision-kafka.sh and provision-spark-kafka.sh keep the jars they fetch."""
    base = environ.get("KCLI_CACHE_DIR") or os.path.join(_home("XDG_CACHE_HOME", (".cache",), environ), "kcli")
    return os.path.join(base, *parts)
