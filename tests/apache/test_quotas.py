"""kcli alter/describe quotas on real Kafka 4.4: what kcli sets, Apache's kafka-configs reads, and
what kafka-configs sets, kcli reads; a dry run changes nothing."""

from __future__ import annotations

import json
import uuid

from tests.support.apache_kafka import java_tool
from tests.support.run import run_kcli


def test_quotas_set_by_kcli_are_what_kafka_configs_reads_and_back(apache_kafka):
    b = apache_kafka.bootstrap_servers
    user, client = f"u-{uuid.uuid4().hex[:8]}", f"c-{uuid.uuid4().hex[:8]}"
    dry = run_kcli(b, "alter", "quotas", "--user", user, "--set", "producer_byte_rate=1048576", timeout="30s")
    assert dry.code == 0 and dry.out.startswith("Dry run"), dry.out + dry.err
    look = ("--bootstrap-server", b, "--describe", "--entity-type", "users", "--entity-name", user)
    assert java_tool("kafka-configs", *look).out == ""                           # nothing set
    done = run_kcli(b, "alter", "quotas", "--user", user, "--set", "producer_byte_rate=1048576,request_percentage=12.5",
                    "--execute", timeout="30s")
    assert done.code == 0, done.err
    java = java_tool("kafka-configs", *look)
    assert java.code == 0, java.err
    assert java.out.startswith(f"Quota configs for user-principal '{user}' are ")
    assert set(java.out.split(" are ")[1].strip().split(", ")) == {"producer_byte_rate=1048576.0",
                                                                    "request_percentage=12.5"}
    set_by_java = java_tool("kafka-configs", "--bootstrap-server", b, "--alter", "--entity-type", "users",
                            "--entity-name", user, "--entity-type", "clients", "--entity-name", client,
                            "--add-config", "consumer_byte_rate=2048")
    assert set_by_java.code == 0, set_by_java.err
    mine = run_kcli(b, "-o", "json", "describe", "quotas", "--user", user, timeout="30s")
    assert mine.code == 0, mine.err
    entities = [([(p["type"], p["name"]) for p in e["entity"]], e["quotas"]) for e in json.loads(mine.out)["entities"]]
    assert entities == [([("user", user)], {"producer_byte_rate": 1048576.0, "request_percentage": 12.5}),
                        ([("user", user), ("client-id", client)], {"consumer_byte_rate": 2048.0})]
    # checked before any request: a quota is a positive number
    bad = run_kcli(b, "alter", "quotas", "--user", user, "--client", client, "--set", "request_percentage=0",
                   "--execute", timeout="30s")
    assert bad.code == 2 and "positive number" in bad.err
    for args in (["--user", user, "--delete", "producer_byte_rate,request_percentage"],
                 ["--user", user, "--client", client, "--delete", "consumer_byte_rate"]):
        assert run_kcli(b, "alter", "quotas", *args, "--execute", timeout="30s").code == 0
    assert json.loads(run_kcli(b, "-o", "json", "describe", "quotas", "--user", user).out)["entities"] == []
