"""The cooperative-rebalance scenario shared by
tests/consumer/test_delayed_revoke.py and bench/revoke_throughput.py.

A producer writes ``rate`` records/s to each of 6 partitions. Consumer A runs alone, then B
joins and 3 of A's partitions move to B. Both process asynchronously: a record is done
``process_s`` after it was received, and processed offsets are committed every 100 ms. Before a
partition may go, its in-flight records must be done, a "flush" of ``flush_s`` (closing a sink,
say) must pass and the processed offsets must be committed. The *window* runs from A learning
of the revoke to A letting the partitions go.

* ``split``: :class:`kcli.consumer.DelayRevokeConsumer`; the poll loop delays the revoke until
  the partitions may go.
* ``naive``: a raw confluent-kafka consumer whose ``on_revoke`` blocks until then.

Every loop is bounded in time; a consumer thread's exception is raised by :func:`run`.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from functools import partial

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from kcli.consumer import DelayRevokeConsumer, earliest
from kcli.consumer.delayed import RETRY

PARTITIONS = 6
PROTOCOLS = {
    "cooperative-sticky": {"group.protocol": "classic",
                           "partition.assignment.strategy": "cooperative-sticky",
                           "session.timeout.ms": 6000, "heartbeat.interval.ms": 300},
    "consumer": {"group.protocol": "consumer"},
}
COMMIT_EVERY_S = 0.1


@dataclass
class Settings:
    rate: int = 50                 # records/s per partition
    flush_s: float = 1.0           # how long a partition takes to let go, after its last record
    process_s: float = 0.02        # per record, asynchronously
    max_poll_interval_ms: int = 10_000   # the delayed-revoke deadline: 5 s less
    after_s: float = 0.5           # run on after the hand-over, before the producer stops


@dataclass
class Result:
    mode: str
    protocol: str
    revoked: list[int] = field(default_factory=list)
    window_s: float = 0.0
    kept_in_window: int = 0        # records of A's other partitions A received in the window
    kept_produced: int = 0         # ... and produced in the window
    duplicates: int = 0            # records processed twice (by A and B, or one of them twice)
    missing: int = 0               # records produced and never processed
    produced: int = 0
    handover: dict = field(default_factory=dict)   # p -> (A's last commit, B's first offset)
    lost: list = field(default_factory=list)       # partitions A's consumer reported lost

    @property
    def kept_rate(self) -> float:
        return self.kept_in_window / self.window_s if self.window_s > 0 else 0.0

    def line(self) -> str:
        return (f"{self.protocol:18} {self.mode:5} window {self.window_s:5.2f}s kept-partition "
                f"records in window {self.kept_in_window:4d}/{self.kept_produced:4d} produced "
                f"({self.kept_rate:6.1f}/s), duplicates {self.duplicates}, missing "
                f"{self.missing} of {self.produced}")


class App:
    """One consumer's asynchronous processing, simulated by time."""

    def __init__(self, topic: str):
        self.topic = topic
        self.received: list[tuple[float, int, int]] = []     # (when, partition, offset)
        self.inflight: dict[int, deque] = defaultdict(deque)  # p -> (done at, offset)
        self.processed: list[tuple[int, int]] = []
        self.done: dict[int, int] = {}                        # p -> next offset to commit
        self.committed: dict[int, int] = {}
        self.requested: dict[int, float] = {}                 # p -> when its revoke was learnt
        self.window: tuple[float, float] | None = None
        self.next_commit = 0.0

    def take(self, msgs, process_s: float) -> None:
        now = time.monotonic()
        for m in msgs:
            assert m.error() is None, m.error()
            self.received.append((now, m.partition(), m.offset()))
            self.inflight[m.partition()].append((now + process_s, m.offset()))

    def complete(self) -> None:
        now = time.monotonic()
        for p, queue in self.inflight.items():
            while queue and queue[0][0] <= now:
                _, offset = queue.popleft()
                self.processed.append((p, offset))
                self.done[p] = offset + 1

    def abort(self, p: int) -> None:
        self.inflight.pop(p, None)
        self.done.pop(p, None)

    def offsets(self, partitions, force: bool = False) -> list[TopicPartition]:
        return [TopicPartition(self.topic, p, self.done[p]) for p in partitions
                if p in self.done and (force or self.done[p] > self.committed.get(p, -1))]

    def commit(self, commit, partitions, force: bool = False) -> None:
        """``commit(offsets)`` returns the TopicPartitions committed."""
        offsets = self.offsets(partitions, force)
        if offsets:
            for tp in commit(offsets):
                self.committed[tp.partition] = tp.offset

    def commit_due(self, commit, partitions) -> None:
        if time.monotonic() >= self.next_commit:
            self.next_commit = time.monotonic() + COMMIT_EVERY_S
            self.commit(commit, partitions)

    def may_go(self, p: int, flush_s: float, commit) -> bool:
        """Whether ``p`` is drained and flushed; then its processed offsets are committed."""
        self.complete()
        if self.inflight.get(p) or time.monotonic() < self.requested[p] + flush_s:
            return False
        self.commit(commit, [p], force=True)
        return self.committed.get(p) == self.done.get(p)


def config(bootstrap: str, group: str, protocol: str, s: Settings) -> dict:
    return {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
            "topic.metadata.refresh.interval.ms": 1000, "fetch.wait.max.ms": 100,
            "max.poll.interval.ms": s.max_poll_interval_ms, **PROTOCOLS[protocol]}


def split_loop(conf: dict, app: App, s: Settings, stop: threading.Event, lost: list) -> None:
    """The seed's single poll loop: poll, process, commit, delay what may not go yet."""
    c = DelayRevokeConsumer(conf, start=earliest())
    c.subscribe([app.topic])
    try:
        while not stop.is_set():
            app.take(c.poll(0.1), s.process_s)
            app.complete()
            app.commit_due(c.commit, app.done)
            pending = []
            for tp in c.to_be_revoked():
                app.requested.setdefault(tp.partition, time.monotonic())
                if not app.may_go(tp.partition, s.flush_s, c.commit):
                    pending.append(tp)
            if pending:
                c.delay_revoke(pending)
            elif app.requested and app.window is None:
                app.window = (min(app.requested.values()), time.monotonic())
            for tp in c.lost():
                lost.append(tp.partition)
                app.abort(tp.partition)
        app.complete()
        app.commit(c.commit, app.done)
    finally:
        c.close()


def _raw_commit(consumer: Consumer, offsets: list[TopicPartition]) -> list[TopicPartition]:
    """A synchronous commit; one that raced a rebalance is tried again later."""
    try:
        committed = consumer.commit(offsets=offsets, asynchronous=False)
        return [tp for tp in committed if tp.error is None]
    except KafkaException as exc:
        if exc.args[0].code() in RETRY:
            return []
        raise


def naive_loop(conf: dict, app: App, s: Settings, stop: threading.Event, lost: list) -> None:
    """A raw consumer whose on_revoke blocks until the partitions may go."""

    def on_revoke(consumer, partitions):
        now = time.monotonic()
        revoked = [tp.partition for tp in partitions]
        if revoked and not stop.is_set() and app.window is None:
            for p in revoked:
                app.requested.setdefault(p, now)
            deadline = now + 30
            while not all(app.may_go(p, s.flush_s, commit) for p in revoked) \
                    and time.monotonic() < deadline:
                time.sleep(0.005)
            app.window = (now, time.monotonic())
        else:
            app.commit(commit, revoked, force=True)

    def on_lost(_consumer, partitions):
        for tp in partitions:
            lost.append(tp.partition)
            app.abort(tp.partition)

    c = Consumer({**conf, "auto.offset.reset": "earliest"})
    commit = partial(_raw_commit, c)
    c.subscribe([app.topic], on_revoke=on_revoke, on_lost=on_lost)
    try:
        while not stop.is_set():
            app.take(c.consume(500, 0.1), s.process_s)
            app.complete()
            app.commit_due(commit, [tp.partition for tp in c.assignment()])
        app.complete()
        app.commit(commit, [tp.partition for tp in c.assignment()])
    finally:
        c.close()


LOOPS = {"split": split_loop, "naive": naive_loop}


class Worker(threading.Thread):
    def __init__(self, fn, *args):
        super().__init__(daemon=True)
        self.fn, self.args, self.error = fn, args, None

    def run(self):
        try:
            self.fn(*self.args)
        except BaseException as exc:  # noqa: BLE001 - raised by run()
            self.error = exc

    def finish(self, timeout: float = 20) -> None:
        self.join(timeout)
        if self.is_alive():
            raise AssertionError(f"{self.fn.__name__} did not stop within {timeout}s")
        if self.error is not None:
            raise self.error


def produce_at_rate(bootstrap: str, topic: str, rate: int, stop: threading.Event,
             sent: list[tuple[float, int]]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    start = time.monotonic()
    i = 0
    while not stop.is_set() and time.monotonic() < start + 120:
        for part in range(PARTITIONS):
            p.produce(topic, f"{part}-{i}".encode(), partition=part)
            sent.append((time.monotonic(), part))
        p.poll(0)
        i += 1
        time.sleep(max(0.0, start + i / rate - time.monotonic()))
    if p.flush(15) != 0:
        raise AssertionError("the producer could not deliver every record")


def wait_for(predicate, timeout: float, what: str, threads=()) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        for t in threads:
            if not t.is_alive():
                t.finish()
                raise AssertionError(f"{t.fn.__name__} stopped while waiting for {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.02)


def run(ec, mode: str, protocol: str, s: Settings | None = None, tag: str = "") -> Result:
    """One scenario on a fresh topic and group of the EmbeddedCluster ``ec``."""
    s = s or Settings()
    topic = f"orders-{mode}-{protocol}{tag}"
    ec.create_topic(topic, PARTITIONS)
    conf = config(ec.bootstrap_servers, f"g-{topic}", protocol, s)
    a, b = App(topic), App(topic)
    stop_produce, stop = threading.Event(), threading.Event()
    sent: list[tuple[float, int]] = []
    lost_a: list[int] = []
    producer = Worker(produce_at_rate, ec.bootstrap_servers, topic, s.rate, stop_produce, sent)
    loop = LOOPS[mode]
    ta = Worker(loop, conf, a, s, stop, lost_a)
    tb = Worker(loop, conf, b, s, stop, [])
    producer.start()
    ta.start()
    try:
        wait_for(lambda: {p for _, p, _ in list(a.received)} == set(range(PARTITIONS)), 20,
                 "A receiving every partition", [ta, producer])
        tb.start()
        wait_for(lambda: a.window is not None
                 and {p for _, p, _ in list(b.received)} >= set(a.requested),
                 30, "the hand-over to B", [ta, tb, producer])
        time.sleep(s.after_s)
    finally:
        stop_produce.set()
        producer.finish()
    try:
        wait_for(lambda: len({*a.processed, *b.processed}) >= len(sent), 20,
                 "every record processed", [ta, tb])
    finally:
        stop.set()
        ta.finish()
        tb.finish()
    return _result(mode, protocol, a, b, sent, lost_a)


def _result(mode, protocol, a: App, b: App, sent, lost_a) -> Result:
    revoked = sorted(a.requested)
    start, end = a.window
    keys = Counter(a.processed + b.processed)
    produced = Counter(p for _, p in sent)
    expected = {(p, o) for p, n in produced.items() for o in range(n)}
    first_b = {}
    for _, p, o in b.received:
        first_b.setdefault(p, o)
    return Result(
        mode, protocol, revoked, end - start,
        kept_in_window=sum(1 for t, p, _ in a.received if start <= t <= end and p not in revoked),
        kept_produced=sum(1 for t, p in sent if start <= t <= end and p not in revoked),
        duplicates=sum(n - 1 for n in keys.values()),
        missing=len(expected - set(keys)), produced=len(expected),
        handover={p: (a.committed.get(p), first_b.get(p)) for p in revoked},
        lost=sorted(set(lost_a)))
