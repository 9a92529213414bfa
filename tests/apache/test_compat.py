"""The compatibility subset: kcli against the older Kafka release lines operators still run
(``COMPAT_VERSIONS``: 4.3.1, 3.9.1, 3.7.2; KRaft, one node each, started once per session), each
with the Java tools of the same release. The degraded paths (the KIP refusals), the plain views,
a reset's dry run and list-offsets (``--time -3``, KIP-734's max-timestamp, included), and the
drop-ins' stdout for a few corpus lines, compared with that release's tool.

The drop-ins mirror the newest release's tools (4.4); where an older tool prints something else
for the same state, the difference is declared here (``OLDER_TOOLS``) with the reason, and the
table of tested versions in docs/developing.md ("Real Apache Kafka in the tests") says it. An
undeclared difference, or a declared one that did not happen, fails."""

from __future__ import annotations

import json
import re
import time

import pytest

from kcli.ops.resets import TOO_OLD_FOR_START_TIME
from tests.support.apache_kafka import ToolSession, version_key
from tests.support.clients import commit, create_topic, produce, unique
from tests.support.run import run_dropin, run_kcli

PARTITIONS = 3

# case -> (the newest tested release whose tool prints otherwise, why): the older tools' stdout
# where it is not 4.4's for the same state (docs/developing.md's table of tested versions says it too)
OLDER_TOOLS: dict[str, tuple[str, str]] = {
    "topics-describe": ("3.7.2", "no `Elr:`/`LastKnownElr:` fields (KIP-966's, printed from 3.8)"),
    "groups-describe-members": ("3.7.2", "nothing on stdout for a group without members (4.x: "
                                          "the header)"),
    "groups-describe-state": ("3.9.1", "the 3.x layout: GROUP 25 wide, an empty ASSIGNMENT-STRATEGY "
                                       "blank, not `-`, STATE 15 wide"),
    **{case: ("3.9.1", "the 3.x dry-run table: 30-wide columns, rows not ended by a line break")
       for case in ("reset-to-earliest-dry-run", "reset-shift-by-dry-run", "reset-to-datetime-dry-run")},
}
# case -> (the newest tested release whose tool orders rows otherwise, why): the same lines, in
# an order that depends on the names (a HashMap's), compared as sets
OTHER_ORDER: dict[str, tuple[str, str]] = {
    "groups-describe": ("3.9.1", "rows in another order, which depends on the names"),
}
# KAFKA-16310: before 3.8, ListOffsets' max-timestamp gives the last offset of the batch that
# holds the record with the highest timestamp, not that record's offset (the timestamp is right)
MAX_TIMESTAMP_BATCH_END = ("3.7.2",)


def _lines(base: int, topic: str, group: str) -> dict[str, list[str]]:
    """The corpus lines the subset runs through both tools: tool, then its arguments."""
    return {
        "topics-describe": ["kafka-topics", "--describe", "--topic", topic],
        "groups-list": ["kafka-consumer-groups", "--list"],
        "groups-describe": ["kafka-consumer-groups", "--describe", "--group", group],
        "groups-describe-state": ["kafka-consumer-groups", "--describe", "--group", group, "--state"],
        "groups-describe-members": ["kafka-consumer-groups", "--describe", "--group", group, "--members"],
        "reset-to-earliest-dry-run": ["kafka-consumer-groups", "--reset-offsets", "--group", group,
                                      "--topic", topic, "--to-earliest", "--dry-run"],
        "reset-shift-by-dry-run": ["kafka-consumer-groups", "--reset-offsets", "--group", group,
                                   "--topic", topic, "--shift-by", "-1", "--dry-run"],
        "reset-to-datetime-dry-run": ["kafka-consumer-groups", "--reset-offsets", "--group", group,
                                      "--topic", topic, "--to-datetime",
                                      time.strftime("%Y-%m-%dT%H:%M:%S.000",
                                                    time.gmtime(base // 1000 + 1)), "--dry-run"],
        **{f"get-offsets-time{t}": ["kafka-get-offsets", "--topic", topic, "--time", t]
           for t in ("-1", "-2", "-3", str(base + 1150))},
        "configs-describe-topic": ["kafka-configs", "--describe", "--entity-type", "topics",
                                   "--entity-name", topic],
    }


@pytest.fixture
def compat(apache_kafka_compat, _compat_states):
    """The cluster of one older release with its state (made once per version): a topic of three
    partitions, record timestamps base + p*1000 + {0, 300, 100, 200} (offset 1 the highest,
    KIP-734), and a group (no members) that committed offsets 2, 2 and 4."""
    k = apache_kafka_compat
    if k.cluster_id not in _compat_states:       # a cluster started again (tests in random order) anew
        b = k.bootstrap_servers
        topic, group = unique("compat"), unique("compat-group")
        base = (int(time.time() * 1000) // 1000 - 3600) * 1000
        create_topic(b, topic, partitions=PARTITIONS)
        produce(b, topic, [(p, f"v{p}-{i}", base + p * 1000 + dt)
                           for p in range(PARTITIONS) for i, dt in enumerate((0, 300, 100, 200))])
        commit(b, group, {(topic, 0): 2, (topic, 1): 2, (topic, 2): 4})
        _compat_states[k.cluster_id] = (b, topic, group, base)
    return k, _compat_states[k.cluster_id]


@pytest.fixture(scope="session")
def _compat_states() -> dict:
    return {}


def test_the_release_is_the_one_asked_for(compat):
    k, (b, *_) = compat
    with ToolSession(version=k.version) as tools:
        r = tools.run("kafka-topics", "--version")
    assert (r.code, r.out.split()[0]) == (0, k.version)


def test_kip_refusals(compat):
    """None of these releases has the KIPs: kcli refuses --to-start-time (KIP-1282) with the
    KIP's error, resetting nothing; --max-age (KIP-1327) takes the safe side on partitions whose
    age nothing proves (hot, named); `-` where a KIP's column has no value."""
    k, (b, topic, group, _) = compat
    r = run_kcli(b, "reset-offsets", "--group", group, "--topic", topic, "--to-start-time", "--execute")
    assert (r.code, r.err) == (1, f"Error: {TOO_OLD_FOR_START_TIME}\n")
    r = run_kcli(b, "-o", "json", "reset-offsets", "--group", group, "--topic", topic, "--to-latest",
                 "--max-age", "5m")
    assert r.code == 0 and "no proven age for" in r.err, r.err
    assert {p["age"]["source"] for g in json.loads(r.out)["groups"] for p in g["partitions"]} == {"unknown"}
    r = run_dropin("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group",
                   group, "--topic", topic, "--to-start-time", "--dry-run")
    assert r.code == 1 and "Please upgrade the broker." in r.out, (r.out, r.err)
    r = run_kcli(b, "-o", "plain", "describe", "groups", group, "--state", "--verbose")
    header, row = r.out.splitlines()[1:]
    assert (r.code, header.split()[-1], row.split()[-1]) == (0, "GROUP-CREATION-TIME", "-"), r
    doc = json.loads(run_kcli(b, "-o", "json", "describe", "groups", group, "--state").out)
    assert doc["groups"][0]["groupCreationTimeMs"] is None
    r = run_kcli(b, "-o", "plain", "describe", "topics", topic)
    assert r.code == 0 and "CreationTimeMs" not in r.out, r          # KIP-1327: not on this broker
    # nothing was reset: the offsets are those committed
    doc = json.loads(run_kcli(b, "-o", "json", "describe", "groups", group, "--offsets").out)
    assert sorted((p["partition"], p["currentOffset"]) for g in doc["groups"] for p in g["partitions"]) == \
        [(0, 2), (1, 2), (2, 4)]


def test_list_offsets_max_timestamp(compat):
    """KIP-734 (ListOffsets v7, Kafka 3.0): every release here gives the offset of the record with
    the highest timestamp, and kcli its timestamp too."""
    k, (b, topic, _, base) = compat
    r = run_kcli(b, "-o", "json", "list-offsets", "-t", topic, "--max-timestamp")
    assert r.code == 0, r.err
    got = {o["partition"]: (o["offset"], o.get("timestampMs")) for o in json.loads(r.out)["offsets"]}
    offset = 3 if k.version in MAX_TIMESTAMP_BATCH_END else 1        # one batch of 4 per partition
    assert got == {p: (offset, base + p * 1000 + 300) for p in range(PARTITIONS)}


def _mask(out: str) -> str:
    """Ports and member/consumer ids that differ between two runs."""
    out = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", out)
    return out


def test_dropins_print_what_the_same_releases_tools_print(compat):
    """A few corpus lines through the Java tool of the cluster's release and through the drop-in:
    stdout and exit code the same, but for the declared differences of older tools."""
    k, (b, topic, group, base) = compat
    findings = []
    with ToolSession(version=k.version) as tools:
        for case, (tool, *args) in _lines(base, topic, group).items():
            java = tools.run(tool, "--bootstrap-server", b, *args)
            ours = run_dropin(tool, "--bootstrap-server", b, *args)
            same = (java.code, _mask(java.out)) == (ours.code, _mask(ours.out))
            if case in OTHER_ORDER and version_key(k.version) <= version_key(OTHER_ORDER[case][0]):
                same = (java.code, sorted(_mask(java.out).splitlines())) == \
                    (ours.code, sorted(_mask(ours.out).splitlines()))
            declared = case in OLDER_TOOLS and version_key(k.version) <= version_key(OLDER_TOOLS[case][0])
            if declared and same:
                findings.append(f"{case}: the declared difference did not happen on {k.version}")
            elif not declared and not same:
                findings.append(f"{case} on {k.version}: Java {java.code} {java.out!r} "
                                f"({java.err[-300:]!r}) / kcli {ours.code} {ours.out!r} ({ours.err[-300:]!r})")
    assert not findings, "\n".join(findings)
