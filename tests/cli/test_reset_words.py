"""A reset's warnings and refusals are values (kcli.model.PlanWarning, Refusal), and
each front end words them its own way. The drop-ins print kafka-consumer-groups' bytes
(kcli.cli.dropin.javawords), deciding where each line goes by the warning's kind; kcli's own
wording (kcli.render.notices.WORDS, kcli.ops.resets.gather.refusal_text) can change without moving a
byte of a drop-in's stdout. Before, the drop-in routed the native text by its first words
(``startswith("No reset plan")``...), so rewording a native warning moved the tool's
``Error:`` line from stdout to stderr."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer

from kcli.model import CLAMPED, MISSING_GROUP, NO_PLAN, NO_RECORD, NOT_INACTIVE, PlanWarning, Refusal
from kcli.render import notices
from tests.support.groups import consume, fast_cluster
from tests.support.run import run_dropin, run_kcli


@pytest.fixture(scope="module")
def cluster():
    from confluent_kafka import Consumer

    with fast_cluster(1) as c:
        b = c.bootstrap_servers
        c.create_topic("t", 1)
        p = Producer({"bootstrap.servers": b, "linger.ms": 0})
        for i in range(20):
            p.produce("t", f"r{i}".encode(), partition=0)
        assert p.flush(10) == 0
        consumer = Consumer({"bootstrap.servers": b, "group.id": "g1", "auto.offset.reset": "earliest",
                             "enable.auto.commit": False, "group.protocol": "classic"})
        consumer.subscribe(["t"])
        assert len(consume([consumer], 20)[0]) == 20
        consumer.commit(asynchronous=False)
        consumer.close()
        yield c


def _lines(cluster, tmp_path) -> list[list[str]]:
    plan = tmp_path / "plan.csv"
    plan.write_text("g1,t,0,5\n")
    base = ["kafka-consumer-groups", "--bootstrap-server", cluster.bootstrap_servers, "--reset-offsets"]
    return [base + ["--group", "g1", "--topic", "t", "--to-datetime", "2999-01-01T00:00:00.000", "--dry-run"],
            base + ["--group", "g1", "--topic", "t", "--to-offset", "500", "--dry-run"],
            base + ["--group", "g1", "--group", "nobody", "--from-file", str(plan), "--dry-run"]]


def _reworded(monkeypatch) -> None:
    """Every native wording replaced by words that share no first word with the Java tool's."""
    for kind in list(notices.WORDS):
        monkeypatch.setitem(notices.WORDS, kind, lambda w: f"Reworded {w.kind} for {w.group}")
    monkeypatch.setattr("kcli.ops.resets.gather.refusal_text", lambda r: f"Reworded {r.kind}")


def test_rewording_kcli_warnings_leaves_dropin_stdout_byte_identical(cluster, tmp_path, monkeypatch):
    lines = _lines(cluster, tmp_path)
    before = [run_dropin(*line) for line in lines]
    assert before[0].out.startswith("\nWarn: Partition 0 from topic t is empty. Falling back to latest "
                                    "known offset.\n")
    assert "\nError: No reset plan for group nobody found.\n" in before[2].out
    assert "New offset (500) is higher than latest offset for topic partition t-0. Value will be set to 20." \
        in before[1].err
    _reworded(monkeypatch)
    native = run_kcli(cluster.bootstrap_servers, "reset-offsets", "-g", "g1", "-t", "t", "--to-offset", "500")
    assert "Warn: Reworded clamped for g1" in native.err           # the native wording did change
    after = [run_dropin(*line) for line in lines]
    assert [(r.code, r.out) for r in after] == [(r.code, r.out) for r in before]
    assert "New offset (500) is higher" in after[1].err             # the tool's log line, its own words
    assert "Warn: Reworded missing-group for nobody" in after[2].err   # kcli's own note: kcli's words


@pytest.mark.parametrize("warning, native, dropin", [
    (PlanWarning(CLAMPED, "g", "t", 3, asked=2, new=7),
     "New offset (2) is lower than earliest offset for topic partition t-3. Value will be set to 7.",
     ("stderr", " WARN New offset (2) is lower than earliest offset for topic partition t-3. Value will be set to "
                "7. (org.apache.kafka.tools.GroupOffsetsResetter)\n")),
    (PlanWarning(NO_RECORD, "g", "t", 3, new=9),
     "Partition t-3: no record at or after the time; the reset goes to the log end (9)",
     ("stdout", "\nWarn: Partition 3 from topic t is empty. Falling back to latest known offset.\n")),
    (PlanWarning(NO_PLAN, "g"), "No reset plan for group g found.",
     ("stdout", "\nError: No reset plan for group g found.\n")),
    (PlanWarning(MISSING_GROUP, "g", execute=False), "Group g does not exist: --execute creates it with these offsets",
     ("stderr", "Warn: Group g does not exist: --execute creates it with these offsets\n")),
])
def test_each_front_end_words_a_warning_its_own_way(warning, native, dropin):
    from kcli.cli.dropin import javawords

    assert notices.text(warning) == native
    stream, line = javawords.warning(warning)           # a clamped offset: a log4j line, after its date
    assert stream == dropin[0] and (line.endswith(dropin[1]) if warning.kind == CLAMPED else line == dropin[1])


def test_a_refusal_is_worded_by_each_front_end():
    from kcli.cli.dropin import javawords
    from kcli.ops.resets.gather import refusal_text

    r = Refusal(NOT_INACTIVE, "g", "Stable")
    words = "Assignments can only be reset if the group 'g' is inactive, but the current state is Stable."
    assert refusal_text(r) == words and javawords.refusal(r) == f"\nError: {words}\n"
