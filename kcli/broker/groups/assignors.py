"""Server-side partition assignors for consumer-protocol groups (KIP-848): ``uniform`` and ``range``.

An assignor maps each member to a set of partitions, given every member's subscribed topics and
the partition count of each subscribed topic. Partitions are ``(topic_id, partition)`` pairs.
"""

from __future__ import annotations

import uuid
from typing import Callable, Mapping

TopicPartition = tuple[uuid.UUID, int]
# member id -> subscribed topic ids; topic id -> partition count; member id -> current target
Assignor = Callable[
    [Mapping[str, frozenset[uuid.UUID]], Mapping[uuid.UUID, int], Mapping[str, set[TopicPartition]]],
    dict[str, set[TopicPartition]],
]


def uniform(subscriptions, partition_counts, current):
    """Balanced and sticky: members keep the partitions they hold where balance allows; each
    partition goes to a subscribed member; no subscriber of a topic ends up holding two or more
    partitions fewer than another subscriber that holds a partition of that topic."""
    result: dict[str, set[TopicPartition]] = {m: set() for m in subscriptions}
    owner: dict[TopicPartition, str] = {}
    for member in sorted(subscriptions):
        for tp in sorted(current.get(member, ()), key=_key):
            topic, index = tp
            if (topic in subscriptions[member] and index < partition_counts.get(topic, 0)
                    and tp not in owner):
                owner[tp] = member
                result[member].add(tp)
    subscribers = {t: sorted(m for m, topics in subscriptions.items() if t in topics)
                   for t in partition_counts}
    everything = sorted(((t, i) for t, n in partition_counts.items() for i in range(n)
                         if subscribers[t]), key=lambda tp: (len(subscribers[tp[0]]), _key(tp)))
    for tp in everything:
        if tp not in owner:
            target = min(subscribers[tp[0]], key=lambda m: (len(result[m]), m))
            owner[tp] = target
            result[target].add(tp)
    _rebalance(result, owner, subscribers)
    return result


def _rebalance(result, owner, subscribers):
    """Move partitions from the most loaded member to a less loaded subscriber until no move
    narrows the gap by two or more."""
    moved = True
    while moved:
        moved = False
        for member in sorted(result, key=lambda m: (-len(result[m]), m)):
            for tp in sorted(result[member], key=_key, reverse=True):
                lighter = [m for m in subscribers[tp[0]] if len(result[m]) < len(result[member]) - 1]
                if lighter:
                    target = min(lighter, key=lambda m: (len(result[m]), m))
                    result[member].discard(tp)
                    result[target].add(tp)
                    owner[tp] = target
                    moved = True
                    break
            if moved:
                break


def range_(subscriptions, partition_counts, current):
    """Per topic, its subscribers (ordered by member id) get contiguous ranges; the first
    ``count % subscribers`` members get one extra partition."""
    result: dict[str, set[TopicPartition]] = {m: set() for m in subscriptions}
    for topic, count in partition_counts.items():
        members = sorted(m for m, topics in subscriptions.items() if topic in topics)
        if not members:
            continue
        quota, extra = divmod(count, len(members))
        start = 0
        for i, member in enumerate(members):
            size = quota + (1 if i < extra else 0)
            result[member].update((topic, p) for p in range(start, start + size))
            start += size
    return result


def _key(tp: TopicPartition):
    return (str(tp[0]), tp[1])


ASSIGNORS: dict[str, Assignor] = {"uniform": uniform, "range": range_}
