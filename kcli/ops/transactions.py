"""Transactions: the coordinators' listings and descriptions, a partition's active producers, the
hanging transactions (Apache's rule, as kafka-transactions find-hanging applies it), what each
holds back, and an abort of one (a dry run unless executed).

A transaction is *hanging* when a partition holds it open (DescribeProducers: a current
transaction start offset) for longer than the longest transaction timeout, and its coordinator
no longer counts that partition in it: no transactional id has the producer id
(ListTransactions), the id is unknown (DescribeTransactions), or its description leaves the
partition out. Its coordinator will then never write the marker that ends it: the partition's
last stable offset (LSO) stays at its start offset, read_committed consumers stall there, and
only an abort marker (WriteTxnMarkers) frees them. A transaction its coordinator still counts
is *open*: the coordinator aborts it at its timeout."""

from __future__ import annotations

from kcli.errors import BrokerRejected, OperationError, UsageError
from kcli.model import (AbortPlan, BrokerError, OpenTransaction, ProducerState, TransactionDescription,
                        TransactionListing)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kcli.admin import Admin

TP = tuple[str, int]
BATCH = 500                     # partitions per DescribeProducers round (the Java tool's batch)
DEFAULT_MAX_TIMEOUT_MIN = 15    # transaction.max.timeout.ms's default, in minutes
HIGH_WATERMARK = -1             # ListOffsets' latest, read uncommitted


def listed(admin: "Admin", duration_ms: int | None = None, pattern: str | None = None,
           producer_ids: list[int] | None = None) -> list[TransactionListing]:
    return admin.list_transactions(producer_ids, duration_ms, pattern)


def duration_ms(flag: str, text: str | None) -> int | None:
    """A duration flag (5m, PT1H, milliseconds), checked before any request; None when not given."""
    from kcli.specs import duration_arg

    if text is None:
        return None
    ms = duration_arg(flag, text)
    if ms < 0:
        raise UsageError(f"{flag} must not be negative, not '{text}'")
    return ms


def checked_ids(ids: list[str]) -> list[str]:
    if any(not tid for tid in ids):
        raise UsageError("A transactional id cannot be empty")
    return list(dict.fromkeys(ids))


def check_partition(topic: str, partition: int, start_offset: int) -> None:
    if not topic:
        raise UsageError("--topic cannot be empty")
    if partition < 0 or start_offset < 0:
        raise UsageError("--partition and --start-offset cannot be negative")


def described(admin: "Admin", ids: list[str]) -> dict[str, TransactionDescription | BrokerError]:
    return admin.describe_transactions(ids)


def producers(admin: "Admin", partitions: list[TP], broker: int | None = None
              ) -> dict[TP, list[ProducerState] | BrokerError]:
    return admin.describe_producers(partitions, broker)


def partitions_to_search(admin: "Admin", topics: list[str] | None, partition: int | None = None,
                         broker: int | None = None) -> list[TP]:
    """find-hanging's scope: the one partition (of the one topic), the topics' partitions, or
    every topic's (internal ones included: ``topics`` None), those with a replica on ``broker``
    when given."""
    if topics is not None and partition is not None:
        return [(topic, partition) for topic in topics]
    names = topics if topics is not None else admin.topic_names()
    found = []
    for info in admin.describe_topics(names):
        for p in info.partitions:
            if broker is None or broker in p.replicas:
                found.append((info.name, p.partition))
    return found


def open_transactions(admin: "Admin", partitions: list[TP], broker: int | None, older_than_ms: int,
                      now_ms: int) -> list[OpenTransaction]:
    """The transactions the partitions hold open whose producer last wrote more than
    ``older_than_ms`` before ``now_ms``, in DescribeProducers batches of BATCH; a partition's
    error raises BrokerRejected."""
    found = []
    for start in range(0, len(partitions), BATCH):
        for tp, states in producers(admin, partitions[start:start + BATCH], broker).items():
            if isinstance(states, BrokerError):
                raise BrokerRejected(states)
            found += [OpenTransaction(tp[0], tp[1], s) for s in states
                      if s.txn_start_offset is not None and now_ms - s.last_timestamp > older_than_ms]
    return found


def classify(admin: "Admin", candidates: list[OpenTransaction]) -> list[OpenTransaction]:
    """``candidates`` with their transactional ids and whether each hangs (the module's rule):
    one ListTransactions filtered on their producer ids, one DescribeTransactions."""
    if not candidates:
        return []
    ids = {t.producer_id: t.transactional_id
           for t in listed(admin, producer_ids=sorted({c.producer.producer_id for c in candidates}))}
    descriptions = described(admin, sorted(set(ids.values()))) if ids else {}
    for c in candidates:
        c.transactional_id = ids.get(c.producer.producer_id)
        d = descriptions.get(c.transactional_id) if c.transactional_id is not None else None
        c.hanging = not isinstance(d, TransactionDescription) or (c.topic, c.partition) not in d.partitions
    return candidates


def find_hanging(admin: "Admin", topic: str | None, partition: int | None, broker: int | None,
                 max_timeout_min: int, now_ms: int) -> list[OpenTransaction]:
    """kafka-transactions find-hanging: the hanging transactions in the scope (``topic``, or
    ``broker``'s partitions; the grammar requires one)."""
    scope = partitions_to_search(admin, None if topic is None else [topic], partition, broker)
    return [t for t in classify(admin, open_transactions(admin, scope, broker, max_timeout_min * 60_000, now_ms))
            if t.hanging]


def check(admin: "Admin", topics: list[str] | None, older_than_ms: int, now_ms: int) -> list[OpenTransaction]:
    """kcli check transactions: every transaction the partitions of ``topics`` (all topics when
    None) hold open longer than ``older_than_ms``, hanging or not, each with the high watermark
    it holds the LSO behind (one ListOffsets per leader)."""
    scope = partitions_to_search(admin, topics)
    found = classify(admin, open_transactions(admin, scope, None, older_than_ms, now_ms))
    if found:
        ends = {(o.topic, o.partition): o.offset
                for o in admin.list_offsets(sorted({(t.topic, t.partition) for t in found}), HIGH_WATERMARK)}
        for t in found:
            t.high_watermark = ends.get((t.topic, t.partition))
    return sorted(found, key=lambda t: (t.topic, t.partition, t.start_offset))


def plan_abort(admin: "Admin", topic: str, partition: int, start_offset: int) -> AbortPlan:
    """The abort of the transaction open at ``start_offset`` on the partition, from its producer's
    state (DescribeProducers); OperationError when no transaction starts there."""
    states = producers(admin, [(topic, partition)]).get((topic, partition), [])
    if isinstance(states, BrokerError):
        raise BrokerRejected(states)
    for s in states:
        if s.txn_start_offset == start_offset:
            return AbortPlan(topic, partition, s.producer_id, s.producer_epoch, s.coordinator_epoch or 0)
    raise OperationError(f"Could not find any open transactions starting at offset {start_offset} on "
                         f"partition {topic}-{partition}")


def abort(admin: "Admin", plan: AbortPlan) -> None:
    """Write the abort marker (a coordinator epoch below 0 sent as 0, as the Java tool does)."""
    admin.abort_transaction(plan.topic, plan.partition, plan.producer_id, plan.producer_epoch,
                            max(0, plan.coordinator_epoch))


def force_terminate(admin: "Admin", transactional_id: str) -> None:
    """Fence the id's producer: its coordinator aborts the transaction under way."""
    admin.fence_producer(transactional_id)


ANY_AGE = -(1 << 62)             # open_transactions' threshold that keeps every open transaction


def lso_holders(admin: "Admin", stuck: list[TP]) -> dict[TP, OpenTransaction]:
    """Of the partitions ``stuck`` (a group's offset lag with nothing it can read: its commit at
    or past the last stable offset), those whose LSO an open transaction holds below the high
    watermark, each with that transaction (the one starting at the LSO), its transactional id
    and whether it hangs: one ListOffsets per leader, then DescribeProducers, ListTransactions and
    DescribeTransactions for the held partitions only."""
    if not stuck:
        return {}
    lsos = admin.last_stable_offsets(stuck)
    ends = {(o.topic, o.partition): o.offset for o in admin.list_offsets(stuck, HIGH_WATERMARK) if o.error is None}
    held = [tp for tp in stuck if tp in lsos and tp in ends and lsos[tp] < ends[tp]]
    if not held:
        return {}
    found = classify(admin, open_transactions(admin, held, None, ANY_AGE, 0))
    out: dict[TP, OpenTransaction] = {}
    for t in found:
        tp = (t.topic, t.partition)
        if t.start_offset == lsos[tp]:
            t.high_watermark = ends[tp]
            out[tp] = t
    return out
