"""Producers killed mid-transaction, end to end on real Apache Kafka 4.4 (``apache_kafka_txn``) and
the embedded broker (both with transactional produce unverified, as brokers before 3.6), through
kcli's own entry point:

- a producer that wrote to a partition it never added to its transaction, killed with SIGKILL
  (tests/support/hanging_producer.py): its transaction hangs. kafka-transactions find-hanging
  and kcli check transactions find it (start offset, producer, the records it holds back, the
  abort line; exit 4); a read_committed consumer group is stuck at its start offset; the abort
  line, a dry run without --execute, frees the group, whose lag moves again;
- confluent-kafka's transactional producer killed mid-transaction: its coordinator still counts
  the partition, so it is open, not hanging (check lists it, exit 0 on it alone);
- the group held back says so where the operator looks: ``kcli describe groups`` and ``kcli lag``
  name the transaction in a note, and the lag service exports the LSO-held series.

The cluster is a fixture parameter (``txn_bootstrap``)."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.support.clients import commit, committed, consumer, create_topic, produce, unique
from tests.support.groups import fast_cluster
from tests.support.hanging_producer import killed
from tests.support.run import run_dropin, run_kcli
from tests.support.waits import wait_until

CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")


@pytest.fixture(scope="module")
def embedded_txn():
    """The embedded broker, transactional produce unverified as ``apache_kafka_txn``."""
    with fast_cluster(1, {"transaction.partition.verification.enable": "false"}) as c:
        yield c


@pytest.fixture(params=["apache_kafka_txn", "embedded_txn"])
def txn_bootstrap(request) -> str:
    """The bootstrap servers of a cluster that lets a producer leave a hanging transaction."""
    return request.getfixturevalue(request.param).bootstrap_servers


def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _commit(b: str, group: str, offsets: dict) -> bool:
    """The commit, or False while a fresh cluster's group coordinator is still loading."""
    from confluent_kafka import KafkaException

    try:
        commit(b, group, offsets)
        return True
    except KafkaException as exc:
        if exc.args[0].code() != exc.args[0].COORDINATOR_LOAD_IN_PROGRESS:
            raise
        return False


def _read(b: str, group: str, topic: str, seconds: float) -> list[bytes]:
    """What a read_committed member of ``group`` reads from ``topic`` within ``seconds``; committed."""
    c = consumer(b, group, **{"isolation.level": "read_committed"})
    got: list[bytes] = []
    try:
        c.subscribe([topic])
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            m = c.poll(0.2)
            if m is not None and not m.error():
                got.append(m.value())
        if got:
            c.commit(asynchronous=False)
    finally:
        c.close()
    return got


def _held_series(b: str, group: str) -> dict:
    """The lag service's LSO-held families for ``group`` after one collection (kcli lag serve's
    collector and exporter, without the HTTP side: tests/cli/test_lag_serve.py has that)."""
    from kcli.admin.client import KafkaAdmin
    from kcli.admin.settings import ClientSettings
    from kcli.exporter import lag_families
    from kcli.ops.lag import RecordTimeCache
    from kcli.ops.lag_service import Selection, collect

    admin = KafkaAdmin(ClientSettings(b, {}, 20_000))
    try:
        snap = collect(admin, Selection((re.compile(re.escape(group)),)), RecordTimeCache(), int(time.time() * 1000))
    finally:
        admin.close()
    names = ("kcli_consumergroup_group_lso_held_records", "kcli_consumergroup_group_lso_held_seconds")
    return {f.name: [s for s in f.samples if s.labels["group"] == group] for f in lag_families(snap)
            if f.name in names}


def test_a_hanging_transaction_is_found_aborted_and_the_group_moves_on(txn_bootstrap):
    b = txn_bootstrap
    topic, group = unique("txn-hang"), unique("txn-group")
    create_topic(b, topic, partitions=2)
    produce(b, topic, [(0, f"before-{i}") for i in range(3)])                 # offsets 0..2
    wait_until(lambda: _commit(b, group, {(topic, 0): 3}), what="the group coordinator")
    tid = unique("hanging-tx")
    producer_id, epoch, start = killed("hanging", b, topic, 0, tid, 2)        # offsets 3..4, never ended
    assert start == 3
    produce(b, topic, [(0, f"after-{i}") for i in range(3)])                  # offsets 5..7, behind the LSO
    killed("open", b, topic, 1, unique("open-tx"), 1)                          # partition 1: open, not hanging

    r = run_dropin("kafka-transactions", "--bootstrap-server", b, "find-hanging", "--topic", topic,
                   "--max-transaction-timeout", "0")
    assert r.code == 0 and r.err == "", r
    rows = [line.split("\t") for line in r.out.splitlines()[1:]]
    assert [[c.strip() for c in row[:6]] for row in rows] == [[topic, "0", str(producer_id), str(epoch), "-1", "3"]]

    r = run_kcli(b, "-o", "json", "check", "transactions", "--older-than", "0", "--topic", topic)
    assert r.code == 4 and json.loads(r.err)["error"].startswith("1 hanging transaction(s)"), r
    doc = json.loads(r.out)
    assert doc["schema"] == "kcli.transaction-check/v1" and all(CAMEL.match(k) for k in _keys(doc))
    by_partition = {t["partition"]: t for t in doc["transactions"]}
    hanging, open_one = by_partition[0], by_partition[1]
    assert (hanging["hanging"], hanging["transactionalId"], hanging["producerId"], hanging["startOffset"],
            hanging["highWatermark"], hanging["heldBack"]) == (True, tid, producer_id, 3, 8, 5)
    assert hanging["abort"] == f"kcli abort transaction --topic {topic} --partition 0 --start-offset 3 --execute"
    assert open_one["hanging"] is False and open_one["startOffset"] == 0 and open_one["heldBack"] == 1

    assert _read(b, group, topic, 3) == []                                    # stuck behind the LSO
    assert committed(b, group) == {(topic, 0): 3}
    cause = (f"Lag of group '{group}' on {topic}-0 is held back by an open transaction: transactional id '{tid}', "
             f"producer {producer_id} (epoch {epoch}), open since offset 3 for ")
    for view in (("describe", "groups", group), ("lag", group)):              # where the operator looks
        r = run_kcli(b, *view)
        assert r.code == 0 and cause in r.err and ", hanging; read_committed consumers" in r.err, (view, r)
    held = _held_series(b, group)
    assert [(s.labels["topic"], s.labels["partition"], s.labels["transactional_id"], s.labels["producer_id"],
             s.labels["hanging"], s.value) for s in held["kcli_consumergroup_group_lso_held_records"]] == [
        (topic, "0", tid, str(producer_id), "true", 5)]
    assert held["kcli_consumergroup_group_lso_held_seconds"][0].value >= 0

    line = hanging["abort"].split()[1:]
    dry = run_kcli(b, *line[:-1])                                             # without --execute
    assert dry.code == 0 and dry.out.startswith(f"Would abort the transaction of producer {producer_id}"), dry
    assert run_kcli(b, "check", "transactions", "--older-than", "0", "--topic", topic).code == 4

    done = run_kcli(b, *line)
    assert done.code == 0 and done.out.startswith(f"Aborted the transaction of producer {producer_id}"), done
    assert _read(b, group, topic, 5) == [b"after-0", b"after-1", b"after-2"]  # the lag moves again
    assert committed(b, group)[(topic, 0)] >= 8
    r = run_kcli(b, "describe", "groups", group)
    assert r.code == 0 and "held back by an open transaction" not in r.err, r
    assert _held_series(b, group) == {"kcli_consumergroup_group_lso_held_records": [],
                                      "kcli_consumergroup_group_lso_held_seconds": []}

    after = run_kcli(b, "-o", "json", "check", "transactions", "--older-than", "0", "--topic", topic)
    assert after.code == 0, after
    assert [(t["partition"], t["hanging"]) for t in json.loads(after.out)["transactions"]] == [(1, False)]
    r = run_dropin("kafka-transactions", "--bootstrap-server", b, "find-hanging", "--topic", topic,
                   "--max-transaction-timeout", "0")
    assert r.code == 0 and r.out.count("\n") == 1, r


def test_list_describe_and_the_dropin_abort(txn_bootstrap):
    """list and describe transactions name the killed producers' ids; the drop-in's abort writes
    the marker as kafka-transactions abort does; a bad line is refused before any request."""
    b = txn_bootstrap
    topic = unique("txn-list")
    create_topic(b, topic, partitions=1)
    tid = unique("listed-tx")
    producer_id, epoch, start = killed("hanging", b, topic, 0, tid, 1)

    r = run_kcli(b, "-o", "json", "list", "transactions", "--pattern", re.escape(tid))
    assert r.code == 0, r
    doc = json.loads(r.out)
    assert [(t["transactionalId"], t["producerId"], t["state"]) for t in doc["transactions"]] == [
        (tid, producer_id, "Empty")]
    r = run_kcli(b, "-o", "csv", "list", "transactions", "--pattern", re.escape(tid))
    assert (r.code, r.out) == (0, f"TRANSACTIONAL-ID,COORDINATOR,PRODUCER-ID,STATE\n{tid},1,{producer_id},Empty\n"), r
    plain = run_kcli(b, "-o", "plain", "list", "transactions", "--pattern", re.escape(tid))
    java = run_dropin("kafka-transactions", "--bootstrap-server", b, "list", "--transactional-id-pattern",
                      re.escape(tid))
    assert plain.code == java.code == 0 and plain.out == java.out, (plain, java)   # the tool's layout
    r = run_kcli(b, "-o", "csv", "check", "transactions", "--older-than", "0", "--topic", topic)
    assert r.code == 4 and r.out.splitlines() == [
        "TOPIC,PARTITION,TRANSACTIONAL-ID,PRODUCER-ID,EPOCH,START-OFFSET,AGE-MS,HELD-BACK,HANGING,ABORT",
        *[line for line in r.out.splitlines()[1:] if line.startswith(f"{topic},0,{tid},{producer_id},{epoch},"
                                                                     f"{start},")]], r
    assert len(r.out.splitlines()) == 2 and r.out.rstrip().endswith(
        f",1,yes,kcli abort transaction --topic {topic} --partition 0 --start-offset {start} --execute"), r
    r = run_kcli(b, "-o", "json", "describe", "transactions", tid, unique("unknown-tx"))
    assert r.code == 1 and "TRANSACTIONAL_ID_NOT_FOUND" in r.err, r
    described = json.loads(r.out)["transactions"]
    assert [(d["producerId"], d["producerEpoch"], d["state"], d["partitions"]) for d in described] == [
        (producer_id, epoch, "Empty", [])]
    assert all(CAMEL.match(k) for k in _keys(json.loads(r.out)))

    r = run_dropin("kafka-transactions", "--bootstrap-server", b, "abort", "--topic", topic, "--partition", "0",
                   "--start-offset", str(start))
    assert (r.code, r.out, r.err) == (0, "", ""), r
    r = run_kcli(b, "abort", "transaction", "--topic", topic, "--partition", "0", "--start-offset", str(start))
    assert r.code == 1 and "Could not find any open transactions starting at offset" in r.err, r
    assert run_kcli(b, "list", "transactions", "--older-than", "soon").code == 2
    assert run_kcli(b, "abort", "transaction", "--topic", topic, "--partition", "-1", "--start-offset", "0").code == 2
