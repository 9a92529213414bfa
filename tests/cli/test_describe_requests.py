"""describe topics runs on one client, the KIP client DescribeTopicPartitions needs anyway: the
embedded broker counts what one invocation sends."""

from __future__ import annotations

from collections import Counter

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.run import run_dropin, run_kcli


def _sent(before: dict, after: dict) -> Counter:
    total = Counter()
    for node, counts in after.items():
        total.update({api: n - before.get(node, {}).get(api, 0) for api, n in counts.items()})
    return +total


@pytest.mark.parametrize("fixture, partitions, cluster_id", [
    # Metadata for no topic: the cluster id that keys kcli's sightings (kcli.admin.sightings)
    ("cluster", {"DescribeTopicPartitions": 1}, {"Metadata": 1}),
    ("pre_kip_cluster", {"Metadata": 1}, {}),   # no DescribeTopicPartitions: Metadata, with the id
])
def test_describe_topics_sends_everything_on_one_client(request, fixture, partitions, cluster_id):
    c = request.getfixturevalue(fixture)
    c.create_topic("one-client", partitions=3, configs={"retention.ms": "3600000"})
    before = c.request_counts()
    r = run_kcli(c.bootstrap_servers, "describe", "topics", "one-client", "-o", "plain")
    assert r.code == 0 and "retention.ms=3600000" in r.out and r.out.count("Partition: ") == 3
    # One connection to the bootstrap broker: ApiVersions, the partitions, the configs. No
    # second client, no second connection; and, the topic named literally, no listing of every
    # topic (Metadata for all of them, with every partition of the cluster).
    assert _sent(before, c.request_counts()) == Counter({"ApiVersions": 1, "DescribeConfigs": 1}) + Counter(
        partitions) + Counter(cluster_id)
    before = c.request_counts()
    r = run_kcli(c.bootstrap_servers, "describe", "topics", "one-clien.", "-o", "plain")
    assert r.code == 0 and r.out.count("Partition: ") == 3       # a regex: the names listed first
    assert _sent(before, c.request_counts()) == Counter(
        {"ApiVersions": 1, "Metadata": 1, "DescribeConfigs": 1}) + Counter(partitions)   # the listing has the id


def test_a_dropin_describe_of_a_literal_topic_lists_no_topics_and_a_missing_one_is_the_tools_error(cluster):
    """kafka-topics --describe --topic NAME, NAME without a regex character, describes NAME at
    once (DescribeTopicPartitions, no Metadata listing every topic); a NAME the broker does not
    know is looked for in the listing, as the Java tool does, and reported with its words."""
    cluster.create_topic("literal-one", partitions=2)
    b = cluster.bootstrap_servers
    before = cluster.request_counts()
    r = run_dropin("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", "literal-one")
    assert (r.code, r.out.count("\tTopic: literal-one\tPartition: "), r.err) == (0, 2, "")
    assert _sent(before, cluster.request_counts()) == Counter(     # Metadata for no topic: the cluster id
        {"ApiVersions": 1, "DescribeTopicPartitions": 1, "DescribeConfigs": 1, "Metadata": 1})
    before = cluster.request_counts()
    r = run_dropin("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", "nosuch-literal")
    assert (r.code, r.out, r.err) == (
        1, "Error while executing topic command : Topic 'nosuch-literal' does not exist as expected\n", "")
    assert _sent(before, cluster.request_counts()) == Counter(
        {"ApiVersions": 1, "DescribeTopicPartitions": 1, "Metadata": 1})
    r = run_dropin("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", "nosuch-literal", "--if-exists")
    assert (r.code, r.out, r.err) == (0, "", "")
    with EmbeddedCluster(nodes=1) as c:        # an internal topic: --exclude-internal leaves it out
        c.create_topic("__consumer_offsets", partitions=2)
        line = ("kafka-topics", "--bootstrap-server", c.bootstrap_servers, "--describe", "--topic",
                "__consumer_offsets")
        assert run_dropin(*line).out.count("\tTopic: __consumer_offsets\tPartition: ") == 2
        r = run_dropin(*line, "--exclude-internal")
        assert (r.code, r.out) == (
            1, "Error while executing topic command : Topic '__consumer_offsets' does not exist as expected\n")


@pytest.mark.parametrize("patterns, literal", [
    (["orders"], "orders"), (["  'my_topic-2' "], "my_topic-2"), (["orders.v1"], None), (["ord.*"], None),
    (["a,b"], None), (["a", "b"], None), ([], None), (["a b"], "ab"),
])
def test_literal_topic(patterns, literal):
    from kcli.specs import literal_topic, topic_filter

    assert literal_topic(patterns) == literal
    if literal is not None:       # the one name the filter matches, as a regex
        rx = topic_filter(patterns)
        assert rx.fullmatch(literal) and not any(rx.fullmatch(n) for n in (literal + "x", "x" + literal, ""))
