"""kcli.javaorder against a real JVM: java.util.HashMap's iteration order for String and
Kafka TopicPartition keys, for maps built the ways the Java tools build them, with keys that share
a bucket (in the order they were put in), fill one so that the table doubles, or turn it into a
red-black tree (9+ keys in a table of 64+ buckets), then split it in a resize."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kcli import javaorder
from tests.support.apache_kafka import java

PROGRAM = Path(__file__).parent / "java" / "HashMapOrder.java"


def _names(rng: random.Random, n: int) -> list[str]:
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789._-"
    return list(dict.fromkeys("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
                              for _ in range(n)))


@pytest.mark.apache
@pytest.mark.parametrize("n", [1, 3, 4, 12, 13, 50, 200])
@pytest.mark.parametrize("built", ["default", "sized", "copy"])
def test_string_keys_iterate_as_in_the_jvm(n, built):
    keys = _names(random.Random(n * 7 + len(built)), n) + ["__consumer_offsets", "é-ünïcode-☃"]
    got = java(PROGRAM, "strings", built, stdin="\n".join(keys) + "\n")
    assert got.code == 0, got.err
    assert _predicted(keys, built) == got.out.splitlines()


def _predicted(keys: list[str], built: str) -> list[str]:
    """HashMapOrder's map, as kcli.javaorder predicts its order."""
    if built == "copy":
        return javaorder.strings(javaorder.strings(keys, len(keys)), javaorder.copy_initial(len(keys)))
    return javaorder.strings(keys, len(keys) if built == "sized" else None)


def _sharing(bits: int, n: int, rng: random.Random) -> list[str]:
    """``n`` distinct ids whose spread String.hashCode agree in their low ``bits`` bits: one
    bucket of every table of up to 2**bits buckets."""
    target, found = None, {}
    while len(found) < n:
        key = f"grp-{rng.randrange(10**9)}"
        bucket = javaorder.spread(javaorder.string_hash(key)) & ((1 << bits) - 1)
        target = bucket if target is None else target
        if bucket == target:
            found[key] = None
    return list(found)


@pytest.mark.apache
@pytest.mark.parametrize("case", [
    # (low bits shared, ids sharing them, other ids before them, after them, how the map is built)
    (4, 3, 0, 0, "default"),        # a shared bucket: the order they were put in, not sorted
    (5, 12, 0, 0, "default"),       # 9+ in a table of 16: the table doubles instead of a tree
    (12, 12, 60, 0, "default"),     # 9+ in a table of 128: a tree bin, then keys put into it
    (6, 20, 30, 60, "default"),     # a tree bin of a 64-bucket table, split by a resize
    (6, 14, 30, 60, "default"),
    (9, 10, 0, 120, "sized"),       # a tree bin of a table sized for every key at once
    (12, 30, 400, 0, "copy"),       # tree bins copied into a new map
])
def test_keys_that_share_a_bucket_iterate_as_in_the_jvm(case):
    bits, sharing, before, after, built = case
    rng = random.Random(repr(case))
    others = _names(rng, before + after)
    keys = others[:before] + _sharing(bits, sharing, rng) + others[before:]
    got = java(PROGRAM, "strings", built, stdin="\n".join(keys) + "\n")
    assert got.code == 0, got.err
    assert _predicted(keys, built) == got.out.splitlines()


@pytest.mark.apache
@pytest.mark.parametrize("keys", [[f"scale-group-{i:05d}" for i in range(0, 30000, 3)],     # one length
                                  [f"g{i}" for i in range(3000)] + ["x" * 5000]])          # several
def test_many_ascii_keys_iterate_as_in_the_jvm(keys):
    """10k group ids (kafka-consumer-groups --list)."""
    keys = sorted(keys)
    got = java(PROGRAM, "strings", "default", stdin="\n".join(keys) + "\n")
    assert got.code == 0, got.err
    assert javaorder.group_listing(keys) == got.out.splitlines()


@pytest.mark.apache
@pytest.mark.parametrize("partitions", [3, 20, 1000])
def test_topic_partition_keys_iterate_as_in_the_jvm(partitions):
    keys = [(t, p) for t in ("orders", "pay.ments") for p in range(partitions)]
    got = java(PROGRAM, "partitions", "default", stdin="".join(f"{t}\t{p}\n" for t, p in keys))
    assert got.code == 0, got.err
    expected = [(line.split("\t")[0], int(line.split("\t")[1])) for line in got.out.splitlines()]
    assert javaorder.topic_partitions(keys) == expected
