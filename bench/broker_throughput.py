"""Throughput of the embedded broker against librdkafka's built-in mock cluster.

Produces a fixed volume with confluent-kafka, then consumes it back (assign, no group), first
against ``kcli.broker.EmbeddedCluster`` and then, side by side, against the mock cluster a
librdkafka client starts with ``test.mock.num.brokers``. Prints MB/s and records/s for each
phase and the embedded/mock ratio, plus the embedded broker's request counts.

    python bench/broker_throughput.py [--records 50000] [--size 100] [--codec lz4]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # tests/support

from kcli.broker import EmbeddedCluster
from tests.support.mock_cluster import MockCluster

TOPIC = "bench"


def run(bootstrap: str, records: int, size: int, codec: str, partitions: int,
        create: bool = True, topic: str = TOPIC, consumer_config: dict | None = None) -> dict:
    """Produce then consume; ``create=False`` relies on auto-creation (the mock cluster creates
    topics with 4 partitions on first use and does not serve CreateTopics) or on a topic made
    beforehand. ``consumer_config`` is added to the consumer's settings."""
    if create:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(15)
    payload = b"x" * size
    producer = Producer({"bootstrap.servers": bootstrap, "compression.type": codec,
                         "linger.ms": 5, "batch.size": 1_000_000, "acks": "all",
                         "queue.buffering.max.messages": 1_000_000})
    start = time.perf_counter()
    for i in range(records):
        while True:
            try:
                producer.produce(topic, payload, partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.01)
    if producer.flush(120) != 0:
        raise RuntimeError("produce did not complete")
    produce_s = time.perf_counter() - start

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench",
                         "enable.auto.commit": False, **(consumer_config or {})})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    start = time.perf_counter()
    seen = 0
    deadline = time.monotonic() + 120
    while seen < records and time.monotonic() < deadline:
        # Never ask for more than remain: consume() sits out its timeout when it gets fewer.
        for m in consumer.consume(min(10_000, records - seen), 0.5):
            if m.error() is not None:
                raise RuntimeError(m.error())
            seen += 1
    consume_s = time.perf_counter() - start
    consumer.close()
    if seen < records:
        raise RuntimeError(f"consumed only {seen} of {records}")
    mb = records * size / 1e6
    return {"produce_s": produce_s, "consume_s": consume_s,
            "produce_mb_s": mb / produce_s, "produce_rec_s": records / produce_s,
            "consume_mb_s": mb / consume_s, "consume_rec_s": records / consume_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=50_000)
    parser.add_argument("--size", type=int, default=100, help="value bytes per record")
    parser.add_argument("--codec", default="none")
    parser.add_argument("--partitions", type=int, default=3, choices=range(1, 5))
    args = parser.parse_args()
    params = (args.records, args.size, args.codec, args.partitions)

    with EmbeddedCluster(nodes=1) as ec:
        embedded = run(ec.bootstrap_servers, *params)
        counts = ec.request_counts()[1]
    with MockCluster() as bootstrap:
        mock = run(bootstrap, *params, create=False)

    print(f"{args.records} records x {args.size} B, codec {args.codec}, "
          f"{args.partitions} partitions, acks=all")
    print(f"{'':10}{'embedded':>22}{'librdkafka mock':>22}{'ratio':>8}")
    for phase in ("produce", "consume"):
        e, m = embedded[f"{phase}_mb_s"], mock[f"{phase}_mb_s"]
        print(f"{phase:10}{e:>12.1f} MB/s{embedded[f'{phase}_rec_s']:>9.0f}/s"
              f"{m:>12.1f} MB/s{mock[f'{phase}_rec_s']:>9.0f}/s{e / m:>8.2f}")
    print("embedded broker requests:", dict(sorted(counts.items())))


if __name__ == "__main__":
    main()
