"""One key style in every JSON document kcli prints: camelCase, as in the Java tools' own JSON
(``timestampMs``, ``logEndOffset``). Kafka config names (``retention.ms``) are data, not keys of
the document. Through the real entry point, against the embedded broker."""

from __future__ import annotations

import json
import re
import time

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.run import run_kcli
from tests.support.clients import consume_and_commit, create_topic, produce, unique

CAMEL = re.compile(r"[a-z][a-zA-Z0-9]*")
# maps keyed by data: Kafka config names; reset-offsets --compare's policies and its groups
DATA_MAPS = {"configs", "set", "policies", "unavailable"}


def _keys(doc, parent=None):
    if isinstance(doc, dict):
        for key, value in doc.items():
            if parent not in DATA_MAPS:
                yield key
            yield from _keys(value, key)
    elif isinstance(doc, list):
        for item in doc:                   # a list's objects are the document's own: checked
            yield from _keys(item, None)


@pytest.fixture(scope="module")
def made():
    from tests.support.groups import RawClient
    from tests.support.streams_wire import heartbeat, topology

    with EmbeddedCluster(nodes=1) as cluster:
        b = cluster.bootstrap_servers
        topic, group = unique("keys"), unique("keys-g")
        create_topic(b, topic, partitions=2, config={"retention.ms": "86400000"})
        produce(b, topic, [(0, "a"), (1, "b")])
        consume_and_commit(b, group, [topic], 2)
        # a streams group whose coordinator creates a changelog (the --state view's internalTopics)
        raw, node = RawClient(b), cluster.call(cluster.cluster.coordinator_node, "keys-app")
        joined = heartbeat(raw, node, "keys-app", "m1", 0, topo=topology(topic, changelog="keys-app-store-changelog"))
        for _ in range(50):                                  # bounded: the changelog is created on a heartbeat
            heartbeat(raw, node, "keys-app", "m1", joined.member_epoch, active=[])
            if "keys-app-store-changelog" in cluster.call(lambda: set(cluster.cluster.topics)):
                break
            time.sleep(0.1)
        yield b, topic, group


def test_every_document_uses_camel_case_keys(made):
    b, topic, group = made
    commands = [
        ["list", "topics"], ["describe", "topics", topic], ["describe", "topics", "--topics-with-overrides"],
        ["list", "groups", "--state"], ["describe", "groups", group],
        ["describe", "groups", group, "--state"], ["describe", "groups", group, "--members", "--verbose"],
        ["list-offsets", "-t", topic, "--time", "max-timestamp"],
        ["describe", "configs", "--topic", topic],
        ["alter", "configs", "--topic", topic, "--set", "retention.ms=3600000"],
        ["reset-offsets", "-g", group, "-t", topic, "--to-earliest"],
        ["alter", "topics", topic, "--partitions", "3"],
        ["create", "topic", unique("keys-new")],
        ["describe", "groups", group, "--time-lag"],
        ["reset-offsets", "-g", group, "-t", topic, "--compare"],
        ["check", "expansions"],                    # exit 4 when it finds something
        ["check", "broker"],
        ["delete-records", "-t", f"{topic}:0=-1"],
        ["describe", "cluster"], ["describe", "log-dirs", "--topic", topic],
        ["describe", "groups", "keys-app", "--state"],
    ]
    keys: set[str] = set()
    for args in commands:
        r = run_kcli(b, *args, "-o", "json")
        assert r.code in ((0, 4) if args[0] == "check" else (0,)), (args, r.err)
        doc = json.loads(r.out)
        bad = [k for k in _keys(doc) if not CAMEL.fullmatch(k)]
        assert not bad, (args, bad)
        keys.update(_keys(doc))
    assert "sizeBytes" in keys                                  # describe topics' SIZE
    (state,) = json.loads(run_kcli(b, "describe", "groups", "keys-app", "--state", "-o", "json").out)["groups"]
    assert [sorted(t) for t in state["internalTopics"]] == [["partitions", "records", "sizeBytes", "topic"]], state
    assert json.loads(run_kcli(b, "alter", "topics", topic, "--partitions", "4", "-o", "json").out)[
        "topics"][0] == {"topic": topic, "partitionsBefore": 3, "partitionsAfter": 4}


def test_error_document_and_changed_schemas_say_v2():
    r = run_kcli("127.0.0.1:1", "list-offsets", "-t", "x", "--time", "nonsense", "-o", "json")
    doc = json.loads(r.err)
    assert r.code == 2 and doc["schema"] == "kcli.error/v2" and doc["exitCode"] == 2
    assert all(CAMEL.fullmatch(k) for k in doc)
