"""kcli.protocol's decoder for structs whose tagged fields are present (kafka-python copied the
rest of the buffer for each, bench/reset_scale.py): every value, tagged or not, and every
position after the tags, decode as kafka-python encoded them."""

from __future__ import annotations

import kcli.protocol as proto

R = proto.MetadataResponse
T, P = R.MetadataResponseTopic, R.MetadataResponseTopic.MetadataResponsePartition


def _response(ages):
    parts = [P(error_code=0, partition_index=i, leader_id=i % 3, leader_epoch=7, replica_nodes=[i % 3, 5],
               isr_nodes=[i % 3], offline_replicas=[], partition_age_ms=age) for i, age in enumerate(ages)]
    return R(version=14, throttle_time_ms=0, brokers=[], cluster_id="c", controller_id=1,
             topics=[T(error_code=0, name="t", topic_id="3b1d9d4c-7f3e-4b8e-9c44-3f9a0d6f1a2b",
                       is_internal=False, partitions=parts), T(error_code=3, name="after", partitions=[])],
             error_code=0)


def test_tagged_partitions_decode_with_every_field_and_what_follows_them():
    ages = [-1, 0, 1, 300, 2**40, -1, 2**62]           # -1 is the default: its tag is not written
    decoded = R.decode(_response(ages).encode(), version=14)
    (topic, after) = decoded.topics
    assert [p.partition_age_ms for p in topic.partitions] == ages
    assert [p.partition_index for p in topic.partitions] == list(range(len(ages)))
    assert [(p.leader_id, p.leader_epoch, list(p.replica_nodes), list(p.isr_nodes))
            for p in topic.partitions] == [(i % 3, 7, [i % 3, 5], [i % 3]) for i in range(len(ages))]
    assert (after.name, after.error_code, decoded.controller_id) == ("after", 3, 1)


def test_the_decoder_reads_the_tags_without_copying_the_rest_of_the_buffer(monkeypatch):
    reads = []
    real = proto._Tail.read

    def counting(self, size=-1):
        chunk = real(self, size)
        reads.append(len(chunk))
        return chunk

    monkeypatch.setattr(proto._Tail, "read", counting)
    R.decode(_response([5] * 50).encode(), version=14)
    assert reads and max(reads) <= 8                   # varints and the int64 age, never the rest
