"""Views that keep what they are for at 80 columns: a long name (Kafka Streams' default internal
topic names, member and process ids) is shortened in the middle before a column the view exists
for (offsets, lag, time lag, tasks, evidence, the audit's counts) is left out; ``-o json`` keeps
the whole name. Through kcli's entry point, stdout a terminal of 80 columns, against the embedded
broker: a streams application made over the wire (StreamsGroupHeartbeat) with Kafka Streams'
default names, its offsets committed by its coordinator."""

from __future__ import annotations

import io
import json
import re
import time
import uuid
from pathlib import Path

import pytest

from kcli.broker.groups import coordinator_for
from kcli.broker.groups.store import Committed
from kcli.cli.main import run
from kcli.protocol import REQUESTS
from tests.support.clients import commit, produce, unique
from tests.support.groups import RawClient, coordinator_of, fast_cluster
from tests.support.run import run_kcli_process
from tests.support.streams_wire import SGH, heartbeat

WIDTH = 80
APP = "wordapp"
REPARTITION = f"{APP}-KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition"      # Kafka Streams' default names
CHANGELOG = f"{APP}-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog"
MEMBERS = [str(uuid.UUID(int=n * 0x1111_1111_1111_1111_1111_1111_1111_1111)) for n in (3, 5)]
PROCESSES = [str(uuid.UUID(int=n * 0x0F0F_0F0F_0F0F_0F0F_0F0F_0F0F_0F0F_0F0F)) for n in (7, 9)]
STREAMS = {"group.streams.initial.rebalance.delay.ms": "0", "group.streams.heartbeat.interval.ms": "500"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")
ELLIPSIS = "…"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def on_terminal(monkeypatch, bootstrap: str, *args: str) -> list[str]:
    """kcli's stdout on a terminal of WIDTH columns, as lines (no colour)."""
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    monkeypatch.setenv("NO_COLOR", "1")
    out, err = Terminal(), io.StringIO()
    assert run([*args, "-b", bootstrap], out, err) == 0, err.getvalue()
    return ANSI.sub("", out.getvalue()).splitlines()


def as_json(bootstrap: str, *args: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    assert run([*args, "-b", bootstrap, "-o", "json"], out, err) == 0, err.getvalue()
    return json.loads(out.getvalue())


def table_lines(lines: list[str]) -> list[str]:
    """The table's lines (header, rule, rows): no line of it wider than the terminal."""
    table = [line for line in lines if line.startswith((" ", "─"))]
    assert table and all(len(line) <= WIDTH for line in table), "\n".join(lines)
    return table


def short_forms(name: str, text: str) -> set[str]:
    """The forms of ``name`` shortened in the middle that ``text`` shows: its start, ``…``, its
    end, 9 characters of each at least (a name cut to the narrowest, 20, keeps 10 and 9)."""
    return {m for m in re.findall(r"\S{9,}" + ELLIPSIS + r"\S{9,}", text)
            if name.startswith(m.split(ELLIPSIS)[0]) and name.endswith(m.split(ELLIPSIS)[1])}


def shortened(name: str, text: str) -> str:
    forms = short_forms(name, text)
    assert len(forms) == 1, (name, text)
    return forms.pop()


def wordcount_topology():
    """Kafka Streams' word count: words -> repartition (subtopology 0), repartition -> a counting
    store with its changelog (subtopology 1), with its default internal topic names."""
    T = REQUESTS[SGH].Topology
    S, info = T.Subtopology, T.Subtopology.TopicInfo
    return T(epoch=0, subtopologies=[
        S(subtopology_id="0", source_topics=["words"], source_topic_regex=[], repartition_sink_topics=[REPARTITION],
          state_changelog_topics=[], repartition_source_topics=[], copartition_groups=[]),
        S(subtopology_id="1", source_topics=[], source_topic_regex=[], repartition_sink_topics=[],
          state_changelog_topics=[info(name=CHANGELOG, partitions=0, replication_factor=0, topic_configs=[])],
          repartition_source_topics=[info(name=REPARTITION, partitions=3, replication_factor=0, topic_configs=[])],
          copartition_groups=[])])


@pytest.fixture(scope="module")
def cluster():
    with fast_cluster(1, configs=STREAMS) as ec:
        yield ec


@pytest.fixture
def wordapp():
    """Two instances of the application, each with its tasks; 10 records in each partition of its
    input and repartition topics, offset 0 committed on each: a lag of 60. A cluster of its own,
    for each test: the members stay in the group without heartbeats for its session timeout."""
    with fast_cluster(1, configs=STREAMS) as ec:
        b = ec.bootstrap_servers
        ec.create_topic("words", 3)
        raw = RawClient(b)
        try:
            node = coordinator_of(ec, APP)
            epochs: dict[str, int] = {}
            tasks: dict[str, list] = {m: [] for m in MEMBERS}
            for n in range(50):          # bounded: each member takes what the coordinator assigns
                for m, process in zip(MEMBERS, PROCESSES):
                    r = (heartbeat(raw, node, APP, m, epochs[m], active=tasks[m]) if n else
                         heartbeat(raw, node, APP, m, 0, process=process, topo=wordcount_topology()))
                    assert r.error_code == 0, r
                    epochs[m] = r.member_epoch
                    if r.active_tasks is not None:
                        tasks[m] = [(t.subtopology_id, list(t.partitions)) for t in r.active_tasks]
                if all(tasks.values()) and sum(len(ps) for m in MEMBERS for _, ps in tasks[m]) == 6:
                    break
                time.sleep(0.05)
            assert all(tasks.values()), tasks
            for topic in ("words", REPARTITION):
                for p in range(3):
                    produce(b, topic, [(p, f"{topic}-{i}") for i in range(10)])

            def committed_by_the_coordinator():
                co = coordinator_for(ec.cluster)
                for topic in ("words", REPARTITION):
                    tid = str(ec.cluster.topics[topic].topic_id)
                    co.commit(APP, [(topic, p, Committed(0, -1, "", ec.cluster.now_ms(), tid)) for p in range(3)])
            ec.call(committed_by_the_coordinator)
            yield b
        finally:
            raw.close()


def test_a_streams_group_keeps_its_offsets_lag_and_time_lag_with_its_topics_shortened(wordapp, monkeypatch):
    lines = on_terminal(monkeypatch, wordapp, "describe", "groups", APP)
    table = table_lines(lines)
    header = table[0].split()
    assert {"TOPIC", "PARTITION", "CURRENT-OFFSET", "LAG", "TIME-LAG"} <= set(header), "\n".join(lines)
    text = "\n".join(lines)
    assert f"Total lag of group '{APP}': 60" in text
    short = shortened(REPARTITION, "\n".join(table))
    assert len(short) < len(REPARTITION) and REPARTITION not in "\n".join(table)
    assert sum(short in line for line in table) == 3                      # its 3 partitions
    assert "TOPIC" in " ".join(lines).split("names shortened")[1], text  # the dim line says which
    (group,) = as_json(wordapp, "describe", "groups", APP)["groups"]
    assert {p["topic"] for p in group["partitions"]} == {"words", REPARTITION}   # JSON: the whole name
    assert group["totalLag"] == 60


def test_a_streams_groups_members_keep_their_active_tasks(wordapp, monkeypatch):
    lines = on_terminal(monkeypatch, wordapp, "describe", "groups", APP, "--members")
    table = table_lines(lines)
    header = table[0].split()
    assert {"MEMBER", "ACTIVE-TASKS"} <= set(header), "\n".join(lines)
    column = header.index("ACTIVE-TASKS")
    rows = [line.split() for line in table[2:]]
    assert len(rows) == 2 and all(re.fullmatch(r"[01]:[0-9,]+(;[01]:[0-9,]+)?", r[column]) for r in rows), table
    members = as_json(wordapp, "describe", "groups", APP, "--members")["groups"][0]["members"]
    assert sorted(m["memberId"] for m in members) == sorted(MEMBERS)   # JSON: the whole ids
    for member in MEMBERS:                      # each row names its member, whole or shortened
        assert sum(member in row or bool(short_forms(member, row)) for row in table[2:]) == 1, (member, table)


def test_check_broker_keeps_its_evidence(cluster, monkeypatch):
    lines = on_terminal(monkeypatch, cluster.bootstrap_servers, "check", "broker")
    table = table_lines(lines)
    assert {"RULE", "STATUS", "EVIDENCE"} <= set(table[0].split()), "\n".join(lines)
    text = " ".join(" ".join(line.split()) for line in table)
    assert "offset 5; expected 5" in text                        # list-offsets.latest's evidence
    evidence = as_json(cluster.bootstrap_servers, "check", "broker")["rules"]
    assert all(r["evidence"] for r in evidence)


def test_a_max_age_plans_rule_shows_ages_in_two_units(cluster, monkeypatch):
    """The RULE column of a --max-age plan: an age the broker knows (KIP-1327) cut to two units
    (``3m52s``, never ``3m52s474ms``), as docs/output.md's tables show durations; the JSON plan
    keeps the exact age."""
    b = cluster.bootstrap_servers
    now = int(time.time() * 1000)
    young, old, group = unique("young"), unique("old"), unique("aged")
    cluster.create_topic(young, 1, creation_time_ms=now - 232_474)          # 3m52s474ms ago
    cluster.create_topic(old, 1, creation_time_ms=now - 7_200_000 - 1_474)  # 2h0m1s474ms ago
    for topic in (young, old):
        produce(b, topic, [(0, f"{topic}-{i}") for i in range(4)])
    commit(b, group, {(young, 0): 2, (old, 0): 2})
    args = ("reset-offsets", "-g", group, "--all-topics", "--to-latest", "--max-age", "1h", "--dry-run")
    lines = on_terminal(monkeypatch, b, *args)
    table = table_lines(lines)
    assert {"NEW-OFFSET", "RULE"} <= set(table[0].split()), "\n".join(lines)
    text = " ".join(" ".join(line.split()) for line in table)
    assert re.search(r"earliest \(hot, broker: age [34]m[0-9]+s ≤ 1h\)", text), text
    assert re.search(r"latest \(cold, broker: age 2h > 1h\)", text), text
    assert not re.search(r"\d+m\d+s\d+ms|\dh\d*m?\d+s", text), text         # at most two units
    rows = {p["topic"]: p for g in as_json(b, *args)["groups"] for p in g["partitions"]}
    assert rows[young]["age"]["minAgeMs"] >= 232_474 and rows[old]["age"]["minAgeMs"] >= 7_201_474


def on_pty(stderr: Path, *args: str, timeout: float = 240) -> list[str]:
    """``python -m kcli ARGS`` with its stdout a pseudo terminal WIDTH columns wide, stderr to a
    file (no progress bar) (a child process: the audit's Spark JVM stays out of pytest's); its
    lines, once it exited 0."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import subprocess
    import sys
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, WIDTH, 0, 0))
    with stderr.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "kcli", *args], stdin=subprocess.DEVNULL, stdout=slave,
                                stderr=err, close_fds=True, env={**os.environ, "COLUMNS": str(WIDTH), "NO_COLOR": "1"})
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:          # the child closed the terminal: it exited
                    break
                if not chunk:
                    break
                seen += chunk
        code = proc.wait(30)
    finally:
        proc.kill()
        os.close(master)
    text = ANSI.sub("", seen.decode(errors="replace")).replace("\r\n", "\n")
    assert code == 0, (text, stderr.read_text())
    return text.splitlines()


@pytest.mark.spark
def test_the_audit_keeps_its_counts(tmp_path):
    """``kcli audit timestamps`` at 80 columns: TOO-OLD, TOO-NEW, CULPRITS and OUT-OF-ORDER all
    shown (only the first was), the topic's name shortened in the middle; -o json has it whole."""
    now = int(time.time() * 1000)
    topic = unique("payments.eu-west-1.settlement-events.v3")
    with fast_cluster(1) as ec:
        b = ec.bootstrap_servers
        ec.create_topic(topic, 2, configs={"message.timestamp.after.max.ms": str(2**63 - 1)})
        for p in range(2):          # one record a day old, one 2 h ahead, one back in time
            produce(b, topic, [(p, b"a", now - 60_000), (p, b"b", now + 7_200_000), (p, b"c", now - 30_000),
                               (p, b"d", now - 86_400_000)])
        args = ("-b", b, "audit", "timestamps", "-t", topic, "--after-max-ms", "3600000", "--before-max-ms",
                "3600000", "--master", "local[1]", "--source", "python")
        lines = on_pty(tmp_path / "stderr", *args)
        json_run = run_kcli_process(None, *args, "-o", "json", timeout=240)
    assert json_run.code == 0, json_run.err
    doc = json.loads(json_run.out)
    table = table_lines(lines)
    assert {"TOO-OLD", "TOO-NEW", "CULPRITS", "OUT-OF-ORDER"} <= set(table[0].split()), "\n".join(lines)
    short = shortened(topic, "\n".join(table))
    assert sum(short in line for line in table) == 2                      # its 2 partitions
    assert [p["topic"] for p in doc["partitions"]] == [topic, topic]      # JSON: the whole name
    assert (doc["total"]["tooOld"], doc["total"]["tooNew"]) == (2, 2)
