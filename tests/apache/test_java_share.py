"""Apache Kafka 4.4's KafkaShareConsumer (explicit acknowledgement), unmodified, on the embedded
broker and on real Kafka 4.4 alike (``java/ShareConsume.java``): two members accept every record
exactly once; a released record comes back with delivery count 2; a rejected record never comes
back; the records a killed member held come back once their locks expire; and (embedded, with a
data dir) nothing accepted is delivered again after a restart."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.apache_kafka import RealKafkaUnavailable, java, kafka_libs
from tests.support.clients import create_topic, unique
from tests.support.groups import FAST_GROUPS, fast_cluster
from tests.support.share_app import LOCK_MS, SHARE_CONFIGS

JAVA = Path(__file__).parent / "java"

pytestmark = pytest.mark.apache


def _need_jars():
    try:
        kafka_libs()
    except RealKafkaUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="module")
def embedded():
    _need_jars()
    with fast_cluster(nodes=1, configs=SHARE_CONFIGS) as ec:
        yield ec


@pytest.fixture(params=["embedded", "apache"])
def bootstrap(request):
    if request.param == "embedded":
        return request.getfixturevalue("embedded").bootstrap_servers
    return request.getfixturevalue("apache_kafka").bootstrap_servers


def run_share(b: str, topic: str, group: str, mode: str, produce: int, expect: int, prefix: str = "k"):
    """The records the program saw delivered, in order, and its errors."""
    r = java(JAVA / "ShareConsume.java", b, topic, group, mode, str(produce), str(expect), str(LOCK_MS), prefix,
             timeout=150)
    assert r.code == 0, f"ShareConsume {mode} exited {r.code}: {r.err[-3000:]}"
    events = [json.loads(line) for line in r.out.splitlines() if line.startswith("{")]
    return [e["delivered"] for e in events if "delivered" in e], [e["error"] for e in events if "error" in e]


def test_two_members_accept_every_record_exactly_once(bootstrap):
    topic, group = unique("share-two"), unique("share-two")
    create_topic(bootstrap, topic, 4)
    delivered, errors = run_share(bootstrap, topic, group, "two", 200, 200)
    assert errors == []
    accepted = Counter(d["key"] for d in delivered if d["ack"] == "ACCEPT")
    assert sorted(accepted) == sorted(f"k{i}" for i in range(200))
    assert [k for k, n in accepted.items() if n > 1] == []
    assert all(d["delivery"] == 1 for d in delivered)
    by_consumer = Counter(d["consumer"] for d in delivered)
    assert by_consumer["a"] > 0 and by_consumer["b"] > 0, by_consumer


def test_a_released_record_returns_with_delivery_count_2_and_a_rejected_one_never(bootstrap):
    topic, group = unique("share-acks"), unique("share-acks")
    create_topic(bootstrap, topic, 1)
    delivered, errors = run_share(bootstrap, topic, group, "acks", 20, 19)
    assert errors == []
    seen = [(d["key"], d["delivery"], d["ack"]) for d in delivered]
    assert [s for s in seen if s[0] == "k0"] == [("k0", 1, "RELEASE"), ("k0", 2, "ACCEPT")]
    assert [s for s in seen if s[0] == "k1"] == [("k1", 1, "REJECT")]
    assert Counter(k for k, _, ack in seen if ack == "ACCEPT") == Counter(f"k{i}" for i in range(20) if i != 1)


def test_the_records_of_a_killed_member_come_back_after_the_lock_duration(bootstrap):
    topic, group = unique("share-kill"), unique("share-kill")
    create_topic(bootstrap, topic, 1)
    held, errors = run_share(bootstrap, topic, group, "hold", 10, 10)
    assert errors == [] and held, held
    assert {d["ack"] for d in held} == {"HOLD"}
    delivered, errors = run_share(bootstrap, topic, group, "accept", 0, 10)
    assert errors == []
    again = {d["key"]: d["delivery"] for d in delivered}
    assert sorted(again) == sorted(f"k{i}" for i in range(10))
    assert {again[d["key"]] for d in held} == {2}                  # the held ones: a second delivery
    assert all(n == 1 for k, n in again.items() if k not in {d["key"] for d in held})


def test_after_a_restart_nothing_accepted_is_delivered_again(tmp_path):
    _need_jars()
    topic, group = unique("share-restart"), unique("share-restart")
    with EmbeddedCluster(data_dir=tmp_path, configs={**FAST_GROUPS, **SHARE_CONFIGS}) as ec:
        create_topic(ec.bootstrap_servers, topic, 2)
        first, errors = run_share(ec.bootstrap_servers, topic, group, "accept", 30, 30, prefix="a")
        assert errors == [] and sorted({d["key"] for d in first}) == sorted(f"a{i}" for i in range(30))
    with EmbeddedCluster(data_dir=tmp_path, configs={**FAST_GROUPS, **SHARE_CONFIGS}) as ec:
        second, errors = run_share(ec.bootstrap_servers, topic, group, "accept", 10, 10, prefix="b")
    assert errors == []
    assert sorted(d["key"] for d in second) == sorted(f"b{i}" for i in range(10))
