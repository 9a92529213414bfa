"""The drop-in corpus on kcli's embedded broker, where KIP-1327 and KIP-1282 are in force.

Each command line of ``dropin_corpus`` runs through Apache Kafka 4.4's tool and through
``kcli <tool>`` on the same state (``corpus.State``), judged as on real Kafka (test_parity.py):
the declared differences happen and no others. Except the KIP additions, which Kafka 4.4's tools
cannot print and kcli must print exactly as the KIP texts show them:

- KIP-1327: every partition line of kafka-topics --describe ends with ``\\tCreationTimeMs: T``,
  T the partition's creation time as ``yyyy-MM-dd'T'HH:mm:ss.SSSXXX`` in UTC. A describe by
  topic id goes by Metadata, as the Java tool's does, which carries no creation time: omitted.
- KIP-1282: ``--describe --state --verbose`` adds the GROUP-CREATION-TIME column (the group's
  creation time; ``-`` for a classic group); ``--reset-offsets --to-start-time`` resets to the
  first record at or after it (the KIP's own command line, below), or fails with the KIP's
  error and resets nothing. Kafka 4.4's tool does not know the option: no comparison there.

The kafka-transactions corpus (``transactions_corpus``) runs there too, on a broker of its own
with transactional produce unverified (as ``apache_kafka_txn``), judged as on real Kafka.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import replace
from datetime import datetime

import pytest

from tests.support.groups import fast_cluster
from tests.parity.corpus import CASES, State
from tests.parity.harness import Outcome, run_case, run_dropin
from tests.parity.transactions_corpus import TXN_CASES, TxnState
from tests.support.apache_kafka import ToolSession
from tests.support.clients import consume_and_commit, create_topic, produce

pytestmark = pytest.mark.apache          # Apache's Java tools run beside kcli

DROPINS = [c for c in CASES if c.dropin]
ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
CREATION = re.compile(rf"\tCreationTimeMs: ({ISO})$", re.M)
BY_TOPIC_ID = {"dropin-topics-describe-topic-id"}            # Metadata: no creation time
TO_START_TIME = {c.id for c in DROPINS if "--to-start-time" in c.java}
STATE_VERBOSE = {c.id for c in DROPINS if {"--state", "--verbose"} <= set(c.java) and "--describe" in c.java}
NOT_AVAILABLE = ("\nError: Cannot reset offsets using --to-start-time. The group creation time is not "
                 "available for group '{group}'. The group may have been created before KIP-1282 was "
                 "enabled. Please delete and recreate the group.\n")


def _ms(iso: str) -> int:
    return int(datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("dropin-embedded")
    cwd = os.getcwd()
    os.chdir(scratch)                         # kcli's rollback files land here
    try:
        with fast_cluster(nodes=1) as ec:
            start = int(time.time() * 1000)
            with State(ec.bootstrap_servers, scratch) as state, ToolSession() as tools:
                outcomes = {c.id: run_case(c, state.values, state.prepare, tools.run) for c in DROPINS}
            yield ec.bootstrap_servers, state.values, outcomes, (start, int(time.time() * 1000))
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="module")
def txn_outcomes(tmp_path_factory):
    """The kafka-transactions corpus on an embedded broker set up as ``apache_kafka_txn`` is
    (transactional produce unverified), each line through Kafka 4.4's tool and kcli's drop-in."""
    scratch = tmp_path_factory.mktemp("txn-embedded")
    with fast_cluster(1, {"transaction.partition.verification.enable": "false"}) as ec:
        with TxnState(ec.bootstrap_servers, scratch) as state, ToolSession() as tools:
            return {c.id: run_case(c, state.values, state.prepare, tools.run) for c in TXN_CASES}


def test_the_corpus_runs_on_the_embedded_broker():
    assert len(DROPINS) >= 60 and BY_TOPIC_ID | TO_START_TIME | STATE_VERBOSE <= {c.id for c in DROPINS}


def test_every_line_is_the_java_tools_plus_the_kip_additions(embedded):
    _, _, outcomes, (start, end) = embedded
    findings = []
    for case_id, o in outcomes.items():
        if case_id in TO_START_TIME:
            continue
        java_partition_lines = [line for line in o.java.out.splitlines() if "\tPartition: " in line]
        times = CREATION.findall(o.kcli.out)
        expected = 0 if case_id in BY_TOPIC_ID or o.java.code else len(java_partition_lines)
        if len(times) != expected:
            findings.append(f"{case_id}: {len(times)} CreationTimeMs fields, {expected} partition lines")
        findings += [f"{case_id}: CreationTimeMs {t} outside the run" for t in times if not start <= _ms(t) <= end]
        stripped = replace(o.kcli, out=CREATION.sub("", o.kcli.out))
        findings += Outcome(o.case, o.java_args, o.kcli_args, o.java, stripped).findings()
    assert not findings, "\n".join(findings)


def test_group_creation_time_column_as_kip_1282_shows_it(embedded):
    """Kafka 4.4's lines, ``#MEMBERS`` padded to 10, then the group's creation time or ``-``."""
    _, values, outcomes, (start, end) = embedded
    created = {}
    for case_id in sorted(STATE_VERBOSE):
        o = outcomes[case_id]
        java, kcli = o.java.out.split("\n"), o.kcli.out.split("\n")
        assert o.java.code == o.kcli.code == 0 and len(java) == len(kcli) >= 3, (case_id, o.java, o.kcli)
        for j, k in zip(java, kcli):
            if not j:
                assert k == "", case_id
                continue
            extra = k[len(j):]
            assert k.startswith(j) and extra[:11 - len(j.split()[-1])].isspace(), (case_id, j, k)
            created[j.split()[0]] = extra.strip()
    assert created.pop("GROUP") == "GROUP-CREATION-TIME"
    assert created.pop(values["g_stable"]) == "-"                        # a classic group
    consumer_protocol = created.pop(values["g_stable848"])
    assert re.fullmatch(ISO, consumer_protocol) and start <= _ms(consumer_protocol) <= end
    assert not created


def test_to_start_time_without_a_creation_time_is_the_kips_error(embedded):
    _, values, outcomes, _ = embedded
    for case_id in sorted(TO_START_TIME):
        o = outcomes[case_id]
        group = o.java_args[o.java_args.index("--group") + 1]
        assert group == values["g_classic"]                              # classic: no creation time
        assert (o.kcli.code, o.kcli.out, o.kcli.err) == (1, NOT_AVAILABLE.format(group=group), "")


def test_to_start_time_as_the_kip_shows_it(embedded, tmp_path, monkeypatch):
    """KIP-1282's example: ``--group <group> --reset-offsets --to-start-time --topic <topic>
    --execute`` resets to the first record at or after the group's creation time."""
    b, _, _, _ = embedded
    monkeypatch.chdir(tmp_path)
    topic, group = "kip1282-events", "kip1282-app"
    create_topic(b, topic)
    produce(b, topic, [(0, "read-1"), (0, "read-2")])
    consume_and_commit(b, group, [topic], 2, "consumer")                # the group starts here

    def tool(*args):
        return run_dropin(("kafka-consumer-groups", "--bootstrap-server", b, *args))

    state = tool("--describe", "--group", group, "--state", "--verbose")
    assert state.code == 0, state
    created = _ms(state.out.strip().splitlines()[-1].split()[-1])
    produce(b, topic, [(0, "late-but-old", created - 60_000), (0, "first-after", created + 1),
                       (0, "second-after", created + 2)])                 # offsets 2, 3, 4
    assert tool("--group", group, "--reset-offsets", "--to-earliest", "--topic", topic, "--execute").code == 0
    reset = tool("--group", group, "--reset-offsets", "--to-start-time", "--topic", topic, "--execute")
    assert reset.code == 0, reset
    assert reset.out.split("\n")[2].split() == [group, topic, "0", "3"]
    described = tool("--describe", "--group", group)
    assert described.code == 0 and described.out.split("\n")[2].split()[3:6] == ["3", "5", "2"], described


def test_the_transactions_corpus_on_the_embedded_broker(txn_outcomes):
    """As on real Kafka (test_parity.py): the declared differences and no others, the hanging
    transaction found (partition 1, offset 0) and the open one not."""
    findings = [f for o in txn_outcomes.values() for f in o.findings()]
    assert not findings, "\n".join(findings)
    rows = txn_outcomes["txn-find-hanging-topic"].java.out.splitlines()[1:]
    assert [r.split("\t")[:2] + r.split("\t")[5:6] for r in rows] == [["tparity-t", "1        ", "0          "]]
    assert txn_outcomes["txn-find-hanging-open-not-hanging"].java.out.count("\n") == 1
    assert "Ongoing" in txn_outcomes["txn-list"].java.out and "tparity-hanging" in txn_outcomes["txn-list"].java.out
