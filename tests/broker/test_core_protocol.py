"""Framing, ApiVersions (KIP-511 fallback), bad input, pose-as, request counters."""

from __future__ import annotations

import struct
import time

from kcli.broker import EmbeddedCluster
from kcli.broker.versions import advertised
from kcli.protocol import REQUESTS, RESPONSES

from tests.support.broker_wire import Wire, req


def api_versions(wire_conn, version=3):
    return wire_conn.send(req(18, version, client_software_name="kcli-tests",
                              client_software_version="1.0"))


def ranges(resp):
    return {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}


def test_api_versions_advertises_registered_ranges(broker1, wire):
    resp = api_versions(wire(broker1))
    assert resp.error_code == 0
    got = ranges(resp)
    assert got == {k: (lo, hi) for k, lo, hi in advertised(None)}
    # Kafka 4.x minimums, old versions kcat uses still served, KIP versions present
    assert got[0] == (3, 13) and got[1] == (4, 18) and got[2] == (1, 11)
    assert got[3] == (0, 14) and got[75] == (0, 1)
    assert 71 not in got and 72 not in got        # no telemetry: librdkafka would use it


def test_kip511_fallback_for_newer_api_versions(broker1, wire):
    w = wire(broker1)
    # ApiVersions v7 (unknown to the broker): a v0 answer with UNSUPPORTED_VERSION and ranges
    frame = struct.pack(">hhi", 18, 7, 42) + struct.pack(">h", 4) + b"test" + b"\x00"
    payload = w.send_raw(struct.pack(">i", len(frame)) + frame)
    resp = RESPONSES[18].decode(payload, version=0, header=True)
    assert resp.header.correlation_id == 42
    assert resp.error_code == 35
    assert ranges(resp)[18] == (0, 4)
    assert api_versions(w).error_code == 0        # the connection stays usable


def test_invalid_client_software_name(broker1, wire):
    w = wire(broker1)
    request = req(18, 3, client_software_name="-bad name", client_software_version="1")
    request.with_header(correlation_id=9, client_id="core-tests")
    payload = w.send_raw(request.encode(header=True, framed=True))
    # Kafka answers at the request's version (kafka-python's client decoder assumes v0 for any
    # error, so decode with the generic message decoder)
    cls = RESPONSES[18]
    resp = super(cls, cls).decode(payload, version=3, header=True)
    assert resp.error_code == 42 and resp.api_keys == []


def _closed(w: Wire, frame: bytes) -> bool:
    return w.send_raw(frame) is None


def test_bad_input_closes_connection_and_broker_survives(broker1, wire):
    # unknown API key
    frame = struct.pack(">hhi", 9999, 0, 1) + struct.pack(">h", -1)
    assert _closed(wire(broker1), struct.pack(">i", len(frame)) + frame)
    # unsupported version of a known API (Produce v2 is below Kafka 4's minimum)
    frame = struct.pack(">hhi", 0, 2, 1) + struct.pack(">h", -1)
    assert _closed(wire(broker1), struct.pack(">i", len(frame)) + frame)
    # oversized and negative frame sizes
    assert _closed(wire(broker1), struct.pack(">i", 200 * 1024 * 1024) + b"\x00" * 16)
    assert _closed(wire(broker1), struct.pack(">i", -5))
    # a header followed by garbage that does not decode as Metadata v12
    frame = struct.pack(">hhi", 3, 12, 1) + b"\xff\xff\xff\xff\xff\xff\xff"
    assert _closed(wire(broker1), struct.pack(">i", len(frame)) + frame)
    # still serving, state intact
    broker1.create_topic("still-here", partitions=2)
    md = wire(broker1).send(req(3, 12, topics=None, allow_auto_topic_creation=False,
                                include_topic_authorized_operations=False))
    assert [t.name for t in md.topics] == ["still-here"]
    counts = broker1.request_counts()[1]
    assert counts["Metadata"] == 1


def test_pose_as_41_withholds_kip_versions(clock, wire):
    with EmbeddedCluster(nodes=1, clock=clock, pose_as="4.1") as ec:
        ec.create_topic("t", partitions=1)
        got = ranges(api_versions(wire(ec)))
        assert got[3] == (0, 13) and got[75] == (0, 0)
        # asked anyway: the connection is closed as for any unsupported version
        assert wire(ec).send(req(3, 14, topics=None, allow_auto_topic_creation=False,
                                 include_topic_authorized_operations=False)) is None
        dtp = req(75, 1, topics=[], response_partition_limit=10, cursor=None)
        assert wire(ec).send(dtp) is None
        # the old versions still answer, without the KIP fields
        md = wire(ec).send(req(3, 13, topics=None, allow_auto_topic_creation=False,
                               include_topic_authorized_operations=False))
        assert md.topics[0].partitions[0].error_code == 0
        dtp0 = wire(ec).send(req(75, 0, topics=[], response_partition_limit=10, cursor=None))
        assert dtp0.topics[0].name == "t"
        assert ec.cluster.topics["t"].partitions[0].creation_time_ms == clock.now_ms


def test_unknown_pose_as_rejected():
    try:
        EmbeddedCluster(pose_as="3.0")
    except ValueError as e:
        assert "4.1" in str(e)
    else:
        raise AssertionError("pose_as=3.0 accepted")


def test_request_counts_per_node(broker3, wire):
    api_versions(wire(broker3, 2))
    api_versions(wire(broker3, 2))
    api_versions(wire(broker3, 3))
    counts = broker3.request_counts()
    assert counts[1] == {} and counts[2] == {"ApiVersions": 2} and counts[3] == {"ApiVersions": 1}


def test_describe_cluster_lists_the_live_brokers(broker3, wire):
    """DescribeCluster (what the Java AdminClient's describeCluster and listNodes send, so every
    Java tool that lists nodes) answered with the brokers; it used to fail on the field name."""
    broker3.stop_node(3)
    for version in (0, 1, 2):
        fields = {"include_cluster_authorized_operations": False}
        if version >= 1:
            fields["endpoint_type"] = 1
        if version >= 2:
            fields["include_fenced_brokers"] = True
        resp = wire(broker3).send(req(60, version, **fields))
        live = [(b.broker_id, b.port) for b in resp.brokers if not getattr(b, "is_fenced", False)]
        assert resp.error_code == 0
        assert live == [(n, broker3.cluster.node_address(n)[1]) for n in (1, 2)]
        assert resp.cluster_id == broker3.cluster.cluster_id and resp.controller_id == 1
        if version >= 2:
            assert [b.broker_id for b in resp.brokers if b.is_fenced] == [3]


def test_describe_cluster_with_confluent_kafka(broker3):
    """librdkafka's describe_cluster (it sends Metadata, not DescribeCluster: the Java
    AdminClient's is tests/apache/test_describe_cluster.py): the id, controller and live nodes."""
    from confluent_kafka.admin import AdminClient

    broker3.stop_node(3)
    admin = AdminClient({"bootstrap.servers": broker3.bootstrap_servers.split(",")[0]})
    result = admin.describe_cluster(request_timeout=15).result(20)
    assert result.cluster_id == broker3.cluster.cluster_id and result.controller.id == 1
    assert sorted((n.id, n.host, n.port) for n in result.nodes) == [
        (n, *broker3.cluster.node_address(n)) for n in (1, 2)]


def test_describe_topic_partitions_sends_empty_elr_lists(broker1, wire):
    """EligibleLeaderReplicas and LastKnownElr are nullable on the wire, but Kafka always sends
    lists and the Java AdminClient (kafka-topics --describe) fails on a null."""
    broker1.create_topic("elr", partitions=2)
    for version in (0, 1):
        resp = wire(broker1).send(req(75, version, topics=[], response_partition_limit=10,
                                      cursor=None))
        parts = resp.topics[0].partitions
        assert [(p.eligible_leader_replicas, p.last_known_elr) for p in parts] == [([], [])] * 2


def _describe_configs(w, resource_type, name):
    R = req(32, 4, resources=[], include_synonyms=True, include_documentation=False)
    R.resources = [type(R).DescribeConfigsResource(resource_type=resource_type, resource_name=name,
                                                   configuration_keys=None)]
    result = w.send(R).results[0]
    assert result.error_code == 0
    return {c.name: (c.value, c.config_source, [(s.name, s.value, s.source) for s in c.synonyms])
            for c in result.configs}


def test_describe_configs_synonyms_as_kafka(broker1, wire):
    """As Kafka's ConfigHelper (what kafka-configs --describe prints): the cluster-default broker
    resource lists only the cluster-level dynamic configs, each with that synonym alone; a topic
    config whose broker synonym has no default of its own (log.retention.ms, log.roll.ms: their
    values derive from the *.hours configs) lists no default synonym."""
    w = wire(broker1)
    assert _describe_configs(w, 4, "") == {                                      # BROKER ""
        "min.insync.replicas": ("1", 3, [("min.insync.replicas", "1", 3)])}
    broker1.create_topic("syn", configs={"retention.ms": "1000"})
    topic = _describe_configs(w, 2, "syn")                                       # TOPIC
    assert topic["retention.ms"] == ("1000", 1, [("retention.ms", "1000", 1)])
    assert topic["segment.ms"] == ("604800000", 5, [])
    assert topic["cleanup.policy"] == ("delete", 5, [("log.cleanup.policy", "delete", 5)])


def test_fetch_answers_no_part_of_an_incomplete_first_batch_as_kafka(broker1, wire):
    """As Kafka 4.4 answers Fetch v3+ (tests/apache/test_produce_validation.py holds the same
    answer from Kafka): the first partition with data gets its whole first batch (KIP-74); a
    later one whose first batch is larger than its PartitionMaxBytes gets no bytes (Kafka's
    ReplicaManager drops an incomplete first batch). librdkafka fetches it again and reads all."""
    from confluent_kafka import Consumer, Producer
    from kafka.record import MemoryRecords

    broker1.create_topic("cut", partitions=2)
    p = Producer({"bootstrap.servers": broker1.bootstrap_servers, "linger.ms": 50})
    for part in (0, 1):
        for i in range(20):
            p.produce("cut", b"v" * 100, partition=part, timestamp=1_000 + i)
    assert p.flush(10) == 0
    F = REQUESTS[1]
    fetch = req(1, 12, replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20,
                isolation_level=0, session_id=0, session_epoch=-1, forgotten_topics_data=[],
                rack_id="", topics=[F.FetchTopic(topic="cut", partitions=[
                    F.FetchTopic.FetchPartition(partition=i, current_leader_epoch=-1, fetch_offset=5,
                                                last_fetched_epoch=-1, log_start_offset=-1,
                                                partition_max_bytes=100) for i in (0, 1)])])
    first, second = wire(broker1).send(fetch).responses[0].partitions
    whole = MemoryRecords(first.records).next_batch()
    assert whole.base_offset == 0 and whole.last_offset == 19 and len(first.records) > 100
    assert not second.records

    c = Consumer({"bootstrap.servers": broker1.bootstrap_servers, "group.id": "cut-reader",
                  "auto.offset.reset": "earliest", "fetch.message.max.bytes": 200})
    c.subscribe(["cut"])
    got = set()
    deadline = time.monotonic() + 20
    while len(got) < 40 and time.monotonic() < deadline:
        m = c.poll(0.2)
        if m is not None and m.error() is None:
            got.add((m.partition(), m.offset()))
    c.close()
    assert got == {(part, o) for part in (0, 1) for o in range(20)}


def test_fetch_frames_are_kafka_pythons_encoding_at_every_version(broker1, wire):
    """The records go out as stored, beside the encoded response (dispatch.splice): the frame a
    Fetch gets is byte for byte kafka-python's own encoding of the same response, with the
    records inside, at non-flexible and flexible versions, for a partition with several whole
    batches, one whose last batch is cut, an empty one and an unknown one."""
    from confluent_kafka import Producer

    broker1.create_topic("splice", partitions=3)
    topic = broker1.cluster.topics["splice"]
    p = Producer({"bootstrap.servers": broker1.bootstrap_servers, "linger.ms": 0})
    for batch in range(3):
        for part in (0, 1):
            for i in range(5):
                p.produce("splice", f"{batch}-{i}".encode() * 50, partition=part)
        assert p.flush(10) == 0
    stored = [b"".join(b.data for b in topic.partitions[part].log._batches) for part in (0, 1)]
    cut = len(topic.partitions[1].log._batches[0].data) + 30
    F = REQUESTS[1]
    for version in (4, 11, 12, 13, 18):
        kw = {"topic_id": topic.topic_id} if version >= 13 else {"topic": "splice"}
        fetch = req(1, version, replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20,
                    isolation_level=0, session_id=0, session_epoch=-1, forgotten_topics_data=[],
                    rack_id="", topics=[F.FetchTopic(partitions=[
                        F.FetchTopic.FetchPartition(partition=i, current_leader_epoch=-1,
                                                    fetch_offset=0, last_fetched_epoch=-1,
                                                    log_start_offset=-1, partition_max_bytes=m)
                        for i, m in ((0, 1 << 20), (1, cut), (2, 1 << 20), (7, 1 << 20))], **kw)])
        fetch.with_header(correlation_id=version, client_id="core-tests")
        payload = wire(broker1).send_raw(fetch.encode(header=True, framed=True))
        response = RESPONSES[1].decode(payload, version=version, header=True)
        assert [(q.error_code, bytes(q.records or b"")) for q in response.responses[0].partitions] \
            == [(0, stored[0]), (0, stored[1][:cut]), (0, b""), (3, b"")], version
        assert bytes(response.encode(header=True)) == payload, version


def test_a_log_read_hands_out_the_stored_batches_uncopied():
    """PartitionLog.read copies nothing: the stored batches themselves, the cut one as a view."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    from kcli.broker.log import PartitionLog

    log = PartitionLog()
    for _ in range(3):
        builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False,
                                            producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                            batch_size=1 << 20)
        for i in range(4):
            builder.append(i, timestamp=1_000, key=None, value=b"v" * 100, headers=[])
        log.append(builder.build(), leader_epoch=0)
    batches = [b.data for b in log._batches]
    chunks, size = log.read(0, len(batches[0]) + len(batches[1]) + 10)
    assert chunks[0] is batches[0] and chunks[1] is batches[1]
    assert isinstance(chunks[2], memoryview) and chunks[2].obj is batches[2]
    assert size == sum(map(len, chunks)) == len(batches[0]) + len(batches[1]) + 10
    assert bytes(chunks[2]) == batches[2][:10]
    assert log.read(4, 1, at_least_one=True) == ([batches[1]], len(batches[1]))   # KIP-74
    assert log.read(4, 1, at_least_one=False) == ([], 0)          # an incomplete first batch: none
