"""describe log-dirs (kafka-log-dirs --describe)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state


def describe_log_dirs(
    broker: Optional[List[int]] = typer.Option(None, "--broker", "-B", metavar="ID",
                                               help="Only this broker's log dirs (repeatable; default: all live)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", metavar="TOPIC",
                                              help="Only this topic's replicas (repeatable; default: all)."),
):
    """The size in bytes of every replica in each broker's log dirs, and a future replica's
    offset lag (kafka-log-dirs --describe); SIZE in binary units in a table, bytes elsewhere."""
    from kcli.ops import logdirs as lib
    from kcli.render import logdirs as view

    topics = list(topic or [])
    lib.check_topics(topics)
    view.render_log_dirs(out(), lib.describe(state().admin(), list(broker or []), topics))
