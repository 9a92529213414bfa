"""kcli list acls, create acl and delete acls against Apache Kafka 4.4 with StandardAuthorizer
(``apache_kafka_acl``), end to end through kcli's entry point: the ACLs made, listed by pattern
type and principal, linted before they are created (the existing ACLs read first), deleted only
with --execute; bad input refused before any request. The cluster is a parameter (a super user's
bootstrap server): the embedded broker joins it once it authorizes."""

from __future__ import annotations

import json

import pytest

from tests.support.clients import unique
from tests.support.run import run_kcli
from tests.support.waits import wait_until

UNREACHABLE = "127.0.0.1:1"        # nothing listens: exit 2 there proves no request was needed


@pytest.fixture(scope="module", params=["apache_kafka_acl"])
def b(request):
    return request.getfixturevalue(request.param).bootstrap_servers


def acls(b, *args) -> list[dict]:
    r = run_kcli(b, "list", "acls", *args, "-o", "json")
    assert r.code == 0, r
    doc = json.loads(r.out)
    assert doc["schema"] == "kcli.acls/v1"
    return doc["acls"]


def _sorted(rules: list[dict]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in rules)


def listed(b, expected: list[dict], *args) -> None:
    """``list acls ARGS`` shows ``expected``, in any order (the broker's), once the broker's
    authorizer has applied the controller's records (it answers a change before: 20 s at most)."""
    wait_until(lambda: _sorted(acls(b, *args)) == _sorted(expected), what=f"list acls {args} == {expected}")


def listed_for_topic(b, expected: list[dict], topic: str) -> None:
    """``list acls --topic TOPIC`` (match): ``expected`` among what it shows, and nothing that does
    not apply to the topic. The cluster is shared: another test's ``*`` or prefix ACL applies too."""
    def shows() -> bool:
        got = acls(b, "--topic", topic)
        mine = [a for a in got if a not in expected]
        return (all(a in got for a in expected) and all(
            a["resourceType"] == "TOPIC" and (a["name"] == "*" and a["patternType"] == "LITERAL"
                                              or a["patternType"] == "PREFIXED" and topic.startswith(a["name"]))
            for a in mine))
    wait_until(shows, what=f"list acls --topic {topic} shows {expected}")


def acl(name, principal, operation, permission="ALLOW", pattern="LITERAL", host="*", rtype="TOPIC") -> dict:
    return {"resourceType": rtype, "name": name, "patternType": pattern, "principal": principal, "host": host,
            "operation": operation, "permission": permission}


def test_create_list_delete(b):
    prefix, group = unique("acl-t") + "-", unique("acl-g")
    r = run_kcli(b, "create", "acl", "--topic", prefix, "--group", group, "--resource-pattern-type", "prefixed",
                 "--allow-principal", "User:alice", "--operation", "read", "--operation", "Describe", "-o", "json")
    assert r.code == 0 and r.err == "", r
    made = [acl(prefix, "User:alice", op, pattern="PREFIXED") for op in ("READ", "DESCRIBE")]
    made += [acl(group, "User:alice", op, pattern="PREFIXED", rtype="GROUP") for op in ("READ", "DESCRIBE")]
    assert json.loads(r.out) == {"schema": "kcli.acl-create/v1", "acls": made}
    # match (the default): every ACL that applies to a topic named with the prefix
    listed_for_topic(b, made[:2], prefix + "eu")
    listed(b, [], "--topic", prefix + "eu", "--resource-pattern-type", "literal")
    every = acls(b)
    assert all(a in every for a in made)
    listed(b, [], "--topic", prefix, "--resource-pattern-type", "prefixed", "--principal", "User:bob")
    plain = run_kcli(b, "list", "acls", "--group", group, "--resource-pattern-type", "prefixed", "-o", "plain")
    head = f"Current ACLs for resource `ResourcePattern(resourceType=GROUP, name={group}, patternType=PREFIXED)`:"
    assert plain.out.startswith(head + "\n\t(principal=User:alice, host=*, operation=") and plain.out.endswith(
        ", permissionType=ALLOW)\n\n"), plain
    assert sorted(plain.out.splitlines()[1:3]) == [
        "\t(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)",
        "\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"]

    dry = run_kcli(b, "delete", "acls", "--topic", prefix, "--resource-pattern-type", "prefixed", "--operation",
                   "read", "-o", "json")
    assert dry.code == 0 and json.loads(dry.out) == {"schema": "kcli.acl-delete/v1", "executed": False,
                                                      "acls": made[:1]}
    assert dry.err == "Dry run: 1 ACL would be deleted; --execute deletes them.\n"
    listed(b, made[:2], "--topic", prefix, "--resource-pattern-type", "prefixed")      # still there
    done = run_kcli(b, "delete", "acls", "--topic", prefix, "--group", group, "--resource-pattern-type", "prefixed",
                    "--execute", "-o", "json")
    assert done.code == 0 and done.err == "" and _sorted(json.loads(done.out)["acls"]) == _sorted(made), done
    wait_until(lambda: not [a for a in acls(b) if a in made], what="the deleted ACLs gone")


def test_create_warns_of_what_would_surprise(b):
    name = unique("lint")
    assert run_kcli(b, "create", "acl", "--topic", name, "--resource-pattern-type", "prefixed", "--deny-principal",
                    "User:*", "--operation", "write").code == 0
    listed(b, [acl(name, "User:*", "WRITE", "DENY", "PREFIXED")], "--topic", name,
           "--resource-pattern-type", "prefixed")
    r = run_kcli(b, "create", "acl", "--topic", f"{name}-eu", "--allow-principal", "User:alice", "--operation",
                 "write", "--allow-host", "app1.example.com")
    assert r.code == 0, r
    assert r.err.splitlines() == [
        "Warn: host 'app1.example.com' is not an IP address: the authorizer compares the client's address, so "
        "ALLOW WRITE for User:alice from app1.example.com never matches",
        f"Warn: LITERAL TOPIC '{name}-eu' and PREFIXED TOPIC '{name}' overlap: the ACLs of both apply to '{name}-eu'",
        f"Warn: ALLOW WRITE for User:alice from app1.example.com on LITERAL TOPIC '{name}-eu' grants nothing: DENY "
        f"WRITE for User:* from * on PREFIXED TOPIC '{name}' shadows it (DENY wins)"]
    listed(b, [acl(f"{name}-eu", "User:alice", "WRITE", host="app1.example.com")],        # created all the same
           "--topic", f"{name}-eu", "--resource-pattern-type", "literal")
    star = run_kcli(b, "create", "acl", "--group", "*", "--resource-pattern-type", "prefixed", "--allow-principal",
                    "user:bob", "--operation", "read")
    assert star.code == 0 and star.err.splitlines() == [
        "Warn: principal 'user:bob' has the type 'user', which Kafka's authorizer never matches (types are "
        "case-sensitive: User, Group)",
        "Warn: a PREFIXED '*' matches only GROUP names that start with '*', not every one: a LITERAL '*' does "
        "(ALLOW READ for user:bob from *)"], star
    for args in (["--topic", name, "--resource-pattern-type", "prefixed"], ["--topic", f"{name}-eu"],
                 ["--group", "*", "--resource-pattern-type", "prefixed"]):
        assert run_kcli(b, "delete", "acls", *args, "--execute").code == 0


def test_a_principal_without_a_type_is_refused_and_nothing_created(b):
    name = unique("untyped")
    r = run_kcli(b, "create", "acl", "--topic", name, "--allow-principal", "alice", "--operation", "read")
    assert (r.code, r.out, r.err) == (2, "", "Error: principal 'alice' has no type: write User:alice\n")
    assert all(a["name"] != name for a in acls(b))


@pytest.mark.parametrize("args, error", [
    (["create", "acl", "--topic", "t", "--allow-principal", "User:a", "--operation", "Fly"],
     "Unknown operation 'Fly': one of All, Read, Write, Create, Delete, Alter, Describe, ClusterAction, "
     "DescribeConfigs, AlterConfigs, IdempotentWrite, CreateTokens, DescribeTokens, TwoPhaseCommit"),
    (["create", "acl", "--group", "g", "--allow-principal", "User:a", "--operation", "write"],
     "ResourceType GROUP only supports operations [ALL, READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS]"),
    (["create", "acl", "--topic", "t", "--operation", "read"],
     "Name a principal: --allow-principal or --deny-principal"),
    (["create", "acl", "--allow-principal", "User:a", "--operation", "read"],
     "Name a resource: --topic, --group, --cluster, --transactional-id, --delegation-token or --user-principal"),
    (["create", "acl", "--topic", "t", "--allow-principal", "User:a", "--operation", "read",
      "--resource-pattern-type", "match"],
     "A '--resource-pattern-type' value of 'MATCH' is not valid when adding acls."),
    (["list", "acls", "--resource-pattern-type", "regex"], "Value [regex] is not one of [ANY|MATCH|LITERAL|PREFIXED]"),
    (["delete", "acls", "--execute"], "Name the ACLs: a resource (--topic, --group, --cluster, ...) or a --principal"),
    (["delete", "acls", "--topic", "t", "--permission", "maybe"], "--permission is allow or deny, not 'maybe'"),
])
def test_bad_input_is_refused_before_any_request(args, error):
    r = run_kcli(UNREACHABLE, *args)
    assert (r.code, r.out, r.err) == (2, "", f"Error: {error}\n")
