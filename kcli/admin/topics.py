"""Topic selection and kafka-topics' describe filters, on top of the admin adapter."""

from __future__ import annotations

import re
import warnings

from kcli import javaorder
from kcli.errors import OperationError, PartialFailure, UsageError
from kcli.inputs import INT16_MAX, INT32_MAX, parse_int, shown, topic_name_error
from kcli.model import INTERNAL_TOPICS, PartitionInfo, TopicInfo


def topic_filter(patterns: list[str]) -> re.Pattern | None:
    """kafka-topics' ``--topic`` rule: trimmed, ``,`` means ``|``, spaces deleted, surrounding
    quotes stripped, and the regex must match the whole name. Several patterns are OR-ed."""
    cleaned = []
    for raw in patterns:
        text = raw.strip().replace(",", "|").replace(" ", "").strip("\"'")
        if not text:        # an empty pattern is a mistake, never "every topic" (think delete)
            raise UsageError(f"Invalid topic '{shown(raw)}': a topic name or regex is required")
        cleaned.append(text)
    if not cleaned:
        return None
    regex = "|".join(f"(?:{c})" for c in cleaned)
    try:
        with warnings.catch_warnings():      # "Possible nested set": Python's, not the user's concern
            warnings.simplefilter("ignore")
            return re.compile(regex)
    except (re.error, RecursionError, OverflowError):   # too deeply nested, {n} too large
        raise UsageError(f"{shown('|'.join(cleaned), 200)} is an invalid regex.") from None


def select_topics(admin, patterns: list[str], exclude_internal: bool, if_exists: bool) -> list[str]:
    """The sorted topic names matching ``patterns``; the regexes are checked before any request."""
    rx = topic_filter(patterns)
    names = sorted(n for n in admin.topic_names() if rx is None or rx.fullmatch(n))
    if exclude_internal:
        names = [n for n in names if n not in INTERNAL_TOPICS]
    if rx is not None and not names and not if_exists:
        raise OperationError(f"Topic '{','.join(patterns)}' does not exist as expected")
    return names


def check_topic_name(name: str) -> None:
    """Kafka's rule for a new topic's name, checked before the request (the broker's refusal came
    after five requests)."""
    if error := topic_name_error(name):
        raise UsageError(error)


def check_partition_count(count: int) -> None:
    """A partition count is an int32, as CreateTopics and CreatePartitions carry it."""
    if count < 1:
        raise UsageError("The partitions must be greater than 0")
    if count > INT32_MAX:
        raise UsageError(f"The partitions must be at most {INT32_MAX}")


def check_replication_factor(factor: int) -> None:
    """An int16, as CreateTopics carries it (kafka-topics' message)."""
    if not 1 <= factor <= INT16_MAX:
        raise UsageError("The replication factor must be between 1 and 32767 inclusive")


def parse_replica_assignment(text: str) -> list[list[int]]:
    """``5:4,3:2,1:0`` -> [[5, 4], [3, 2], [1, 0]] with kafka-topics' checks; broker ids are
    int32 node ids."""
    result: list[list[int]] = []
    for i, part in enumerate(text.split(",")):
        try:
            replicas = [parse_int(x, 0, INT32_MAX) for x in part.split(":")]
        except ValueError:
            raise UsageError(f"Invalid --replica-assignment '{shown(text)}': expected b1:b2,b3:b4,... "
                             "(broker ids)") from None
        seen: set[int] = set()
        dup = next((r for r in replicas if r in seen or seen.add(r)), None)
        if dup is not None:
            raise UsageError(f"Partition replica lists may not contain duplicate entries: {dup}")
        if result and len(replicas) != len(result[0]):
            raise UsageError(f"Partition {i} has different replication factor: {shown(str(replicas))}")
        result.append(replicas)
    return result


def parse_config_pairs(pairs: list[str], what: str = "config") -> dict[str, str]:
    """``key=value`` pairs (spaces around ``=`` dropped); a key and a value are required, as
    kafka-topics requires them."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.strip().partition("=")
        key, value = key.rstrip(), value.lstrip()
        if not eq or not key or not value:
            raise UsageError(f'Invalid topic {what}: all configs must be in the format "key=val": '
                             f"{shown(pair)}")
        out[key] = value
    return out


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


def describe(admin, patterns: list[str], *, exclude_internal=False, if_exists=False,
             under_replicated=False, under_min_isr=False, at_min_isr=False, unavailable=False,
             with_overrides=False, progress=None) -> tuple[list[tuple[TopicInfo, list[PartitionInfo]]], bool]:
    """What ``describe topics`` shows: (topic, partitions to print) pairs, in kafka-topics' order
    (``kcli.javaorder``; config overrides likewise), and whether the summary lines are printed
    (not with a report filter). Every request goes through the KIP client, which
    DescribeTopicPartitions needs anyway: one connection. ``progress`` (done, total) counts the
    topics described."""
    topic_filter(patterns)                          # a bad regex fails before any connection
    kip = admin.kip
    names = select_topics(kip, patterns, exclude_internal, if_exists)
    if not names:
        return [], True
    described = {t.name: t for t in kip.describe_topics(names, progress)}
    topics = [described[n] for n in javaorder.described_topics(sorted(described))]
    configs = {rc.name: rc for rc in kip.describe_configs([("topic", n) for n in described])}
    min_isr: dict[str, int] = {}
    for t in topics:
        rc = configs.get(t.name)
        if rc:
            values = {e.name: e for e in rc.entries}
            t.configs = {name: values[name].value for name in javaorder.config_entries(list(values))
                         if not values[name].is_default and values[name].value is not None}
            min_isr[t.name] = int(next((e.value for e in rc.entries if e.name == "min.insync.replicas"), "1") or 1)
    live = set(kip.broker_ids()) if unavailable else set()
    keep = report_filter(under_replicated, under_min_isr, at_min_isr, unavailable, live)
    if with_overrides:
        return [(t, []) for t in topics if t.configs], True
    if keep is None:
        return [(t, t.partitions) for t in topics], True
    picked = [(t, [p for p in t.partitions if keep(p, min_isr.get(t.name, 1))]) for t in topics]
    return [(t, ps) for t, ps in picked if ps], False


def create(admin, name, partitions, replication_factor, configs, assignment, if_not_exists) -> bool:
    """Create one topic; False when it exists and ``if_not_exists`` (the request is still sent)."""
    try:
        admin.create_topic(name, partitions, replication_factor, configs, assignment)
    except OperationError as exc:
        if if_not_exists and "already exists" in exc.message:
            return False
        raise
    return True


def add_partitions(admin, patterns, total, assignment, if_exists) -> list[tuple[str, int]]:
    if assignment and len(assignment) != total:          # before any request
        raise UsageError(f"--replica-assignment has {len(assignment)} entries for {total} partitions")
    names = select_topics(admin, patterns, False, if_exists)
    current = {t.name: len(t.partitions) for t in admin.describe_topics(names)}
    for name in names:   # checked for every topic before any change
        if current[name] == total:
            raise UsageError(f"Topic already has {total} partition(s).")
        if current[name] > total:
            raise UsageError(f"The topic {name} currently has {current[name]} partition(s); "
                             f"{total} would not be an increase.")
    changed = []
    for name in names:
        extra = assignment[current[name]:] if assignment else None
        admin.create_partitions(name, total, extra)
        changed.append((name, current[name]))
    return changed


def delete(admin, patterns, if_exists) -> list[str]:
    names = select_topics(admin, patterns, False, if_exists)
    if not names:
        return []
    results = admin.delete_topics(names)
    failed = {n: e for n, e in results.items() if e}
    if failed:
        detail = "; ".join(f"{n}: {e.message}" for n, e in sorted(failed.items()))
        done = [n for n in names if n not in failed]
        if done:
            raise PartialFailure(f"Deleted {', '.join(done)}; not deleted: {detail}")
        raise OperationError(detail)
    return names
