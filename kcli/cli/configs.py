"""describe/alter configs for topics and brokers (mirrors kafka-configs)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.apps import alter_app, describe_app
from kcli.cli.context import out, state
from kcli.errors import UsageError


def _resources(topic: list[str] | None, broker: list[str] | None) -> list[tuple[str, str]]:
    res = [("topic", t) for t in topic or []] + [("broker", b) for b in broker or []]
    if not res:
        raise UsageError("Name at least one --topic or --broker")
    for b in broker or []:
        if not b.isdigit():
            raise UsageError(f"--broker takes a node id, not '{b}'")
    return res


@describe_app.command("configs")
def describe_configs(
    topic: Optional[List[str]] = typer.Option(None, "--topic", help="Topic name (repeatable)."),
    broker: Optional[List[str]] = typer.Option(None, "--broker", help="Broker node id (repeatable)."),
    show_all: bool = typer.Option(False, "--all", help="Include default values."),
):
    """Non-default configs (all with --all); the KIP-937 timestamp bounds always, with their
    effective value and meaning."""
    from kcli.render.configs import render_configs

    resources = state().admin().describe_configs(_resources(topic, broker))
    render_configs(out(), resources, show_all)


@alter_app.command("configs")
def alter_configs(
    topic: Optional[str] = typer.Option(None, "--topic"),
    broker: Optional[str] = typer.Option(None, "--broker"),
    set_: Optional[List[str]] = typer.Option(None, "--set", help="key=value (repeatable)."),
    delete: Optional[List[str]] = typer.Option(None, "--delete", help="key to reset to default (repeatable)."),
):
    """Set or delete config overrides (incremental)."""
    from kcli.admin.topics import parse_config_pairs
    from kcli.render.configs import render_altered

    if bool(topic) == bool(broker):
        raise UsageError("Give exactly one of --topic or --broker")
    if not set_ and not delete:
        raise UsageError("Nothing to change: give --set key=value or --delete key")
    (rtype, name), = _resources([topic] if topic else None, [broker] if broker else None)
    pairs = parse_config_pairs(set_ or [])
    state().admin().alter_configs(rtype, name, pairs, list(delete or []))
    render_altered(out(), rtype, name, pairs, list(delete or []))
