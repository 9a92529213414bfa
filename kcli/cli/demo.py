"""``kcli demo``: the partition-expansion story on a 3-node embedded broker, in one process.

A topic takes traffic; a consumer-protocol group reads it and stops; partitions are added and
records land on them before the group comes back. Then the headline commands show what each KIP
changes: partition creation times (KIP-1327), the group's creation time (KIP-1282), what
``--to-latest`` would skip and ``--to-start-time`` / ``--max-age`` keep, the record with the highest
timestamp (KIP-734), and a future-dated record refused (KIP-937). Every command line is printed
before its output; everything is shut down at the end."""

from __future__ import annotations

import shlex
import sys
import time

TOPIC = "orders"
GROUP = "billing"
DEMO_BROKER_CONFIG = {"group.consumer.heartbeat.interval.ms": "300",
                      "group.consumer.session.timeout.ms": "6000"}


def _say(text: str) -> None:
    print(f"\n# {text}", flush=True)


def _kcli(bootstrap: str, line: str) -> int:
    """Run one kcli command in this process, printing it first as an operator would type it:
    the same entry as the console script (errors, redaction and -o json included)."""
    from kcli.cli.main import run

    print(f"$ kcli {line}", flush=True)
    return run(["-b", bootstrap] + shlex.split(line))


def _produce(bootstrap: str, partitions: range, per_partition: int, timestamp_ms: int) -> str | None:
    """Records stamped ``timestamp_ms``: the demo's clock, which the broker keeps too, so a record
    is never dated before the partition it lands on (a real producer's clock is the broker's).
    One batch a partition through the adapter (acks=all); the first refusal, or None."""
    from kcli.admin.client import KafkaAdmin
    from kcli.admin.settings import ClientSettings

    admin = KafkaAdmin(ClientSettings(bootstrap, {}, 15_000))
    try:
        for p in partitions:
            out = admin.produce_batch(TOPIC, p, [(timestamp_ms, None, f"order-{p}-{i}".encode())
                                                 for i in range(per_partition)])
            if out.error:
                return f"{out.error}: {out.message}" if out.message else out.error
    finally:
        admin.close()
    return None


def _consume_all(bootstrap: str, expected: int, deadline_s: float = 20.0) -> int:
    """Read with kcli's consumer library (a consumer-protocol group from the earliest offsets),
    committing each record."""
    from kcli.consumer import Consumer, earliest

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP,
                         "group.protocol": "consumer", "enable.auto.commit": False}, earliest())
    consumer.subscribe([TOPIC])
    seen, end = 0, time.monotonic() + deadline_s
    while seen < expected and time.monotonic() < end:
        msg = consumer.poll(0.2)
        if msg is not None and not msg.error():
            seen += 1
            consumer.commit(message=msg, asynchronous=False)
    consumer.close()
    return seen


class _DemoClock:
    """The story's clock: real time, plus a jump that stands for hours passing. The broker keeps
    it, and the demo's producers stamp their records with it."""

    def __init__(self):
        self.shift_ms = 0

    def __call__(self) -> int:
        return int(time.time() * 1000) + self.shift_ms


def run() -> int:
    from kcli.broker import EmbeddedCluster

    started = time.monotonic()
    clock = _DemoClock()
    with EmbeddedCluster(nodes=3, configs=DEMO_BROKER_CONFIG, clock=clock) as cluster:
        b = cluster.bootstrap_servers
        print(f"Embedded 3-node KIP broker on {b} (loopback only; stopped at the end).")
        _say("A topic with traffic, and a consumer-protocol group that reads it, commits, and stops.")
        _kcli(b, f"create topic {TOPIC} --partitions 3 --replication-factor 3")
        _produce(b, range(3), 10, clock())
        read = _consume_all(b, 30)
        print(f"(group {GROUP} consumed {read} records and left)")

        clock.shift_ms = 2 * 3_600_000
        _say("Two hours later (the demo's clock, which the broker and the producers keep, jumps\n"
             "# ahead), the topic is expanded and 10 records land on each new partition before the\n"
             "# group is back.")
        _kcli(b, f"alter topics {TOPIC} --partitions 6")
        _produce(b, range(3, 6), 10, clock())
        _produce(b, range(3), 2, clock())

        _say("KIP-1327: partitions 3-5 show a later creation time than 0-2.")
        _kcli(b, f"describe topics {TOPIC}")
        _say("KIP-1282: the group's creation time, the anchor of --to-start-time.")
        _kcli(b, f"describe groups {GROUP} --state --verbose")
        _say("--to-latest would skip the 30 records on the new partitions ...")
        _kcli(b, f"reset-offsets --group {GROUP} --topic {TOPIC} --to-latest --dry-run")
        _say("... --to-start-time replays them from offset 0, and keeps the old partitions' position.")
        _kcli(b, f"reset-offsets --group {GROUP} --topic {TOPIC} --to-start-time --dry-run")
        _say("... and --to-latest --max-age takes earliest only for partitions younger than 1 hour.")
        _kcli(b, f"reset-offsets --group {GROUP} --topic {TOPIC} --to-latest --max-age 1h --dry-run")

        _say("KIP-734: the offset and time of the record with the highest timestamp, per partition.")
        _kcli(b, f"list-offsets --topic {TOPIC} --max-timestamp")

        _say("KIP-937: bound future timestamps to 1h, then try a record dated tomorrow.")
        _kcli(b, f"alter configs --topic {TOPIC} --set message.timestamp.after.max.ms=3600000")
        _kcli(b, f"describe configs --topic {TOPIC}")
        tomorrow = clock() + 86_400_000
        err = _produce(b, range(1), 1, timestamp_ms=tomorrow)
        print(f"produce of a record dated +1 day: {'REJECTED: ' + err if err else 'accepted'}")
    print(f"\nDemo finished in {time.monotonic() - started:.1f} s; the broker is stopped.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
