"""kcli.protocol lets kafka-python's protocol modules load without the packages' ``__init__``
(the whole client, every admin message, the asyncio network client); each check runs in a fresh
interpreter, as kcli starts."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_wire_client_loads_only_the_messages_it_sends():
    out = _run("import sys, kcli.admin.wire, kcli.admin.wire.connection\n"
               "print(sorted(m for m in ('kafka.admin', 'kafka.consumer', 'kafka.producer', 'kafka.net.connection',"
               " 'kafka.protocol.admin.acl', 'kafka.protocol.consumer.fetch') if m in sys.modules))")
    assert out == "[]"


def test_names_only_the_package_init_defines_still_resolve():
    out = _run("import kcli.protocol\n"
               "from kafka import KafkaConsumer, errors\n"
               "from kafka.protocol.admin import DescribeConfigsRequest\n"
               "from kafka.net import KafkaNetClient\n"
               "import kafka, kafka.version, kafka.protocol.admin\n"
               "print(KafkaConsumer.__name__, errors.__name__, kafka.__version__ == kafka.version.__version__,\n"
               "      kafka.protocol.admin.DescribeConfigsRequest is DescribeConfigsRequest, KafkaNetClient.__name__)")
    assert out == "KafkaConsumer kafka.errors True True KafkaNetClient"


TABLES = ("import json, kcli.protocol as p\n"
          "print(json.dumps([sorted((k, f'{c.__module__}.{c.__qualname__}') for k, c in t.items())"
          " for t in (p.REQUESTS, p.RESPONSES)]))")


def test_the_message_tables_are_those_of_a_full_kafka_import():
    assert _run(TABLES) == _run("import kafka\n" + TABLES)


def test_kip_responses_decode_after_kafka_pythons_stock_modules_load():
    """kafka-python's stock DescribeTopicPartitions classes (v0 only), imported after kcli's,
    take over its process-wide response registry; kcli's connection claims it back."""
    out = _run("import kcli.admin.wire.connection  # declares kcli's message classes\n"
               "from kafka import KafkaAdminClient  # then the whole client: every stock class\n"
               "from kcli.admin.wire import WireClient\n"
               "from kcli.admin.settings import ClientSettings\n"
               "from kcli.broker import EmbeddedCluster\n"
               "with EmbeddedCluster() as c:\n"
               "    c.create_topic('t', partitions=1, creation_time_ms=1234)\n"
               "    wire = WireClient(ClientSettings(c.bootstrap_servers))\n"
               "    print(wire.describe_topics(['t'])[0].partitions[0].creation_time_ms)\n"
               "    wire.close()")
    assert out == "1234"
