"""kcli.admin.wire.connection against real sockets on 127.0.0.1: the embedded broker, and listeners that
never answer or hang up, so every failure path ends within the timeout with one message."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

import pytest

from kcli.admin.wire.connection import Connection, Wire, WireError, WireTimeout, split_host_port
from kcli.broker import EmbeddedCluster
from kcli.protocol import MetadataRequest


@contextmanager
def listener(behaviour: str):
    """A loopback listener that accepts, then stays silent or reads the request and hangs up."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(5)
    held = []

    def serve():
        try:
            conn, _ = server.accept()
        except OSError:
            return
        if behaviour == "close":
            conn.settimeout(5)
            conn.recv(1 << 16)
            conn.close()
        elif behaviour == "garbage":          # an answer framed right, for no request sent
            conn.settimeout(5)
            conn.recv(1 << 16)
            conn.sendall(b"\x00\x00\x00\x08" + b"\x7f\xff\xff\xff" + b"\x00" * 4)
            held.append(conn)
        else:
            held.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield "127.0.0.1:%d" % server.getsockname()[1]
    finally:
        server.close()
        thread.join(6)
        for conn in held:
            conn.close()


def within(ms: int):
    """Each call's deadline: ``ms`` after it starts."""
    return lambda: time.monotonic() + ms / 1000


def config(*servers: str) -> dict:
    return {"bootstrap_servers": [s for server in servers for s in server.split(",")],
            "client_id": "kcli-test"}


def closed_port() -> str:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return "127.0.0.1:%d" % s.getsockname()[1]


def test_a_silent_broker_ends_at_the_timeout():
    with listener("silent") as address:
        start = time.monotonic()
        with pytest.raises(WireTimeout, match="did not answer in time"):
            Wire(config(address), within(300))
        assert time.monotonic() - start < 3


def test_a_broker_that_hangs_up():
    with listener("close") as address, pytest.raises(WireError, match="closed the connection"):
        Wire(config(address), within(5000))


def test_an_answer_that_cannot_be_read_is_a_wire_error_after_sending():
    """Not a stray exception from the codec: the request went out, so its outcome is unknown."""
    with listener("garbage") as address, pytest.raises(WireError) as unreadable:
        Connection(*split_host_port(address), config(address), None, time.monotonic() + 5)
    assert unreadable.value.sent and "unreadable answer" in str(unreadable.value)


def test_every_bootstrap_server_is_tried_and_named():
    dead = closed_port()
    with pytest.raises(WireError, match=dead.split(":")[1]):
        Wire(config(dead), within(2000))
    with pytest.raises(WireError, match="is not host:port"):
        Wire(config("no-port"), within(2000))
    with EmbeddedCluster() as ec:
        wire = Wire(config(dead, ec.bootstrap_servers), within(5000))
        try:
            assert wire.api_versions[MetadataRequest.API_KEY][1] >= 12
        finally:
            wire.close()


def test_requests_reach_the_node_asked_for():
    with EmbeddedCluster(nodes=3) as ec:
        wire = Wire(config(ec.bootstrap_servers), within(5000))
        try:
            before = ec.request_counts()
            req = MetadataRequest(version=12, topics=[], allow_auto_topic_creation=False)
            for node in (3, 2, 3):
                assert {b.node_id for b in wire.send(req, node).brokers} == {1, 2, 3}
            after = ec.request_counts()
            served = {n: after[n].get("Metadata", 0) - before.get(n, {}).get("Metadata", 0)
                      for n in after}
            # node 1 is the bootstrap: it also answered the lookup of the others' addresses
            assert served == {1: 1, 2: 1, 3: 2}
            with pytest.raises(WireError, match="broker 9 is not in the cluster metadata"):
                wire.send(req, 9)
        finally:
            wire.close()


def test_a_call_ends_by_its_own_deadline_and_says_whether_it_was_sent():
    """``until`` shortens one call (a commit keeps time to be read back): a hung request ends
    then, well before the command's deadline, marked as sent (its outcome unknown); a request
    to a node that cannot be reached is marked as not sent."""
    with EmbeddedCluster(nodes=2) as ec:
        wire = Wire(config(ec.bootstrap_servers), within(10_000))
        try:
            req = MetadataRequest(version=12, topics=[], allow_auto_topic_creation=False)
            ec.fault("Metadata", "hang")
            start = time.monotonic()
            with pytest.raises(WireTimeout, match="did not answer in time") as hung:
                wire.send(req, until=time.monotonic() + 0.3)
            assert time.monotonic() - start < 5 and hung.value.sent   # the command's: 10 s
            ec.fault("Metadata", None)
            with pytest.raises(WireTimeout, match="not sent") as late:
                wire.send(req, until=time.monotonic() - 0.1)
            assert not late.value.sent
            assert {b.node_id for b in wire.send(req).brokers} == {1, 2}   # a new connection
            ec.stop_node(2)
            with pytest.raises(WireError) as down:
                wire.send(req, 2)
            assert not down.value.sent
        finally:
            wire.close()


def test_a_late_answer_is_never_read_as_the_next_requests():
    """A request that got no answer in time closes its connection: the broker's late answer
    (the embedded broker's ``late`` fault: 2.5 s) cannot be taken for the next request's."""
    from kafka.protocol.metadata import ApiVersionsRequest

    with EmbeddedCluster() as ec:
        wire = Wire(config(ec.bootstrap_servers), within(1000))
        try:
            ec.fault("Metadata", "late")
            started = time.monotonic()
            with pytest.raises(WireTimeout):
                wire.send(MetadataRequest(version=12, topics=[], allow_auto_topic_creation=False))
            ec.fault("Metadata", None)
            time.sleep(max(0.0, 2.8 - (time.monotonic() - started)))     # the late answer is out
            resp = wire.send(ApiVersionsRequest(version=3, client_software_name="kcli",
                                                client_software_version="0"))
            assert type(resp).__name__ == "ApiVersionsResponse" and resp.error_code == 0
        finally:
            wire.close()


def test_send_each_sends_to_every_node_before_reading_and_closes_the_unanswered():
    """Wire.send_each: one request per node, every answer in the order asked, each node asked
    once; when the answers do not come in time, every connection still owing one is closed, so
    a late answer is never read as the next request's."""
    from kafka.protocol.metadata import ApiVersionsRequest

    with EmbeddedCluster(nodes=3) as ec:
        wire = Wire(config(ec.bootstrap_servers), within(1000))
        try:
            req = MetadataRequest(version=12, topics=[], allow_auto_topic_creation=False)
            wire.send(req, 2)                                    # every address known
            before = ec.request_counts()
            answers = wire.send_each([(3, req), (1, req), (2, req)])
            assert [{b.node_id for b in a.brokers} for a in answers] == [{1, 2, 3}] * 3
            after = ec.request_counts()
            assert {n: after[n].get("Metadata", 0) - before.get(n, {}).get("Metadata", 0) for n in after} == \
                {1: 1, 2: 1, 3: 1}
            ec.fault("Metadata", "late")
            started = time.monotonic()
            with pytest.raises(WireTimeout) as hung:
                wire.send_each([(1, req), (2, req), (3, req)])
            assert hung.value.sent
            ec.fault("Metadata", None)
            time.sleep(max(0.0, 2.8 - (time.monotonic() - started)))     # the late answers are out
            for node in (1, 2, 3):
                resp = wire.send(ApiVersionsRequest(version=3, client_software_name="kcli",
                                                    client_software_version="0"), node)
                assert type(resp).__name__ == "ApiVersionsResponse" and resp.error_code == 0, node
        finally:
            wire.close()


@contextmanager
def trickling_proxy(target: str, gap_s: float = 0.00005):
    """A loopback proxy to ``target`` whose answers reach the client one byte at a time, ``gap_s``
    apart (a slow link, or a sender that writes small parts): the client's reads each get one
    byte. One connection; its loops are bounded in bytes and time."""
    host, port = split_host_port(target)
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    done = threading.Event()

    def pump(src, dst, trickle: bool):
        deadline = time.monotonic() + 60
        try:
            for _ in range(1 << 20):                     # bounded: reads of at least one byte
                data = src.recv(1 << 16)
                if not data or done.is_set() or time.monotonic() > deadline:
                    break
                if not trickle:
                    dst.sendall(data)
                    continue
                for i in range(len(data)):
                    dst.sendall(data[i:i + 1])
                    time.sleep(gap_s)
        except OSError:
            pass
        finally:
            done.set()

    threads = []

    def serve():
        try:
            client, _ = server.accept()
        except OSError:
            return
        broker = socket.create_connection((host, port), timeout=10)
        client.settimeout(10)
        for src, dst, trickle in ((client, broker, False), (broker, client, True)):
            threads.append(threading.Thread(target=pump, args=(src, dst, trickle), daemon=True))
            threads[-1].start()
        done.wait(70)
        for sock in (client, broker):
            try:
                sock.shutdown(socket.SHUT_RDWR)          # wakes a pump blocked in recv
            except OSError:
                pass
            sock.close()

    acceptor = threading.Thread(target=serve, daemon=True)
    acceptor.start()
    try:
        yield "127.0.0.1:%d" % server.getsockname()[1]
    finally:
        done.set()
        server.close()
        acceptor.join(75)
        for thread in threads:
            thread.join(5)


def test_an_answer_that_comes_one_byte_at_a_time_is_read_whole():
    """An answer may come in as many pieces as it has bytes: the reading is bounded by its size
    and the deadline, not by a number of reads (10,000 reads failed a 10k-partition Fetch against
    the embedded broker, which writes a Fetch answer in small parts, with "response too large")."""
    with EmbeddedCluster(nodes=1) as ec:
        ec.create_topic("wide", 550)
        with trickling_proxy(ec.bootstrap_servers) as proxy:
            wire = Wire(config(proxy), within(30_000))
            try:
                resp = wire.send(MetadataRequest(version=12, topics=[MetadataRequest.MetadataRequestTopic(name="wide")],
                                                 allow_auto_topic_creation=False))
                assert [len(t.partitions) for t in resp.topics] == [550]
            finally:
                wire.close()


def test_record_times_ask_a_leader_in_batches_of_partitions(monkeypatch):
    """WireClient.record_times asks a leader for FETCH_PARTITIONS of its partitions per Fetch
    (each answer let go before the next is asked for), and every partition's record time comes
    back as with one Fetch: here 7 partitions in batches of 3, so 3 Fetches."""
    from kcli.admin import wire as wire_package
    from kcli.admin.client import KafkaAdmin
    from kcli.admin.settings import ClientSettings
    from tests.support.clients import produce

    with EmbeddedCluster(nodes=1) as ec:
        ec.create_topic("batched", 7)
        produce(ec.bootstrap_servers, "batched", [(p, b"x", 1_000_000 + p) for p in range(7)]
                + [(p, b"y", 2_000_000 + p) for p in range(7)])
        wanted = [("batched", p, 1) for p in range(7)]
        admin = KafkaAdmin(ClientSettings(bootstrap_servers=ec.bootstrap_servers))
        try:
            whole = admin.record_times(wanted)
            monkeypatch.setattr(wire_package.offsets, "FETCH_PARTITIONS", 3)
            before = ec.request_counts("kcli")[1].get("Fetch", 0)
            batched = admin.record_times(wanted)
            assert ec.request_counts("kcli")[1].get("Fetch", 0) - before == 3
        finally:
            admin.close()
        assert batched == whole
        assert [(batched[w].timestamp_ms, batched[w].record_offset) for w in wanted] == \
            [(2_000_000 + p, 1) for p in range(7)]


def test_the_client_keeps_a_metadata_answers_cluster_part_only():
    """Wire.learn_cluster keeps a Metadata answer's brokers and cluster id, which serve later asks
    for them, and lets its topics go: a reset over 40k partitions held the last 40k-partition
    answer to its end (peak RSS 123 -> 100 MiB for a --max-age dry run)."""
    with EmbeddedCluster(nodes=2) as ec:
        ec.create_topic("kept", 3)
        wire = Wire(config(ec.bootstrap_servers), within(5000))
        try:
            resp = wire.send(MetadataRequest(version=12, topics=[MetadataRequest.MetadataRequestTopic(name="kept")],
                                             allow_auto_topic_creation=False))
            wire.learn_cluster(resp)
            assert [len(t.partitions) for t in resp.topics] == [3]
            assert not hasattr(wire.cluster, "topics")
            assert wire.cluster.brokers == resp.brokers and wire.cluster.cluster_id == resp.cluster_id
            assert {b.node_id for b in wire.cluster.brokers} == {1, 2} and wire.cluster.cluster_id
        finally:
            wire.close()
