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


def test_the_brokers_tables_keep_kafka_pythons_classes_the_client_copied_first():
    """A client's DescribeCluster before the broker's first request (a wire client to another
    cluster in the process): the broker still answers with kafka-python's class, whose field
    names its handlers use (authorized_operations), not kcli's copy of it."""
    out = _run("import kcli.protocol as p\n"
               "p.DescribeClusterResponse  # the wire client's copy, declared as it first sends one\n"
               "from kcli.broker import EmbeddedCluster\n"
               "from kcli.admin.wire import WireClient\n"
               "from kcli.admin.settings import ClientSettings\n"
               "print(p.RESPONSES[60].__module__)\n"
               "with EmbeddedCluster(nodes=3) as c:\n"
               "    wire = WireClient(ClientSettings(c.bootstrap_servers))\n"
               "    print(sorted(b.node_id for b in wire.describe_cluster().brokers))\n"
               "    wire.close()")
    assert out.splitlines() == ["kafka.protocol.admin.cluster", "[1, 2, 3]"]


LEFT_ALONE = ("import sys, types, kcli.protocol, kcli.admin.wire.connection, kcli.broker\n"
              "kcli.protocol.REQUESTS  # every message module of kafka-python, loaded\n"
              "foreign = []\n"
              "for name, module in sorted(sys.modules.items()):\n"
              "    if not name.startswith('kafka.') or not isinstance(module, types.ModuleType):\n"
              "        continue\n"
              "    if getattr(module, '__file__', None) is None and not hasattr(module, '__path__'):\n"
              "        foreign.append(name)          # a module planted in sys.modules\n"
              "    for attr, value in vars(module).items():\n"
              "        if attr == 'compile' or attr == 'load_json' and isinstance(value, types.ModuleType):\n"
              "            foreign.append(f'{name}.{attr}')\n"
              "        if isinstance(value, type) and value.__module__.startswith('kafka.'):\n"
              "            for key, member in vars(value).items():\n"
              "                func = getattr(member, '__func__', member)\n"
              "                if not isinstance(func, types.FunctionType):\n"
              "                    continue\n"
              "                if (func.__module__ or '').startswith('kcli'):\n"
              "                    foreign.append(f'{value.__module__}.{value.__qualname__}.{key}')\n"
              "print(sorted(set(foreign)))")


def test_kafka_python_is_left_as_it_is_installed():
    """No method or module of kafka-python is replaced: once kcli's protocol layer, its wire
    client and the embedded broker are loaded, no function of a kafka-python class is kcli's,
    and no kafka-python module is a stand-in nor has its own ``compile``."""
    assert _run(LEFT_ALONE) == "[]"
