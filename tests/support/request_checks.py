"""Requests the frame fuzzer (tests/broker/test_core_fuzz.py) found the embedded broker failing
on, as raw requests any broker can be asked: what comes back is comparable between real Kafka
and the embedded broker.

- nulls where the schema forbids them (a -1 length): Kafka cannot parse the request and closes
  the connection;
- CreateTopics and CreatePartitions larger than one controller batch (10,000 records);
- InitProducerId carrying a producer id and epoch, the epoch at its maximum included.
"""

from __future__ import annotations

import socket
import struct
import time

from kcli.protocol import REQUESTS, RESPONSES

CLOSED = "closed"


def send(bootstrap: str, api_key: int, version: int, **fields):
    """One request on its own connection: the decoded response, or CLOSED."""
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    request = REQUESTS[api_key](version=version, **fields)
    request.with_header(correlation_id=7, client_id="request-checks")
    with socket.create_connection((host.strip("[]"), int(port)), timeout=15) as s:
        s.sendall(request.encode(version=version, header=True, framed=True))
        head = _read(s, 4)
        if head is None:
            return CLOSED
        payload = _read(s, struct.unpack(">i", head)[0])
    return RESPONSES[api_key].decode(payload, version=version, header=True)


def _read(s: socket.socket, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        try:
            chunk = s.recv(n - len(buf))
        except ConnectionResetError:
            return None
        if not chunk:
            return None
        buf += chunk
    return buf


NULL_REQUESTS = {   # name: (api key, version, fields), a non-nullable field null in each
    "CreateTopics v7, topics": (19, 7, dict(topics=None, timeout_ms=1000, validate_only=True)),
    "CreateTopics v4, topics": (19, 4, dict(topics=None, timeout_ms=1000, validate_only=True)),
    "DescribeGroups v5, groups": (15, 5, dict(groups=None, include_authorized_operations=False)),
    "Produce v9, topic data": (0, 9, dict(transactional_id=None, acks=1, timeout_ms=1000,
                                          topic_data=None)),
    "ListOffsets v7, topics": (2, 7, dict(replica_id=-1, isolation_level=0, topics=None)),
    "OffsetFetch v7, group id": (9, 7, dict(group_id=None, topics=None, require_stable=False)),
}


def null_answers(bootstrap: str) -> dict[str, str]:
    return {name: "closed" if send(bootstrap, key, v, **f) == CLOSED else "answered"
            for name, (key, v, f) in NULL_REQUESTS.items()}


def create_topics(bootstrap: str, topics: list[tuple[str, int, dict]], validate_only=True):
    """[(name, error code, message)] for CreateTopics v7 of (name, partitions, configs)."""
    R = REQUESTS[19]
    T = R.CreatableTopic
    resp = send(bootstrap, 19, 7, timeout_ms=10000, validate_only=validate_only, topics=[
        T(name=n, num_partitions=p, replication_factor=1, assignments=[],
          configs=[T.CreatableTopicConfig(name=k, value=v) for k, v in c.items()])
        for n, p, c in topics])
    return [(t.name, t.error_code, t.error_message) for t in resp.topics]


def partition_count(bootstrap: str, topic: str) -> int:
    R = REQUESTS[3]
    resp = send(bootstrap, 3, 12, allow_auto_topic_creation=False,
                include_topic_authorized_operations=False,
                topics=[R.MetadataRequestTopic(name=topic, topic_id=None)])
    return len(resp.topics[0].partitions)


def create_partitions(bootstrap: str, topic: str, count: int,
                      validate_only: bool = True) -> tuple[int, str | None]:
    R = REQUESTS[37]
    resp = send(bootstrap, 37, 3, timeout_ms=10000, validate_only=validate_only, topics=[
        R.CreatePartitionsTopic(name=topic, count=count, assignments=None)])
    return resp.results[0].error_code, resp.results[0].error_message


BATCH_CASES = {     # CreateTopics requests around the 10,000-record controller batch
    "9,999 partitions": [("c1", 9999, {})],
    "9,999 partitions and a config": [("c2", 9999, {"retention.ms": "1000"})],
    "9,998 partitions and a config": [("c3", 9998, {"retention.ms": "1000"})],
    "two topics of 5,000": [("c4", 5000, {}), ("c5", 5000, {})],
    "two topics of 4,999": [("c6", 4999, {}), ("c7", 4999, {})],
    "12,001 partitions in three topics": [("c8", 6000, {}), ("c9", 6000, {}), ("c10", 1, {})],
    "2^31-1 partitions": [("c11", 2**31 - 1, {})],
}


def batch_answers(bootstrap: str, suffix: str) -> dict[str, object]:
    """CreateTopics and CreatePartitions, validate only (real Kafka takes a minute to make
    10,000 partitions): BATCH_CASES, and adding 10,000 or 10,001 partitions at once to a new
    one-partition topic (topic names without ``suffix``)."""
    out: dict[str, object] = {}
    for case, topics in BATCH_CASES.items():
        answers = create_topics(bootstrap, [(n + suffix, p, c) for n, p, c in topics])
        out[case] = [(n.removesuffix(suffix), code, message) for n, code, message in answers]
    grown = "grown" + suffix
    assert create_topics(bootstrap, [(grown, 1, {})], validate_only=False)[0][1] == 0
    out["CreatePartitions adding 10,000"] = create_partitions(bootstrap, grown, 10_001)
    out["CreatePartitions adding 10,001"] = create_partitions(bootstrap, grown, 10_002)
    return out


def init_producer_id(bootstrap: str, producer_id: int, epoch: int) -> tuple[int, int, int]:
    """InitProducerId v4 without a transactional id: (error, producer id, epoch). A new Kafka
    may answer COORDINATOR_LOAD_IN_PROGRESS until its producer id manager is ready: retried."""
    for _ in range(60):                          # bounded: 30 s of 0.5 s waits
        resp = send(bootstrap, 22, 4, transactional_id=None, transaction_timeout_ms=1000,
                    producer_id=producer_id, producer_epoch=epoch)
        if resp.error_code != 14:
            return resp.error_code, resp.producer_id, resp.producer_epoch
        time.sleep(0.5)
    raise AssertionError("InitProducerId: coordinator still loading after 30 s")
