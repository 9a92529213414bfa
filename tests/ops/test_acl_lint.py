"""The ACL linter's rules (kcli.ops.acl_lint), pure, and the tools' names for operations and
principals (kcli.ops.acls); end to end on real Kafka: tests/parity/test_acls_parity.py (the
drop-in's warnings) and tests/apache/test_kcli_acls.py (the native commands)."""

from __future__ import annotations

import pytest

from kcli.errors import UsageError
from kcli.model import AclRule
from kcli.ops import acls
from kcli.ops.acl_lint import covers_name, lint, shadows


def rule(name="orders", pattern="LITERAL", principal="User:alice", host="*", operation="READ", permission="ALLOW",
         rtype="TOPIC") -> AclRule:
    return AclRule(rtype, name, pattern, principal, host, operation, permission)


def texts(new, existing=()):
    return [f.text for f in lint(list(new), list(existing))]


def test_a_clean_rule_has_no_finding():
    assert texts([rule()], [rule(principal="User:bob"), rule(name="pay-", pattern="PREFIXED", rtype="GROUP")]) == []
    assert texts([rule(host="10.0.0.1"), rule(host="2001:db8::1")]) == []


def test_a_prefixed_star_matches_nothing_it_seems_to():
    [text] = texts([rule(name="*", pattern="PREFIXED")])
    assert text.startswith("a PREFIXED '*' matches only TOPIC names that start with '*'")
    assert texts([rule(name="*")]) == []                # the literal * is the wildcard


def test_literal_and_prefixed_on_overlapping_names_new_or_existing():
    [text] = texts([rule(name="orders-eu")], [rule(name="orders", pattern="PREFIXED", principal="User:bob")])
    assert text == ("LITERAL TOPIC 'orders-eu' and PREFIXED TOPIC 'orders' overlap: the ACLs of both apply to "
                    "'orders-eu'")
    existing = [rule(name="orders"), rule(name="orders", operation="WRITE")]
    [text] = texts([rule(name="ord", pattern="PREFIXED")], existing)
    assert "overlap" in text                              # said once for the pair of names
    assert texts([rule(name="pay", pattern="PREFIXED")], [rule(name="orders")]) == []
    assert texts([rule(name="orders-eu")], [rule(name="orders", pattern="PREFIXED", rtype="GROUP")]) == []


def test_an_allow_a_deny_shadows():
    deny = rule(operation="ALL", permission="DENY", principal="User:*")
    [text] = texts([rule()], [deny])
    assert text == ("ALLOW READ for User:alice from * on LITERAL TOPIC 'orders' grants nothing: DENY ALL for User:* "
                    "from * on LITERAL TOPIC 'orders' shadows it (DENY wins)")
    [text] = texts([deny], [rule()])                      # the new DENY shadows an existing ALLOW
    assert "shadows the existing ALLOW READ for User:alice" in text
    assert len(texts([rule(), deny])) == 1                # both new: said once
    assert texts([rule()], [rule(permission="DENY", host="10.0.0.1")]) == []       # another host
    assert texts([rule()], [rule(permission="DENY", operation="WRITE")]) == []
    assert texts([rule()], [rule(permission="DENY", principal="User:bob")]) == []


def test_which_patterns_a_deny_covers():
    assert shadows(rule(name="*", permission="DENY"), rule(name="anything", pattern="PREFIXED"))
    assert shadows(rule(name="ord", pattern="PREFIXED", permission="DENY"), rule(name="orders"))
    assert shadows(rule(name="ord", pattern="PREFIXED", permission="DENY"), rule(name="orders-", pattern="PREFIXED"))
    assert not shadows(rule(name="orders", permission="DENY"), rule(name="ord", pattern="PREFIXED"))
    assert not shadows(rule(name="orders", permission="DENY"), rule(name="*"))
    assert not shadows(rule(name="orders", permission="DENY", rtype="GROUP"), rule(name="orders"))
    assert covers_name("LITERAL", "*", "x") and covers_name("PREFIXED", "", "x")
    assert not covers_name("LITERAL", "o", "x")


def test_a_principal_without_a_type_is_refused_and_a_wrong_type_warned():
    [finding] = lint([rule(principal="alice")], [])
    assert (finding.text, finding.refusal) == ("principal 'alice' has no type: write User:alice", True)
    [finding] = lint([rule(principal="user:alice")], [])
    assert not finding.refusal and "has the type 'user', which Kafka's authorizer never matches" in finding.text
    assert texts([rule(principal="Group:ops")]) == []


def test_a_host_name_never_matches():
    [text] = texts([rule(host="app1.example.com")])
    assert text.startswith("host 'app1.example.com' is not an IP address")
    assert texts([rule(host="10.0.0.300")]) != []


@pytest.mark.parametrize("given, kafka", [
    ("Read", "READ"), ("read", "READ"), ("IdempotentWrite", "IDEMPOTENT_WRITE"),
    ("IDEMPOTENTWRITE", "IDEMPOTENT_WRITE"),
    ("TwoPhaseCommit", "TWO_PHASE_COMMIT"), ("All", "ALL"), ("IDEMPOTENT_WRITE", "UNKNOWN"), ("Any", "UNKNOWN")])
def test_operations_are_read_as_kafkas_tools_read_them(given, kafka):
    assert acls.operation(given) == kafka


def test_operations_a_resource_type_does_not_support_are_refused():
    acls.check_operations("GROUP", ["READ", "ALL"])
    with pytest.raises(UsageError, match=r"^ResourceType GROUP only supports operations \[ALL, READ, DESCRIBE, "):
        acls.check_operations("GROUP", ["WRITE"])


def test_principals_and_trimming_as_java():
    assert acls.principal(" User:alice\t") == "User:alice" and acls.principal("User:") == "User:"
    with pytest.raises(UsageError, match="^expected a string in format principalType:principalName but got alice$"):
        acls.principal("alice")
    assert acls.java_trim("\x00 a b \x1f") == "a b" and acls.java_trim("\u00a0a") == "\u00a0a"
