"""describe topics runs on one client, the KIP client DescribeTopicPartitions needs anyway: the
embedded broker counts what one invocation sends."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support.run import run_kcli


def _sent(before: dict, after: dict) -> Counter:
    total = Counter()
    for node, counts in after.items():
        total.update({api: n - before.get(node, {}).get(api, 0) for api, n in counts.items()})
    return +total


@pytest.mark.parametrize("fixture, partitions", [
    ("cluster", {"DescribeTopicPartitions": 1}),
    ("pre_kip_cluster", {"Metadata": 1}),       # no DescribeTopicPartitions: Metadata instead
])
def test_describe_topics_sends_everything_on_one_client(request, fixture, partitions):
    c = request.getfixturevalue(fixture)
    c.create_topic("one-client", partitions=3, configs={"retention.ms": "3600000"})
    before = c.request_counts()
    r = run_kcli(c.bootstrap_servers, "describe", "topics", "one-client", "-o", "plain")
    assert r.code == 0 and "retention.ms=3600000" in r.out and r.out.count("Partition: ") == 3
    # One connection to the bootstrap broker: ApiVersions, the topic names, the partitions, the
    # configs. No second client, no second connection.
    assert _sent(before, c.request_counts()) == Counter(
        {"ApiVersions": 1, "Metadata": 1, "DescribeConfigs": 1}) + Counter(partitions)
