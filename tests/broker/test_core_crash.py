"""Durability: SIGKILL during acks=all production loses no acknowledged record; a torn log tail
is cut on recovery; creation times are unchanged after restart."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from tests.support.broker_wire import Wire, req
from tests.support.waits import wait_until

from kcli.broker import EmbeddedCluster


def start_broker(data_dir) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kcli.broker", "--listen", "127.0.0.1:0", "--nodes", "1",
         "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    if not sel.select(timeout=20):
        proc.kill()
        raise AssertionError("broker did not report ready within 20s")
    line = proc.stdout.readline()
    assert line.startswith("bootstrap: "), line
    return proc, line.split(": ", 1)[1].strip()


def creation_times(bootstrap: str, topic: str) -> list[int]:
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    w = Wire((host, int(port)))
    try:
        R = req(75, 1, topics=[], response_partition_limit=100, cursor=None)
        R.topics = [type(R).TopicRequest(name=topic)]
        return [p.creation_time_ms for p in w.send(R).topics[0].partitions]
    finally:
        w.close()


def test_sigkill_during_acks_all_production(tmp_path):
    proc, bootstrap = start_broker(tmp_path)
    try:
        a = AdminClient({"bootstrap.servers": bootstrap})
        a.create_topics([NewTopic("durable", 3, 1)])["durable"].result(15)
        created = creation_times(bootstrap, "durable")
        assert all(t > 0 for t in created)
        acked: dict[tuple[int, int], bytes] = {}

        def on_delivery(err, msg):
            if err is None:
                acked[(msg.partition(), msg.offset())] = msg.value()

        p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                      "linger.ms": 2, "message.timeout.ms": 3000})
        deadline = time.monotonic() + 30
        i = 0
        while len(acked) < 2000 and time.monotonic() < deadline:
            p.produce("durable", value=f"record-{i}".encode(), on_delivery=on_delivery)
            i += 1
            if i % 100 == 0:
                p.poll(0.01)
        assert len(acked) >= 2000, "production too slow to test"
        os.kill(proc.pid, signal.SIGKILL)                 # mid-production: more are in flight
        proc.wait(10)
        p.flush(5)                                        # the in-flight ones fail
        acknowledged = dict(acked)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)

    proc, bootstrap = start_broker(tmp_path)
    try:
        assert creation_times(bootstrap, "durable") == created
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused",
                      "enable.auto.commit": False})
        c.assign([TopicPartition("durable", p, 0) for p in range(3)])
        stored: dict[tuple[int, int], bytes] = {}
        end = time.monotonic() + 30
        while not acknowledged.keys() <= stored.keys() and time.monotonic() < end:
            m = c.poll(0.5)
            if m is not None and m.error() is None:
                stored[(m.partition(), m.offset())] = m.value()
        c.close()
        missing = [k for k in acknowledged if stored.get(k) != acknowledged[k]]
        assert not missing, f"{len(missing)} acknowledged records lost, e.g. {missing[:3]}"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0                         # clean shutdown on SIGTERM


def test_torn_tail_is_cut(tmp_path, clock):
    with EmbeddedCluster(data_dir=tmp_path, clock=clock) as ec:
        ec.create_topic("torn")
        p = Producer({"bootstrap.servers": ec.bootstrap_servers, "acks": "all"})
        for i in range(10):
            p.produce("torn", value=f"r{i}".encode())
        assert p.flush(10) == 0
        topic_id = ec.cluster.topics["torn"].topic_id
    log = tmp_path / "logs" / f"{topic_id}-0.log"
    good = log.read_bytes()
    log.write_bytes(good + good[:40])                     # a batch cut off mid-header
    with EmbeddedCluster(data_dir=tmp_path, clock=clock) as ec:
        assert log.stat().st_size == len(good)
        assert ec.cluster.topics["torn"].partitions[0].log.log_end_offset == 10
        p = Producer({"bootstrap.servers": ec.bootstrap_servers, "acks": "all"})
        p.produce("torn", value=b"after")
        assert p.flush(10) == 0
        c = Consumer({"bootstrap.servers": ec.bootstrap_servers, "group.id": "unused"})
        c.assign([TopicPartition("torn", 0, 0)])
        got = []
        wait_until(lambda: _poll_into(c, got) and len(got) == 11, 15)
        c.close()
        assert [v for v in got] == [f"r{i}".encode() for i in range(10)] + [b"after"]


def _poll_into(consumer, out) -> bool:
    m = consumer.poll(0.2)
    if m is not None and m.error() is None:
        out.append(m.value())
    return True
