"""The iteration order of a java.util.HashMap, so ``-o plain`` lists things in the order the Java
tools print them (kafka-topics' topics and config overrides, kafka-consumer-groups' reset plans
and delete results all come out of HashMaps).

A HashMap's order is a function of its keys' hash codes, its table size and the insertion order
of keys that share a bucket: entries iterate bucket by bucket, and within a bucket in insertion
order (a resize splits a bucket without reordering it). So the order is a stable sort of the
insertion order by bucket index. No library reproduces this, hence this module; it follows the
JDK 17 sources (``String.hashCode``, ``HashMap.hash``/``tableSizeFor``/``resize``) and is
checked against a JVM in the tests. Buckets of 8+ colliding keys (treeified) are not modelled.
"""

from __future__ import annotations

import sys
from operator import mul

from kcli.model import GroupPlan
from kcli.records import replace

TYPE_CHECKING = False                 # typing's, without importing typing (~4 ms of a drop-in)
if TYPE_CHECKING:
    from typing import Callable, Iterable, TypeVar

    K = TypeVar("K")

LOAD_FACTOR = 0.75
DEFAULT_CAPACITY = 16


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _weights(n: int) -> tuple[int, ...]:
    """31**(n-1) .. 31**0, mod 2**32 as signed 32-bit values: String.hashCode's weight of each of
    n code units. Signed, half of them are below 2**30, where CPython multiplies in one step."""
    weights = _WEIGHTS.get(n)
    if weights is None:
        weights = _WEIGHTS[n] = tuple(_int32(pow(31, n - 1 - i, 1 << 32)) for i in range(n))
    return weights


_WEIGHTS: dict[int, tuple[int, ...]] = {}


def _units(text: str) -> bytes | list[int]:
    """The UTF-16 code units of ``text``: its bytes when ASCII (one unit each)."""
    if text.isascii():
        return text.encode()
    data = text.encode("utf-16-be", "surrogatepass")
    return [data[i] << 8 | data[i + 1] for i in range(0, len(data), 2)]


def _hash32(text: str) -> int:
    """java.lang.String.hashCode as an unsigned 32-bit value: each code unit times its power of
    31, summed in C (the --list order of 10k group ids: a quarter fewer instructions than a
    loop over characters)."""
    units = _units(text)
    return sum(map(mul, units, _WEIGHTS.get(len(units)) or _weights(len(units)))) & 0xFFFFFFFF


def string_hash(text: str) -> int:
    """java.lang.String.hashCode: over UTF-16 code units, 32-bit wrap-around."""
    return _int32(_hash32(text))


def topic_partition_hash(topic: str, partition: int) -> int:
    """org.apache.kafka.common.TopicPartition.hashCode."""
    return _int32(31 * _int32(31 + partition) + string_hash(topic))


def _spread(h: int) -> int:
    h &= 0xFFFFFFFF
    return h ^ (h >> 16)


def table_size_for(capacity: int) -> int:
    size = 1
    while size < capacity:
        size <<= 1
    return size


def capacity(entries: int, initial: int | None = None) -> int:
    """The table size after ``entries`` puts into ``new HashMap<>(initial)`` (or
    ``new HashMap<>()`` for None, which is also what ``Collectors.toMap`` builds)."""
    size = DEFAULT_CAPACITY if initial is None else table_size_for(initial)
    while entries > int(size * LOAD_FACTOR):     # each put past the threshold doubles the table
        size <<= 1
    return size


def copy_capacity(entries: int) -> int:
    """The table size of ``new HashMap<>(map)`` for a map of ``entries`` entries."""
    return capacity(entries, int(entries / LOAD_FACTOR + 1.0)) if entries else DEFAULT_CAPACITY


def order(keys: Iterable[K], table_size: int, hash_code: Callable[[K], int]) -> list[K]:
    """``keys`` (in insertion order) as a HashMap of ``table_size`` buckets iterates them."""
    return sorted(keys, key=lambda k: _spread(hash_code(k)) & (table_size - 1))


def strings(keys: Iterable[str], table_size: int) -> list[str]:
    """``order`` of String keys, its buckets computed for all keys at once (``_buckets``)."""
    keys = list(keys)
    buckets = _buckets(keys, table_size - 1)
    return [keys[i] for i in sorted(range(len(keys)), key=buckets.__getitem__)]


def _buckets(keys: list[str], mask: int) -> list[int]:
    """Each String key's bucket, ``spread(hashCode) & mask``: the ASCII keys of each length
    together (``_ascii_buckets``), any other key by itself."""
    joined = "".join(keys)
    if joined.isascii():
        length = len(keys[0]) if keys else 0
        if len(joined) == length * len(keys):       # one length (every key as long as the first)
            return _ascii_buckets(joined.encode(), len(keys), length, mask)
    buckets = [0] * len(keys)
    by_length: dict[int, list[int]] = {}
    for i, key in enumerate(keys):
        if key.isascii():
            by_length.setdefault(len(key), []).append(i)
        else:
            h = _hash32(key)
            buckets[i] = (h ^ (h >> 16)) & mask
    for length, at in by_length.items():
        same = "".join([keys[i] for i in at]).encode()
        for i, bucket in zip(at, _ascii_buckets(same, len(at), length, mask)):
            buckets[i] = bucket
    return buckets


_LANE = 8       # bytes per key: a key's sum of bytes (< 2**7) times weights (< 2**32) fits 2**64
                # for any key shorter than 2**25 bytes (a Kafka string is at most 2**15)


def _ascii_buckets(joined: bytes, count: int, length: int, mask: int) -> list[int]:
    """The buckets of ``count`` ASCII keys of ``length`` bytes, ``joined`` one after another,
    computed as big integers of one 64-bit lane per key: for each character position, that
    column of every key (one slice) times its weight (31**k mod 2**32), summed; then each lane's
    low 32 bits (String.hashCode, unsigned), spread and masked, all in C. 10k group ids
    (kafka-consumer-groups --list): ~10 -> ~2 ms, against a loop over the keys."""
    if not count:
        return []
    order, size = sys.byteorder, _LANE * count
    lanes, total = bytearray(size), 0
    first = 0 if order == "little" else _LANE - 1       # each lane's least significant byte
    for i in range(length):
        lanes[first::_LANE] = joined[i::length]
        total += pow(31, length - 1 - i, 1 << 32) * int.from_bytes(lanes, order)
    low32 = int.from_bytes((0xFFFFFFFF).to_bytes(_LANE, order) * count, order)
    masks = int.from_bytes(mask.to_bytes(_LANE, order) * count, order)
    h = total & low32
    return memoryview(((h ^ (h >> 16)) & masks).to_bytes(size, order)).cast("Q").tolist()


def topic_partitions(keys: Iterable[tuple[str, int]], table_size: int) -> list[tuple[str, int]]:
    return order(keys, table_size, lambda tp: topic_partition_hash(*tp))


# -- the orders the Java tools print ---------------------------------------------------------

def described_topics(names: list[str]) -> list[str]:
    """The admin client's describeTopics(names).allTopicNames() map (kafka-topics --describe
    passes the sorted names): three HashMaps, sized for n, copied, sized for n again."""
    n = len(names)
    ordered = strings(names, capacity(n, n))
    ordered = strings(ordered, copy_capacity(n))
    return strings(ordered, capacity(n, n))


def config_entries(names: list[str]) -> list[str]:
    """A topic's configs as the admin client's Config holds them (a default HashMap filled in
    the DescribeConfigs response's order): the order of kafka-topics' ``Configs:`` list."""
    return strings(names, capacity(len(names)))


def group_listing(group_ids: list[str]) -> list[str]:
    """kafka-consumer-groups --list: a default HashMap of every listed group, by id."""
    return strings(sorted(group_ids), capacity(len(group_ids)))


def reset_plans(plans: list[GroupPlan]) -> list[GroupPlan]:
    """kafka-consumer-groups --reset-offsets (plan table and --export): a default HashMap of
    groups, each holding a default HashMap of its partitions (Collectors.toMap)."""
    by_group = {plan.group: plan for plan in plans}
    out = []
    for group in strings(list(by_group), capacity(len(by_group))):
        rows = {(p.topic, p.partition): p for p in by_group[group].partitions}
        keys = topic_partitions(list(rows), capacity(len(rows)))    # planned in the tool's order
        out.append(replace(by_group[group], partitions=[rows[k] for k in keys]))
    return out


def reset_warnings(partitions: list[tuple[str, int]], clamped: dict[tuple[str, int], K],
                   empty: dict[tuple[str, int], K]) -> list[K]:
    """A group's reset warnings as OffsetsUtils prints them: a clamped offset while iterating the
    requested offsets (Collectors.toMap over every partition to reset), an empty partition while
    iterating a default HashMap of the partitions that had no record at the time."""
    every = topic_partitions(partitions, capacity(len(partitions)))
    return ([clamped[tp] for tp in every if tp in clamped]
            + [empty[tp] for tp in topic_partitions(list(empty), capacity(len(empty)))])


def deleted_groups(group_ids: list[str]) -> list[str]:
    """kafka-consumer-groups --delete: results collected in default HashMaps."""
    return strings(group_ids, capacity(len(group_ids)))
