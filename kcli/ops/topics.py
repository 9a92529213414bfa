"""Topics (kafka-topics): selection by regex, describe with the report filters in the tool's
order, create, add partitions, delete."""

from __future__ import annotations

import re

from kcli import javaorder
from kcli.errors import BrokerRejected, NotAuthorized, OperationError, UnsupportedByBroker, UsageError
from kcli.model import INTERNAL_TOPICS, PartitionInfo, TopicInfo
from kcli.ops.failures import change, per_item, raise_for, raise_refusals
from kcli.specs import (check_partition_count, check_replication_factor, literal_topic, parse_replica_assignment,
                        topic_filter)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin


def topic_names(admin: Admin) -> list[str]:
    """Every topic's name, as the cluster lists them (shell completion)."""
    return admin.topic_names()


def select_topics(admin: Admin, patterns: list[str], exclude_internal: bool, if_exists: bool) -> list[str]:
    """The sorted topic names matching ``patterns``; the regexes are checked before any request."""
    rx = topic_filter(patterns)
    names = sorted(n for n in admin.topic_names() if rx is None or rx.fullmatch(n))
    if exclude_internal:
        names = [n for n in names if n not in INTERNAL_TOPICS]
    if rx is not None and not names and not if_exists:
        raise OperationError(f"Topic '{','.join(patterns)}' does not exist as expected")
    return names


def _described(admin: Admin, patterns: list[str], exclude_internal: bool, if_exists: bool,
               progress, say_refusals: bool = True) -> list[TopicInfo]:
    """The topics ``patterns`` select (``select_topics``), described. A topic named literally
    (``specs.literal_topic``: a pattern that can match only that name) is described at once,
    without listing every topic first (one Metadata answer with every partition of the
    cluster); when the broker describes it with an error (no such topic, or not one this client
    may see), or it is internal and ``exclude_internal``, the selection is made as for a regex,
    so what is printed, an error included, is what the listing gives; but for Kafka's "not
    authorized" (NotAuthorized, raised as it is) unless ``say_refusals`` is False (kafka-topics'
    drop-in: the Java tool lists the topics, and finds none)."""
    name = literal_topic(patterns)
    if name is not None and not (exclude_internal and name in INTERNAL_TOPICS):
        try:
            return admin.describe_topics([name], progress)
        except BrokerRejected as exc:
            if exc.error.code < 0 or (say_refusals and isinstance(exc, NotAuthorized)):
                raise                       # the client's own error (no answer, timeout), or Kafka's "not authorized"
    names = select_topics(admin, patterns, exclude_internal, if_exists)
    return admin.describe_topics(names, progress) if names else []


def _refused_by_name(admin: Admin, patterns: list[str], described) -> list[NotAuthorized]:
    """Of several topics named literally, those the listing left out that this principal may not
    describe (asked by name, only those): their NotAuthorized."""
    found = []
    for name in dict.fromkeys(literal_topic([p]) for p in patterns if len(patterns) > 1):
        if name is not None and name not in described:
            try:
                admin.describe_topics([name])
            except NotAuthorized as exc:
                found.append(exc)
            except BrokerRejected:
                pass                                # no such topic: as the listing says
    return found


def report_filter(under_replicated: bool, under_min_isr: bool, at_min_isr: bool,
                  unavailable: bool, live_brokers: set[int]):
    """The describe report filters (OR-ed); None when no filter is asked for."""
    if not (under_replicated or under_min_isr or at_min_isr or unavailable):
        return None

    def keep(p: PartitionInfo, min_isr: int) -> bool:
        no_leader = p.leader is None
        return ((under_replicated and len(p.replicas) - len(p.isr) > 0)
                or (under_min_isr and (no_leader or len(p.isr) < min_isr))
                or (at_min_isr and len(p.isr) == min_isr)
                or (unavailable and (no_leader or p.leader not in live_brokers)))
    return keep


def describe(admin: Admin, patterns: list[str], *, exclude_internal=False, if_exists=False,
             under_replicated=False, under_min_isr=False, at_min_isr=False, unavailable=False,
             with_overrides=False, progress=None, say_refusals=True,
             refusals: list | None = None) -> tuple[list[tuple[TopicInfo, list[PartitionInfo]]], bool]:
    """What ``describe topics`` shows: (topic, partitions to print) pairs, in kafka-topics' order
    (``kcli.javaorder``; config overrides likewise), and whether the summary lines are printed
    (not with a report filter). Every request it makes goes over kcli's own connection, which
    DescribeTopicPartitions needs anyway: one connection. ``progress`` (done, total) counts the
    topics described. ``refusals``: the topics whose configs this principal may not describe
    (their NotAuthorized: Admin.describe_configs') are shown without configs, and those named
    literally among several that it may not describe are named there too."""
    topic_filter(patterns)                          # a bad regex fails before any connection
    try:
        described = {t.name: t for t in _described(admin, patterns, exclude_internal, if_exists, progress,
                                                    say_refusals)}
    except OperationError as exc:           # none of the names matched: refused, or missing?
        if isinstance(exc, BrokerRejected) or refusals is None or not (refused := _refused_by_name(
                admin, patterns, {})):
            raise
        raise_refusals(len(refused), refused, shown=False)
    if refusals is not None:
        refusals.extend(_refused_by_name(admin, patterns, described))
    if not described:
        return [], True
    topics = [described[n] for n in javaorder.described_topics(sorted(described))]
    try:
        configs = {rc.name: rc for rc in admin.describe_configs([("topic", n) for n in described], refusals)}
    except UnsupportedByBroker as exc:          # librdkafka's mock cluster: the partitions still show
        admin.warn(f"{exc.message}: the topics' configs are not shown")
        configs = {}
    min_isr: dict[str, int] = {}
    for t in topics:
        rc = configs.get(t.name)
        if rc:
            values = {e.name: e for e in rc.entries}
            t.configs = {name: value for name in javaorder.config_entries(list(values))
                         if not values[name].is_default and (value := values[name].value) is not None}
            min_isr[t.name] = int(next((e.value for e in rc.entries if e.name == "min.insync.replicas"), "1") or 1)
    live = set(admin.broker_ids()) if unavailable else set()
    keep = report_filter(under_replicated, under_min_isr, at_min_isr, unavailable, live)
    if with_overrides:
        return [(t, []) for t in topics if t.configs], True
    if keep is None:
        return [(t, t.partitions) for t in topics], True
    picked = [(t, [p for p in t.partitions if keep(p, min_isr.get(t.name, 1))]) for t in topics]
    return [(t, ps) for t, ps in picked if ps], False


def partition_sizes(admin: Admin, pairs: list[tuple[TopicInfo, list[PartitionInfo]]]
                    ) -> dict[tuple[str, int], int | None]:
    """The bytes of each shown partition's leader replica (``kcli.ops.logdirs.leader_sizes``:
    one DescribeLogDirs per leader, for the shown partitions only; None where unknown)."""
    from kcli.ops.logdirs import leader_sizes

    return leader_sizes(admin, {(t.name, p.partition): p.leader for t, parts in pairs for p in parts})


def describe_by_id(admin: Admin, topic_id: str, *, exclude_internal=False, if_exists=False,
                   **filters) -> tuple[list[tuple[TopicInfo, list[PartitionInfo]]], bool]:
    """kafka-topics --describe --topic-id: the topic with that id, as the Java tool shows it
    (described through Metadata: no ELR, no creation time)."""
    from kcli.datatypes import replace

    names = [n for n in admin.topic_names() if not (exclude_internal and n in INTERNAL_TOPICS)]
    found = [t.name for t in admin.describe_topics(names) if t.topic_id == topic_id]
    if not found:
        if if_exists:
            return [], True
        raise OperationError(f"TopicId '{topic_id}' does not exist as expected")
    pairs, summaries = describe(admin, [re.escape(found[0])], exclude_internal=exclude_internal, **filters)
    by_metadata = [(t, [replace(p, elr=None, last_known_elr=None, creation_time_ms=None) for p in parts])
                   for t, parts in pairs]
    return by_metadata, summaries


# kafka-topics' warning on creating a topic whose name has a period or an underscore
COLLISION_WARNING = ("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore "
                     "('_') could collide. To avoid issues it is best to use either, but not both.")


def may_collide(name: str) -> bool:
    """Kafka's Topic.hasCollisionChars: the name's metrics may collide with another topic's."""
    return "." in name or "_" in name


def check_new_topic(partitions: int | None, replication_factor: int | None,
                    replica_assignment: str | None) -> list[list[int]] | None:
    """The checks of a new topic's shape, before any request, for every front end (create topic,
    kafka-topics --create) in kafka-topics' order: the replica assignment is read, then the
    replication factor and the partition count are checked. The replica assignment, or None.
    The name has its own rule (``specs.check_topic_name``), which kafka-topics applies after the
    collision warning (``may_collide``)."""
    assignment = parse_replica_assignment(replica_assignment) if replica_assignment is not None else None
    if replication_factor is not None:
        check_replication_factor(replication_factor)
    if partitions is not None:
        check_partition_count(partitions)
    return assignment


def create(admin: Admin, name, partitions, replication_factor, configs, assignment, if_not_exists) -> bool:
    """Create one topic; False when it exists and ``if_not_exists`` (the request is still sent)."""
    try:
        with change(f"the creation of topic '{name}'"):
            admin.create_topic(name, partitions, replication_factor, configs, assignment)
    except BrokerRejected as exc:
        if if_not_exists and exc.error.name == "TOPIC_ALREADY_EXISTS":
            return False
        raise
    return True


def add_partitions(admin: Admin, patterns, total, assignment, if_exists) -> list[tuple[str, int]]:
    if assignment and len(assignment) != total:          # before any request
        raise UsageError(f"--replica-assignment has {len(assignment)} entries for {total} partitions")
    names = select_topics(admin, patterns, False, if_exists)
    current = {t.name: len(t.partitions) for t in admin.describe_topics(names)}
    for name in names:   # checked for every topic before any change; on the cluster's answer: exit 1
        if current[name] == total:
            raise OperationError(f"Topic already has {total} partition(s).")
        if current[name] > total:
            raise OperationError(f"The topic {name} currently has {current[name]} partition(s); "
                             f"{total} would not be an increase.")
    changed = []
    for name in names:
        extra = assignment[current[name]:] if assignment else None
        with change(f"the partition increase of topic '{name}'"):
            admin.create_partitions(name, total, extra)
        changed.append((name, current[name]))
    return changed


def needs_execute(names: list[str], execute: bool) -> bool:
    """Whether a deletion waits for --execute: a selection of more than one topic (a regex that
    matched several) is listed first; one topic, named or matched, goes at once (kafka-topics'
    behaviour, which its drop-in keeps by always executing)."""
    return len(names) > 1 and not execute


def delete(admin: Admin, patterns, if_exists, execute: bool = True) -> list[str]:
    """The topics ``patterns`` select, deleted; the names alone, nothing deleted, when they are
    more than one and not ``execute`` (``needs_execute``: a regex's dry run)."""
    names = select_topics(admin, patterns, False, if_exists)
    if not names or needs_execute(names, execute):
        return names
    results = admin.delete_topics(names)
    failed, unknown = per_item(results)
    if failed or unknown:
        errors = {n: e for n, e in results.items() if e is not None}     # failed and unknown
        detail = "; ".join(f"{n}: {errors[n].message}" for n in sorted(failed))
        if unknown:
            detail += ("; " if detail else "") + "unknown (no answer; may or may not be deleted): " + "; ".join(
                f"{n}: {errors[n].message}" for n in sorted(unknown))
        done = [n for n in names if n not in failed and n not in unknown]
        raise_for(len(names), len(failed),
                  f"Deleted {', '.join(done)}; not deleted: {detail}" if done else detail, len(unknown))
    return names
