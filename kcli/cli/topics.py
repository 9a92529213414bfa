"""list/describe/create/alter/delete topics (mirrors kafka-topics)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state
from kcli.errors import UsageError

# Each command imports its library and view modules itself: only the command being run loads any.

PATTERNS = typer.Argument(None, metavar="[TOPIC-REGEX]...", help="Regexes matching whole topic names (default: all).")


def list_topics(
    patterns: Optional[List[str]] = PATTERNS,
    exclude_internal: bool = typer.Option(False, "--exclude-internal", help="Hide internal topics."),
):
    """List topic names (kafka-topics --list)."""
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    admin = state().admin()
    names = lib.select_topics(admin, patterns or [], exclude_internal, if_exists=True)
    view.render_list(out(), names)


def describe_topics(
    patterns: Optional[List[str]] = PATTERNS,
    exclude_internal: bool = typer.Option(False, "--exclude-internal"),
    under_replicated: bool = typer.Option(False, "--under-replicated-partitions"),
    under_min_isr: bool = typer.Option(False, "--under-min-isr-partitions"),
    at_min_isr: bool = typer.Option(False, "--at-min-isr-partitions"),
    unavailable: bool = typer.Option(False, "--unavailable-partitions"),
    with_overrides: bool = typer.Option(False, "--topics-with-overrides", help="Only topics with non-default configs (summary lines)."),
    if_exists: bool = typer.Option(False, "--if-exists", help="No error when nothing matches."),
):
    """Partitions with leader, replicas, ISR, ELR and creation time (KIP-1327).

    CreationTimeMs is shown when the broker offers DescribeTopicPartitions v1; `-` when it does
    not know a partition's creation time; omitted when the broker cannot report it."""
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    if with_overrides and (under_replicated or under_min_isr or at_min_isr or unavailable):
        raise UsageError("--topics-with-overrides can't be used with the partition report filters")
    with out().progress("Describing topics") as progress:
        pairs, summaries = lib.describe(
            state().admin(), patterns or [], exclude_internal=exclude_internal, if_exists=if_exists,
            under_replicated=under_replicated, under_min_isr=under_min_isr, at_min_isr=at_min_isr,
            unavailable=unavailable, with_overrides=with_overrides, progress=progress)
    view.render_describe(out(), pairs, summaries)


def create_topic(
    name: str = typer.Argument(..., help="The topic name."),
    partitions: Optional[int] = typer.Option(None, "--partitions", help="Partition count (broker default if omitted)."),
    replication_factor: Optional[int] = typer.Option(None, "--replication-factor"),
    config: Optional[List[str]] = typer.Option(None, "--config", help="key=value (repeatable)."),
    replica_assignment: Optional[str] = typer.Option(None, "--replica-assignment", help="b1:b2,b3:b4 (partition per comma)."),
    if_not_exists: bool = typer.Option(False, "--if-not-exists"),
):
    """Create a topic (kafka-topics --create)."""
    from kcli import specs
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    specs.check_topic_name(name)
    if replica_assignment is not None and (partitions is not None or replication_factor is not None):
        raise UsageError("--replica-assignment can't be used with --partitions or --replication-factor")
    if replication_factor is not None:
        specs.check_replication_factor(replication_factor)
    if partitions is not None:
        specs.check_partition_count(partitions)
    configs = specs.parse_config_pairs(config or [])
    assignment = specs.parse_replica_assignment(replica_assignment) if replica_assignment is not None else None
    if ("." in name or "_" in name) and out().format != "json":
        # On stdout in plain, where kafka-topics prints it; a note beside a table.
        warn = out().line if out().format == "plain" else out().note
        warn("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore "
             "('_') could collide. To avoid issues it is best to use either, but not both.")
    created = lib.create(state().admin(), name, partitions, replication_factor, configs, assignment,
                         if_not_exists)
    view.render_created(out(), name, created)


def alter_topic(
    patterns: List[str] = typer.Argument(..., metavar="TOPIC-REGEX...", help="Topics to alter."),
    partitions: int = typer.Option(..., "--partitions", help="The new total partition count."),
    replica_assignment: Optional[str] = typer.Option(None, "--replica-assignment"),
    if_exists: bool = typer.Option(False, "--if-exists"),
):
    """Increase the partition count (kafka-topics --alter); prints the before/after count."""
    from kcli import specs
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    specs.check_partition_count(partitions)
    assignment = specs.parse_replica_assignment(replica_assignment) if replica_assignment is not None else None
    changes = lib.add_partitions(state().admin(), patterns, partitions, assignment, if_exists)
    view.render_altered(out(), changes, partitions)


def delete_topic(
    patterns: List[str] = typer.Argument(..., metavar="TOPIC-REGEX...", help="Topics to delete (regex, as kafka-topics)."),
    if_exists: bool = typer.Option(False, "--if-exists"),
):
    """Delete every matching topic (kafka-topics --delete)."""
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    view.render_deleted(out(), lib.delete(state().admin(), patterns, if_exists))
