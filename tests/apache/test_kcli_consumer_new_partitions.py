"""kcli.consumer's ``new_partitions`` policy (KIP-1327 as accepted) on real Apache Kafka 4.4, which
reports no creation time: "created after the group" comes from what the consumer saw (the group
did not exist when it listed the old partitions; it had been assigned before the new ones came).
The same expansion story as tests/consumer/test_new_partitions.py."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.consumer.test_new_partitions import expansion_story
from tests.support.clients import create_topic, unique


@pytest.mark.parametrize("start, new, received", [
    ("latest", "earliest", {"live": 10, "exp": 10, "post": 20}),     # nothing lost on the new ones
    ("earliest", "latest", {"pre": 10, "live": 10, "post": 20}),     # the accepted KIP's own case
])
def test_new_partitions_through_an_expansion(apache_kafka, start, new, received):
    b = apache_kafka.bootstrap_servers
    topic = unique("np")
    create_topic(b, topic, partitions=2)
    assert expansion_story(b, topic, unique("np-g"), start=start, new_partitions=new) == Counter(received)
