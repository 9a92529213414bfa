"""The authorizer's decisions (kcli.broker.acl, pure), then on the embedded broker with real
clients (confluent-kafka): no ACL means no access, a super user may do everything, CreateAcls,
DescribeAcls and DeleteAcls as librdkafka's admin calls them, and a broker without users answers
the ACL APIs SECURITY_DISABLED. The same decisions against real Kafka 4.4:
tests/apache/test_acls_embedded.py."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   NewTopic, ResourcePatternType, ResourceType)

from kcli.broker import EmbeddedCluster
from kcli.broker.acl import AclBinding as Binding, Authorizer, Op, PatternType as P, Permission, ResourceType as R
from kcli.protocol import REQUESTS
from tests.support.broker_wire import req
from tests.support.sasl import ACL_USERS

ALLOW, DENY = Permission.ALLOW, Permission.DENY


def topic_acl(name, op, permission=ALLOW, principal="User:alice", host="*", pattern=P.LITERAL):
    return Binding(R.TOPIC, name, pattern, principal, host, op, permission)


@pytest.mark.parametrize("acls, op, name, allowed", [
    ([], Op.READ, "t", False),                                                  # no ACL: no access
    ([topic_acl("t", Op.READ)], Op.READ, "t", True),
    ([topic_acl("t", Op.READ)], Op.WRITE, "t", False),
    ([topic_acl("t", Op.READ)], Op.DESCRIBE, "t", True),                        # implied
    ([topic_acl("t", Op.ALTER)], Op.DESCRIBE, "t", True),
    ([topic_acl("t", Op.ALTER_CONFIGS)], Op.DESCRIBE_CONFIGS, "t", True),
    ([topic_acl("t", Op.ALTER_CONFIGS)], Op.DESCRIBE, "t", False),
    ([topic_acl("t", Op.DESCRIBE)], Op.READ, "t", False),                       # implies nothing
    ([topic_acl("t", Op.ALL)], Op.DELETE, "t", True),
    ([topic_acl("*", Op.READ)], Op.READ, "anything", True),                     # literal wildcard
    ([topic_acl("t*", Op.READ)], Op.READ, "t1", False),                         # a literal '*' only alone
    ([topic_acl("pay-", Op.READ, pattern=P.PREFIXED)], Op.READ, "pay-x", True),
    ([topic_acl("pay-", Op.READ, pattern=P.PREFIXED)], Op.READ, "pa", False),
    ([topic_acl("*", Op.READ, pattern=P.PREFIXED)], Op.READ, "t", False),       # a prefixed '*' matches nothing
    ([topic_acl("t", Op.READ, principal="User:*")], Op.READ, "t", True),
    ([topic_acl("t", Op.READ, principal="User:bob")], Op.READ, "t", False),
    ([topic_acl("t", Op.READ, host="127.0.0.1")], Op.READ, "t", True),
    ([topic_acl("t", Op.READ, host="10.0.0.1")], Op.READ, "t", False),
    ([topic_acl("t", Op.READ), topic_acl("t", Op.READ, DENY)], Op.READ, "t", False),       # DENY wins
    ([topic_acl("*", Op.ALL), topic_acl("t", Op.ALL, DENY, principal="User:*")], Op.READ, "t", False),
    # DENY READ is not DENY DESCRIBE
    ([topic_acl("t", Op.ALL), topic_acl("t", Op.READ, DENY)], Op.DESCRIBE, "t", True),
    ([topic_acl("t", Op.ALL), topic_acl("t", Op.DESCRIBE, DENY)], Op.READ, "t", True),
    ([topic_acl("t", Op.READ, DENY, host="10.0.0.1"), topic_acl("t", Op.READ)], Op.READ, "t", True),
    ([Binding(R.GROUP, "t", P.LITERAL, "User:alice", "*", Op.READ, ALLOW)], Op.READ, "t", False),  # another type
])
def test_decisions(acls, op, name, allowed):
    assert Authorizer((), acls).authorize("User:alice", "127.0.0.1", op, R.TOPIC, name) is allowed


def test_super_users_and_the_wildcard_principal():
    a = Authorizer(["admin", "Group:ops"], [topic_acl("t", Op.ALL, DENY, principal="User:*")])
    assert a.authorize("User:admin", "127.0.0.1", Op.READ, R.TOPIC, "t")          # DENY does not apply
    assert a.authorize("Group:ops", "127.0.0.1", Op.READ, R.TOPIC, "t")
    b = Authorizer((), [topic_acl("t", Op.READ, principal="User:*")])
    assert not b.authorize("Group:ops", "127.0.0.1", Op.READ, R.TOPIC, "t")       # User:* is users only
    assert b.authorized_operations("User:x", "127.0.0.1", R.TOPIC, "t") == {Op.READ, Op.DESCRIBE}


# -- on the broker --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def secured():
    with EmbeddedCluster(nodes=1, sasl_users=ACL_USERS, authorize=True, super_users=["admin"]) as ec:
        ec.create_topic("acl-t")
        yield ec


def admin(ec, user: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": ec.bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
                        "sasl.mechanism": "SCRAM-SHA-256", "sasl.username": user,
                        "sasl.password": ACL_USERS[user], "log_level": 0})


def test_no_acl_no_access_then_an_acl_allows_and_its_deletion_refuses(secured):
    bob, root = admin(secured, "bob"), admin(secured, "admin")
    assert "acl-t" not in bob.list_topics(timeout=10).topics
    assert bob.list_topics(topic="acl-t", timeout=10).topics["acl-t"].error.name() == "TOPIC_AUTHORIZATION_FAILED"
    with pytest.raises(KafkaException, match="TOPIC_AUTHORIZATION_FAILED|authoriz"):
        bob.create_topics([NewTopic("bobs", 1, 1)])["bobs"].result(10)
    binding = AclBinding(ResourceType.TOPIC, "acl-", ResourcePatternType.PREFIXED, "User:bob", "*",
                         AclOperation.READ, AclPermissionType.ALLOW)
    with pytest.raises(KafkaException, match="CLUSTER_AUTHORIZATION_FAILED"):
        bob.create_acls([binding])[binding].result(10)                     # bob may not grant himself
    root.create_acls([binding])[binding].result(10)
    assert "acl-t" in bob.list_topics(timeout=10).topics                   # READ implies DESCRIBE
    everything = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
                                  AclOperation.ANY, AclPermissionType.ANY)
    assert root.describe_acls(everything).result(10) == [binding]
    match = AclBindingFilter(ResourceType.TOPIC, "acl-t", ResourcePatternType.MATCH, None, None,
                             AclOperation.ANY, AclPermissionType.ANY)
    assert root.describe_acls(match).result(10) == [binding]
    assert root.delete_acls([match])[match].result(10) == [binding]
    assert root.describe_acls(everything).result(10) == []
    assert "acl-t" not in bob.list_topics(timeout=10).topics


def test_an_invalid_acl_is_refused_with_kafkas_reason(secured):
    bad = AclBinding(ResourceType.BROKER, "other", ResourcePatternType.LITERAL, "User:bob", "*",
                     AclOperation.ALTER, AclPermissionType.ALLOW)
    root = admin(secured, "admin")
    with pytest.raises(KafkaException, match="The only valid name for the CLUSTER resource is kafka-cluster"):
        root.create_acls([bad])[bad].result(10)


def test_without_users_the_acl_apis_answer_security_disabled(broker1, wire):
    """As Kafka without an authorizer (librdkafka's describe_acls then shows an empty list)."""
    w = wire(broker1)
    described = w.send(req(29, 3, resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1,
                           principal_filter=None, host_filter=None, operation=1, permission_type=1))
    assert (described.error_code, described.error_message) == (54, "No Authorizer is configured.")
    creation = REQUESTS[30].AclCreation(resource_type=2, resource_name="t", resource_pattern_type=3,
                                        principal="User:x", host="*", operation=3, permission_type=3)
    created = w.send(req(30, 3, creations=[creation]))
    assert [r.error_code for r in created.results] == [54]


def test_group_describes_refuse_a_group_without_describe(secured, wire):
    """ConsumerGroupDescribe, StreamsGroupDescribe and DescribeGroups as bob (READ on g-ok):
    g-ok is described (not found: no such group), g-no refused GROUP_AUTHORIZATION_FAILED."""
    grant = AclBinding(ResourceType.GROUP, "g-ok", ResourcePatternType.LITERAL, "User:bob", "*",
                       AclOperation.READ, AclPermissionType.ALLOW)
    root = admin(secured, "admin")
    root.create_acls([grant])[grant].result(10)
    w = wire(secured)
    assert w.send(req(17, 1, mechanism="PLAIN")).error_code == 0
    assert w.send(req(36, 2, auth_bytes=b"\0bob\0" + ACL_USERS["bob"].encode())).error_code == 0
    groups = ["g-ok", "g-no"]
    consumer = w.send(req(69, 0, group_ids=groups, include_authorized_operations=True)).groups
    streams = w.send(req(89, 0, group_ids=groups, include_authorized_operations=True)).groups
    classic = w.send(req(15, 5, groups=groups, include_authorized_operations=True)).groups
    for answers in (consumer, streams):
        assert [(g.group_id, g.error_code) for g in answers] == [("g-ok", 69), ("g-no", 30)]
    assert [(g.group_id, g.error_code) for g in classic] == [("g-ok", 0), ("g-no", 30)]
    gone = AclBindingFilter(ResourceType.GROUP, "g-ok", ResourcePatternType.LITERAL, None, None,
                            AclOperation.ANY, AclPermissionType.ANY)
    assert root.delete_acls([gone])[gone].result(10) == [grant]


@pytest.mark.parametrize("acls, allowed", [
    ([], False),
    ([topic_acl("pay-", Op.WRITE, pattern=P.PREFIXED)], True),
    ([topic_acl("t", Op.ALL, principal="User:*")], True),
    ([topic_acl("t", Op.READ)], False),
    ([topic_acl("t", Op.WRITE), topic_acl("t", Op.WRITE, DENY)], False),
    ([topic_acl("pay-", Op.WRITE, pattern=P.PREFIXED), topic_acl("pa", Op.WRITE, DENY, pattern=P.PREFIXED)], False),
    ([topic_acl("t", Op.WRITE), topic_acl("*", Op.ALL, DENY)], False),
    ([topic_acl("t", Op.WRITE), topic_acl("u", Op.WRITE, DENY)], True),
])
def test_write_on_some_topic_lets_an_idempotent_producer_init(acls, allowed):
    """InitProducerId without IDEMPOTENT_WRITE on the cluster: an ALLOW of WRITE that no DENY
    covers, as Kafka's authorizeByResourceType."""
    assert Authorizer((), acls).any_allowed("User:alice", "127.0.0.1", Op.WRITE, R.TOPIC) is allowed
