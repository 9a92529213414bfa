"""list-offsets, including KIP-734 max-timestamp, through the real entry point."""

from __future__ import annotations

import json

import pytest

from confluent_kafka import Producer

from tests.support.run import run_dropin, run_kcli


def _produce(bootstrap, topic, partition, timestamps):
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    for ts in timestamps:
        p.produce(topic, value=b"v", partition=partition, timestamp=ts)
        p.flush(10)    # one batch per record, so the broker sees the order exactly


def test_max_timestamp_with_out_of_order_timestamps(cluster):
    b = cluster.bootstrap_servers
    cluster.create_topic("ooo", partitions=2, replication_factor=1)
    base = 1_700_000_000_000
    _produce(b, "ooo", 0, [base + 1000, base + 5000, base + 3000, base + 5000, base + 2000])
    r = run_kcli(b, "list-offsets", "-t", "ooo", "--max-timestamp", "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["schema"] == "kcli.offsets/v1"
    p0, p1 = doc["offsets"]
    assert (p0["partition"], p0["offset"], p0["timestampMs"]) == (0, 1, base + 5000)   # earliest of the maxima
    assert p0["timestamp"] == "2023-11-14T22:13:25.000Z"
    assert p1["offset"] is None and p1["timestampMs"] is None                          # empty partition

    plain = run_kcli(b, "list-offsets", "-t", "ooo", "--time", "max-timestamp", "-o", "plain")
    assert plain.out == "ooo:0:1\n"          # kafka-get-offsets omits -1 results

    r = run_kcli(b, "list-offsets", "-t", "ooo:0", "--time", "2023-11-14T22:13:22.500Z", "-o", "json")
    hit = json.loads(r.out)["offsets"][0]
    assert (hit["offset"], hit["timestampMs"]) == (1, base + 5000)     # first offset whose ts >= target

    r = run_kcli(b, "list-offsets", "-t", "ooo", "-o", "plain")
    assert r.out == "ooo:0:5\nooo:1:0\n"
    r = run_kcli(b, "list-offsets", "-t", "ooo", "--time", "earliest", "-o", "plain")
    assert r.out == "ooo:0:0\nooo:1:0\n"


def test_plain_order_is_kafka_get_offsets_string_order(cluster):
    cluster.create_topic("ord", partitions=12, replication_factor=1)
    r = run_kcli(cluster.bootstrap_servers, "list-offsets", "-t", "ord", "-o", "plain")
    parts = [int(line.split(":")[1]) for line in r.out.splitlines()]
    assert parts == [0, 1, 10, 11, 2, 3, 4, 5, 6, 7, 8, 9]


def test_no_match_is_an_error(cluster):
    r = run_kcli(cluster.bootstrap_servers, "list-offsets", "-t", "does-not-exist")
    assert r.code == 1 and r.err == "Error: No topic matches 'does-not-exist'\n", r.err


def test_max_timestamp_needs_list_offsets_v7(pre_kip_cluster):
    pre_kip_cluster.create_topic("nov7", partitions=1)
    r = run_kcli(pre_kip_cluster.bootstrap_servers, "list-offsets", "-t", "nov7", "--max-timestamp")
    assert r.code == 1
    assert r.err == "Error: The broker does not support ListOffsets v7, which --max-timestamp (KIP-734) needs\n"
    assert run_kcli(pre_kip_cluster.bootstrap_servers, "list-offsets", "-t", "nov7", "-o", "plain").out == "nov7:0:0\n"


@pytest.mark.parametrize("spec", ["a b", "a b:0", "orders,a b", "é"])
def test_a_topic_given_literally_with_an_illegal_name_is_refused_before_any_request(cluster, spec):
    """A -t value without regex syntax names a topic: an illegal name is exit 2, nothing sent
    (kafka-get-offsets matches it as a regex against nothing, and so does its drop-in)."""
    before = cluster.request_counts()
    r = run_kcli(cluster.bootstrap_servers, "list-offsets", "-t", spec)
    name = spec.split(":")[0].split(",")[-1]
    assert (r.code, r.out, r.err) == (2, "", f'Error: Topic name "{name}" is illegal, it contains a character '
                                             "other than ASCII alphanumerics, '.', '_' and '-'\n")
    assert cluster.request_counts() == before
    r = run_dropin("kafka-get-offsets", "--bootstrap-server", cluster.bootstrap_servers, "--topic", spec)
    assert r.code == 1 and "Could not match any topic-partitions" in r.out + r.err, r
