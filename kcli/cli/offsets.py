"""list-offsets (mirrors kafka-get-offsets, with the record's timestamp for time lookups)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state
from kcli.errors import UsageError


def list_offsets(
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t",
                                              help="TOPIC-REGEX[:P,P...] (repeatable; default all topics)."),
    time: Optional[str] = typer.Option(None, "--time",
                                       help="earliest|latest|max-timestamp|-1|-2|-3|<epoch-ms>|<ISO datetime> (default "
                                            "latest)."),
    max_timestamp: bool = typer.Option(False, "--max-timestamp", help="Shorthand for --time max-timestamp (KIP-734)."),
    exclude_internal: bool = typer.Option(False, "--exclude-internal-topics",
                                          help="Leave out internal topics (__consumer_offsets, ...), even where a "
                                               "--topic regex matches them."),
    topic_partitions: Optional[str] = typer.Option(None, "--topic-partitions",
                                                   help="kafka-get-offsets' rules: REGEX[:N|:A-B|:A-|:-B],... (B "
                                                        "exclusive; an empty regex is every topic)."),
    partitions: Optional[str] = typer.Option(None, "--partitions",
                                             help="Partition ids, comma-separated, for every --topic."),
):
    """Offsets per partition; for max-timestamp and timestamp lookups also the record's time. A
    topic named literally that this principal may not describe is named on stderr once the
    others are shown (exit 3)."""
    from kcli import specs
    from kcli.ops import list_offsets as lib
    from kcli.ops.failures import raise_refusals
    from kcli.render.offsets import render_offsets

    if max_timestamp and time not in (None, "max-timestamp", "-3"):
        raise UsageError("--max-timestamp can't be used with --time")
    label = "max-timestamp" if max_timestamp else ("latest" if time is None else time)
    spec = specs.parse_time(label)
    rules = specs.partition_rules(topic or [], partitions, topic_partitions, check_names=True)
    refusals: list = []
    offsets = lib.list_offsets(state().admin(), rules, spec, exclude_internal, explain=True, refusals=refusals)
    render_offsets(out(), offsets, label)
    lib.check_answered(offsets)
    raise_refusals(len(refusals), refusals, shown=True)
