"""The drop-in ``kafka-consumer-groups --list`` against Apache's own on Kafka 4.4, for group ids
that share a HashMap bucket: the Java admin client fills a HashMap in the order the broker lists
the groups, and inside a bucket Java keeps that order (it used to come out sorted in kcli)."""

from __future__ import annotations

import pytest

from kcli import javaorder
from tests.support.apache_kafka import java_tool
from tests.support.clients import commit_groups, create_topic, unique
from tests.support.run import run_dropin

BITS = 12           # ids alike in their low 12 hash bits share a bucket of every table to 4096


def sharing_a_bucket(prefix: str, n: int) -> list[str]:
    """``n`` ids ``prefix-<i>`` whose spread String.hashCode agree in their low ``BITS`` bits."""
    mask, found, target = (1 << BITS) - 1, [], None
    for i in range(1_000_000):
        gid = f"{prefix}-{i}"
        bucket = javaorder.spread(javaorder.string_hash(gid)) & mask
        target = bucket if target is None else target
        if bucket == target:
            found.append(gid)
            if len(found) == n:
                return found
    raise AssertionError("no ids share a bucket")


@pytest.mark.apache
def test_ids_sharing_a_bucket_list_in_javas_order(apache_kafka):
    b = apache_kafka.bootstrap_servers
    topic = unique("listed")
    create_topic(b, topic, partitions=1)
    ids = sharing_a_bucket(unique("evt"), 5)
    commit_groups(b, sorted(ids, reverse=True), {(topic, 0): 0})      # created in reverse order
    java = java_tool("kafka-consumer-groups", "--bootstrap-server", b, "--list")
    assert java.code == 0, java.err
    ours = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--list")
    assert ours.code == 0, ours.err
    assert ours.out.splitlines() == java.out.splitlines()
    listed = [g for g in java.out.splitlines() if g in ids]
    assert sorted(listed) == sorted(ids) and listed != sorted(ids)    # a bucket Java did not sort
