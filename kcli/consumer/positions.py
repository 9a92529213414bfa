"""Start offsets for the policies librdkafka cannot apply itself (``to_start_time``,
``latest(max_age)``), resolved with the consumer's own lookups plus the broker anchors."""

from __future__ import annotations

import time

from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, KafkaError, KafkaException, TopicPartition

from kcli.ages import decide
from kcli.consumer.anchors import BrokerAnchors
from kcli.consumer.policies import BY_DURATION, EARLIEST, TO_START_TIME, StartPolicy, earlier

Key = tuple[str, int]
INITIAL, OUT_OF_RANGE = "initial", "out-of-range"

# right after a KIP-848 assignment librdkafka may not know a new partition yet
_RETRIABLE = frozenset({KafkaError._UNKNOWN_PARTITION, KafkaError._UNKNOWN_TOPIC,
                        KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError.LEADER_NOT_AVAILABLE,
                        KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError._TRANSPORT})


class Resolver:
    def __init__(self, consumer, policy: StartPolicy, anchors: BrokerAnchors, timeout_s: float):
        self.consumer = consumer
        self.policy = policy
        self.anchors = anchors
        self.timeout_s = timeout_s

    def committed(self, keys: list[Key]) -> dict[Key, int]:
        """The group's committed offsets of those partitions that have one."""
        if not keys:
            return {}
        found = {}
        for tp in self.consumer.committed([TopicPartition(t, p) for t, p in keys],
                                          timeout=self.timeout_s):
            if tp.error is not None:
                raise KafkaException(tp.error)
            if tp.offset >= 0:
                found[(tp.topic, tp.partition)] = tp.offset
        return found

    def initial(self, keys: list[Key]) -> dict[Key, int]:
        """Offsets for partitions that have no committed offset."""
        if not keys:
            return {}
        if self.policy.native:
            native = OFFSET_BEGINNING if self.policy.name == EARLIEST else OFFSET_END
            return dict.fromkeys(keys, native)
        if self.policy.new_partitions is not None:
            return self._by_creation(keys, self.policy.new_partitions)
        if self.policy.name == TO_START_TIME:
            return self._at_group_creation(keys)
        if self.policy.age_bounds:
            marks = {k: self._watermarks(k) for k in keys}
            bounds = self.anchors.age_bounds(keys, {k: m[0] for k, m in marks.items()},
                                             {k: m[1] for k, m in marks.items()}, int(time.time() * 1000),
                                             self.policy.max_age_ms)
            return {k: OFFSET_BEGINNING if decide(bounds.get(k), self.policy.max_age_ms)[0] else OFFSET_END
                    for k in keys}
        topics = sorted({t for t, _ in keys})
        ages = self.anchors.partition_ages(topics, self.policy.max_age_ms)
        return {k: OFFSET_BEGINNING if 0 <= ages.get(k, -1) <= self.policy.max_age_ms
                else OFFSET_END for k in keys}

    def out_of_range(self, keys: list[Key]) -> dict[Key, int]:
        """Offsets for positions the broker reported out of range (KIP-1327: latest)."""
        if not keys:
            return {}
        if self.policy.name == TO_START_TIME:
            return self._at_group_creation(keys)
        return {k: OFFSET_END for k in keys}

    def _by_creation(self, keys: list[Key], new: StartPolicy) -> dict[Key, int]:
        """Accepted KIP-1327: the new_partitions policy for partitions created after the group,
        the policy itself for the others, and whichever of the two starts earlier for a
        partition neither is proven for (none loses a record)."""
        after = self.anchors.classify(keys)
        base = StartPolicy(self.policy.name)
        chosen = {k: new if after[k] else base if after[k] is False else earlier(base, new) for k in keys}
        offsets = {}
        for policy in {*chosen.values()}:
            mine = [k for k in keys if chosen[k] == policy]
            if policy.name == BY_DURATION:
                offsets.update(self._at_time(mine, int(time.time() * 1000) - policy.duration_ms))
            else:
                offsets.update(dict.fromkeys(mine, OFFSET_BEGINNING if policy.name == EARLIEST else OFFSET_END))
        return offsets

    def _at_group_creation(self, keys: list[Key]) -> dict[Key, int]:
        return self._at_time(keys, self.anchors.group_creation_time())

    def _at_time(self, keys: list[Key], created: int) -> dict[Key, int]:
        """First offset at/after ``created``; log end when no record is. The
        watermarks are read before the time lookup: a high watermark read first is a safe log
        end (every record below it predates the lookup), a later one could skip records."""
        marks = {k: self._watermarks(k) for k in keys}
        found = self._retrying(self.consumer.offsets_for_times,
                               [TopicPartition(t, p, created) for t, p in keys],
                               timeout=self.timeout_s)
        offsets = {}
        for tp in found:
            if tp.error is not None:
                raise KafkaException(tp.error)
            low, high = marks[(tp.topic, tp.partition)]
            offsets[(tp.topic, tp.partition)] = max(low, tp.offset if tp.offset >= 0 else high)
        return offsets

    def _watermarks(self, key: Key) -> tuple[int, int]:
        marks = self._retrying(self.consumer.get_watermark_offsets, TopicPartition(*key),
                               timeout=self.timeout_s, cached=False)
        if marks is None:
            raise KafkaException(KafkaError(KafkaError._TIMED_OUT,
                                            f"Timed out reading the watermarks of {key[0]}-{key[1]}"))
        return marks

    def _retrying(self, fn, *args, **kwargs):
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                return fn(*args, **kwargs)
            except KafkaException as exc:
                if exc.args[0].code() not in _RETRIABLE or time.monotonic() > deadline:
                    raise
            self.consumer.list_topics(timeout=self.timeout_s)
            time.sleep(0.1)


class Positioner:
    """Positions, outside any callback, the partitions of ``consumer`` that librdkafka could not
    (``auto.offset.reset=error``): it reports ``_AUTO_OFFSET_RESET`` for a partition assigned
    without a resolved offset (``unresolved_initial``) or whose position is out of range. They are
    resolved by ``resolver`` and re-assigned locally (``seek`` is refused in that state)."""

    def __init__(self, consumer, resolver: Resolver):
        self.consumer = consumer
        self.resolver = resolver
        self.unresolved_initial: set[Key] = set()   # assigned without a resolved start offset
        self.unpositioned: dict[Key, str] = {}      # waiting to be positioned: INITIAL/OUT_OF_RANGE

    def is_reset(self, msg) -> bool:
        err = msg.error()
        return (not self.resolver.policy.native and err is not None
                and err.code() == KafkaError._AUTO_OFFSET_RESET and msg.topic() is not None)

    def note_reset(self, msg) -> None:
        key = (msg.topic(), msg.partition())
        if key in self.unpositioned:
            return
        self.unpositioned[key] = INITIAL if key in self.unresolved_initial else OUT_OF_RANGE
        self.unresolved_initial.discard(key)

    def sift(self, batch: list) -> list:
        """The messages of ``batch`` that are not reset events (those are noted)."""
        out = []
        for msg in batch:
            if self.is_reset(msg):
                self.note_reset(msg)
            else:
                out.append(msg)
        return out

    def forget(self, keys) -> None:
        for k in keys:
            self.unpositioned.pop(k, None)
            self.unresolved_initial.discard(k)

    def position(self) -> None:
        """Resolve and re-assign the unpositioned partitions still assigned. On failure they stay
        unpositioned and the error is raised."""
        owned = {(tp.topic, tp.partition) for tp in self.consumer.assignment()}
        self.forget([k for k in self.unpositioned if k not in owned])
        if not self.unpositioned:
            return
        offsets = self.resolver.initial(
            [k for k, why in self.unpositioned.items() if why == INITIAL])
        offsets.update(self.resolver.out_of_range(
            [k for k, why in self.unpositioned.items() if why == OUT_OF_RANGE]))
        self.consumer.incremental_unassign([TopicPartition(t, p) for t, p in offsets])
        self.consumer.incremental_assign([TopicPartition(t, p, o) for (t, p), o in offsets.items()])
        self.unpositioned.clear()
