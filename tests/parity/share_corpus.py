"""The kafka-share-groups corpus: command lines from Apache Kafka's own tests of the tool
(ShareGroupCommandTest in tools/src/test/java/org/apache/kafka/tools/consumer/group/) and the
share groups' operations docs, run through Apache Kafka 4.4.0's tool and ``kcli
kafka-share-groups`` with the same words, on the same cluster state (``ShareState``: one share
group with a running member, one stopped with records left, one made again before each --delete).
The differences each case declares are part of the drop-in table of docs/dropins.md.

``ShareState`` takes any bootstrap: the cases run the same on every broker that hosts share
groups (real Apache Kafka 4.4 and the embedded broker)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from tests.parity.dropin_corpus import PARSE, USAGE, dropin
from tests.parity.harness import EXIT, STDERR, Case
from tests.support.clients import create_topic, produce
from tests.support.share_app import ShareMember, stopped_member


def share(*args, **kw) -> Case:
    return dropin("kafka-share-groups", *args, **kw)


FAILED = {STDERR: "stack-trace", EXIT: "honest-exit"}   # the same stdout line; Java: trace, exit 0
HONEST = {EXIT: "honest-exit"}
SKIPS = {STDERR: "skip-notice"}
RESET = ("--reset-offsets", "--group", "{stopped}")

SHARE_CASES: list[Case] = [
    # -- --list -------------------------------------------------------------------------------
    share("--list", id="share-list"),
    share("--list", "--state", id="share-list-state"),
    share("--list", "--state", "Stable", id="share-list-state-stable"),
    share("--list", "--state", "stable,empty", id="share-list-state-case"),
    share("--list", "--state", "Dead", id="share-list-state-none"),
    share("--list", "--state", "bogus", differs=USAGE, id="share-list-state-invalid"),
    share("--list", "--verbose", differs=USAGE, id="share-list-verbose"),
    share("--list", "--members", differs=PARSE, id="share-list-members"),
    # -- --describe ---------------------------------------------------------------------------
    share("--describe", "--group", "{running}", id="share-describe"),
    share("--describe", "--group", "{running}", "--offsets", id="share-describe-offsets"),
    share("--describe", "--group", "{running}", "--verbose", id="share-describe-verbose"),
    share("--describe", "--group", "{stopped}", id="share-describe-stopped"),
    share("--describe", "--group", "{stopped}", "--offsets", "--verbose", id="share-describe-stopped-verbose"),
    share("--describe", "--group", "{running}", "--members", id="share-describe-members"),
    share("--describe", "--group", "{running}", "--members", "--verbose", id="share-describe-members-verbose"),
    share("--describe", "--group", "{stopped}", "--members", id="share-describe-stopped-members"),
    share("--describe", "--group", "{running}", "--state", id="share-describe-state"),
    share("--describe", "--group", "{running}", "--state", "--verbose", id="share-describe-state-verbose"),
    share("--describe", "--group", "{stopped}", "--state", id="share-describe-stopped-state"),
    share("--describe", "--group", "{running}", "--group", "{stopped}", "--state", id="share-describe-two-groups"),
    share("--describe", "--group", "{fresh}", id="share-describe-no-offsets"),
    share("--describe", "--group", "nosuch-share", differs=FAILED, id="share-describe-missing"),
    share("--describe", "--group", "nosuch-share", "--members", differs=FAILED, id="share-describe-missing-members"),
    share("--describe", "--group", "{consumer}", differs=FAILED, id="share-describe-consumer-group"),
    share("--describe", differs=USAGE, id="share-describe-no-group"),
    share("--describe", "--group", "{running}", "--members", "--state", differs=USAGE,
          id="share-describe-members-and-state"),
    share("--describe", "--group", "{running}", "--state", "Stable", differs=USAGE, id="share-describe-state-value"),
    share("--describe", "--group", "{running}", "--topic", "{topic}", differs=USAGE, id="share-describe-topic"),
    # -- --reset-offsets (ShareGroupCommandTest) ----------------------------------------------
    share(*RESET, "--all-topics", "--to-earliest", "--dry-run", id="share-reset-to-earliest"),
    share(*RESET, "--all-topics", "--to-latest", "--dry-run", differs=SKIPS, id="share-reset-to-latest"),
    share(*RESET, "--all-topics", "--to-current", "--dry-run", id="share-reset-to-current"),
    share(*RESET, "--topic", "{topic}", "--to-current", "--dry-run", id="share-reset-topic-to-current"),
    share(*RESET, "--topic", "{topic}", "--to-offset", "5", "--dry-run", differs=SKIPS, id="share-reset-to-offset"),
    share(*RESET, "--topic", "{topic}", "--to-offset", "10", "--dry-run", differs=SKIPS,
          id="share-reset-to-offset-clamped"),
    share(*RESET, "--topic", "{topic}:1", "--to-earliest", "--dry-run", id="share-reset-topic-partition"),
    share(*RESET, "--all-topics", "--to-datetime", "2000-01-01T00:00:00.000", "--dry-run",
          id="share-reset-to-datetime"),
    share(*RESET, "--all-topics", "--to-earliest", "--dry-run", "--export", id="share-reset-export"),
    share(*RESET, "--from-file", "{plan}", "--dry-run", id="share-reset-from-file"),
    share(*RESET, "--topic", "{topic}", "--to-earliest", "--execute", prepare="stopped-again",
          differs={STDERR: "rollback-note"}, id="share-reset-execute"),
    share("--reset-offsets", "--group", "{running}", "--all-topics", "--to-earliest", "--dry-run",
          id="share-reset-active-group"),
    share("--reset-offsets", "--group", "nosuch-share", "--topic", "{topic}", "--to-earliest", "--dry-run",
          differs={STDERR: "kcli-notice"}, id="share-reset-missing-group"),
    share(*RESET, "--topic", "nosuch-topic", "--to-earliest", "--dry-run", differs=FAILED,
          id="share-reset-missing-topic"),
    share(*RESET, "--all-topics", "--to-earliest", differs=USAGE, id="share-reset-no-dry-run"),
    share(*RESET, "--to-earliest", "--dry-run", differs=USAGE, id="share-reset-no-scope"),
    share(*RESET, "--all-topics", "--dry-run", differs=USAGE, id="share-reset-no-scenario"),
    share(*RESET, "--all-topics", "--to-earliest", "--dry-run", "--execute", differs=USAGE,
          id="share-reset-dry-run-and-execute"),
    share(*RESET, "--all-topics", "--to-earliest", "--to-latest", "--dry-run", differs=USAGE,
          id="share-reset-two-scenarios"),
    share("--reset-offsets", "--all-groups", "--all-topics", "--to-earliest", "--dry-run", differs=USAGE,
          id="share-reset-all-groups"),
    share(*RESET, "--all-topics", "--shift-by", "1", "--dry-run", differs=PARSE, id="share-reset-shift-by"),
    share(*RESET, "--group", "{running}", "--all-topics", "--to-earliest", "--dry-run", differs=PARSE,
          id="share-reset-two-groups"),
    # -- --delete-offsets ---------------------------------------------------------------------
    share("--delete-offsets", "--group", "{stopped}", "--topic", "{topic}", prepare="stopped-again",
          id="share-delete-offsets"),
    share("--delete-offsets", "--group", "{stopped}", "--topic", "{other}", differs=HONEST,
          id="share-delete-offsets-no-state"),
    share("--delete-offsets", "--group", "{stopped}", "--topic", "nosuch-topic", differs=HONEST,
          id="share-delete-offsets-missing-topic"),
    share("--delete-offsets", "--group", "{running}", "--topic", "{topic}", differs=HONEST,
          id="share-delete-offsets-active"),
    share("--delete-offsets", "--group", "{stopped}", "--group", "{running}", "--topic", "{topic}", differs=PARSE,
          id="share-delete-offsets-two-groups"),
    share("--delete-offsets", "--group", "groupId", differs=USAGE, id="share-delete-offsets-no-topic"),
    share("--delete-offsets", "--topic", "t1", differs=USAGE, id="share-delete-offsets-no-group"),
    # -- --delete -----------------------------------------------------------------------------
    share("--delete", "--group", "{deletable}", prepare="deletable", id="share-delete"),
    share("--delete", "--group", "{deletable}", "--group", "{running}", prepare="deletable", differs=HONEST,
          id="share-delete-one-active"),
    share("--delete", "--group", "{running}", differs=HONEST, id="share-delete-active"),
    share("--delete", "--group", "nosuch-share", differs=HONEST, id="share-delete-missing"),
    share("--delete", "--group", "{consumer}", differs=HONEST, id="share-delete-consumer-group"),
    share("--delete", differs=USAGE, id="share-delete-no-group"),
    share("--delete", "--group", "{running}", "--all-groups", differs=USAGE, id="share-delete-group-and-all"),
    share("--delete", "--group", "{running}", "--topic", "{topic}", differs=USAGE, id="share-delete-topic"),
    # -- the command line (ShareGroupCommandTest) ---------------------------------------------
    share("--list", "--describe", differs=USAGE, id="share-two-actions"),
    share("--group", "{running}", differs=USAGE, id="share-no-action"),
    share("--list", "--group", "{running}", differs=USAGE, id="share-list-group"),
    share("--list", bootstrap=False, differs=USAGE, id="share-no-bootstrap"),
    share("--list", "--timeout", "abc", differs=PARSE, id="share-timeout-not-a-number"),
    share("--help", bootstrap=False, id="share-help"),
]


class ShareState:
    """The corpus's cluster state: a topic of 2 partitions with 5 records each, a share group
    ``stopped`` (Empty, offsets 0-2 of each partition accepted), ``running`` (a member that accepted every record,
    Stable while the corpus runs), ``fresh`` (described before it has any share-partition), a
    consumer group, and ``deletable`` made again before each --delete. Names of the state's own."""

    def __init__(self, bootstrap: str, scratch: Path, prefix: str = "sparity-share"):
        p = prefix
        self.b = bootstrap
        self.values = {"b": bootstrap, "topic": f"{p}-in", "other": f"{p}-other", "running": f"{p}-running",
                       "stopped": f"{p}-stopped", "deletable": f"{p}-gone", "fresh": f"{p}-fresh",
                       "consumer": f"{p}-consumer"}
        self.scratch = scratch
        self._stack = ExitStack()

    def __enter__(self) -> "ShareState":
        from tests.support.clients import commit

        v, b = self.values, self.b
        create_topic(b, v["topic"], partitions=2)
        create_topic(b, v["other"], partitions=1)
        produce(b, v["topic"], [(p, f"v{p}-{i}") for p in range(2) for i in range(5)])
        stopped_member(b, v["topic"], v["stopped"], 3, 6)
        self._stack.enter_context(_stopping(ShareMember(b, v["topic"], v["running"], 5, 10)))
        self._stack.enter_context(_stopping(ShareMember(b, v["other"], v["fresh"], 0, 0)))
        commit(b, v["consumer"], {(v["topic"], 0): 1})
        # offsets no start offset is below: no skip notice, however far the broker has moved a
        # start offset past the accepted records when the case runs (it does so lazily)
        plan = self.scratch / "share-plan.csv"
        plan.write_text(f"{v['topic']},0,0\n{v['topic']},1,0\n")
        v["plan"] = str(plan)
        at_3 = self.scratch / "share-at-3.csv"
        at_3.write_text(f"{v['topic']},0,3\n{v['topic']},1,3\n")
        self.at_3 = str(at_3)
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def prepare(self, step: str) -> None:
        getattr(self, "_" + step.replace("-", "_"))()

    def _stopped_again(self) -> None:
        """The stopped group's start offsets back at 3 and 3 (kcli's reset from a file: no JVM)."""
        self._share_reset(self.values["stopped"], "--from-file", self.at_3)

    def _deletable(self) -> None:
        """An Empty share group to delete, made by a reset (AlterShareGroupOffsets makes it)."""
        self._share_reset(self.values["deletable"], "--topic", self.values["topic"], "--to-earliest")

    def _share_reset(self, group: str, *args: str) -> None:
        from tests.parity.harness import run_dropin

        r = run_dropin(("kafka-share-groups", "--bootstrap-server", self.b, "--reset-offsets", "--group", group,
                        *args, "--execute"))
        assert r.code == 0, r


class _stopping:
    def __init__(self, member: ShareMember):
        self.member = member

    def __enter__(self):
        return self.member

    def __exit__(self, *exc):
        self.member.stop()
