"""kcli against real Apache Kafka 4.4 over SASL_PLAINTEXT: ``--command-config`` with SCRAM-SHA-512
and PLAIN (the Java ``sasl.jaas.config`` form and librdkafka's keys) on both of kcli's client
paths (its own connection for describe topics, librdkafka for the rest); a wrong password ends
at once with the broker's reason. And the consumer library's KIP policies raising on 4.4 exactly
as documented."""

from __future__ import annotations

import json
import time

import pytest

from kcli.consumer import (Consumer, GroupCreationTimeNotAvailable, UnsupportedVersion, latest,
                           to_start_time)
from kcli.consumer.errors import BROKER_TOO_OLD
from tests.support.sasl import USERS as SASL_USERS
from tests.support.clients import consume_and_commit, create_topic, produce, unique
from tests.support.run import run_kcli, run_kcli_process

MODULES = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
           "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule"}


def properties(mechanism: str, form: str, password: str) -> str:
    if form == "jaas":
        return ("security.protocol=SASL_PLAINTEXT\n"
                f"sasl.mechanism={mechanism}\n"
                f"sasl.jaas.config={MODULES[mechanism]} required "
                f'username="alice" password="{password}";\n')
    return (f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism={mechanism}\n"
            f"sasl.username=alice\nsasl.password={password}\n")


@pytest.fixture(scope="module")
def data(apache_kafka):
    b = apache_kafka.bootstrap_servers
    topic, group = unique("secured"), unique("secured-g")
    create_topic(b, topic, partitions=2)
    produce(b, topic, [(0, "a", 1_700_000_001_000), (0, "b", 1_700_000_005_000),
                       (0, "c", 1_700_000_003_000), (1, "d", 1_700_000_002_000)])
    consume_and_commit(b, group, [topic], 4)
    return apache_kafka.sasl_bootstrap_servers, topic, group


@pytest.mark.parametrize("mechanism", list(MODULES))
@pytest.mark.parametrize("form", ["jaas", "keys"])
def test_command_config_on_both_client_paths(data, tmp_path, mechanism, form):
    b, topic, group = data
    cfg = tmp_path / "client.properties"
    cfg.write_text(properties(mechanism, form, SASL_USERS["alice"]))

    def kcli(*args, err=""):
        r = run_kcli(b, "--command-config", str(cfg), *args)
        assert (r.code, r.err) == (0, err), r
        return r.out

    doc = json.loads(kcli("-o", "json", "describe", "topics", topic))            # kcli's connection
    assert [p["partition"] for p in doc["topics"][0]["partitions"]] == [0, 1]
    doc = json.loads(kcli("-o", "json", "list-offsets", "-t", topic, "--max-timestamp"))  # librdkafka
    assert [(o["offset"], o["timestampMs"]) for o in doc["offsets"]] == [(1, 1_700_000_005_000),
                                                                         (0, 1_700_000_002_000)]
    lines = kcli("-o", "plain", "describe", "groups", group, "--state", "--verbose",   # both
                 err=f"\nConsumer group '{group}' has no active members.\n"
                     f"GROUP-CREATION-TIME is - for classic group(s) '{group}': creation times "
                     "exist for group.protocol=consumer groups (KIP-1282)\n").splitlines()
    assert lines[2].split()[-2:] == ["0", "-"]
    created = unique(f"made-{form}")
    assert kcli("create", "topic", created) == f"Created topic {created}.\n"


@pytest.mark.parametrize("mechanism", list(MODULES))
@pytest.mark.parametrize("command", [("describe", "topics"), ("list-offsets", "-t", "x"),
                                     ("describe", "groups", "g")])
def test_wrong_password_ends_at_once_with_the_brokers_reason(data, tmp_path, mechanism, command):
    b = data[0]
    cfg = tmp_path / "wrong.properties"
    cfg.write_text(properties(mechanism, "jaas", "not-the-password"))
    started = time.monotonic()
    r = run_kcli_process(b, "--command-config", str(cfg), "--timeout", "30s", *command, timeout=60)
    assert r.code == 1 and r.out == "", r
    assert r.err.startswith(f"Error: Cannot connect to the cluster at {b}: ") and r.err.count("\n") == 1, r.err
    assert "Authentication failed" in r.err, r.err
    assert "not-the-password" not in r.err
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("policy, error, message", [
    (to_start_time(), GroupCreationTimeNotAvailable, BROKER_TOO_OLD),
    (latest(max_age="5m"), UnsupportedVersion, "The broker does not support Metadata v14"),
])
def test_consumer_policies_raise_on_kafka_4_3(apache_kafka, policy, error, message):
    b = apache_kafka.bootstrap_servers
    topic = unique("policy")
    create_topic(b, topic)
    c = Consumer({"bootstrap.servers": b, "group.id": unique("policy-g"), "group.protocol": "consumer"},
                 start=policy)
    try:
        c.subscribe([topic])
        started = time.monotonic()
        with pytest.raises(error) as raised:
            for _ in range(200):                  # bounded: 200 polls of 0.1 s at most
                c.poll(0.1)
        assert str(raised.value).startswith(message)
        assert time.monotonic() - started < 15
        with pytest.raises(error):                # and every later poll raises again
            c.poll(0.1)
    finally:
        c.close()
