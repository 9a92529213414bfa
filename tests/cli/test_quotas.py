"""kcli describe quotas / kcli alter quotas end to end on the embedded broker: users, client ids,
IPs and their defaults; a dry run the broker validates; bad input refused before any request."""

from __future__ import annotations

import json

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.run import run_kcli


@pytest.fixture(scope="module")
def ec():
    with EmbeddedCluster(nodes=1) as c:
        yield c


def _stored(ec):
    return ec.call(lambda: {e: dict(v) for e, v in ec.cluster.quotas.items()})


def test_alter_is_a_dry_run_until_execute_then_describe_shows_it(ec):
    b = ec.bootstrap_servers
    dry = run_kcli(b, "alter", "quotas", "--user", "alice", "--set", "producer_byte_rate=1048576")
    assert dry.code == 0, dry.err
    assert dry.out.startswith("Dry run: the broker accepts producer_byte_rate=1048576 for user=alice")
    assert (("user", "alice"),) not in _stored(ec)
    for args in (["--user", "alice", "--set", "producer_byte_rate=1048576,consumer_byte_rate=2048"],
                 ["--user", "alice", "--client", "app", "--set", "request_percentage=12.5"],
                 ["--user-default", "--set", "producer_byte_rate=100"],
                 ["--ip", "127.0.0.1", "--set", "connection_creation_rate=5"]):
        r = run_kcli(b, "alter", "quotas", *args, "--execute")
        assert r.code == 0, (args, r.err)
    assert _stored(ec)[(("user", "alice"),)] == {"producer_byte_rate": 1048576.0, "consumer_byte_rate": 2048.0}
    every = run_kcli(b, "describe", "quotas", "-o", "json")
    assert every.code == 0, every.err
    entities = [(tuple((p["type"], p["name"]) for p in e["entity"]), e["quotas"])
                for e in json.loads(every.out)["entities"]]
    assert entities == [
        ((("user", None),), {"producer_byte_rate": 100.0}),
        ((("user", "alice"),), {"consumer_byte_rate": 2048.0, "producer_byte_rate": 1048576.0}),
        ((("user", "alice"), ("client-id", "app")), {"request_percentage": 12.5}),
        ((("ip", "127.0.0.1"),), {"connection_creation_rate": 5.0}),
    ]
    alice = run_kcli(b, "describe", "quotas", "--user", "alice", "-o", "plain")
    assert alice.code == 0, alice.err
    rows = [line.split() for line in alice.out.splitlines()[1:] if line.strip()]
    assert ["user=alice", "producer_byte_rate", "1048576"] in rows
    assert ["user=alice,client-id=app", "request_percentage", "12.5"] in rows
    assert not any("127.0.0.1" in r[0] for r in rows)
    removed = run_kcli(b, "alter", "quotas", "--user", "alice", "--delete", "consumer_byte_rate", "--execute")
    assert removed.code == 0, removed.err
    assert _stored(ec)[(("user", "alice"),)] == {"producer_byte_rate": 1048576.0}


@pytest.mark.parametrize("args, message", [
    (["--set", "producer_byte_rate=1"], "Name the entity"),
    (["--user", "u", "--user-default", "--set", "producer_byte_rate=1"], "not both"),
    (["--ip", "1.2.3.4", "--user", "u", "--set", "connection_creation_rate=1"], "does not combine"),
    (["--user", "u", "--set", "connection_creation_rate=1"], "Unknown quota"),
    (["--ip", "1.2.3.4", "--set", "producer_byte_rate=1"], "Unknown quota"),
    (["--user", "u", "--set", "producer_byte_rate=1.5"], "positive whole number"),
    (["--user", "u", "--set", "request_percentage=-1"], "positive number"),
    (["--user", "u", "--set", "producer_byte_rate=abc"], "needs a number"),
    (["--user", "u"], "Nothing to change"),
])
def test_bad_input_is_refused_before_any_request(ec, args, message):
    before = ec.request_counts()
    r = run_kcli(ec.bootstrap_servers, "alter", "quotas", *args, "--execute")
    assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert ec.request_counts() == before
