"""The kafka-streams-groups corpus: command lines from Apache Kafka's own tests of the tool
(ListStreamsGroupTest, DescribeStreamsGroupTest, ResetStreamsGroupOffsetTest,
DeleteStreamsGroupTest, DeleteStreamsGroupOffsetTest, StreamsGroupCommandTest in
tools/src/test/java/org/apache/kafka/tools/streams/) and the streams operations docs, run
through Apache Kafka 4.4.0's tool and ``kcli kafka-streams-groups`` with the same words, on a
cluster of its own with Kafka Streams applications (``StreamsState``: one running, one stopped
with lag, one made again before each --delete). The differences each case declares are part of
the drop-in table of docs/dropins.md."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from tests.parity.dropin_corpus import USAGE, dropin
from tests.parity.harness import EXIT, STDERR, STDOUT, Case
from tests.support.clients import commit, create_topic, produce
from tests.support.run import run_kcli
from tests.support.streams_app import run_until_caught_up


def streams(*args, **kw) -> Case:
    return dropin("kafka-streams-groups", *args, **kw)


FAILED = {STDERR: "stack-trace"}                     # the same stdout line; Java adds a stack trace
HONEST = {EXIT: "honest-exit"}
RESET = ("--reset-offsets", "--group", "{stopped}")

STREAMS_CASES: list[Case] = [
    # -- --list (ListStreamsGroupTest) ------------------------------------------------------
    streams("--list", id="streams-list"),
    streams("--list", "--state", id="streams-list-state"),
    streams("--list", "--state", "Stable", id="streams-list-state-stable"),
    streams("--list", "--state", "stable,empty", id="streams-list-state-case"),
    streams("--list", "--state", "NotReady", id="streams-list-state-none"),
    streams("--list", "--state", "bogus", differs=USAGE, id="streams-list-state-invalid"),
    streams("--list", "--members", differs={EXIT: "usage-exit"}, id="streams-list-members"),
    # -- --describe (DescribeStreamsGroupTest) ----------------------------------------------
    streams("--describe", "--group", "{running}", id="streams-describe"),
    streams("--describe", "--group", "{running}", "--offsets", id="streams-describe-offsets"),
    streams("--describe", "--group", "{running}", "--verbose", id="streams-describe-verbose"),
    streams("--describe", "--group", "{running}", "--offsets", "--verbose", id="streams-describe-offsets-verbose"),
    streams("--describe", "--group", "{running}", "--members", id="streams-describe-members"),
    streams("--describe", "--group", "{running}", "--members", "--verbose", id="streams-describe-members-verbose"),
    streams("--describe", "--group", "{running}", "--state", id="streams-describe-state"),
    streams("--describe", "--group", "{running}", "--state", "--verbose", differs={STDOUT: "kip-1282-column"},
            id="streams-describe-state-verbose"),
    streams("--describe", "--group", "{stopped}", id="streams-describe-stopped"),
    streams("--describe", "--group", "{stopped}", "--members", id="streams-describe-stopped-members"),
    streams("--describe", "--group", "{stopped}", "--state", id="streams-describe-stopped-state"),
    streams("--describe", "--all-groups", "--state", id="streams-describe-all-groups-state"),
    streams("--describe", "--group", "{running}", "--group", "{stopped}", "--state", id="streams-describe-two-groups"),
    streams("--describe", "--group", "{running}", "--topology", id="streams-describe-topology"),
    streams("--describe", "--group", "nosuch-app", differs=FAILED, id="streams-describe-missing"),
    streams("--describe", "--group", "{consumer}", differs=FAILED, id="streams-describe-consumer-group"),
    streams("--describe", differs=USAGE, id="streams-describe-no-group"),
    streams("--describe", "--group", "{running}", "--members", "--state", differs=USAGE,
            id="streams-describe-members-and-state"),
    streams("--describe", "--group", "{running}", "--state", "Stable", differs=USAGE,
            id="streams-describe-state-value"),
    # -- --reset-offsets (ResetStreamsGroupOffsetTest) --------------------------------------
    streams(*RESET, "--all-input-topics", "--to-earliest", "--dry-run", id="streams-reset-to-earliest"),
    streams(*RESET, "--all-input-topics", "--to-latest", "--dry-run", differs={STDERR: "skip-notice"},
            id="streams-reset-to-latest"),
    streams(*RESET, "--all-input-topics", "--to-current", "--dry-run", id="streams-reset-to-current"),
    streams(*RESET, "--all-input-topics", "--to-offset", "2", "--dry-run", id="streams-reset-to-offset"),
    streams(*RESET, "--all-input-topics", "--shift-by", "-2", "--dry-run", id="streams-reset-shift-by"),
    streams(*RESET, "--all-input-topics", "--to-datetime", "2000-01-01T00:00:00.000", "--dry-run",
            id="streams-reset-to-datetime"),
    streams(*RESET, "--all-input-topics", "--by-duration", "P1D", "--dry-run", id="streams-reset-by-duration"),
    streams(*RESET, "--input-topic", "{input}", "--to-earliest", "--dry-run", id="streams-reset-input-topic"),
    streams(*RESET, "--input-topic", "{input}:1", "--to-offset", "1", "--dry-run",
            id="streams-reset-input-topic-partition"),
    streams(*RESET, "--input-topic", "{sink}", "--to-earliest", "--dry-run", differs=HONEST,
            id="streams-reset-not-an-input-topic"),
    streams(*RESET, "--all-input-topics", "--to-offset", "2", "--export", "--dry-run", id="streams-reset-export"),
    streams(*RESET, "--from-file", "{plan}", "--dry-run", id="streams-reset-from-file"),
    streams(*RESET, "--all-input-topics", "--to-offset", "3", "--execute", prepare="stopped-at-5",
            differs={STDERR: "rollback-note"}, id="streams-reset-execute"),
    streams(*RESET, "--all-input-topics", "--to-offset", "3", "--execute", "--delete-internal-topic", "{changelog}",
            prepare="stopped-at-5-with-changelog", differs={STDERR: "rollback-note"},
            id="streams-reset-execute-delete-internal-topic"),
    streams(*RESET, "--all-input-topics", "--to-offset", "3", "--execute", "--delete-internal-topic", "nosuch-topic",
            prepare="stopped-at-5", differs={STDERR: "rollback-note", EXIT: "honest-exit"},
            id="streams-reset-execute-delete-missing-topic"),
    streams(*RESET, "--all-input-topics", "--to-offset", "3", "--dry-run", "--delete-internal-topic", "{changelog}",
            differs=USAGE, id="streams-reset-delete-internal-topic-dry-run"),
    streams("--reset-offsets", "--group", "{running}", "--all-input-topics", "--to-earliest", "--dry-run",
            differs=HONEST, id="streams-reset-active-group"),
    streams("--reset-offsets", "--group", "nosuch-app", "--input-topic", "{input}", "--to-earliest", "--dry-run",
            differs=HONEST, id="streams-reset-missing-group"),
    streams("--reset-offsets", "--group", "nosuch-app", "--all-input-topics", "--to-earliest", "--dry-run",
            differs=FAILED, id="streams-reset-missing-group-all-input-topics"),
    streams("--reset-offsets", "--all-groups", "--all-input-topics", "--to-earliest", "--dry-run", differs=HONEST,
            id="streams-reset-all-groups"),
    streams("--reset-offsets", "--all-groups", "--all-input-topics", "--to-earliest", "--dry-run", "--export",
            differs=HONEST, id="streams-reset-all-groups-export"),
    streams(*RESET, "--all-input-topics", "--to-start-time", "--dry-run",
            differs={STDOUT: "kip-1282-option", STDERR: "kip-1282-option"},
            id="streams-reset-to-start-time"),
    streams(*RESET, "--all-input-topics", "--to-earliest", differs=USAGE, id="streams-reset-no-dry-run"),
    streams(*RESET, "--to-earliest", "--dry-run", differs=USAGE, id="streams-reset-no-scope"),
    streams(*RESET, "--all-input-topics", "--to-earliest", "--dry-run", "--execute", differs=USAGE,
            id="streams-reset-dry-run-and-execute"),
    streams(*RESET, "--all-input-topics", "--to-earliest", "--to-latest", "--dry-run", differs=USAGE,
            id="streams-reset-two-scenarios"),
    # -- --delete (DeleteStreamsGroupTest) ---------------------------------------------------
    streams("--delete", "--group", "{deletable}", prepare="deletable-app", id="streams-delete"),
    streams("--delete", "--group", "{deletable}", "--delete-all-internal-topics", prepare="deletable-app",
            id="streams-delete-all-internal-topics"),
    streams("--delete", "--group", "{running}", differs=HONEST, id="streams-delete-active"),
    streams("--delete", "--group", "nosuch-app", differs=HONEST, id="streams-delete-missing"),
    streams("--delete", "--group", "{stopped}", "--input-topic", "{input}", differs=USAGE,
            id="streams-delete-input-topic"),
    # -- --delete-offsets (DeleteStreamsGroupOffsetTest) -------------------------------------
    streams("--delete-offsets", "--group", "{stopped}", "--input-topic", "{input}:0", prepare="stopped-at-5",
            id="streams-delete-offsets"),
    streams("--delete-offsets", "--group", "{stopped}", "--all-input-topics", prepare="stopped-at-5",
            id="streams-delete-offsets-all-input-topics"),
    streams("--delete-offsets", "--group", "{running}", "--input-topic", "{input}", differs=HONEST,
            id="streams-delete-offsets-active"),
    streams("--delete-offsets", "--group", "{stopped}", "--group", "{running}", "--input-topic", "{input}",
            differs=USAGE, id="streams-delete-offsets-two-groups"),
    # -- the command line (StreamsGroupCommandTest) -------------------------------------------
    streams("--list", "--describe", differs=USAGE, id="streams-two-actions"),
    streams("--help", bootstrap=False, differs={STDERR: "kip-1282-option"}, id="streams-help"),
]


class StreamsState:
    """The corpus's cluster state: an input topic of 2 partitions (5 records each, then 3 more
    on partition 0 once the stopped application has stopped), applications of StreamsApp
    (tests/support/streams_app.py): ``running`` (Stable) while the corpus runs, ``stopped``
    (Empty, lag 3), and a consumer group. Fixed names on a cluster of the corpus's own."""

    def __init__(self, bootstrap: str, scratch: Path):
        p = "sparity"
        self.b = bootstrap
        self.values = {"b": bootstrap, "input": f"{p}-in", "sink": f"{p}-out", "running": f"{p}-running",
                       "stopped": f"{p}-stopped", "deletable": f"{p}-gone", "consumer": f"{p}-consumer",
                       "changelog": f"{p}-stopped-store-changelog"}
        self.scratch = scratch
        self._stack = ExitStack()

    def __enter__(self) -> "StreamsState":
        v, b = self.values, self.b
        create_topic(b, v["input"], partitions=2)
        create_topic(b, v["sink"], partitions=1)
        produce(b, v["input"], [(p, f"v{p}-{i}") for p in range(2) for i in range(5)])
        run_until_caught_up(b, v["stopped"], v["input"], v["sink"], 2)
        app = run_until_caught_up(b, v["running"], v["input"], v["sink"], 2, stop=False)
        self._stack.callback(app.stop)
        produce(b, v["input"], [(0, "late-1"), (0, "late-2"), (0, "late-3")])
        commit(b, v["consumer"], {(v["input"], 0): 1})
        plan = self.scratch / "streams-plan.csv"
        plan.write_text(f"{v['input']},0,1\n{v['input']},1,2\n")
        v["plan"] = str(plan)
        at_5 = self.scratch / "streams-at-5.csv"
        at_5.write_text(f"{v['input']},0,5\n{v['input']},1,5\n")
        self.at_5 = str(at_5)
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def prepare(self, step: str) -> None:
        getattr(self, "_" + step.replace("-", "_"))()

    def _stopped_at_5(self) -> None:
        """The stopped application's committed offsets back at 5 and 5 (kcli's native reset, from
        a file: --topic would refuse a partition whose offset a case deleted)."""
        r = run_kcli(self.b, "reset-offsets", "--group", self.values["stopped"], "--from-file", self.at_5,
                     "--execute", "--allow-skip", timeout="30s")
        assert r.code == 0, r

    def _stopped_at_5_with_changelog(self) -> None:
        """As stopped-at-5, and a topic named as the application's changelog topic would be."""
        self._stopped_at_5()
        from confluent_kafka.admin import AdminClient

        if self.values["changelog"] not in AdminClient({"bootstrap.servers": self.b}).list_topics(timeout=10).topics:
            create_topic(self.b, self.values["changelog"], partitions=1)

    def _deletable_app(self) -> None:
        """A stopped application's group (Empty) to delete: its app run again to the end."""
        v = self.values
        run_until_caught_up(self.b, v["deletable"], v["input"], v["sink"], 2)
