"""Start-up and exit of the kcli process: a command line imports only the module of the command it
runs (kcli.cli.tree.COMMANDS), help imports no client library, and only the process's own entry
point freezes the garbage collector before exiting. Checked in fresh interpreters, as kcli starts."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest
import typer

from kcli.cli.main import command_words, main
from kcli.cli.tree import ALIASES, COMMANDS


def _leaves(cmd, path=()):
    for name, sub in cmd.commands.items():
        if hasattr(sub, "commands"):
            yield from _leaves(sub, (*path, name))
        else:
            yield " ".join((*path, name)), sub.callback.__module__


def test_the_table_names_every_command_and_its_module():
    from kcli.cli.tree import build

    app = build()

    expected = {words: f"kcli.cli.{module}" for words, (module, _) in COMMANDS.items()}
    expected.update({alias: expected[target] for alias, target in ALIASES.items()})
    assert dict(_leaves(typer.main.get_command(app))) == expected


@pytest.mark.parametrize("args, words", [
    (["-b", "h:1", "--verbose", "describe", "topics", "t"], ["describe", "topics"]),
    (["--output=json", "list-offsets", "-t", "t"], ["list-offsets"]),
    (["--help"], []),
    (["describe", "--help"], ["describe"]),
])
def test_command_words(args, words):
    assert command_words(args) == words


def _at_exit(args: list[str], expression: str):
    """``expression`` evaluated when a fresh ``python -m kcli ARGS`` exits (in an atexit handler)."""
    code = ("import atexit, gc, json, runpy, sys\n"
            f"atexit.register(lambda: sys.__stdout__.write('\\n' + json.dumps({expression})))\n"
            f"sys.argv = ['kcli', *{args!r}]\n"
            "runpy.run_module('kcli', run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    return json.loads(proc.stdout.splitlines()[-1])


def _loaded_after(args: list[str]) -> set[str]:
    return set(_at_exit(args, "sorted(sys.modules)"))


def test_help_imports_no_client_library_nor_command_code():
    loaded = _loaded_after(["--help"])
    for heavy in ("confluent_kafka", "kafka", "rich", "kcli.model", "kcli.admin.client",
                  "kcli.admin.groups", "kcli.render.groups"):
        assert heavy not in loaded


def test_a_command_imports_its_own_module_only():
    loaded = _loaded_after(["describe", "topics", "-b", "127.0.0.1:1", "--timeout", "1ms"])
    assert {m for m in loaded if m.startswith("kcli.cli.") and m.count(".") == 2} == {
        "kcli.cli.tree", "kcli.cli.context", "kcli.cli.globals", "kcli.cli.main", "kcli.cli.topics",
        "kcli.cli.examples", "kcli.cli.dropin",     # the drop-ins' names only (no typer, no tool)
        "kcli.cli.params"}                          # the integer options' type (ASCII digits)
    assert not {m for m in loaded if m.startswith("kcli.cli.dropin.")}
    assert "kcli.admin.groups" not in loaded


def test_only_the_process_entry_point_freezes_the_collector_before_exit():
    assert _at_exit(["--version"], "gc.get_freeze_count() > 0") is True
    frozen = gc.get_freeze_count()
    with pytest.raises(SystemExit):
        main(["--version"])                      # in-process callers (tests, the demo) keep theirs
    assert gc.get_freeze_count() == frozen


def test_topic_and_offset_commands_declare_no_group_api_classes():
    """kcli.protocol declares the group APIs kafka-python lacks (ConsumerGroup*/StreamsGroup*)
    on first use: parsing their specs is start-up time that describe topics and list-offsets
    never need. So are DescribeTopicPartitions and the kafka-python messages whose modules
    declare many more than kcli sends: a reset dry run declares the messages it sends, not
    kafka.protocol.consumer.group's 14 classes for its OffsetFetch, nor
    describe topics kafka.protocol.admin.configs' 8 for its DescribeConfigs."""
    from kcli.broker import EmbeddedCluster
    from tests.support.clients import commit

    names = ("sorted(n for n in vars(sys.modules['kcli.protocol']) "
             "if n.endswith(('Request', 'Response')))")
    stock = "sorted(m for m in sys.modules if m.startswith('kafka.protocol.consumer.'))"
    with EmbeddedCluster(nodes=1) as c:
        b = c.bootstrap_servers
        c.create_topic("lean", partitions=2)
        commit(b, "lean-g", {("lean", 0): 0})
        configs_module = "'kafka.protocol.admin.configs' in sys.modules"
        assert _at_exit(["describe", "topics", "lean", "-b", b], f"[{names}, {configs_module}]") == [[
            "DescribeConfigsRequest", "DescribeConfigsResponse", "DescribeLogDirsRequest", "DescribeLogDirsResponse",
            "DescribeTopicPartitionsRequest", "DescribeTopicPartitionsResponse", "MetadataRequest",
            "MetadataResponse"], False]         # DescribeLogDirs: the SIZE column
        offsets = ["ListOffsetsRequest", "ListOffsetsResponse", "MetadataRequest", "MetadataResponse"]
        assert _at_exit(["list-offsets", "-t", "lean", "--max-timestamp", "-b", b], names) == offsets
        # nor the idna codec (a host name is looked up as bytes: kcli.admin.wire.connection)
        assert _at_exit(["kafka-get-offsets", "--bootstrap-server", b, "--topic", "lean"],
                        f"[{names}, {stock}, 'encodings.idna' in sys.modules]") == [offsets, [], False]
        reset = ["kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", "lean-g",
                 "--topic", "lean", "--to-earliest", "--dry-run"]
        assert _at_exit(reset, f"[{names}, {stock}]") == [[
            "ConsumerGroupDescribeRequest", "ConsumerGroupDescribeResponse", "ListOffsetsRequest",
            "ListOffsetsResponse", "MetadataRequest", "MetadataResponse", "OffsetFetchRequest",
            "OffsetFetchResponse"], []]
        counts = c.request_counts()[1]
        assert counts["DescribeTopicPartitions"] == 1 and counts["ListOffsets"] == 4 and counts["OffsetFetch"] == 1
    group = ("import kcli.protocol as p; print(p.ConsumerGroupDescribeResponse.__qualname__, "
             "p.RESPONSES[69] is p.ConsumerGroupDescribeResponse, p.REQUESTS[88] is p.StreamsGroupHeartbeatRequest)")
    proc = subprocess.run([sys.executable, "-c", group], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["ConsumerGroupDescribeResponse", "True", "True"], proc.stderr


# What a drop-in must not import: the CLI framework and librdkafka (these four do not need them),
# dataclasses (kcli.datatypes), email and http, kafka-python's module of every group message, csv
# (-o csv, reset files), and datetime but where a time is printed (describe topics'
# CreationTimeMs). Besides, nothing that kafka-python's protocol layer does not load itself
# (typing, pathlib, importlib.resources and json come with its schema loader: docs/upstream).
DROPIN_NEVER = ("typer", "click", "rich", "confluent_kafka", "dataclasses", "typing", "pathlib",
                "importlib.resources", "email", "http", "kafka.protocol.consumer.group", "csv")
PROTOCOL_LAYER = "import sys, kcli.protocol; print(' '.join(sorted(sys.modules)))"


def _protocol_layer_loads() -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROTOCOL_LAYER], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def test_the_dropins_import_none_of_what_they_do_not_need():
    from kcli.broker import EmbeddedCluster
    from tests.support.clients import commit

    layer = _protocol_layer_loads()
    assert "kafka.protocol.consumer.group" not in layer and "typer" not in layer

    def never(*more: str) -> str:
        names = tuple(m for m in (*DROPIN_NEVER, *more) if m not in layer)
        return f"sorted(m for m in {names!r} if m in sys.modules)"

    with EmbeddedCluster(nodes=1) as c:
        b = c.bootstrap_servers
        c.create_topic("lean", partitions=2)
        commit(b, "lean-g", {("lean", 0): 0})
        lines = [["kafka-topics", "--bootstrap-server", b, "--describe", "--topic", "lean"],
                 ["kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group", "lean-g", "--state",
                  "--verbose"],
                 ["kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", "lean-g",
                  "--topic", "lean", "--to-earliest", "--dry-run"],
                 ["kafka-get-offsets", "--bootstrap-server", b, "--topic", "lean"]]
        for line in lines:
            assert _at_exit(line, never() if "kafka-topics" in line else never("datetime")) == [], line


# A fresh process that runs a console script's entry point, with probes: an atexit handler, and an
# object whose finalizer runs only in the interpreter's teardown (when sys.modules is cleared).
_PROBED = ("import atexit, gc, sys, types\n"
           "class Probe:\n"
           "    def __del__(self): sys.__stderr__.write('teardown\\n')\n"
           "probe = types.ModuleType('_kcli_probe'); probe.kept = Probe(); sys.modules['_kcli_probe'] = probe\n"
           "atexit.register(lambda: sys.__stderr__.write(f'atexit frozen={{gc.get_freeze_count() > 0}}\\n'))\n"
           "sys.argv = ['kcli-x', *{args!r}]\n"
           "{entry}\n")


def _probed(entry: str, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _PROBED.format(entry=entry, args=args)], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_a_dropin_process_ends_as_every_python_process_does():
    """A drop-in's process (its console script, or ``kcli kafka-...``) ends with its exit code
    through the interpreter's own exit: atexit handlers, then the teardown; so do native
    commands. In-process callers are not ended."""
    script = "from kcli.cli.dropin import kafka_topics_main; kafka_topics_main()"
    native = "import runpy; runpy.run_module('kcli', run_name='__main__')"
    proc = _probed(script, ["--version"])
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "kcli 0.1.0\n", "atexit frozen=True\nteardown\n")
    proc = _probed(script, ["--bootstrap-server", "127.0.0.1:1", "--describe", "--partitions", "x"])
    assert proc.returncode == 2 and proc.stderr.endswith("atexit frozen=True\nteardown\n")
    proc = _probed(native, ["kafka-get-offsets", "--version"])
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "kcli 0.1.0\n", "atexit frozen=True\nteardown\n")
    proc = _probed(native, ["--version"])
    assert proc.returncode == 0 and proc.stderr == "atexit frozen=True\nteardown\n"
    proc = _probed("from kcli.cli.main import main\ntry:\n    main(['kafka-topics', '--version'])\n"
                   "except SystemExit as exc:\n    print('in-process', exc.code)", [])
    assert proc.stdout == "kcli 0.1.0\nin-process 0\n" and proc.stderr == "atexit frozen=False\nteardown\n"


def test_only_the_process_entry_collects_young_objects_less_often():
    """kcli's process (its console scripts, ``python -m kcli``) runs its command with a young
    collection every 50k allocations, not every 700: at 10k groups the collector walked the
    answers again and again. In-process callers keep their thresholds."""
    from kcli.cli.main import YOUNG_COLLECTION_THRESHOLD

    assert _at_exit(["--version"], "gc.get_threshold()") == [YOUNG_COLLECTION_THRESHOLD, 10, 10]
    assert _at_exit(["kafka-consumer-groups", "--version"], "gc.get_threshold()[0]") == YOUNG_COLLECTION_THRESHOLD
    before = gc.get_threshold()
    with pytest.raises(SystemExit):
        main(["--version"])
    assert gc.get_threshold() == before


def test_every_command_keeps_the_cyclic_collector_on():
    """kcli's process collects less often (above) but never turns the collector off: short
    commands, drop-ins and the long runners alike."""
    for line in (["--version"], ["kafka-consumer-groups", "--version"], ["list", "groups", "--help"],
                 ["-b", "127.0.0.1:1", "--timeout", "1ms", "describe", "topics", "t"], ["check", "broker", "--help"],
                 ["broker", "start", "--help"], ["demo", "--help"], ["audit", "timestamps", "--help"]):
        assert _at_exit(line, "gc.isenabled()") is True, line


def test_a_plain_group_listing_loads_no_csv_module():
    """-o plain writes no CSV: a group listing's start-up does not load the csv module; -o csv
    does. (json comes with kafka-python's schema loader, whatever the format.)"""
    from kcli.broker import EmbeddedCluster
    from tests.support.clients import commit

    with EmbeddedCluster(nodes=1) as c:
        b = c.bootstrap_servers
        c.create_topic("plain", partitions=1)
        commit(b, "plain-g", {("plain", 0): 0})
        csv_loaded = "'csv' in sys.modules"
        for args in (["list", "groups", "-b", b, "-o", "plain"],
                     ["describe", "groups", "plain-g", "-b", b, "-o", "plain", "--state"],
                     ["list", "groups", "-b", b, "-o", "json"]):
            assert _at_exit(args, csv_loaded) is False, args
        assert _at_exit(["list", "groups", "-b", b, "-o", "csv"], csv_loaded) is True
