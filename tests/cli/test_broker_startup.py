"""``kcli broker start`` loads what serving needs and nothing of kafka-python's client (for
the embedded broker's start to first ack). kafka-python's package ``__init__`` imports its whole
client (KafkaAdminClient, KafkaConsumer, the asyncio network layer); kcli.protocol registers its
packages bare, which only holds if it runs before any broker module reaches into ``kafka``."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.clients import create_topic, produce

CLIENT = re.compile(r"\| +(kafka\.(?:admin|net|consumer|producer|coordinator|client_async|conn)"
                    r"|kafka\.protocol\.old\.\w+)(?:\.\S*)?$")


def test_broker_start_serves_a_first_ack_without_kafka_pythons_client():
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "kcli", "broker", "start",
                             "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        bootstrap = proc.stdout.readline().removeprefix("bootstrap: ").strip()
        create_topic(bootstrap, "first-ack")
        produce(bootstrap, "first-ack", [(0, b"x")], acks="all")
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    imported = [line.rsplit("|", 1)[1].strip() for line in err.splitlines()
                if line.startswith("import time:")]
    assert "kcli.broker.embedded" in imported and "kafka.record.default_records" in imported
    assert [line for line in err.splitlines() if CLIENT.search(line)] == []
