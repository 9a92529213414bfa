"""Byte parity of ``kcli kafka-reassign-partitions`` with Apache Kafka 4.4's
kafka-reassign-partitions on three nodes, real Kafka 4.4 (``apache_kafka3``) and the embedded
broker: the corpus (``reassign_corpus.py``) runs through both tools on the same state; every
difference is declared with its reason (the drop-in table of docs/dropins.md), the same on
either cluster. ``BOOTSTRAPS`` names the clusters it runs on."""

from __future__ import annotations

import json

import pytest

from tests.parity.harness import run_case
from tests.parity.reassign_corpus import REASSIGN_CASES, ReassignState
from tests.support.apache_kafka import ToolSession

BOOTSTRAPS = ["apache_kafka3", "embedded3"]


@pytest.fixture(scope="module")
def embedded3():
    from tests.support.groups import fast_cluster

    with fast_cluster(nodes=3) as ec:
        yield ec


@pytest.fixture(scope="module", params=BOOTSTRAPS)
def reassign_outcomes(request, tmp_path_factory, monkeypatch_module):
    cluster = request.getfixturevalue(request.param)
    scratch = tmp_path_factory.mktemp("reassign-parity")
    monkeypatch_module.setenv("XDG_STATE_HOME", str(scratch / "state"))    # kcli's rollback files
    with ReassignState(cluster.bootstrap_servers, scratch) as state, ToolSession() as tools:
        return {c.id: run_case(c, state.values, state.prepare, tools.run) for c in REASSIGN_CASES}


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def test_the_reassign_corpus_covers_every_action():
    actions = {"--generate", "--execute", "--verify", "--cancel", "--list"}
    assert len(REASSIGN_CASES) >= 50 and len({c.id for c in REASSIGN_CASES}) == len(REASSIGN_CASES)
    assert {c.java[0] for c in REASSIGN_CASES} == {"kafka-reassign-partitions"}
    assert all(c.dropin for c in REASSIGN_CASES)
    assert actions <= {a for c in REASSIGN_CASES for a in c.java}


def test_every_reassign_difference_is_declared_and_happens(reassign_outcomes):
    findings = [f for o in reassign_outcomes.values() for f in o.findings()]
    assert not findings, "\n".join(findings)


def test_the_cases_ran_on_the_states_they_claim(reassign_outcomes):
    """Not a vacuous parity: the moves started, stayed in progress, completed and were cancelled."""
    out = {i: o.kcli.out for i, o in reassign_outcomes.items()}
    assert out["reassign-execute"].endswith(
        "Successfully started partition reassignments for rparity-b-0,rparity-b-1\n")
    assert out["reassign-execute-while-moving"].startswith("Cannot execute because there is an existing")
    assert out["reassign-list-moving"] == ("Current partition reassignments:\n"
                                           "rparity-b-0: replicas: 3,1. adding: 3. removing: 1.\n"
                                           "rparity-b-1: replicas: 1,2. adding: 1.\n")
    assert out["reassign-verify-in-progress"].count("is still in progress.") == 2
    assert "Clearing" not in out["reassign-verify-in-progress"]
    assert out["reassign-verify-completed"].count("is completed.") == 2
    assert out["reassign-verify-completed"].endswith("Clearing topic-level throttles on topic rparity-b\n")
    assert out["reassign-cancel"].startswith("Successfully cancelled partition reassignments for: "
                                             "rparity-b-0,rparity-b-1\n")
    assert out["reassign-verify-log-dirs"].count("completed successfully.") == 6
    refused = reassign_outcomes["reassign-execute-disallow-rf-change"].kcli
    assert refused.code == 1 and refused.out.split("Error reassigning partition(s):\n")[1].startswith("rparity-b-1: ")
    assert "rparity-b-0" not in refused.out.split("Error reassigning partition(s):\n")[1]      # 1 -> 1 replica


def test_a_generated_proposal_is_balanced_over_the_brokers_given(reassign_outcomes):
    o = reassign_outcomes["reassign-generate-two-brokers"]
    proposal = json.loads(o.kcli.out.split("Proposed partition reassignment configuration\n")[1])
    assert {b for p in proposal["partitions"] for b in p["replicas"]} == {1, 2}
    leaders = [p["replicas"][0] for p in proposal["partitions"] if p["topic"] == "rparity-a"]
    assert sorted(leaders.count(b) for b in (1, 2)) == [1, 2]
    assert [p["log_dirs"] for p in proposal["partitions"]] == [["any"] * len(p["replicas"])
                                                              for p in proposal["partitions"]]


def test_the_rollback_file_is_the_replicas_before_the_move(reassign_outcomes):
    o = reassign_outcomes["reassign-execute"]
    path = o.kcli.err.split(": ", 1)[1].strip()
    saved = json.loads(open(path, encoding="utf-8").read())
    assert [(p["partition"], p["replicas"]) for p in saved["partitions"]] == [(0, [1]), (1, [2])]
    assert saved == json.loads(o.kcli.out.split("\n\n")[1])             # what stdout says to save
