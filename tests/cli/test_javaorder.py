"""kcli.javaorder against a real JVM: java.util.HashMap's iteration order for String and
Kafka TopicPartition keys, for maps built the ways the Java tools build them."""

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
    size = {"default": javaorder.capacity(len(keys)),
            "sized": javaorder.capacity(len(keys), len(keys)),
            "copy": javaorder.copy_capacity(len(keys))}[built]
    assert javaorder.strings(keys, size) == got.out.splitlines()


@pytest.mark.apache
@pytest.mark.parametrize("keys", [[f"scale-group-{i:05d}" for i in range(0, 30000, 3)],     # one length
                                  [f"g{i}" for i in range(3000)] + ["x" * 5000]])          # several
def test_many_ascii_keys_iterate_as_in_the_jvm(keys):
    """10k group ids (kafka-consumer-groups --list): the buckets of the ASCII keys of each length
    computed together (kcli.javaorder._ascii_buckets)."""
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
    assert javaorder.topic_partitions(keys, javaorder.capacity(len(keys))) == expected
