"""Never worse than librdkafka (kcli.admin.fallback): when kcli's own client cannot negotiate with
a broker or read its answer, every command librdkafka can serve is served by librdkafka, with
one Warn line naming the answer; a KIP-only field that cannot be read is shown as unavailable.
Against a broker stub (tests.support.garble: the embedded broker behind a proxy that garbles
some answers to kcli's own client only) and librdkafka's own mock cluster."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.support.run import run_kcli
from tests.support.garble import GarblingProxy
from tests.support.mock_cluster import MockCluster
from tests.support.run import run_dropin

WARN = re.compile(r"^Warn: the broker's (\w+Response v\d+) could not be read by kcli's own client \(.+\); (.+)$")


@pytest.fixture(scope="module")
def topic(cluster, clock):
    from confluent_kafka import Producer

    cluster.create_topic("fb", partitions=3, replication_factor=2)
    p = Producer({"bootstrap.servers": cluster.bootstrap_servers, "linger.ms": 0})
    for i in range(7):
        p.produce("fb", b"v", partition=i % 3, timestamp=clock())   # the broker's frozen clock
    assert p.flush(10) == 0
    return "fb"


def _warns(err: str) -> list[tuple[str, str]]:
    lines = [line for line in err.splitlines() if line.startswith("Warn:")]
    found = [WARN.match(line) for line in lines]
    assert all(found), lines
    return [m.groups() for m in found]


def test_unreadable_metadata_falls_back_to_librdkafka(cluster, topic):
    direct = run_kcli(cluster.bootstrap_servers, "list-offsets", "-t", topic, "-o", "plain")
    assert direct.code == 0 and direct.out == "fb:0:3\nfb:1:2\nfb:2:2\n", direct
    with GarblingProxy(cluster.bootstrap_servers, ["Metadata"]) as px:
        r = run_kcli(px.bootstrap, "list-offsets", "-t", topic, "-o", "plain")
        assert any(g.startswith("3 ") for g in px.garbled)          # kcli's Metadata was garbled
    assert r.code == 0, r.err
    assert r.out == direct.out
    (answer, then), = _warns(r.err)                                  # one line for the command
    assert answer.startswith("MetadataResponse v") and then == "using librdkafka"


def test_unreadable_negotiation_falls_back_for_every_command(cluster, topic):
    commands = [("list-offsets", "-t", topic, "-o", "plain"), ("describe", "topics", topic, "-o", "plain"),
                ("describe", "configs", "--topic", topic, "-o", "json"), ("list", "topics", "-o", "plain")]
    with GarblingProxy(cluster.bootstrap_servers, ["ApiVersions"]) as px:
        for args in commands:
            direct = run_kcli(cluster.bootstrap_servers, *args)
            r = run_kcli(px.bootstrap, *args)
            assert r.code == 0, (args, r.err)
            if args[:2] == ("describe", "topics"):      # through Metadata: no ELR, no CreationTimeMs
                direct.out = re.sub(r"\tElr: \tLastKnownElr: \tCreationTimeMs: \S+", "\tElr: N/A\tLastKnownElr: N/A",
                                    direct.out)
            assert r.out == direct.out, args
            assert _warns(r.err) == [("ApiVersionsResponse v4", "using librdkafka")], args
    dropin = ("kafka-get-offsets", "--topic", topic)
    direct = run_dropin(*dropin, "--bootstrap-server", cluster.bootstrap_servers)
    with GarblingProxy(cluster.bootstrap_servers, ["ApiVersions"]) as px:
        r = run_dropin(*dropin, "--bootstrap-server", px.bootstrap)
    assert (r.code, r.out) == (0, direct.out) and direct.out == "fb:0:3\nfb:1:2\nfb:2:2\n"
    assert _warns(r.err) == [("ApiVersionsResponse v4", "using librdkafka")]


def test_unreadable_kip_answer_shows_the_field_unavailable(cluster, topic):
    direct = json.loads(run_kcli(cluster.bootstrap_servers, "describe", "topics", topic, "-o", "json").out)
    assert all(p.get("creationTimeMs") is not None for t in direct["topics"] for p in t["partitions"])
    with GarblingProxy(cluster.bootstrap_servers, ["DescribeTopicPartitions"]) as px:
        r = run_kcli(px.bootstrap, "describe", "topics", topic, "-o", "json")
    assert r.code == 0, r.err
    assert _warns(r.err) == [("DescribeTopicPartitionsResponse v1",
                              "CreationTimeMs (KIP-1327) unavailable, using librdkafka")]
    doc = json.loads(r.out)
    parts = [p for t in doc["topics"] for p in t["partitions"]]
    assert len(parts) == 3 and all(p.get("creationTimeMs") is None for p in parts)
    assert [(p["leader"], p["replicas"]) for p in parts] == \
        [(p["leader"], p["replicas"]) for t in direct["topics"] for p in t["partitions"]]


def test_unreadable_partition_age_names_the_answer(cluster, topic):
    from kcli.admin.client import KafkaAdmin
    from kcli.admin.settings import ClientSettings
    from kcli.errors import UnsupportedByBroker

    with GarblingProxy(cluster.bootstrap_servers, ["Metadata"]) as px:
        admin = KafkaAdmin(ClientSettings(px.bootstrap, {}, 10_000, deadline=time.monotonic() + 10))
        try:
            with pytest.raises(UnsupportedByBroker, match=r"MetadataResponse v14 could not be read .*"
                                                          r"PartitionAgeMs \(KIP-1327\) is unavailable"):
                admin.partition_ages([topic])
            assert admin.partition_counts()[topic] == 3                 # served by librdkafka
        finally:
            admin.close()
    assert [line.split(";")[-1] for line in admin.notes] == [" using librdkafka"]


def test_a_broker_that_does_not_answer_is_not_retried_through_librdkafka(cluster):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as silent:           # accepts, never answers
        r = run_kcli(f"127.0.0.1:{silent.getsockname()[1]}", "list-offsets", "-t", "x", timeout="1s")
    assert r.code == 1 and "Warn:" not in r.err


@pytest.fixture(scope="module")
def mock_cluster():
    """librdkafka's mock cluster (3 brokers) with topic T holding 5 records."""
    cluster = MockCluster(brokers=3)
    with cluster as bootstrap:
        for _ in range(5):
            cluster.owner.produce("T", b"v")
        assert cluster.owner.flush(10) == 0
        yield bootstrap


def test_mock_cluster_list_offsets_and_describe_topics(mock_cluster):
    r = run_kcli(mock_cluster, "list-offsets", "-t", "T", "-o", "plain")
    assert r.code == 0, r.err
    # kcli's own client reads the mock's UNSUPPORTED_VERSION ApiVersions answer, and asks at v0
    assert "Warn:" not in r.err
    counts = [int(line.rsplit(":", 1)[1]) for line in r.out.splitlines()]
    assert sum(counts) == 5
    r = run_kcli(mock_cluster, "describe", "topics", "T", "-o", "plain")
    assert r.code == 0, r.err
    assert r.out.startswith("Topic: T\t") and r.out.count("\tPartition: ") == len(counts)
    # the mock has no DescribeConfigs: the configs are not shown, and a Warn line says why
    assert [line for line in r.err.splitlines() if line.startswith("Warn:")] == \
        ["Warn: The broker does not support DescribeConfigs: the topics' configs are not shown"]


def test_mock_cluster_missing_api_is_one_line(mock_cluster):
    r = run_kcli(mock_cluster, "describe", "groups", "g")
    assert r.code == 1
    assert r.err.strip().splitlines() == ["Error: Cannot describe group 'g': Local: Required feature not supported by "
                                          "broker"]
