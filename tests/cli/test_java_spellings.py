"""The Java tools' spellings on the native commands: ``--topic`` wherever a topic name or regex is
taken as an argument, ``--group`` wherever a group id is (both repeatable, mixed with the
arguments), and each command's noun in both numbers (``delete topic`` and ``delete topics``).
Through the real entry point, against the embedded broker, groups made by a real consumer."""

from __future__ import annotations

import json

import pytest

from kcli.broker import EmbeddedCluster
from kcli.cli.tree import ALIASES, COMMANDS
from tests.support.run import run_kcli
from tests.support.clients import consume_and_commit, create_topic, produce, unique


@pytest.fixture(scope="module")
def state():
    with EmbeddedCluster(nodes=1) as cluster:
        yield from _made(cluster)


def _made(cluster):
    b = cluster.bootstrap_servers
    topics = [unique("spell"), unique("spell")]
    for t in topics:
        create_topic(b, t, partitions=2)
        produce(b, t, [(p, f"r{p}") for p in (0, 1)])
    groups = [unique("spell-g"), unique("spell-g")]
    for g in groups:
        consume_and_commit(b, g, [topics[0]], 2)
    yield b, topics, groups


def _json(b, *args):
    r = run_kcli(b, *args, "-o", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_describe_groups_takes_group_options(state):
    b, _, groups = state
    by_argument = _json(b, "describe", "groups", *groups)
    assert _json(b, "describe", "groups", "--group", groups[0], "--group", groups[1]) == by_argument
    assert _json(b, "describe", "groups", groups[0], "-g", groups[1]) == by_argument
    r = run_kcli(b, "describe", "groups", "--group", groups[0], "--state")
    assert r.code == 0 and groups[0] in r.out and "--all-groups" not in r.err


def test_delete_groups_takes_group_options(state):
    b, topics, _ = state
    doomed = [unique("doomed"), unique("doomed")]
    for g in doomed:
        consume_and_commit(b, g, [topics[1]], 2)
    doc = _json(b, "delete", "groups", "--group", doomed[0], "--group", doomed[1])
    assert [(g["group"], g["deleted"]) for g in doc["groups"]] == [(g, True) for g in sorted(doomed)]


def test_topic_commands_take_topic_options(state):
    b, topics, _ = state
    pattern = topics[0][:-2] + ".."
    assert _json(b, "describe", "topics", "--topic", topics[0]) == _json(b, "describe", "topics", topics[0])
    both = _json(b, "describe", "topics", "--topic", topics[0], "-t", topics[1])
    assert [t["name"] for t in both["topics"]] == sorted(topics)
    assert _json(b, "list", "topics", "--topic", pattern)["topics"] == [topics[0]]

    new = unique("spell-new")
    assert _json(b, "create", "topic", "--topic", new, "--partitions", "1")["created"] is True
    doc = _json(b, "alter", "topics", "--topic", new, "--partitions", "3")
    assert doc["topics"][0]["topic"] == new
    assert _json(b, "describe", "topics", "--topic", new)["topics"][0]["partitionCount"] == 3
    assert _json(b, "delete", "topics", "--topic", new)["topics"] == [new]


def test_create_topic_takes_one_name_and_deletes_need_one():
    cases = [
        (["create", "topic", "a", "--topic", "b"], "create topic takes one topic name"),
        (["create", "topic"], "Name the new topic: a NEW-TOPIC argument or --topic"),
        (["delete", "topics"], "Name the topics: a TOPIC-REGEX argument or --topic"),
        (["alter", "topics", "--partitions", "2"], "Name the topics: a TOPIC-REGEX argument or --topic"),
        (["describe", "groups"], "Give one or more groups, or --all-groups"),
    ]
    for args, message in cases:
        r = run_kcli("127.0.0.1:1", *args)          # refused before any connection
        assert r.code == 2 and message in r.err, (args, r.err)


# Two-word commands whose second word is no noun of things named (broker start, lag serve, lag
# show), and the checks: one number only.
ONE_NUMBER = {"broker start", "check expansions", "check broker", "lag serve", "lag show"}


def test_every_two_word_command_has_its_nouns_other_number():
    """A new two-word command gets its noun's other number in ALIASES (kcli/cli/tree.py), or is
    named in ONE_NUMBER above."""
    for path in COMMANDS:
        if path.count(" ") != 1 or path in ONE_NUMBER:
            continue
        verb, noun = path.split()
        other = noun[:-1] if noun.endswith("s") else f"{noun}s"
        assert ALIASES.get(f"{verb} {other}") == path, f"no alias '{verb} {other}' for '{path}'"


def test_both_numbers_of_every_noun(state):
    b, topics, groups = state
    assert set(ALIASES.values()) <= set(COMMANDS)
    for alias, target in ALIASES.items():
        help_of_alias = run_kcli(None, *alias.split(), "--help")
        help_of_command = run_kcli(None, *target.split(), "--help")
        assert help_of_alias.code == help_of_command.code == 0
        usage = help_of_alias.out.replace(f"Usage: kcli {alias} ", f"Usage: kcli {target} ", 1)
        assert usage == help_of_command.out, alias
    assert _json(b, "describe", "topic", topics[0]) == _json(b, "describe", "topics", topics[0])
    assert _json(b, "describe", "group", groups[0]) == _json(b, "describe", "groups", groups[0])
    assert _json(b, "list", "group", "--state") == _json(b, "list", "groups", "--state")
    top = run_kcli(None, "--help").out + run_kcli(None, "delete", "--help").out
    assert "topics" in top and "delete topic " not in top   # the aliases are not listed


@pytest.mark.parametrize("words, option", [
    ("create topic", "--topic"), ("alter topics", "--topic"), ("delete topics", "--topic"),
    ("describe topics", "--topic"), ("list topics", "--topic"),
    ("describe groups", "--group"), ("delete groups", "--group"),
])
def test_help_shows_the_java_spelling(words, option):
    r = run_kcli(None, *words.split(), "--help")
    assert r.code == 0 and option in r.out


def _alias_cases(b, topics, groups):
    """For each alias: a function making the arguments that make it do real work, on state of
    its own where the command changes something."""
    t, g = topics[0], groups[0]

    def fresh_topic():
        name = unique("alias-t")
        create_topic(b, name, partitions=1)
        return name

    def fresh_group():
        name = unique("alias-g")
        consume_and_commit(b, name, [topics[1]], 2)
        return name

    return {
        "list topic": lambda: [], "list group": lambda: ["--state"],
        "describe topic": lambda: [t], "describe group": lambda: [g],
        "describe config": lambda: ["--topic", t], "describe clusters": lambda: [],
        "describe log-dir": lambda: ["--topic", t],
        "create topics": lambda: [unique("alias-new")],
        "alter topic": lambda: [fresh_topic(), "--partitions", "2"],
        "alter config": lambda: ["--topic", t, "--set", "retention.ms=86400000"],
        "delete topic": lambda: ["--topic", fresh_topic()],
        "delete group": lambda: [fresh_group()],
        "audit timestamp": None,               # Spark: its help is compared in the test above
        # the ACL and transaction commands: their help is compared above; they run on real Kafka
        # (tests/apache/test_kcli_acls.py, tests/apache/test_kcli_transactions.py)
        "list acl": None, "create acls": None, "delete acl": None,
        "list transaction": None, "describe transaction": None, "check transaction": None,
        "abort transactions": None,
        "reassign partition": lambda: ["--generate", "--topics", t, "--broker-list", "1"],
        "elect leader": lambda: ["--preferred", "--topic", t],
        "describe quota": lambda: [],
        "alter quota": lambda: ["--user", "alias-u", "--set", "producer_byte_rate=1000"],
    }


def _shape(doc):
    """A document with the names this test made fresh blanked out."""
    text = json.dumps(doc)
    for prefix in ("alias-t-", "alias-g-", "alias-new-"):
        while prefix in text:
            at = text.index(prefix)
            text = text[:at] + "NAME" + text[at + len(prefix) + 8:]
    doc = json.loads(text)
    if isinstance(doc, dict) and isinstance(doc.get("quorum"), dict):
        doc["quorum"] = _still(doc["quorum"])
    return doc


def _still(quorum):
    """A quorum without what a live one changes between two calls: the metadata log grows every
    500 ms, and each replica's last fetch and catch-up are the time of the call."""
    replicas = [{key: value for key, value in r.items()
                 if key not in ("logEndOffset", "lag", "lastFetch", "lastCaughtUp")}
                for r in quorum.get("replicas", [])]
    return {key: value for key, value in quorum.items()
            if key not in ("highWatermark", "maxFollowerLag", "maxFollowerLagTimeMs")} | {"replicas": replicas}


def test_every_alias_runs_end_to_end_with_global_options_first(state):
    b, topics, groups = state
    cases = _alias_cases(b, topics, groups)
    assert set(cases) == set(ALIASES)
    for alias, make in cases.items():
        if make is None:
            continue
        target = ALIASES[alias]
        by_alias = run_kcli(None, "-b", b, "-o", "json", *alias.split(), *make())
        by_command = run_kcli(None, "-b", b, "-o", "json", *target.split(), *make())
        assert by_alias.code == by_command.code == 0, (alias, by_alias.err, by_command.err)
        assert _shape(json.loads(by_alias.out)) == _shape(json.loads(by_command.out)), alias
