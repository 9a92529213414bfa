"""describe/alter configs for topics and brokers (mirrors kafka-configs)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state
from kcli.errors import UsageError
from kcli.inputs import INT32_MAX, parse_int, shown


def _resources(topic: list[str] | None, broker: list[str] | None) -> list[tuple[str, str]]:
    from kcli.specs import check_topic_name

    res = [("topic", t) for t in topic or []] + [("broker", b) for b in broker or []]
    if not res:
        raise UsageError("Name at least one --topic or --broker")
    for t in topic or []:
        if not t.strip():
            raise UsageError("--topic needs a topic name")
        check_topic_name(t)
    for b in broker or []:
        try:
            if not (b.isascii() and b.isdigit()):
                raise ValueError(b)
            parse_int(b, 0, INT32_MAX)
        except ValueError:
            raise UsageError(f"--broker takes a node id (0 to {INT32_MAX}), not '{shown(b)}'") from None
    return res


def describe_configs(
    topic: Optional[List[str]] = typer.Option(None, "--topic", help="Topic name (repeatable)."),
    broker: Optional[List[str]] = typer.Option(None, "--broker", help="Broker node id (repeatable)."),
    show_all: bool = typer.Option(False, "--all", help="Include default values."),
):
    """Non-default configs (all with --all); the KIP-937 timestamp bounds always, with their
    effective value and meaning."""
    from kcli.ops import configs as lib
    from kcli.render.configs import render_configs

    resources = lib.describe(state().admin(), _resources(topic, broker))
    render_configs(out(), resources, show_all)


def alter_configs(
    topic: Optional[str] = typer.Option(None, "--topic", help="The topic to change."),
    broker: Optional[str] = typer.Option(None, "--broker", help="The broker (node id) to change."),
    set_: Optional[List[str]] = typer.Option(None, "--set",
                                             help="key=value[,key=value...] (repeatable; [a,b] groups a value with "
                                                  "commas, as kafka-configs --add-config)."),
    delete: Optional[List[str]] = typer.Option(None, "--delete",
                                               help="key[,key...] to reset to default (repeatable, as kafka-configs "
                                                    "--delete-config)."),
):
    """Set or delete config overrides (incremental)."""
    from kcli.specs import parse_add_config, parse_delete_config
    from kcli.render.configs import render_altered

    if (topic is None) == (broker is None):
        raise UsageError("Give exactly one of --topic or --broker")
    if not set_ and not delete:
        raise UsageError("Nothing to change: give --set key=value or --delete key")
    (rtype, name), = _resources([topic] if topic is not None else None, [broker] if broker is not None else None)
    pairs = {k: v for value in set_ or [] for k, v in parse_add_config(value).items()}
    deleted = parse_delete_config(delete, "--delete") if delete else []
    from kcli.ops.configs import alter

    alter(state().admin(), rtype, name, pairs, deleted)
    render_altered(out(), rtype, name, pairs, deleted)
