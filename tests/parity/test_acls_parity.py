"""kafka-acls' byte parity on a cluster with StandardAuthorizer: the corpus (``acls_corpus.py``)
through Apache Kafka 4.4's tool and ``kcli kafka-acls`` from the same ACLs; every difference is
declared with its reason (docs/dropins.md's drop-in table), stdout compared up to the Java
tool's hash order. The cluster is a parameter (a bootstrap server whose listener is a super
user): the embedded broker joins it once it authorizes."""

from __future__ import annotations

import pytest

from tests.parity.acls_corpus import ACL_CASES, AclState
from tests.parity.harness import run_case
from tests.support.apache_kafka import ToolSession


@pytest.fixture(scope="module", params=["apache_kafka_acl"])
def acl_outcomes(request):
    cluster = request.getfixturevalue(request.param)
    with AclState(cluster.bootstrap_servers) as state, ToolSession() as tools:
        return [run_case(case, state.values, state.prepare, tools.run) for case in ACL_CASES]


def test_the_acl_corpus_covers_the_tool():
    words = {a for c in ACL_CASES for a in c.java}
    assert len(ACL_CASES) >= 60 and len({c.id for c in ACL_CASES}) == len(ACL_CASES)
    assert {"--list", "--add", "--remove", "--producer", "--consumer", "--idempotent", "--force", "--principal",
            "--allow-principal", "--deny-principal", "--allow-host", "--deny-host", "--operation", "--topic",
            "--group", "--cluster", "--transactional-id", "--delegation-token", "--user-principal",
            "--resource-pattern-type"} <= words


def test_every_acl_difference_is_declared_and_happens(acl_outcomes):
    findings = [f for o in acl_outcomes for f in o.findings()]
    assert not findings, "\n".join(findings)


def test_the_acl_corpus_changes_what_it_says(acl_outcomes):
    """Not only the same words: the adds and removes did what the tool says (the listing after
    them is not the corpus's; here the outputs themselves)."""
    by_id = {o.case.id: o for o in acl_outcomes}
    assert by_id["acls-add-many"].kcli.out.count("\t(principal=") == 2 * 2 * 2 * 2   # principals, hosts, ops, topics
    assert by_id["acls-add-exists"].kcli.out.startswith("Acl (pattern=ResourcePattern(resourceType=TOPIC, name=orders")
    assert "CREATE_TOKENS" in by_id["acls-add-user-principal"].kcli.out
    assert by_id["acls-list"].kcli.out.count("Current ACLs for resource") == 6
    # the linter's warnings: stderr only, one line each, the Java tool's stdout kept
    warned = {case: by_id[case].kcli.err.splitlines() for case in (
        "acls-add-prefixed-star", "acls-add-overlapping-literal", "acls-add-shadowed-allow", "acls-add-host-name",
        "acls-add-principal-type-case")}
    assert warned["acls-add-prefixed-star"] == [
        "Warn: a PREFIXED '*' matches only TOPIC names that start with '*', not every one: a LITERAL '*' does "
        "(ALLOW READ for User:carol from *)"]
    assert warned["acls-add-overlapping-literal"] == [
        "Warn: LITERAL TOPIC 'payments-eu' and PREFIXED TOPIC 'payments-' overlap: the ACLs of both apply to "
        "'payments-eu'"]
    assert warned["acls-add-shadowed-allow"] == [
        "Warn: ALLOW DELETE for User:bob from 10.0.0.1 on LITERAL TOPIC 'shipments' grants nothing: DENY DELETE "
        "for User:bob from 10.0.0.1 on LITERAL TOPIC '*' shadows it (DENY wins)"]
    assert warned["acls-add-host-name"][0].startswith("Warn: host 'app1.example.com' is not an IP address")
    assert warned["acls-add-principal-type-case"][0].startswith("Warn: principal 'user:carol' has the type 'user'")
