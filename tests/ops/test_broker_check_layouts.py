"""check broker's heartbeat-v2.layout rule on ConsumerGroupHeartbeat v2 answers as other brokers
would write them (pure code: the bytes encoded with each layout's schema, read back as the
check reads a broker's answer). A broker of the seed's positional layout FAILs, naming it; one of
accepted KIP-1327 that sends NewPartitions and no tag 1282 PASSes; bytes neither layout reads
FAIL. The embedded broker's own answer is tests/cli/test_check_broker.py's."""

from __future__ import annotations

import uuid

from kcli.admin.wire.groups import heartbeat_readings
from kcli.ops.broker_check import FAIL, PASS, layout_verdict
from kcli.protocol.heartbeat_layouts import LAYOUTS

T0 = 1_750_000_000_000
MEMBER = "m1-aaaaaaaaaaaaaaaaaaa"


def answer(layout: str, created: int = T0, new_partitions: list[int] | None = None) -> bytes:
    topic = {"topic_id": uuid.uuid4(), "partitions": [0, 1, 2]}
    if new_partitions is not None:
        topic["new_partitions"] = new_partitions
    item = {"throttle_time_ms": 0, "error_code": 0, "error_message": None, "member_id": MEMBER,
            "member_epoch": 2, "heartbeat_interval_ms": 5000, "group_creation_time_ms": created,
            "assignment": {"topic_partitions": [topic]}}
    return LAYOUTS[layout].encode(item, version=2, compact=True, tagged=True)


def verdict(body: bytes):
    return layout_verdict({r.layout: r for r in heartbeat_readings(body)}, MEMBER)


def test_a_broker_of_the_seeds_positional_layout_fails_naming_it():
    status, evidence, data = verdict(answer("seed"))
    assert status == FAIL and data["layout"] == "seed"
    assert evidence.startswith("seed's positional layout") and "accepted KIP-1327 misreads it" in evidence
    assert data["readings"]["seed"] == {"bytesLeft": 0, "misread": None, "groupCreationTimeMs": T0,
                                        "newPartitions": None}
    assert data["readings"]["accepted"]["misread"] is not None


def test_a_broker_of_accepted_kip_1327_with_new_partitions_and_no_tag_1282_passes():
    status, evidence, data = verdict(answer("accepted", created=-1, new_partitions=[2]))
    assert status == PASS and data["layout"] == "accepted", evidence
    assert "tag 0: [2]" in evidence and "(tag 1282): absent" in evidence
    assert data["readings"]["accepted"]["newPartitions"] == [2]


def test_kcli_s_own_layout_passes_and_a_time_no_clock_shows_is_a_misreading():
    status, _, data = verdict(answer("accepted"))
    assert status == PASS and data["readings"]["accepted"]["groupCreationTimeMs"] == T0
    status, evidence, data = verdict(answer("accepted", created=1 << 56))
    assert status == FAIL and data["layout"] is None and "neither layout reads it" in evidence


def test_bytes_neither_layout_reads_fail():
    status, evidence, data = verdict(answer("seed")[:-3])
    assert status == FAIL and data["layout"] is None and "neither layout reads it" in evidence
