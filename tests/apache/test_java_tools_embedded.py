"""Apache Kafka 4.4's own tools (kafka-topics, kafka-consumer-groups, kafka-get-offsets),
unmodified, against kcli's embedded broker.

Every command (``commands``) runs against a 1-node ``EmbeddedCluster`` and against real Kafka
(the ``apache_kafka`` session fixture, one node as well), on the same state made by the same
confluent-kafka code (``make_state``). Their results (exit code, stdout, stderr) must be equal
once ``mask`` has hidden what differs between any two clusters. Each test also checks the
output against the produced data, so two equally wrong answers cannot pass. The commands of a
cluster run in one JVM (``java/ToolRunner.java``): a JVM start per command would take minutes.
"""

from __future__ import annotations

import json
import re
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import pytest

from tests.support.groups import fast_cluster
from tests.support.apache_kafka import TOOL_RUNNER, TOOLS, java
from tests.support.clients import (active_member, commit, consume_and_commit, create_topic,
                                   produce, unique)

MINUTE = 60_000
# Record timestamps start an hour ago, on a whole minute: well within the default retention
# (7 days), which real Kafka enforces on old timestamps and the embedded broker does not.
T0 = (int(time.time() * 1000) - 60 * MINUTE) // MINUTE * MINUTE
# (partition, value, timestamp) of the orders topic, produced in this order. Partition 0's last
# record is older than its maximum (max-timestamp is not the last offset); partition 2 stays empty.
ORDERS = [(0, "o0", T0), (1, "o1", T0 + 1 * MINUTE), (0, "o2", T0 + 2 * MINUTE),
          (1, "o3", T0 + 3 * MINUTE), (0, "o4", T0 + 5 * MINUTE), (1, "o5", T0 + 4 * MINUTE),
          (0, "o6", T0 + 4 * MINUTE)]
ORDERS_PARTITIONS = 3
AUDIT = [(0, "a0", T0), (0, "a1", T0 + 1_000)]

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_BASE64_ID = r"(?<!\S)[A-Za-z0-9+/_-]{22}(?!\S)"


def mask(text: str) -> str:
    """Hides what differs between two clusters that saw the same operations:
    - ports (``127.0.0.1:PORT``), and the time prefix of log lines;
    - ids: topic ids and consumer-protocol member ids (22-character base64 UUIDs between
      blanks; every name in these tests is longer, see ``Names``), classic member ids
      (``<client.id>-<UUID>``);
    - column padding: the tools size columns to the longest value, so a masked id of another
      length moves the columns; runs of spaces count as one.
    """
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    text = re.sub(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\]", "[TIME]", text, flags=re.M)
    text = re.sub(_UUID, "UUID", text)
    text = re.sub(_BASE64_ID, "ID", text)
    return re.sub(r" +", " ", text)


@dataclass(frozen=True)
class Names:
    """This module's topics and groups, the same on both clusters. The prefix makes every name
    longer than 22 characters, so ``mask`` never takes a name for an id."""
    prefix: str

    def __getattr__(self, suffix: str) -> str:
        if suffix.startswith("_"):
            raise AttributeError(suffix)
        return f"{self.prefix}-{suffix.replace('_', '-')}"


def make_state(bootstrap: str, n: Names) -> None:
    """The state every test reads, made alike on both clusters: two topics with records, and
    groups that consumed and left (classic and consumer protocol) or only committed."""
    create_topic(bootstrap, n.orders, ORDERS_PARTITIONS)
    create_topic(bootstrap, n.audit, 1)
    produce(bootstrap, n.orders, ORDERS)
    produce(bootstrap, n.audit, AUDIT)
    consume_and_commit(bootstrap, n.classic_done, [n.orders], len(ORDERS), "classic")
    consume_and_commit(bootstrap, n.consumer_done, [n.orders, n.audit], len(ORDERS) + len(AUDIT),
                       "consumer")
    consume_and_commit(bootstrap, n.consumer_reset, [n.orders], len(ORDERS), "consumer")
    commit(bootstrap, n.simple, {(n.orders, 0): 2, (n.orders, 1): 1})
    commit(bootstrap, n.simple_reset, {(n.orders, 0): 1})
    commit(bootstrap, n.doomed, {(n.audit, 0): 1})


# -- what the produced data says --------------------------------------------------------------

def timestamps() -> dict[int, list[int]]:
    """partition of orders -> the timestamps of its records, in offset order."""
    by_partition: dict[int, list[int]] = {p: [] for p in range(ORDERS_PARTITIONS)}
    for partition, _, ts in ORDERS:
        by_partition[partition].append(ts)
    return by_partition


def end_offsets() -> dict[int, int]:
    return {p: len(ts) for p, ts in timestamps().items()}


def first_offset_at(timestamp: int) -> dict[int, int]:
    """partition -> the first offset whose timestamp is at or after ``timestamp`` (absent: none)."""
    return {p: next(o for o, t in enumerate(ts) if t >= timestamp)
            for p, ts in timestamps().items() if any(t >= timestamp for t in ts)}


def max_timestamp_offsets() -> dict[int, int]:
    return {p: ts.index(max(ts)) for p, ts in timestamps().items() if ts}


# -- running the tools on both clusters -------------------------------------------------------

RUNNER = TOOL_RUNNER


def commands(n: Names) -> dict[str, list[str]]:
    """Every command of this module by the name its test looks it up with, in the order they
    run; each cluster runs the same list, while ``live_members`` are in their groups."""
    cg = "kafka-consumer-groups"
    topic = n.topics_tool
    resets = (n.consumer_reset, n.simple_reset)
    both_resets = [a for g in resets for a in ("--group", g)]
    described = [n.classic_done, n.consumer_done, n.simple, n.classic_live, n.consumer_live]
    return {
        "topics-create": ["kafka-topics", "--create", "--topic", topic, "--partitions", "2",
                          "--replication-factor", "1", "--config", "retention.ms=86400000"],
        "topics-create-again": ["kafka-topics", "--create", "--topic", topic, "--partitions", "2"],
        "topics-describe": ["kafka-topics", "--describe", "--topic", topic],
        "topics-alter": ["kafka-topics", "--alter", "--topic", topic, "--partitions", "3"],
        "topics-describe-altered": ["kafka-topics", "--describe", "--topic", topic],
        "topics-alter-down": ["kafka-topics", "--alter", "--topic", topic, "--partitions", "2"],
        "topics-list": ["kafka-topics", "--list", "--topic", topic],
        "topics-delete": ["kafka-topics", "--delete", "--topic", topic],
        "topics-describe-deleted": ["kafka-topics", "--describe", "--topic", topic],
        "topics-bad-config": ["kafka-topics", "--create", "--topic", n.placed, "--config",
                              "retention.ms=abc"],
        "topics-if-not-exists": ["kafka-topics", "--create", "--if-not-exists", "--topic", n.orders],
        "topics-create-placed": ["kafka-topics", "--create", "--topic", n.placed,
                                 "--replica-assignment", "1,1"],
        "topics-alter-placed": ["kafka-topics", "--alter", "--topic", n.placed, "--partitions", "3",
                                "--replica-assignment", "1,1,1"],
        "topics-with-overrides": ["kafka-topics", "--describe", "--topics-with-overrides",
                                  "--topic", n.placed],
        "topics-under-replicated": ["kafka-topics", "--describe", "--under-replicated-partitions",
                                    "--topic", n.placed],
        "configs-alter": ["kafka-configs", "--alter", "--entity-type", "topics", "--entity-name",
                          n.placed, "--add-config", "retention.ms=1000,cleanup.policy=[compact,delete]"],
        "configs-describe": ["kafka-configs", "--describe", "--entity-type", "topics",
                             "--entity-name", n.placed],
        "configs-delete": ["kafka-configs", "--alter", "--entity-type", "topics", "--entity-name",
                           n.placed, "--delete-config", "retention.ms"],
        "configs-describe-deleted": ["kafka-configs", "--describe", "--entity-type", "topics",
                                     "--entity-name", n.placed],
        "configs-invalid": ["kafka-configs", "--alter", "--entity-type", "topics", "--entity-name",
                            n.placed, "--add-config", "retention.ms=abc"],
        "configs-cluster-default": ["kafka-configs", "--describe", "--entity-type", "brokers",
                                    "--entity-default"],
        "configs-broker": ["kafka-configs", "--describe", "--entity-type", "brokers",
                           "--entity-name", "1"],
        **{f"offsets-{name}": ["kafka-get-offsets", "--topic", n.orders, "--time", time_]
           for name, (time_, _) in GET_OFFSETS.items()},
        "offsets-topic-partitions": ["kafka-get-offsets", "--topic-partitions",
                                     f"{n.orders}:1-,{n.audit}"],
        "offsets-partitions": ["kafka-get-offsets", "--topic", n.orders, "--partitions", "1,2",
                               "--time", "max-timestamp"],
        **{f"list-{name}": [cg, "--list", *view] for name, view in LIST_VIEWS.items()},
        **{f"describe-{name}": [cg, "--describe", *(a for g in described for a in ("--group", g)),
                                *view] for name, view in DESCRIBE_VIEWS.items()},
        "reset-live": [cg, "--reset-offsets", "--group", n.consumer_live, "--topic", n.orders,
                       "--to-earliest", "--execute"],
        **{f"reset-{i}": [cg, "--reset-offsets", *both_resets, *args, "--execute"]
           for i, (args, _) in enumerate(reset_scenarios(n))},
        "reset-describe": [cg, "--describe", *both_resets],
        "reset-dry-run": [cg, "--reset-offsets", "--group", n.simple, "--topic", n.orders,
                          "--to-earliest"],
        "reset-export": [cg, "--reset-offsets", "--group", n.simple, "--all-topics", "--to-latest",
                         "--dry-run", "--export"],
        "reset-dry-describe": [cg, "--describe", "--group", n.simple],
        "delete-offsets": [cg, "--delete-offsets", "--group", n.doomed, "--topic", f"{n.audit}:0"],
        "delete-offsets-live": [cg, "--delete-offsets", "--group", n.consumer_live, "--topic", n.orders],
        "delete": [cg, "--delete", "--group", n.doomed],
        "delete-again-and-live": [cg, "--delete", "--group", n.consumer_live, "--group", n.doomed],
        "describe-deleted": [cg, "--describe", "--group", n.doomed],
    }


def run_tools(bootstrap: str, batch: dict[str, list[str]]) -> dict[str, tuple[int, str, str]]:
    """Each command's (exit code, stdout, stderr), masked, all run by one JVM (ToolRunner)."""
    stdin = "".join(json.dumps([TOOLS[tool], "--bootstrap-server", bootstrap, *args]) + "\n"
                    for tool, *args in batch.values())
    r = java(RUNNER, stdin=stdin, timeout=240)
    results = [json.loads(line) for line in r.out.splitlines()]
    assert r.code == 0 and len(results) == len(batch), f"ToolRunner failed: {r.err[-3000:]}"
    return {name: (res["code"], mask(res["out"]), mask(res["err"]))
            for name, res in zip(batch, results)}


@contextmanager
def live_members(clusters: dict[str, str], n: Names):
    """Members that stay in their groups while the tools run, on both clusters: one classic
    member reading orders, one consumer-protocol member reading orders and audit."""
    with ExitStack() as stack:
        for bootstrap in clusters.values():
            stack.enter_context(active_member(bootstrap, n.classic_live, [n.orders], "classic",
                                              partitions=ORDERS_PARTITIONS))
            stack.enter_context(active_member(bootstrap, n.consumer_live, [n.orders, n.audit],
                                              "consumer", partitions=ORDERS_PARTITIONS + 1))
        yield


def lines_in_any_order(out: str) -> str:
    """A plan of two groups: when both ids fall in one bucket of the tool's HashMap, their order
    follows the admin client's describe results, keyed by an enum's identity hash: it differs
    from one JVM to the next, on any broker."""
    return "\n".join(sorted(out.splitlines()))


@dataclass
class Results:
    names: Names
    by_cluster: dict[str, dict[str, tuple[int, str, str]]]     # "embedded" / "kafka" -> results

    def __call__(self, command: str, select=lambda out: out) -> tuple[int, str, str]:
        """The command's masked result, once it is the same on both clusters (``select``: the
        part of stdout that is compared)."""
        (code, out, err), (kcode, kout, kerr) = (
            self.by_cluster[c][command] for c in ("embedded", "kafka"))
        assert (code, select(out), err) == (kcode, select(kout), kerr), \
            f"{command}: embedded broker vs Apache Kafka"
        return code, select(out), err


@pytest.fixture(scope="module")
def tools(apache_kafka):
    names = Names(unique("java-tools"))
    batch = commands(names)
    with fast_cluster(nodes=1) as embedded:
        clusters = {"embedded": embedded.bootstrap_servers, "kafka": apache_kafka.bootstrap_servers}
        for bootstrap in clusters.values():
            make_state(bootstrap, names)
        with live_members(clusters, names):
            return Results(names, {c: run_tools(b, batch) for c, b in clusters.items()})


def rows(out: str, first_column: str) -> list[list[str]]:
    """The table rows of a tool's output whose first cell is ``first_column``."""
    return [line.split() for line in out.splitlines() if line.split()[:1] == [first_column]]


# -- kafka-topics -----------------------------------------------------------------------------

def test_kafka_topics_create_describe_alter_delete(tools):
    topic = tools.names.topics_tool
    assert tools("topics-create")[:2] == (0, f"Created topic {topic}.\n")
    code, out, _ = tools("topics-create-again")
    assert code == 1 and f"Topic '{topic}' already exists." in out

    _, out, _ = tools("topics-describe")
    summary = out.splitlines()[0]
    assert summary.startswith(f"Topic: {topic}\tTopicId: ID\tPartitionCount: 2\tReplicationFactor: 1\t")
    assert "retention.ms=86400000" in summary.split("\tConfigs: ")[1].split(",")
    assert [line.split("\t")[2] for line in out.splitlines()[1:]] == ["Partition: 0", "Partition: 1"]

    assert tools("topics-alter")[:2] == (0, "")
    _, out, _ = tools("topics-describe-altered")
    assert "PartitionCount: 3" in out and "\tPartition: 2\tLeader: 1\tReplicas: 1\tIsr: 1" in out
    code, out, _ = tools("topics-alter-down")
    assert code == 1 and "would not be an increase" in out

    assert tools("topics-list")[1] == f"{topic}\n"
    assert tools("topics-delete")[:2] == (0, "")
    code, out, _ = tools("topics-describe-deleted")
    assert code == 1 and f"Topic '{topic}' does not exist as expected" in out


def test_kafka_topics_options(tools):
    topic = tools.names.placed
    code, out, _ = tools("topics-bad-config")
    assert code == 1 and "Invalid value abc for configuration retention.ms" in out
    assert tools("topics-if-not-exists")[:2] == (0, "")
    assert tools("topics-create-placed")[:2] == (0, f"Created topic {topic}.\n")
    assert tools("topics-alter-placed")[:2] == (0, "")
    # Every topic of a 4.3 cluster has a non-default config: the cluster-level min.insync.replicas
    _, out, _ = tools("topics-with-overrides")
    assert out == f"Topic: {topic}\tTopicId: ID\tPartitionCount: 3\tReplicationFactor: 1\t" \
                  "Configs: min.insync.replicas=1\n"
    assert tools("topics-under-replicated")[:2] == (0, "")


def test_kafka_configs_of_a_topic_and_the_cluster(tools):
    """kafka-configs found two differences in the config synonyms the broker described (their
    regression test: tests/broker/test_core_protocol.py); the topic and broker views here."""
    topic = tools.names.placed
    assert tools("configs-alter")[:2] == (0, f"Completed updating config for topic {topic}.\n")
    _, out, _ = tools("configs-describe")
    assert [line.split()[0] for line in out.splitlines()[1:]] == \
        ["cleanup.policy=compact,delete", "retention.ms=1000"]
    assert tools("configs-delete")[0] == 0
    _, out, _ = tools("configs-describe-deleted")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["cleanup.policy=compact,delete"]
    code, _, err = tools("configs-invalid")
    assert code == 1 and "InvalidConfigurationException: Invalid value abc" in err
    _, out, _ = tools("configs-cluster-default")
    assert out.splitlines()[1:] == [" min.insync.replicas=1 sensitive=false "
                                    "synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1}"]
    assert tools("configs-broker")[1] == "Dynamic configs for broker 1 are:\n"


# -- kafka-get-offsets ------------------------------------------------------------------------

GET_OFFSETS = {       # --time, and the offsets the produced data says it finds
    "latest": ("latest", end_offsets()),
    "earliest": ("earliest", {p: 0 for p in range(ORDERS_PARTITIONS)}),
    "max-timestamp": ("max-timestamp", max_timestamp_offsets()),
    "between": (str(T0 + 150_000), first_offset_at(T0 + 150_000)),
    "exact": (str(T0 + 4 * MINUTE), first_offset_at(T0 + 4 * MINUTE)),
    "after-all": (str(T0 + 10 * MINUTE), {}),          # after every record: no offset
    "earliest-local": ("-4", {p: 0 for p in range(ORDERS_PARTITIONS)}),
    "latest-tiered": ("-5", {}),                       # no tiered storage: no offset
    "earliest-pending-upload": ("-6", {}),
}


@pytest.mark.parametrize("name", GET_OFFSETS)
def test_kafka_get_offsets(tools, name):
    topic = tools.names.orders
    code, out, _ = tools(f"offsets-{name}")
    assert code == 0
    assert out == "".join(f"{topic}:{p}:{o}\n" for p, o in sorted(GET_OFFSETS[name][1].items()))


def test_kafka_get_offsets_partition_selection(tools):
    n = tools.names
    ends = end_offsets()
    _, out, _ = tools("offsets-topic-partitions")
    assert out == f"{n.audit}:0:{len(AUDIT)}\n" + "".join(f"{n.orders}:{p}:{ends[p]}\n" for p in (1, 2))
    _, out, _ = tools("offsets-partitions")
    assert out == f"{n.orders}:1:{max_timestamp_offsets()[1]}\n"         # 2 is empty: no offset


# -- kafka-consumer-groups --------------------------------------------------------------------

LIST_VIEWS = {"plain": (), "state": ("--state",), "type": ("--type",),
              "state-type": ("--state", "--type"), "only-stable": ("--state", "Stable")}


@pytest.mark.parametrize("view", LIST_VIEWS)
def test_list_groups(tools, view):
    n = tools.names

    def ours(out: str) -> list[str]:
        """The header and the lines naming this module's groups (the real cluster is shared with
        other test modules), sorted after the header: the tool prints the HashMap the admin
        client collects the listings in (KafkaAdminClient.ListGroupsResults), whose order among
        keys of one bucket is the broker's response order, which no contract fixes (Kafka
        answers shard by shard, the embedded broker by group id)."""
        lines = out.splitlines()
        return [line for line in lines[:1] if line.startswith("GROUP ")] + \
            sorted(line for line in lines if line.startswith(n.prefix))

    code, listing, _ = tools(f"list-{view}", select=ours)
    assert code == 0
    listed = {line.split()[0]: line.split()[1:] for line in listing[1 if LIST_VIEWS[view] else 0:]}
    if view == "only-stable":
        assert listed == {n.classic_live: ["Stable"], n.consumer_live: ["Stable"]}
        return
    assert {n.classic_done, n.consumer_done, n.simple, n.classic_live, n.consumer_live} <= set(listed)
    if view == "state-type":
        assert listed[n.consumer_live] == ["Consumer", "Stable"]
        assert listed[n.classic_done] == ["Classic", "Empty"]


DESCRIBE_VIEWS = {"default": (), "offsets": ("--offsets",), "default-verbose": ("--verbose",),
                  "members": ("--members",), "members-verbose": ("--members", "--verbose"),
                  "state": ("--state",), "state-verbose": ("--state", "--verbose")}


@pytest.mark.parametrize("view", DESCRIBE_VIEWS)
def test_describe_groups(tools, view):
    """Every view of five groups in one command: empty classic and consumer-protocol groups, a
    group that only committed, and one live member of each protocol."""
    n = tools.names
    code, out, err = tools(f"describe-{view}")
    assert code == 0
    for g in (n.classic_done, n.consumer_done, n.simple):
        assert f"Consumer group '{g}' has no active members." in err
    if view in ("default", "offsets", "default-verbose"):
        column = 4 if view == "default-verbose" else 3   # CURRENT-OFFSET, after LEADER-EPOCH
        current = {(r[0], int(r[2])): r[column] for r in rows(out, n.classic_done) + rows(out, n.simple)}
        assert current == {**{(n.classic_done, p): str(o) for p, o in end_offsets().items() if o},
                           (n.simple, 0): "2", (n.simple, 1): "1"}
    if view == "members-verbose":
        [member] = rows(out, n.consumer_live)
        assignment = f"{n.audit}:0;{n.orders}:0,1,2"
        assert member[1:] == ["ID", "/127.0.0.1", "rdkafka", str(ORDERS_PARTITIONS + 1), "2",
                              assignment, "2", assignment]
    if view.startswith("state"):
        assert rows(out, n.consumer_live)[0][1:5] == ["127.0.0.1:PORT", "(1)", "uniform", "Stable"]


def _datetime(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def reset_scenarios(n: Names) -> list[tuple[tuple[str, ...], dict[int, int]]]:
    """(arguments, the offsets the produced data says each partition of orders is reset to), in
    the order they run (--shift-by moves from the previous scenario's offsets)."""
    end = end_offsets()
    at = first_offset_at(T0 + 150_000)
    return [
        (("--topic", n.orders, "--to-earliest"), {p: 0 for p in end}),
        (("--topic", n.orders, "--to-datetime", _datetime(T0 + 150_000)), {**end, **at}),
        (("--topic", n.orders, "--shift-by", "-1"), {p: max(at.get(p, end[p]) - 1, 0) for p in end}),
        (("--topic", f"{n.orders}:0,2", "--to-offset", "1"), {0: 1, 2: 0}),   # 2 is empty: its end
        (("--all-topics", "--to-latest"), end),
        (("--topic", n.orders, "--by-duration", "P1D"), {p: 0 for p in end}),  # before every record
    ]


def test_reset_offsets_execute(tools):
    """Resets of an empty consumer-protocol group and of a group that only committed, both in
    each command; each plan printed must be what the produced data says."""
    n = tools.names
    groups = (n.consumer_reset, n.simple_reset)
    for i, (args, expected) in enumerate(reset_scenarios(n)):
        code, out, _ = tools(f"reset-{i}", select=lines_in_any_order)
        assert code == 0
        assert {(r[0], r[1], int(r[2])): int(r[3]) for g in groups for r in rows(out, g)} == \
            {(g, n.orders, p): o for g in groups for p, o in expected.items()}, args
    _, out, _ = tools("reset-describe")
    assert {(r[0], int(r[2])): int(r[3]) for g in groups for r in rows(out, g)} == \
        {(g, p): 0 for g in groups for p in end_offsets()}


def test_reset_offsets_dry_run_and_export(tools):
    """Without --execute the plan is printed (or exported as CSV) and nothing changes."""
    n = tools.names
    _, out, err = tools("reset-dry-run")
    assert {int(r[2]): int(r[3]) for r in rows(out, n.simple)} == {p: 0 for p in end_offsets()}
    assert "No action will be performed as the --execute option is missing" in err
    _, out, _ = tools("reset-export")
    assert sorted(out.split()) == [f'"{n.orders}",{p},{end_offsets()[p]}' for p in (0, 1)]
    _, out, _ = tools("reset-dry-describe")
    assert {int(r[2]): int(r[3]) for r in rows(out, n.simple)} == {0: 2, 1: 1}


def test_delete_offsets(tools):
    n = tools.names
    _, out, _ = tools("delete-offsets")
    assert f"Request succeeded for deleting offsets from group {n.doomed}." in out
    assert rows(out, n.audit) == [[n.audit, "0", "Successful"]]
    _, out, _ = tools("delete-offsets-live")
    assert [r[2:4] for r in rows(out, n.orders)] == [
        ["Error:", "org.apache.kafka.common.errors.GroupSubscribedToTopicException:"]] * 3


def test_reset_offsets_of_a_live_group_is_refused(tools):
    _, out, _ = tools("reset-live")
    assert "Assignments can only be reset if the group" in out and "is inactive" in out


def test_delete_groups(tools):
    n = tools.names
    _, out, _ = tools("delete")
    assert f"Deletion of requested consumer groups ('{n.doomed}') was successful." in out
    # the failures in the tool's HashMap order: two ids in one bucket come in an order that
    # differs from one JVM to the next (lines_in_any_order; a fresh-clone run saw it)
    _, out, _ = tools("delete-again-and-live", select=lines_in_any_order)
    assert f"Group '{n.consumer_live}' could not be deleted due to: " \
           "org.apache.kafka.common.errors.GroupNotEmptyException" in out
    assert f"Group '{n.doomed}' could not be deleted due to: " \
           "org.apache.kafka.common.errors.GroupIdNotFoundException" in out
    _, out, _ = tools("describe-deleted")
    assert f"GroupIdNotFoundException: Group {n.doomed} not found." in out
