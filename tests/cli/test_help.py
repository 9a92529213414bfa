"""Help for a first-time user: every option and argument says what it does, and every command's
``--help`` and man page end with 1-3 examples that are real: the ones that need a cluster run,
in order, against the embedded broker and succeed; the others (Spark, the broker itself, the
demo) are parsed by the command they belong to."""

from __future__ import annotations

import io
import shlex

import pytest
import typer

from kcli.broker import EmbeddedCluster
from kcli.cli.examples import EXAMPLES
from kcli.cli.globals import hoist
from kcli.cli.main import command_words
from kcli.cli.main import run as run_main
from kcli.cli.tree import COMMANDS, DROPINS, GROUPS, HIDDEN, build, canonical
from tests.support.run import run_kcli
from tests.support.clients import consume_and_commit, create_topic, produce

LEAVES = sorted(set(COMMANDS) - HIDDEN)
PARSED_ONLY = {"", "audit timestamps", "broker start", "demo", "completion",   # no cluster, or one of their own
               "lag serve",                                                 # runs until stopped
               # the ACL commands: this test's embedded broker has no users, so ACL requests answer
               # SECURITY_DISABLED; real Kafka runs them (tests/parity/test_acls_parity.py,
               # tests/apache/test_kcli_acls.py)
               "kafka-acls", "list acls", "create acl", "delete acls",
               # the transaction commands' examples name transactions this run does not open
               # (tests/apache/test_kcli_transactions.py runs them)
               "kafka-transactions", "list transactions", "describe transactions", "check transactions",
               "abort transaction",
               "reassign partitions",        # plan files: tests/cli/test_reassign.py runs each action
               "kafka-reassign-partitions"}  # plan files: tests/cli/test_reassign.py and tests/parity
# The cluster commands' examples, in an order in which each finds what it needs.
RUN_ORDER = ["create topic", "alter topics", "list topics", "describe topics", "describe cluster",
             "describe log-dirs", "describe configs",
             "alter configs", "list-offsets", "list groups", "describe groups", "lag show", "check expansions",
             "check broker", "elect leaders", "alter quotas", "describe quotas",
             *sorted(DROPINS - PARSED_ONLY), "reset-offsets", "delete-records", "delete-offsets", "delete groups",
             "delete topics"]


def _params():
    root = typer.main.get_command(build())

    def walk(cmd, path):
        for p in cmd.params:
            yield " ".join(path) or "kcli", p
        for name, sub in (getattr(cmd, "commands", None) or {}).items():
            if not sub.hidden:
                yield from walk(sub, [*path, name])

    return list(walk(root, []))


def test_every_option_and_argument_has_help_text():
    missing = [f"{path} {getattr(p, 'opts', None) or p.name}" for path, p in _params()
               if not (getattr(p, "help", None) or "").strip()]
    assert not missing, missing


def test_the_examples_cover_every_command_and_the_run_order_every_cluster_command():
    assert set(EXAMPLES) == set(LEAVES) | {""}
    assert all(1 <= len(examples) <= 3 for examples in EXAMPLES.values())
    assert sorted(RUN_ORDER) == sorted(set(LEAVES) - PARSED_ONLY)


@pytest.mark.parametrize("path", ["", *LEAVES])
def test_help_and_man_page_show_the_examples(path):
    """A drop-in's --help is its Java tool's, byte for byte: its examples are in the man page only."""
    if path in DROPINS:
        out, err = io.StringIO(), io.StringIO()
        run_main([path, "--help"], out, err)          # its exit code is the Java tool's (tests/parity)
        text = out.getvalue() + err.getvalue()
        # kafka-cluster's (argparse4j) lists its commands; their options are in each command's help
        assert "--bootstrap-server" in text or text.startswith(f"usage: {path} [-h]\n"), text
    else:
        r = run_kcli(None, *path.split(), "--help")
        assert r.code == 0
    examples = EXAMPLES[path]
    help_lines = [] if path in DROPINS else [line.strip() for line in r.out.split("Examples:", 1)[1].splitlines()]
    page = ("man/man1/kcli.1" if not path else f"man/man1/kcli-{path.replace(' ', '-')}.1")
    roff = open(page, encoding="utf-8").read()
    assert ".SH EXAMPLES" in roff
    for line, _ in examples:
        assert line.startswith(f"kcli {path}".strip()) or not path, line
        assert path in DROPINS or line in help_lines
        assert line.replace("-", "\\-") in roff


def _parses(line: str) -> None:
    """The example's options and values are what its command takes (click parses them)."""
    args = hoist(shlex.split(line)[1:])         # the global options first, then the command
    typed = command_words(args)
    root = typer.main.get_command(build(typed))
    start = args.index(typed[0])
    ctx = root.make_context("kcli", args[:start] + ["demo"])   # the global options parse
    cmd, used = root, 0
    for word in canonical(typed):
        if not hasattr(cmd, "commands"):
            break                                # a one-word command's argument (completion bash)
        cmd, used = cmd.commands[word], used + 1
    cmd.make_context(typed[used - 1], args[start + used:], parent=ctx)


@pytest.mark.parametrize("path", sorted(PARSED_ONLY))
def test_examples_without_a_cluster_parse(path):
    for line, _ in EXAMPLES[path]:
        _parses(line)


def test_cluster_examples_run_against_the_embedded_broker(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))       # reset-offsets --execute's rollback file
    monkeypatch.chdir(tmp_path)                                # kafka-delete-records' offsets.json
    (tmp_path / "offsets.json").write_text('{"partitions": [{"topic": "orders", "partition": 0, "offset": 0}]}')
    with EmbeddedCluster(nodes=3) as cluster:
        b = cluster.bootstrap_servers

        def run(path):
            for line, _ in EXAMPLES[path]:
                if path in DROPINS:            # the Java tool's command line: its own --bootstrap-server
                    out, err = io.StringIO(), io.StringIO()
                    code = run_main([a.replace("localhost:9092", b) for a in shlex.split(line)[1:]], out, err)
                    assert code == 0, (line, out.getvalue(), err.getvalue())
                    continue
                r = run_kcli(b, *shlex.split(line)[1:])
                assert r.code == 0, (line, r.err)

        run("create topic")
        for name in ("tmp-1", "tmp-2", "old-orders"):
            create_topic(b, name)
        produce(b, "orders", [(p, f"r{p}") for p in range(6)])
        consume_and_commit(b, "billing", ["orders"], 6, protocol="consumer")
        consume_and_commit(b, "billing-old", ["orders"], 6)
        for path in RUN_ORDER[1:]:
            run(path)


@pytest.mark.parametrize("group", ["", "list", "describe", "create", "alter", "delete", "broker", "audit", "check",
                                   "lag", "reassign", "elect"])
def test_command_summaries_are_whole_sentences_at_80_columns(group, monkeypatch):
    """``kcli --help`` and each group's: every command's summary whole (click cuts a long one
    with "..."), one sentence ending with a full stop."""
    monkeypatch.setenv("COLUMNS", "80")
    out, err = io.StringIO(), io.StringIO()
    assert run_main([*group.split(), "--help"], out, err) == 0
    rows = out.getvalue().split("\nCommands:\n")[1].split("\n\n")[0].splitlines()
    assert rows and all(len(row) <= 80 for row in rows), rows
    for row in rows:
        name, summary = row.split(None, 1)
        assert summary.endswith(".") and not summary.endswith("...") and summary.count(". ") == 0, row


# The groups whose commands are a verb and the noun of what it acts on (list topics).
NOUN_GROUPS = ("list", "describe", "create", "alter", "delete")


def test_each_verb_groups_help_names_every_noun_of_its_commands():
    """``kcli list --help`` says what can be listed (GROUPS in kcli/cli/tree.py): a command
    added to a group would otherwise be missing from its group's line."""
    assert set(GROUPS) == {path.split()[0] for path in COMMANDS if " " in path}
    for group in NOUN_GROUPS:
        nouns = {path.split()[1] for path in COMMANDS if path.startswith(f"{group} ")}
        assert nouns and all(noun.rstrip("s") in GROUPS[group].lower() for noun in nouns), (group, nouns)


@pytest.mark.parametrize("path", [p for p in LEAVES if p not in DROPINS])
def test_help_shows_no_integer_range(path, monkeypatch):
    """An int64 bound is noise in --help (``[-9223372036854775808<=x<=...]``): checked, not shown."""
    monkeypatch.setenv("COLUMNS", "100")
    out, err = io.StringIO(), io.StringIO()
    assert run_main([*path.split(), "--help"], out, err) == 0
    assert "<=x" not in out.getvalue() and "x>=" not in out.getvalue() and "int range" not in out.getvalue()


def test_an_offset_beyond_int64_is_still_refused():
    r = run_kcli(None, "reset-offsets", "--group", "g", "--topic", "t", "--to-offset", str(2**63))
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1 and "is out of range" in r.err, r
