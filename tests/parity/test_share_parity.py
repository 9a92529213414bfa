"""Byte parity of ``kcli kafka-share-groups`` with Apache Kafka 4.4's kafka-share-groups, on real
Kafka 4.4 (share groups are on by default there) and on the embedded broker: the corpus
(``share_corpus.py``) runs through both tools on the same state; every difference is declared
with its reason (the drop-in table of docs/dropins.md), the same on either cluster.
``BOOTSTRAPS`` names the clusters it runs on."""

from __future__ import annotations

import os

import pytest

from tests.parity.harness import run_case
from tests.parity.share_corpus import SHARE_CASES, ShareState
from tests.support.apache_kafka import ToolSession

BOOTSTRAPS = ["apache_kafka", "embedded_share"]


@pytest.fixture(scope="module", params=BOOTSTRAPS)
def share_outcomes(request, tmp_path_factory):
    cluster = request.getfixturevalue(request.param)
    scratch = tmp_path_factory.mktemp("share-parity")
    cwd = os.getcwd()
    os.chdir(scratch)                         # kcli's rollback files land here
    try:
        with ShareState(cluster.bootstrap_servers, scratch) as state, ToolSession() as tools:
            return [run_case(case, state.values, state.prepare, tools.run) for case in SHARE_CASES]
    finally:
        os.chdir(cwd)


def test_the_share_corpus_covers_every_action():
    actions = {"--list", "--describe", "--delete", "--delete-offsets", "--reset-offsets"}
    assert len(SHARE_CASES) >= 40 and len({c.id for c in SHARE_CASES}) == len(SHARE_CASES)
    assert {c.java[0] for c in SHARE_CASES} == {"kafka-share-groups"} and all(c.dropin for c in SHARE_CASES)
    assert actions <= {a for c in SHARE_CASES for a in c.java}


def test_every_share_difference_is_declared_and_happens(share_outcomes):
    findings = [f for o in share_outcomes for f in o.findings()]
    assert not findings, "\n".join(findings)


def test_the_share_views_show_the_groups(share_outcomes):
    """Not a vacuous parity: the running group's offsets and member, the stopped group's lag."""
    by_id = {o.case.id: o for o in share_outcomes}
    running = by_id["share-describe"].kcli.out.splitlines()
    assert running[1].split() == ["GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LAG"]
    assert [(line.split()[2], line.split()[4]) for line in running[2:]] == [("0", "0"), ("1", "0")]   # all accepted
    stopped = by_id["share-describe-stopped"].kcli.out.splitlines()[2:]
    assert sum(int(line.split()[4]) for line in stopped if line.split()[4] != "-") > 0
    members = by_id["share-describe-members"].kcli.out.splitlines()
    assert len(members) == 3 and members[2].split()[-1] == "sparity-share-in:0,1"


def test_a_share_reset_names_its_rollback_file_and_applies_the_plan(share_outcomes):
    """The --execute case: the Java tool's plan on stdout, kcli's rollback file on stderr."""
    o = next(o for o in share_outcomes if o.case.id == "share-reset-execute")
    assert o.kcli.code == 0 and o.kcli.out == o.java.out and o.java.out.count("sparity-share-stopped") == 2
    assert o.kcli.err.startswith("Rollback file (the committed offsets before this reset): ")
