"""The kafka-reassign-partitions corpus: command lines from Apache Kafka's own tests of the tool
(ReassignPartitionsCommandArgsTest, ReassignPartitionsCommandTest and ReassignPartitionsUnitTest
in tools/src/test/java/org/apache/kafka/tools/reassign/) run through Apache Kafka 4.4.0's tool
and ``kcli kafka-reassign-partitions`` with the same words, on the same cluster state
(``ReassignState``, three nodes: a topic at home, moved, or moving under a throttle that keeps
the move in progress). The differences each case declares are part of the drop-in table of
docs/dropins.md.

``ReassignState`` takes any bootstrap of three brokers 1, 2 and 3: the cases run the same on
real Apache Kafka 4.4 and on the embedded broker."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.parity.dropin_corpus import PARSE, USAGE, dropin
from tests.parity.harness import EXIT, STDERR, STDOUT, Case
from tests.support.clients import produce
from tests.support.waits import wait_until


def reassign(*args, **kw) -> Case:
    return dropin("kafka-reassign-partitions", *args, **kw)


def proposal_shape(text: str) -> str:
    """--generate's output with the proposal replaced by its shape: Java's placer starts each
    topic at a random broker, kcli's round robin at the first. Compared: every partition with
    its number of replicas and log dirs, no broker twice in one, and per topic how many replicas
    and leaders the brokers get (as a multiset: balanced)."""
    head, sep, proposal = text.partition("Proposed partition reassignment configuration\n")
    if not sep or not proposal.startswith("{"):
        return text
    doc = json.loads(proposal)
    shape, per_topic = [], {}
    for p in doc["partitions"]:
        shape.append((p["topic"], p["partition"], len(p["replicas"]), p["log_dirs"],
                      len(set(p["replicas"])) == len(p["replicas"])))
        replicas, leaders = per_topic.setdefault(p["topic"], ({}, {}))
        for b in p["replicas"]:
            replicas[b] = replicas.get(b, 0) + 1
        leaders[p["replicas"][0]] = leaders.get(p["replicas"][0], 0) + 1
    balance = {t: (sorted(r.values()), sorted(lead.values())) for t, (r, lead) in per_topic.items()}
    return head + sep + json.dumps({"version": doc["version"], "shape": shape, "balance": balance}) + "\n"


def generate(*args, **kw) -> Case:
    return reassign("--generate", *args, canonical=proposal_shape, **kw)


ROLLBACK = {STDERR: "rollback-note"}                       # kcli names its rollback file
TRACE = {STDOUT: "trace-stdout"}                            # Error: line, Java's trace after it
BAD_FILE = {STDOUT: "trace-stdout", EXIT: "usage-exit"}     # the same, exit 2: nothing sent
FILE = ("--reassignment-json-file",)

REASSIGN_CASES: list[Case] = [
    # -- ReassignPartitionsCommandArgsTest: the command line ---------------------------------------
    reassign(bootstrap=False, id="reassign-no-arguments"),
    reassign("--help", bootstrap=False, id="reassign-help"),
    reassign("--version", bootstrap=False, differs={STDOUT: "version"}, id="reassign-version"),
    reassign(" ", bootstrap=False, differs=USAGE, id="reassign-blank-argument"),
    reassign("--bogus", differs=PARSE, id="reassign-unknown-option"),
    reassign("--execute", "--verify", *FILE, "{plan}", differs=USAGE, id="reassign-two-actions"),
    reassign("--execute", *FILE, "{plan}", "--topics-to-move-json-file", "{topics}", differs=USAGE,
             id="reassign-execute-topics-file"),
    reassign("--execute", *FILE, "{plan}", "--broker-list", "1,2", differs=USAGE, id="reassign-execute-broker-list"),
    reassign("--execute", differs=USAGE, id="reassign-execute-no-file"),
    reassign("--execute", bootstrap=False, differs=USAGE, id="reassign-execute-no-bootstrap"),
    reassign("--generate", differs=USAGE, id="reassign-generate-nothing"),
    reassign("--topics-to-move-json-file", "{topics}", "--generate", differs=USAGE, id="reassign-generate-no-brokers"),
    reassign("--broker-list", "1,2", "--generate", differs=USAGE, id="reassign-generate-no-topics"),
    reassign("--generate", "--broker-list", "1,2", "--throttle", "100", "--topics-to-move-json-file", "{topics}",
             differs=USAGE, id="reassign-generate-throttle"),
    reassign("--generate", "--broker-list", "1,2", "--topics-to-move-json-file", "{topics}", *FILE, "{plan}",
             differs=USAGE, id="reassign-generate-reassignment-file"),
    reassign("--verify", differs=USAGE, id="reassign-verify-no-file"),
    reassign("--verify", "--broker-list", "1,2", *FILE, "{plan}", differs=USAGE, id="reassign-verify-broker-list"),
    reassign("--verify", "--throttle", "100", *FILE, "{plan}", differs=USAGE, id="reassign-verify-throttle"),
    reassign("--verify", *FILE, "{plan}", "--topics-to-move-json-file", "{topics}", differs=USAGE,
             id="reassign-verify-topics-file"),
    reassign("--cancel", bootstrap=False, differs=USAGE, id="reassign-cancel-no-bootstrap"),
    reassign("--cancel", "--preserve-throttles", differs=USAGE, id="reassign-cancel-no-file"),
    reassign("--bootstrap-controller", "{b}", "--generate", "--broker-list", "1,2", "--topics-to-move-json-file",
             "{topics}", bootstrap=False, differs=USAGE, id="reassign-controller-generate"),
    reassign("--bootstrap-controller", "{b}", "--generate", "--broker-list", "1,2", "--topics-to-move-json-file",
             "{topics}", differs=USAGE, id="reassign-controller-and-server"),
    reassign("--list", "--preserve-throttles", differs=USAGE, id="reassign-list-preserve-throttles"),
    # -- --generate (ReassignPartitionsCommandTest: testGenerateAssignment...; the unit test's
    # testGenerateAssignmentFailsWithoutEnoughReplicas, WithDuplicate..., WithInconsistentRacks)
    generate("--topics-to-move-json-file", "{topics}", "--broker-list", "1,2,3", id="reassign-generate"),
    generate("--topics-to-move-json-file", "{topics}", "--broker-list", "2,1", "--disable-rack-aware",
             id="reassign-generate-two-brokers"),
    generate("--topics-to-move-json-file", "{topic_a}", "--broker-list", "1", differs=TRACE,
             id="reassign-generate-too-few-brokers"),
    generate("--topics-to-move-json-file", "{topics}", "--broker-list", "9", differs=TRACE,
             id="reassign-generate-no-such-broker"),
    generate("--topics-to-move-json-file", "{topics}", "--broker-list", "1,2,1", differs=BAD_FILE,
             id="reassign-generate-duplicate-brokers"),
    generate("--topics-to-move-json-file", "{topics}", "--broker-list", "1,x", differs=BAD_FILE,
             id="reassign-generate-bad-broker"),
    generate("--topics-to-move-json-file", "{topics}", "--broker-list", "1,,2", differs=BAD_FILE,
             id="reassign-generate-empty-broker"),
    generate("--topics-to-move-json-file", "{topics}", "--broker-list", ",", differs=TRACE,
             id="reassign-generate-no-brokers-listed"),
    generate("--topics-to-move-json-file", "{topics_dup}", "--broker-list", "1,2,3", differs=BAD_FILE,
             id="reassign-generate-duplicate-topics"),
    generate("--topics-to-move-json-file", "{topics_missing}", "--broker-list", "1,2,3", differs=TRACE,
             id="reassign-generate-missing-topic"),
    generate("--topics-to-move-json-file", "{topics_v2}", "--broker-list", "1,2,3", differs=BAD_FILE,
             id="reassign-generate-version-2"),
    generate("--topics-to-move-json-file", "{not_json}", "--broker-list", "1,2,3", differs=BAD_FILE,
             id="reassign-generate-not-json"),
    # -- --execute (testReassignment, testHighWaterMarkAfterPartitionReassignment, the unit test's
    # testExecuteWith...) -----------------------------------------------------------------------
    reassign("--execute", *FILE, "{plan}", prepare="home", differs=ROLLBACK, id="reassign-execute"),
    reassign("--execute", *FILE, "{plan}", "--throttle", "300000000", "--replica-alter-log-dirs-throttle", "2000",
             prepare="home", differs=ROLLBACK, id="reassign-execute-throttles"),
    reassign("--execute", *FILE, "{plan}", prepare="moving", id="reassign-execute-while-moving"),
    reassign("--execute", *FILE, "{plan}", "--additional", "--throttle", "1", prepare="moving", differs=ROLLBACK,
             id="reassign-execute-additional"),
    reassign("--execute", *FILE, "{plan_rf}", "--disallow-replication-factor-change", prepare="home",
             differs=ROLLBACK, id="reassign-execute-disallow-rf-change"),
    reassign("--execute", *FILE, "{plan_unknown_broker}", prepare="home", differs=TRACE,
             id="reassign-execute-unknown-broker"),
    reassign("--execute", *FILE, "{plan_missing_partition}", prepare="home", differs=TRACE,
             id="reassign-execute-missing-partition"),
    reassign("--execute", *FILE, "{plan_missing_topic}", prepare="home", differs=TRACE,
             id="reassign-execute-missing-topic"),
    reassign("--execute", *FILE, "{plan_empty}", differs=BAD_FILE, id="reassign-execute-empty"),
    reassign("--execute", *FILE, "{plan_no_replicas}", differs=BAD_FILE, id="reassign-execute-no-replicas"),
    reassign("--execute", *FILE, "{plan_dup_partition}", differs=BAD_FILE, id="reassign-execute-duplicate-partition"),
    reassign("--execute", *FILE, "{plan_dup_replica}", differs=BAD_FILE, id="reassign-execute-duplicate-replica"),
    reassign("--execute", *FILE, "{plan_dirs_size}", differs=BAD_FILE, id="reassign-execute-log-dirs-size"),
    reassign("--execute", *FILE, "{plan_not_json}", differs={STDOUT: "json-parser-message", EXIT: "usage-exit"},
             id="reassign-execute-not-json"),
    reassign("--execute", *FILE, "{plan_v2}", differs=BAD_FILE, id="reassign-execute-version-2"),
    reassign("--execute", *FILE, "{plan_text_partition}", differs=BAD_FILE, id="reassign-execute-text-partition"),
    reassign("--execute", *FILE, "{plan_no_topic}", differs=BAD_FILE, id="reassign-execute-no-topic"),
    reassign("--execute", *FILE, "{plan}", "--throttle", "abc", differs=BAD_FILE, id="reassign-execute-bad-throttle"),
    reassign("--cancel", *FILE, "{plan}", "--timeout", "x", differs=BAD_FILE, id="reassign-cancel-bad-timeout"),
    reassign("--execute", *FILE, "/not/existing/plan.json", differs=BAD_FILE, id="reassign-execute-no-such-file"),
    # -- --verify and --list (testReassignment's verify steps, testListReassignments...) -----------
    reassign("--verify", *FILE, "{plan}", prepare="moved", id="reassign-verify-completed"),
    reassign("--verify", *FILE, "{plan}", "--preserve-throttles", prepare="moved", id="reassign-verify-preserve"),
    reassign("--verify", *FILE, "{plan}", prepare="home", id="reassign-verify-not-moved"),
    reassign("--verify", *FILE, "{plan}", prepare="moving", id="reassign-verify-in-progress"),
    reassign("--verify", *FILE, "{plan_missing_topic}", prepare="home", differs=TRACE,
             id="reassign-verify-missing-topic"),
    reassign("--verify", *FILE, "{current}", prepare="home", id="reassign-verify-log-dirs"),
    reassign("--list", prepare="moving", id="reassign-list-moving"),
    reassign("--list", prepare="home", id="reassign-list-none"),
    # -- --cancel (testCancellation, testCancellationWithBootstrapServer) ----------------------------
    reassign("--cancel", *FILE, "{plan}", prepare="moving", id="reassign-cancel"),
    reassign("--cancel", *FILE, "{plan}", "--preserve-throttles", prepare="moving", id="reassign-cancel-preserve"),
    reassign("--cancel", *FILE, "{plan}", prepare="home", id="reassign-cancel-nothing-moving"),
]

# The topics: ``a`` stays where it is; ``b`` moves (HOME -> PLAN) with a few MB per partition, so
# that a move throttled to 1 B/s stays in progress (a first fetch copies at most 1 MB).
HOME = {0: [1], 1: [2]}
PLAN = {0: [3], 1: [1, 2]}
A_REPLICAS = [[1, 2], [2, 3], [3, 1]]


class ReassignState:
    """Topics ``a`` and ``b`` on brokers 1, 2 and 3 (fixed replicas), the corpus's files, and the
    steps that put ``b`` at home, moved, or moving."""

    def __init__(self, bootstrap: str, scratch: Path):
        from kcli.admin.client import KafkaAdmin
        from kcli.admin.settings import ClientSettings

        self.b, self.scratch = bootstrap, scratch
        p = "rparity"
        self.a, self.t = f"{p}-a", f"{p}-b"
        self.values = {"b": bootstrap, "a": self.a, "t": self.t}
        self.admin = KafkaAdmin(ClientSettings(bootstrap, {}, 30_000))

    def _file(self, name: str, doc) -> None:
        path = self.scratch / f"{name}.json"
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
        self.values[name] = str(path)

    def __enter__(self) -> "ReassignState":
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({"bootstrap.servers": self.b})
        for name, replicas in ((self.a, A_REPLICAS), (self.t, [HOME[0], HOME[1]])):
            new = NewTopic(name, len(replicas), replica_assignment=replicas)
            admin.create_topics([new], operation_timeout=15)[name].result(30)
        from kcli.ops.reassign import replicas_now

        wait_until(lambda: len(replicas_now(self.admin, [self.a, self.t])) == 5, timeout=30, what="topics")
        produce(self.b, self.t, [(p, b"x" * 1000) for p in (0, 1) for _ in range(2500)],
                **{"batch.size": 100_000, "linger.ms": 5})
        a, t = self.a, self.t

        def parts(*entries):
            return {"version": 1, "partitions": [{"topic": tp, "partition": n, "replicas": r} for tp, n, r in entries]}

        self._file("topics", {"topics": [{"topic": a}, {"topic": t}], "version": 1})
        self._file("topic_a", {"topics": [{"topic": a}]})
        self._file("topics_dup", {"topics": [{"topic": a}, {"topic": t}, {"topic": a}]})
        self._file("topics_missing", {"topics": [{"topic": a}, {"topic": "nosuch-topic"}]})
        self._file("topics_v2", {"topics": [{"topic": a}], "version": 2})
        self._file("not_json", '{"topics": [')
        self._file("plan", parts(*((t, n, r) for n, r in PLAN.items())))
        self._file("plan_rf", parts((t, 0, [3]), (t, 1, [1, 2])))
        self._file("plan_unknown_broker", parts((t, 0, [1, 9])))
        self._file("plan_missing_partition", parts((t, 0, [2]), (t, 17, [1]), (t, 7, [1]), (t, 12, [1]), (t, 5, [2])))
        self._file("plan_missing_topic", parts(("nosuch-topic", 0, [1])))
        self._file("plan_empty", {"version": 1, "partitions": []})
        self._file("plan_no_replicas", parts((t, 0, [])))
        self._file("plan_dup_partition", parts((t, 0, [1]), (t, 1, [2]), (t, 0, [3])))
        self._file("plan_dup_replica", parts((t, 0, [1, 2, 1]), (a, 1, [3, 3])))
        self._file("plan_dirs_size", {"partitions": [{"topic": t, "partition": 0, "replicas": [1, 2],
                                                      "log_dirs": ["any"]}]})
        self._file("plan_v2", {"version": 2, "partitions": []})
        self._file("plan_not_json", "{invalid_json")
        self._file("plan_text_partition", {"partitions": [{"topic": t, "partition": "0", "replicas": [1]}]})
        self._file("plan_no_topic", {"partitions": [{"partition": 0, "replicas": [1]}]})
        from kcli.ops.reassign import plan_json, replica_log_dirs

        current = replicas_now(self.admin, [a])
        self._file("current", plan_json(current, replica_log_dirs(self.admin, current)))
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._home()
        finally:
            self.admin.close()

    # -- the prepare steps ---------------------------------------------------------------------
    def prepare(self, step: str) -> None:
        getattr(self, "_" + step)()

    def _replicas(self) -> dict[int, list[int]]:
        from kcli.ops.reassign import replicas_now

        return {p: r for (_, p), r in replicas_now(self.admin, [self.t]).items()}

    def _at(self, target: dict[int, list[int]]) -> None:
        """``b`` on ``target`` with no move in progress and no throttle anywhere."""
        from kcli.ops import reassign as lib

        partitions = [(self.t, p) for p in target]
        moving, _ = lib.cancel_moving(self.admin, partitions)
        if moving:
            wait_until(lambda: not lib.ongoing(self.admin), timeout=30, interval=0.1, what="moves cancelled")
        lib.clear_throttles(self.admin, [self.t])
        if self._replicas() != target:
            results = self.admin.alter_reassignments({(self.t, p): r for p, r in target.items()})
            assert not any(results.values()), results
            wait_until(lambda: not lib.ongoing(self.admin) and self._replicas() == target, timeout=60,
                       interval=0.1, what=f"{self.t} on {target}")

    def _home(self) -> None:
        self._at(HOME)

    def _moved(self) -> None:
        self._at(PLAN)

    def _moving(self) -> None:
        """``b`` moving from HOME to PLAN at 1 B/s: a move that stays in progress."""
        from kcli.ops import reassign as lib

        self._home()
        plan = {(self.t, p): r for p, r in PLAN.items()}
        current = {(self.t, p): r for p, r in HOME.items()}
        lib.set_throttles(self.admin, plan, current, [], 1)
        results = self.admin.alter_reassignments(plan)
        assert not any(results.values()), results
        wait_until(lambda: len(lib.ongoing(self.admin)) == 2, timeout=30, interval=0.1, what="moves started")
        time.sleep(0.5)
        assert len(lib.ongoing(self.admin)) == 2, "the throttled move finished"
