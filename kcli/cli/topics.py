"""list/describe/create/alter/delete topics (mirrors kafka-topics)."""

from __future__ import annotations

from typing import List, Optional

import typer

from kcli.cli.context import out, state
from kcli.cli.params import Bounded
from kcli.errors import UsageError
from kcli.inputs import INT64_MAX, INT64_MIN

# Each command imports its library and view modules itself: only the command being run loads any.

PATTERNS = typer.Argument(None, metavar="[TOPIC-REGEX]...", help="Regexes matching whole topic names (default: all).")
TOPICS = typer.Option(None, "--topic", "-t", metavar="TOPIC-REGEX",
                      help="The same as a TOPIC-REGEX argument, as kafka-topics spells it (repeatable).")
TARGETS = typer.Argument(None, metavar="[TOPIC-REGEX]...", help="Regexes matching whole topic names (or --topic).")


def _patterns(positional: list[str] | None, options: list[str] | None, required: bool) -> list[str]:
    """The topic regexes given as arguments and as --topic, in that order."""
    patterns = [*(positional or []), *(options or [])]
    if required and not patterns:
        raise UsageError("Name the topics: a TOPIC-REGEX argument or --topic")
    return patterns


def list_topics(
    patterns: Optional[List[str]] = PATTERNS,
    topic: Optional[List[str]] = TOPICS,
    exclude_internal: bool = typer.Option(False, "--exclude-internal", help="Hide internal topics."),
):
    """List topic names (kafka-topics --list)."""
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    admin = state().admin()
    names = lib.select_topics(admin, _patterns(patterns, topic, False), exclude_internal, if_exists=True)
    view.render_list(out(), names)


def describe_topics(
    patterns: Optional[List[str]] = PATTERNS,
    topic: Optional[List[str]] = TOPICS,
    exclude_internal: bool = typer.Option(False, "--exclude-internal", help="Hide internal topics."),
    under_replicated: bool = typer.Option(False, "--under-replicated-partitions",
                                          help="Only partitions whose ISR is smaller than their replica set."),
    under_min_isr: bool = typer.Option(False, "--under-min-isr-partitions",
                                       help="Only partitions whose ISR is below min.insync.replicas (or that have no "
                                            "leader)."),
    at_min_isr: bool = typer.Option(False, "--at-min-isr-partitions",
                                    help="Only partitions whose ISR is exactly min.insync.replicas."),
    unavailable: bool = typer.Option(False, "--unavailable-partitions", help="Only partitions without a live leader."),
    with_overrides: bool = typer.Option(False, "--topics-with-overrides",
                                        help="Only topics with non-default configs, without their partitions."),
    if_exists: bool = typer.Option(False, "--if-exists", help="No error when nothing matches."),
):
    """Partitions with leader, replicas, ISR, ELR, creation time (KIP-1327) and size.

    CreationTimeMs is shown when the broker offers DescribeTopicPartitions v1; `-` when it does
    not know a partition's creation time; omitted when the broker cannot report it.

    SIZE (table, csv; sizeBytes in json) is the bytes of the leader's replica of each partition
    shown, from DescribeLogDirs (one per leader broker): in binary units in a table, exact bytes
    in csv and json; `unknown` (with one Warn line saying why) when the broker refuses it, as
    without DESCRIBE on the cluster. -o plain keeps kafka-topics' layout, without sizes. A topic
    whose configs this principal may not describe is shown without them, and named on stderr
    (exit 3)."""
    from kcli.ops import topics as lib
    from kcli.ops.failures import raise_refusals
    from kcli.render import topics as view

    if with_overrides and (under_replicated or under_min_isr or at_min_isr or unavailable):
        raise UsageError("--topics-with-overrides can't be used with the partition report filters")
    refusals: list = []
    with out().progress("Describing topics") as progress:
        pairs, summaries = lib.describe(
            state().admin(), _patterns(patterns, topic, False), exclude_internal=exclude_internal, if_exists=if_exists,
            under_replicated=under_replicated, under_min_isr=under_min_isr, at_min_isr=at_min_isr,
            unavailable=unavailable, with_overrides=with_overrides, progress=progress, refusals=refusals)
    if pairs or not refusals:                  # the topics' partitions, not the configs refused
        sizes = lib.partition_sizes(state().admin(), pairs) if out().format != "plain" else None
        view.render_describe(out(), pairs, summaries, sizes)
    raise_refusals(len(refusals), refusals, shown=bool(pairs))


def create_topic(
    name: Optional[str] = typer.Argument(None, metavar="NEW-TOPIC", help="The new topic's name (or --topic)."),
    topic: Optional[List[str]] = typer.Option(None, "--topic", "-t", metavar="NEW-TOPIC",
                                              help="The same as the NEW-TOPIC argument, as kafka-topics spells it."),
    partitions: Optional[int] = typer.Option(None, "--partitions", click_type=Bounded(INT64_MIN, INT64_MAX),
                                             help="Partition count (broker default if omitted)."),
    replication_factor: Optional[int] = typer.Option(None, "--replication-factor",
                                                     click_type=Bounded(INT64_MIN, INT64_MAX),
                                                     help="Replicas per partition (broker default if omitted)."),
    config: Optional[List[str]] = typer.Option(None, "--config",
                                               help="A topic config override, key=value (repeatable)."),
    replica_assignment: Optional[str] = typer.Option(None, "--replica-assignment",
                                                     help="Broker ids per partition: b1:b2,b3:b4 (a comma between "
                                                          "partitions)."),
    if_not_exists: bool = typer.Option(False, "--if-not-exists", help="No error when the topic already exists."),
):
    """Create a topic (kafka-topics --create)."""
    from kcli import specs
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    names = _patterns([name] if name is not None else [], topic, False)
    if not names:
        raise UsageError("Name the new topic: a NEW-TOPIC argument or --topic")
    if len(names) > 1:       # as kafka-topics: one topic per create
        raise UsageError("create topic takes one topic name (a NEW-TOPIC argument or --topic), "
                         f"not {len(names)}")
    name = names[0]
    specs.check_topic_name(name)
    if replica_assignment is not None and (partitions is not None or replication_factor is not None):
        raise UsageError("--replica-assignment can't be used with --partitions or --replication-factor")
    assignment = lib.check_new_topic(partitions, replication_factor, replica_assignment)
    configs = specs.parse_config_pairs(config or [])
    if lib.may_collide(name) and out().format != "json":
        # On stdout in plain, where kafka-topics prints it; a note beside a table.
        (out().line if out().format == "plain" else out().note)(lib.COLLISION_WARNING)
    created = lib.create(state().admin(), name, partitions, replication_factor, configs, assignment,
                         if_not_exists)
    view.render_created(out(), name, created)


def alter_topic(
    patterns: Optional[List[str]] = TARGETS,
    topic: Optional[List[str]] = TOPICS,
    partitions: int = typer.Option(..., "--partitions", click_type=Bounded(INT64_MIN, INT64_MAX),
                                   help="The new total partition count."),
    replica_assignment: Optional[str] = typer.Option(None, "--replica-assignment",
                                                     help="Broker ids for every partition, old ones included: "
                                                          "b1:b2,b3:b4,..."),
    if_exists: bool = typer.Option(False, "--if-exists", help="No error when no topic matches."),
):
    """Increase the partition count (kafka-topics --alter); prints the before/after count."""
    from kcli import specs
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    specs.check_partition_count(partitions)
    assignment = specs.parse_replica_assignment(replica_assignment) if replica_assignment is not None else None
    changes = lib.add_partitions(state().admin(), _patterns(patterns, topic, True), partitions,
                                 assignment, if_exists)
    view.render_altered(out(), changes, partitions)


def delete_topic(
    patterns: Optional[List[str]] = TARGETS,
    topic: Optional[List[str]] = TOPICS,
    if_exists: bool = typer.Option(False, "--if-exists", help="No error when no topic matches."),
    execute: bool = typer.Option(False, "--execute",
                                 help="Delete them when the regexes match more than one topic (else a dry run)."),
):
    """Delete every matching topic (kafka-topics --delete). When the regexes match more than one
    topic, they are listed and nothing is deleted without --execute."""
    from kcli.ops import topics as lib
    from kcli.render import topics as view

    names = lib.delete(state().admin(), _patterns(patterns, topic, True), if_exists, execute)
    dry_run = lib.needs_execute(names, execute)
    view.render_deleted(out(), names, executed=not dry_run)
    if dry_run and out().format != "json":
        out().note(f"Dry run: nothing was deleted ({len(names)} topics match; add --execute to delete them).")
