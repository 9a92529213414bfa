"""The parity corpus: operator commands as typed into kafka-topics, kafka-consumer-groups,
kafka-get-offsets and kafka-configs, each with kcli's native command for the same thing, and
the cluster state they run on (``State``), made with confluent-kafka clients.

Differences a case declares are the parity table of docs/dropins.md (``tests/parity/harness.py``).
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from tests.parity.harness import EXIT, STDERR, STDOUT, Case
from tests.support.clients import (active_member, commit, consume_and_commit, create_topic, produce)
from tests.support.waits import wait_until

B = ("--bootstrap-server", "{b}")


def topics(*args, differs=None, prepare=None, kcli=(), id=""):
    return Case(id, ("kafka-topics", *B, *args), tuple(kcli), differs or {}, prepare)


def groups(*args, differs=None, prepare=None, kcli=(), id=""):
    return Case(id, ("kafka-consumer-groups", *B, *args), tuple(kcli), differs or {}, prepare)


def offsets(*args, differs=None, kcli=(), id=""):
    return Case(id, ("kafka-get-offsets", *B, *args), tuple(kcli), differs or {})


def configs(*args, differs=None, prepare=None, kcli=(), id=""):
    return Case(id, ("kafka-configs", *B, *args), tuple(kcli), differs or {}, prepare)


FAILED_TOPIC_COMMAND = {STDOUT: "error-stream", STDERR: "error-stream"}
FAILED_GROUP_COMMAND = {STDOUT: "error-stream", STDERR: "error-stream", EXIT: "honest-exit"}
USAGE = {STDERR: "error-line", EXIT: "usage-exit"}
TOPIC_USAGE = {STDOUT: "error-stream", STDERR: "error-stream", EXIT: "usage-exit"}
REPLAY = {STDERR: "replay-notice"}

CASES: list[Case] = [
    # -- kafka-topics -------------------------------------------------------------------------
    topics("--list", kcli=("list", "topics"), id="topics-list"),
    topics("--list", "--exclude-internal", kcli=("list", "topics", "--exclude-internal"),
           id="topics-list-exclude-internal"),
    topics("--list", "--topic", "{p}.*", kcli=("list", "topics", "{p}.*"), id="topics-list-regex"),
    topics("--describe", "--topic", "{orders}", kcli=("describe", "topics", "{orders}"),
           id="topics-describe"),
    topics("--describe", "--topic", "{payments}", kcli=("describe", "topics", "{payments}"),
           id="topics-describe-override"),
    topics("--describe", "--topic", "{orders},{payments}", kcli=("describe", "topics", "{orders},{payments}"),
           id="topics-describe-list"),
    topics("--describe", kcli=("describe", "topics"), id="topics-describe-all"),
    topics("--describe", "--exclude-internal", kcli=("describe", "topics", "--exclude-internal"),
           id="topics-describe-exclude-internal"),
    topics("--describe", "--topics-with-overrides", kcli=("describe", "topics", "--topics-with-overrides"),
           id="topics-with-overrides"),
    topics("--describe", "--under-replicated-partitions",
           kcli=("describe", "topics", "--under-replicated-partitions"), id="topics-under-replicated"),
    topics("--describe", "--under-min-isr-partitions",
           kcli=("describe", "topics", "--under-min-isr-partitions"), id="topics-under-min-isr"),
    topics("--describe", "--at-min-isr-partitions", "--topic", "{orders}",
           kcli=("describe", "topics", "{orders}", "--at-min-isr-partitions"), id="topics-at-min-isr"),
    topics("--describe", "--unavailable-partitions",
           kcli=("describe", "topics", "--unavailable-partitions"), id="topics-unavailable"),
    topics("--describe", "--topic", "nosuch-topic", kcli=("describe", "topics", "nosuch-topic"),
           differs=FAILED_TOPIC_COMMAND, id="topics-describe-missing"),
    topics("--describe", "--topic", "nosuch-topic", "--if-exists",
           kcli=("describe", "topics", "nosuch-topic", "--if-exists"), id="topics-describe-if-exists"),
    topics("--describe", "--topic", "[bad", kcli=("describe", "topics", "[bad"),
           differs=TOPIC_USAGE, id="topics-describe-bad-regex"),
    topics("--create", "--topic", "{created}", "--partitions", "2", "--replication-factor", "1",
           "--config", "retention.ms=1000", prepare="no-created-topic",
           kcli=("create", "topic", "{created}", "--partitions", "2", "--replication-factor", "1",
                 "--config", "retention.ms=1000"), id="topics-create"),
    topics("--create", "--topic", "{dotted}", prepare="no-dotted-topic",
           kcli=("create", "topic", "{dotted}"), id="topics-create-collision-warning"),
    topics("--create", "--topic", "{orders}", kcli=("create", "topic", "{orders}"),
           differs=FAILED_TOPIC_COMMAND, id="topics-create-existing"),
    topics("--create", "--topic", "{orders}", "--if-not-exists",
           kcli=("create", "topic", "{orders}", "--if-not-exists"), id="topics-create-if-not-exists"),
    topics("--create", "--topic", "{created}", "--partitions", "0",
           kcli=("create", "topic", "{created}", "--partitions", "0"), differs=TOPIC_USAGE,
           id="topics-create-zero-partitions"),
    topics("--alter", "--topic", "{altered}", "--partitions", "3", prepare="two-partition-topic",
           kcli=("alter", "topic", "{altered}", "--partitions", "3"), id="topics-alter"),
    topics("--alter", "--topic", "{orders}", "--partitions", "2",
           kcli=("alter", "topic", "{orders}", "--partitions", "2"), differs=FAILED_TOPIC_COMMAND,
           id="topics-alter-not-an-increase"),
    topics("--delete", "--topic", "{deleted}", prepare="deletable-topic",
           kcli=("delete", "topic", "{deleted}"), id="topics-delete"),
    topics("--delete", "--topic", "nosuch-topic", kcli=("delete", "topic", "nosuch-topic"),
           differs=FAILED_TOPIC_COMMAND, id="topics-delete-missing"),

    # -- kafka-consumer-groups: list and describe -----------------------------------------------
    groups("--list", kcli=("list", "groups"), id="groups-list"),
    groups("--list", "--state", kcli=("list", "groups", "--state"),
           id="groups-list-state-column"),
    groups("--list", "--state", "Empty", kcli=("list", "groups", "--state", "Empty"),
           id="groups-list-state-empty"),
    groups("--list", "--type", kcli=("list", "groups", "--type"),
           id="groups-list-type-column"),
    groups("--list", "--type", "consumer", "--state", "Stable",
           kcli=("list", "groups", "--type", "consumer", "--state", "Stable"), id="groups-list-type-state"),
    groups("--list", "--state", "bogus", kcli=("list", "groups", "--state", "bogus"), differs=USAGE,
           id="groups-list-bad-state"),
    groups("--describe", "--group", "{g_classic}", kcli=("describe", "groups", "{g_classic}"),
           id="groups-describe-empty-classic"),
    groups("--describe", "--group", "{g_consumer}", "--verbose",
           kcli=("describe", "groups", "{g_consumer}", "--verbose"), id="groups-describe-verbose"),
    groups("--describe", "--group", "{g_classic}", "--group", "{g_consumer}", "--offsets",
           kcli=("describe", "groups", "{g_classic}", "{g_consumer}", "--offsets"), id="groups-describe-two"),
    groups("--describe", "--group", "{g_stable}", kcli=("describe", "groups", "{g_stable}"),
           id="groups-describe-stable"),
    groups("--describe", "--group", "{g_stable}", "--members",
           kcli=("describe", "groups", "{g_stable}", "--members"), id="groups-members"),
    groups("--describe", "--group", "{g_stable}", "--members", "--verbose",
           kcli=("describe", "groups", "{g_stable}", "--members", "--verbose"), id="groups-members-verbose"),
    groups("--describe", "--group", "{g_stable848}", "--members", "--verbose",
           kcli=("describe", "groups", "{g_stable848}", "--members", "--verbose"),
           id="groups-members-verbose-consumer-protocol"),
    groups("--describe", "--group", "{g_classic}", "--members",
           kcli=("describe", "groups", "{g_classic}", "--members"), id="groups-members-empty"),
    groups("--describe", "--group", "{g_stable}", "--state",
           kcli=("describe", "groups", "{g_stable}", "--state"), id="groups-state"),
    groups("--describe", "--group", "{g_stable848}", "--state", "--verbose",
           kcli=("describe", "groups", "{g_stable848}", "--state", "--verbose"),
           differs={STDOUT: "kip-1282-column"}, id="groups-state-verbose"),
    groups("--describe", "--group", "{g_simple}", kcli=("describe", "groups", "{g_simple}"),
           id="groups-describe-simple-consumer"),
    groups("--describe", "--group", "nosuch-group", kcli=("describe", "groups", "nosuch-group"),
           differs=FAILED_GROUP_COMMAND, id="groups-describe-missing"),
    groups("--describe", "--group", "{g_classic}", "--members", "--state",
           kcli=("describe", "groups", "{g_classic}", "--members", "--state"), differs=USAGE,
           id="groups-describe-two-views"),

    # -- kafka-consumer-groups: reset-offsets -----------------------------------------------------
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-earliest", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-earliest", "--dry-run"),
           differs=REPLAY, id="reset-to-earliest"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-latest",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-latest"),
           differs={STDERR: "dry-run-notice"}, id="reset-without-dry-run"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}:1", "--to-offset", "999", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}:1", "--to-offset", "999", "--dry-run"),
           differs={STDERR: "log4j"}, id="reset-to-offset-clamped"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--shift-by", "-3", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--shift-by", "-3", "--dry-run"),
           differs=REPLAY, id="reset-shift-by"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-datetime", "{datetime}",
           "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-datetime", "{datetime}",
                 "--dry-run"), differs=REPLAY, id="reset-to-datetime"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--by-duration", "PT2H", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--by-duration", "PT2H",
                 "--dry-run"), differs=REPLAY, id="reset-by-duration"),
    groups("--reset-offsets", "--group", "{g_consumer}", "--all-topics", "--to-current", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_consumer}", "--all-topics", "--to-current", "--dry-run"),
           id="reset-all-topics-to-current"),
    groups("--reset-offsets", "--group", "{g_classic}", "--group", "{g_consumer}", "--topic", "{payments}",
           "--to-latest", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--group", "{g_consumer}", "--topic", "{payments}",
                 "--to-latest", "--dry-run"), id="reset-two-groups"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-offset", "2", "--export",
           "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-offset", "2", "--export",
                 "--dry-run"), differs=REPLAY, id="reset-export"),
    groups("--reset-offsets", "--group", "{g_classic}", "--group", "{g_consumer}", "--topic", "{orders}",
           "--to-offset", "2", "--export", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--group", "{g_consumer}", "--topic", "{orders}",
                 "--to-offset", "2", "--export", "--dry-run"), differs=REPLAY, id="reset-export-two-groups"),
    groups("--reset-offsets", "--group", "{g_classic}", "--from-file", "{plan}", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--from-file", "{plan}", "--dry-run"),
           differs=REPLAY, id="reset-from-file"),
    groups("--reset-offsets", "--group", "{g_reset}", "--topic", "{orders}", "--to-offset", "2", "--execute",
           prepare="reset-group-at-5",
           kcli=("reset-offsets", "--group", "{g_reset}", "--topic", "{orders}", "--to-offset", "2", "--execute"),
           differs={STDERR: "rollback-note"}, id="reset-execute"),
    groups("--reset-offsets", "--group", "{g_stable}", "--topic", "{orders}", "--to-earliest", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_stable}", "--topic", "{orders}", "--to-earliest", "--dry-run"),
           differs=FAILED_GROUP_COMMAND, id="reset-active-group"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}:9", "--to-earliest", "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}:9", "--to-earliest", "--dry-run"),
           differs=FAILED_GROUP_COMMAND, id="reset-missing-partition"),
    groups("--reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-datetime", "yesterday",
           "--dry-run",
           kcli=("reset-offsets", "--group", "{g_classic}", "--topic", "{orders}", "--to-datetime", "yesterday",
                 "--dry-run"), differs={**FAILED_GROUP_COMMAND, EXIT: "usage-exit"}, id="reset-bad-datetime"),

    # -- kafka-consumer-groups: deletes ---------------------------------------------------------
    groups("--delete", "--group", "{g_del}", prepare="deletable-group",
           kcli=("delete", "groups", "{g_del}"), id="groups-delete"),
    groups("--delete", "--group", "nosuch-group", kcli=("delete", "groups", "nosuch-group"),
           differs={STDERR: "failure-summary", EXIT: "honest-exit"}, id="groups-delete-missing"),
    groups("--delete", "--group", "{g_stable}", kcli=("delete", "groups", "{g_stable}"),
           differs={STDERR: "failure-summary", EXIT: "honest-exit"}, id="groups-delete-active"),
    groups("--delete-offsets", "--group", "{g_del}", "--topic", "{orders}:0", prepare="deletable-group",
           kcli=("delete-offsets", "--group", "{g_del}", "--topic", "{orders}:0"), id="delete-offsets"),
    groups("--delete-offsets", "--group", "{g_stable}", "--topic", "{orders}",
           kcli=("delete-offsets", "--group", "{g_stable}", "--topic", "{orders}"),
           differs={STDERR: "failure-summary", EXIT: "honest-exit"}, id="delete-offsets-subscribed"),
    groups("--delete-offsets", "--group", "nosuch-group", "--topic", "{orders}",
           kcli=("delete-offsets", "--group", "nosuch-group", "--topic", "{orders}"),
           differs={STDERR: "failure-summary", EXIT: "honest-exit"}, id="delete-offsets-missing-group"),

    # -- kafka-get-offsets ----------------------------------------------------------------------
    offsets("--topic", "{orders}", kcli=("list-offsets", "--topic", "{orders}"), id="offsets-latest"),
    offsets("--topic", "{orders}", "--time", "-2", kcli=("list-offsets", "--topic", "{orders}", "--time", "-2"),
            id="offsets-earliest"),
    offsets("--topic", "{orders}", "--time", "max-timestamp",
            kcli=("list-offsets", "--topic", "{orders}", "--time", "max-timestamp"), id="offsets-max-timestamp"),
    offsets("--topic", "{orders}", "--time", "{timestamp}",
            kcli=("list-offsets", "--topic", "{orders}", "--time", "{timestamp}"), id="offsets-timestamp"),
    offsets("--topic", "{p}.*", kcli=("list-offsets", "--topic", "{p}.*"), id="offsets-regex"),
    offsets(kcli=("list-offsets",), id="offsets-all"),
    offsets("--exclude-internal-topics", kcli=("list-offsets", "--exclude-internal-topics"),
            id="offsets-exclude-internal"),
    offsets("--topic", "nosuch-topic", kcli=("list-offsets", "--topic", "nosuch-topic"),
            differs={STDERR: "error-prefix"}, id="offsets-no-match"),
    offsets("--topic", "{orders}", "--time", "yesterday",
            kcli=("list-offsets", "--topic", "{orders}", "--time", "yesterday"),
            differs={STDERR: "time-forms", EXIT: "usage-exit"}, id="offsets-bad-time"),

    # -- kafka-configs (topics and brokers) -----------------------------------------------------
    configs("--describe", "--entity-type", "topics", "--entity-name", "{payments}",
            kcli=("describe", "configs", "--topic", "{payments}"), id="configs-describe-topic"),
    configs("--describe", "--entity-type", "topics", "--entity-name", "{payments}", "--all",
            kcli=("describe", "configs", "--topic", "{payments}", "--all"), id="configs-describe-topic-all"),
    configs("--describe", "--entity-type", "brokers", "--entity-name", "1",
            kcli=("describe", "configs", "--broker", "1"), id="configs-describe-broker"),
    configs("--alter", "--entity-type", "topics", "--entity-name", "{payments}", "--add-config",
            "segment.ms=3600000", prepare="no-segment-override",
            kcli=("alter", "configs", "--topic", "{payments}", "--set", "segment.ms=3600000"),
            id="configs-alter-add"),
    configs("--alter", "--entity-type", "topics", "--entity-name", "{payments}", "--delete-config",
            "segment.ms", prepare="segment-override",
            kcli=("alter", "configs", "--topic", "{payments}", "--delete", "segment.ms"),
            id="configs-alter-delete"),
]


# kafka-delete-records' offset files: DeleteRecordsCommandTest's and its unit test's ({topic}: the
# corpus's records topic).
_ENTRY = '{{"topic": "{{topic}}", "partition": {}, "offset": {}}}'
OFFSET_FILES = {
    # one partition a file: the tool prints them in the order of an immutable Java map, which
    # changes with each JVM (docs/dropins.md)
    "one": '{"partitions": [' + _ENTRY.format(0, 1) + '], "version": 1}',
    "high-watermark": '{"partitions": [' + _ENTRY.format(1, -1) + "]}",
    "empty": '{"partitions": []}',
    "out-of-range": '{"partitions": [' + _ENTRY.format(0, 99) + "]}",
    "duplicates": '{"partitions": [' + ", ".join(_ENTRY.format(p, o) for p, o in ((0, 0), (1, 1), (0, 2), (1, 0)))
                  + "]}",
    "version-string": '{"version": "string"}',
    "version-2": '{"version": 2}',
    "version-only": '{"version": 1}',
    "partitions-number": '{"partitions": 2}',
    "partitions-object": '{"partitions": {}}',
    "partition-empty": '{"partitions": [{}]}',
    "partition-topic-only": '{"partitions": [{"topic": "t"}]}',
    "partition-text": '{"partitions": [{"topic": "t", "partition": ""}]}',
    "partition-no-offset": '{"partitions": [{"topic": "t", "partition": 0}]}',
    "partition-no-partition": '{"partitions": [{"topic": "t", "offset": 0}]}',
    "not-json": '{"partitions": [',
}


class State:
    """The cluster state the corpus runs on, on a cluster of its own (so `--list` and describe
    without a topic see only this): topics, records with known timestamps, groups of both
    protocols (two of them kept active while the corpus runs), and the steps that reset the
    state mutating commands change."""

    def __init__(self, bootstrap: str, scratch: Path):
        self.b = bootstrap
        # Fixed names on a cluster of the corpus's own: the output is the same on every run. (With
        # two group ids in one bucket of the tool's HashMap, Java's order between them would
        # follow the broker's listing, which kcli does not reproduce: the group ids fall in
        # buckets 14, 3, 4, 11, 8, 15 and 1 of --list's 16, one each.)
        p = "parity"
        self.values = {
            "b": bootstrap, "p": p,
            "orders": f"{p}-orders", "payments": f"{p}-payments", "created": f"{p}-created",
            "dotted": f"{p}.dotted_topic", "altered": f"{p}-altered", "deleted": f"{p}-deleted",
            "g_classic": f"{p}-classic", "g_consumer": f"{p}-consumer", "g_stable": f"{p}-stable",
            "g_stable848": f"{p}-stable-848", "g_simple": f"{p}-simple", "g_reset": f"{p}-reset",
            "g_del": f"{p}-gone", "records": f"{p}-records",
        }
        self.scratch = scratch
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self._stack = ExitStack()

    def __enter__(self) -> "State":
        v, b = self.values, self.b
        base = int(time.time() * 1000) - 1_800_000
        create_topic(b, v["orders"], partitions=3)
        create_topic(b, v["payments"], partitions=2, config={"retention.ms": "86400000"})
        produce(b, v["orders"], [(p, f"{p}-{i}", base + i * 1000) for p in range(3) for i in range(10)])
        produce(b, v["payments"], [(p, f"{p}-{i}", base + i * 1000) for p in range(2) for i in range(5)])
        consume_and_commit(b, v["g_classic"], [v["orders"]], 30, "classic")
        consume_and_commit(b, v["g_consumer"], [v["orders"], v["payments"]], 40, "consumer")
        commit(b, v["g_simple"], {(v["orders"], 0): 3, (v["orders"], 1): 4})
        v["datetime"] = datetime.fromtimestamp((base + 4500) / 1000, timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%S.%f")[:-3]
        v["timestamp"] = str(base + 6500)
        for i in range(1, 5):     # GetOffsetShellTest's topics: topicN has N partitions ending at N
            create_topic(b, f"{v['p']}-topic{i}", partitions=i)
            produce(b, f"{v['p']}-topic{i}", [(n % i, f"{n}", base + n) for n in range(i * i)])
        v["orders_id"] = self._topic_id(v["orders"])
        props = self.scratch / "add.properties"
        props.write_text("segment.ms=3600000\n", encoding="utf-8")
        v["props"] = str(props)
        client = self.scratch / "client.properties"          # ClusterToolTest's --config file
        client.write_text("client.id=my-client\n", encoding="utf-8")
        v["client_props"] = str(client)
        for name, text in OFFSET_FILES.items():
            path = self.scratch / f"records-{name}.json"
            path.write_text(text.replace("{topic}", v["records"]))
            v[f"records_{name.replace('-', '_')}"] = str(path)
        plan = self.scratch / "plan.csv"
        plan.write_text("".join(f"{v['orders']},{p},{p + 1}\n" for p in range(3)))
        v["plan"] = str(plan)
        import json

        for name, entries in (("elect", [(v["orders"], 2), (v["orders"], 0), (v["payments"], 1)]),
                              ("elect_dup", [(v["orders"], 1), (v["orders"], 1)]),
                              ("elect_missing", [("nosuch-topic", 0), (v["orders"], 1)])):
            path = self.scratch / f"{name}.json"
            path.write_text(json.dumps({"partitions": [{"topic": t, "partition": n} for t, n in entries]}))
            v[name] = str(path)
        self._stack.enter_context(active_member(b, v["g_stable"], [v["orders"]], "classic", partitions=3))
        self._stack.enter_context(active_member(b, v["g_stable848"], [v["payments"]], "consumer",
                                                partitions=2))
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    # -- the prepare steps ----------------------------------------------------------------
    def prepare(self, step: str) -> None:
        getattr(self, "_" + step.replace("-", "_"))()

    def _delete_topic(self, name: str) -> None:
        # deleted whether or not the metadata lists it yet: a topic the previous run just created
        # may be in the controller and not yet in the broker's metadata cache (a create then
        # failed with "already exists")
        try:
            self.admin.delete_topics([name], operation_timeout=15)[name].result(20)
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.UNKNOWN_TOPIC_OR_PART:
                raise
        wait_until(lambda: name not in self.admin.list_topics(timeout=10).topics, timeout=30,
                   interval=0.2, what=f"{name} deleted")

    def _no_created_topic(self) -> None:
        self._delete_topic(self.values["created"])

    def _no_dotted_topic(self) -> None:
        self._delete_topic(self.values["dotted"])

    def _two_partition_topic(self) -> None:
        self._delete_topic(self.values["altered"])
        create_topic(self.b, self.values["altered"], partitions=2)

    def _deletable_topic(self) -> None:
        self._delete_topic(self.values["deleted"])
        create_topic(self.b, self.values["deleted"])

    def _records_topic(self) -> None:
        """Three partitions of 5 records each, for kafka-delete-records to delete from."""
        self._delete_topic(self.values["records"])
        create_topic(self.b, self.values["records"], partitions=3)
        produce(self.b, self.values["records"], [(p, f"{p}-{i}") for p in range(3) for i in range(5)])

    def _reset_group_at_5(self) -> None:
        commit(self.b, self.values["g_reset"], {(self.values["orders"], p): 5 for p in range(3)})

    def _deletable_group(self) -> None:
        commit(self.b, self.values["g_del"], {(self.values["orders"], p): 1 for p in range(3)})

    def _segment_override(self) -> None:
        self._alter("topic", self.values["payments"], "SET", segment="3600000", cleanup="delete,compact")

    def _no_segment_override(self) -> None:
        self._alter("topic", self.values["payments"], "DELETE", segment=None, cleanup=None)

    def _no_broker_override(self) -> None:
        self._alter("broker", "1", "DELETE", threads=None)

    def _no_broker_default(self) -> None:
        self._java_configs("--entity-default", "--delete-config", "log.cleaner.threads")

    def _broker_default(self) -> None:
        self._java_configs("--entity-default", "--add-config", "log.cleaner.threads=2")

    # the quota state the kafka-configs quota cases run on: users, clients, their defaults, an IP.
    # The cluster is shared and the state stays after the cases: what applies to every client (the
    # defaults) or to this host (127.0.0.1) would throttle the tests after them (a 5/s connection
    # rate on 127.0.0.1 reset their connections), so those values are too large to bite.
    QUOTAS = [([("user", "alice")], {"producer_byte_rate": 1048576.0, "consumer_byte_rate": 2048.0}),
              ([("user", "alice"), ("client-id", "app")], {"request_percentage": 12.5}),
              ([("user", None)], {"producer_byte_rate": 10000000.0}),
              ([("client-id", None)], {"consumer_byte_rate": 1073741824.0}),
              ([("client-id", "app")], {"producer_byte_rate": 512.0, "controller_mutation_rate": 1.5}),
              ([("user", None), ("client-id", None)], {"request_percentage": 10000.0}),
              ([("ip", "127.0.0.9")], {"connection_creation_rate": 5.0}),
              ([("ip", None)], {"connection_creation_rate": 1000000.0})]

    def _quotas(self) -> None:
        """Every quota removed, then QUOTAS set, on kcli's own connection (confluent-kafka has no
        quota calls)."""
        from kcli.admin.client import KafkaAdmin
        from kcli.admin.settings import ClientSettings

        admin = KafkaAdmin(ClientSettings(self.b, {}, 15_000))
        try:
            for e in admin.describe_client_quotas([], strict=False):
                assert admin.alter_client_quotas(e.parts, {}, list(e.values), validate_only=False) is None
            for parts, values in self.QUOTAS:
                assert admin.alter_client_quotas(parts, values, [], validate_only=False) is None
        finally:
            admin.close()

    def _java_configs(self, *args: str) -> None:
        """The cluster-wide broker defaults (confluent-kafka cannot name them): Apache's tool."""
        from tests.support.apache_kafka import java_tool

        r = java_tool("kafka-configs", "--bootstrap-server", self.b, "--alter", "--entity-type", "brokers", *args)
        assert r.code == 0, r

    _NAMES = {"segment": "segment.ms", "cleanup": "cleanup.policy", "threads": "log.cleaner.threads"}

    def _alter(self, rtype: str, name: str, op: str, **values) -> None:
        from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

        entries = [ConfigEntry(self._NAMES[k], v, incremental_operation=getattr(AlterConfigOpType, op))
                   for k, v in values.items()]
        resource = ConfigResource(rtype, name, incremental_configs=entries)
        self.admin.incremental_alter_configs([resource])[resource].result(15)

    def _topic_id(self, name: str) -> str:
        import json

        from tests.support.run import run_kcli

        r = run_kcli(self.b, "-o", "json", "describe", "topics", name)
        assert r.code == 0, r
        return json.loads(r.out)["topics"][0]["topicId"]


from tests.parity.dropin_corpus import CASES as DROPIN_CASES  # noqa: E402 - the drop-in corpus

CASES += DROPIN_CASES
