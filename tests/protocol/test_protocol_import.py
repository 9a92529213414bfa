"""kcli.protocol lets kafka-python's protocol modules load without the packages' ``__init__``
(the whole client, every admin message, the asyncio network client); each check runs in a fresh
interpreter, as kcli starts."""

from __future__ import annotations

import ast
import json
import os
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


def test_the_schema_loader_reads_what_kafka_pythons_own_reads():
    """kcli.protocol.startup.load_json (open, not importlib.resources) against kafka-python's
    load_json, every JSON schema of both packages, each loader in a fresh interpreter."""
    schemas = ("import json, os, sys\n"
               "{setup}\n"
               "import kcli.protocol.schemas as kcli_schemas, kafka.protocol.schemas as stock\n"
               "names = [(n[:-5], None) for n in os.listdir(os.path.join(stock.__path__[0], 'resources'))]\n"
               "names += [(n[:-5], kcli_schemas) for n in os.listdir(kcli_schemas.__path__[0])]\n"
               "print(json.dumps(sorted([n, bool(p), load_json(n, p)] for n, p in names if not n.startswith('_'))))")
    ours = _run(schemas.format(setup="import kcli.protocol; from kcli.protocol.startup import load_json"))
    theirs = _run(schemas.format(setup="from kafka.protocol.schemas.load_json import load_json"))
    assert json.loads(ours) == json.loads(theirs)
    assert len(json.loads(ours)) > 100
    assert _run("import sys, kcli.protocol, kafka.protocol.schemas as s, kcli.protocol.startup as k\n"
                "print(s.load_json is k.load_json, 'importlib.resources' in sys.modules)") == "True False"


CODECS = ("import builtins\n"
          "compiled, _compile = [], builtins.compile\n"
          "def counted(source, filename, *args, **kwargs):   # a cache miss, for generated code\n"
          "    compiled.extend([filename] if filename.startswith('<codegen') else [])\n"
          "    return _compile(source, filename, *args, **kwargs)\n"
          "builtins.compile = counted\n"
          "import kcli.protocol\n"
          "from kafka.protocol.metadata import MetadataRequest, MetadataResponse\n"
          "req = MetadataRequest(version=12, topics=[MetadataRequest.MetadataRequestTopic(name='t')])\n"
          "data = req.encode()\n"
          "name = MetadataRequest.decode(data, version=12).topics[0].name\n"
          "print(len(compiled), name, data.hex())")


def test_generated_codecs_compile_once_per_cache(tmp_path):
    """kafka-python's generated encoders and decoders are compiled by the first process only:
    the next one loads their code objects from kcli's cache (KCLI_CACHE_DIR); a damaged cache
    file is compiled again, the answer unchanged."""
    env = {**os.environ, "KCLI_CACHE_DIR": str(tmp_path)}

    def run():
        proc = subprocess.run([sys.executable, "-c", CODECS], capture_output=True, text=True, timeout=60, env=env)
        assert proc.returncode == 0, proc.stderr
        count, name, data = proc.stdout.split()
        return int(count), name, data

    cold = run()
    assert cold[0] == 2 and cold[1] == "t"          # the request's encoder and decoder
    assert run() == (0, *cold[1:])
    files = [f for f in (tmp_path / "codegen").rglob("*") if f.is_file() and not f.name.startswith("schema-")]
    assert len(files) == cold[0]
    for f in files:
        f.write_bytes(b"not marshal")
    assert run() == cold
    assert run() == (0, *cold[1:])


SCHEMAS = ("import sys\n"
           "import kcli.protocol\n"
           "from kcli.protocol.startup import load_json\n"
           "import kcli.protocol.schemas as own, test_schemas_pkg as pkg\n"
           "got = [load_json(n, p) for n, p in (('ListGroupsResponse', None), ('ConsumerGroupDescribeResponse', own),"
           " ('Made', pkg))]\n"
           "print(repr(['json' in sys.modules, got[0]['name'], got[1]['apiKey'], got[2]]))")


def test_parsed_schemas_are_kept_and_read_back_while_their_file_is_unchanged(tmp_path):
    """A schema is parsed by the first process and kept under kcli's cache (KCLI_CACHE_DIR): the
    next reads it back, without the json module (issue 28: a listing's start-up); a file changed
    since, or a damaged cache file, is parsed again."""
    pkg = tmp_path / "pkg" / "test_schemas_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    schema = pkg / "Made.json"
    schema.write_text('// a comment\n{"name": "Made", "fields": []}\n')
    env = {**os.environ, "KCLI_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.pathsep.join(
        [str(tmp_path / "pkg"), *filter(None, [os.environ.get("PYTHONPATH")]), os.getcwd()])}

    def run():
        proc = subprocess.run([sys.executable, "-c", SCHEMAS], capture_output=True, text=True, timeout=60, env=env)
        assert proc.returncode == 0, proc.stderr
        return ast.literal_eval(proc.stdout)           # our own repr of lists, dicts and strings

    made = {"name": "Made", "fields": [], "license": "// a comment\n"}
    assert run() == [True, "ListGroupsResponse", 69, made]          # parsed: json imported
    assert run() == [False, "ListGroupsResponse", 69, made]         # read back
    schema.write_text('{"name": "Made", "fields": [], "doc2": 1}\n')  # another size
    assert run() == [True, "ListGroupsResponse", 69, {"name": "Made", "fields": [], "doc2": 1}]
    for f in (tmp_path / "cache").rglob("schema-*"):
        f.write_bytes(b"not marshal")
    assert run() == [True, "ListGroupsResponse", 69, {"name": "Made", "fields": [], "doc2": 1}]
    assert run() == [False, "ListGroupsResponse", 69, {"name": "Made", "fields": [], "doc2": 1}]
