"""kcli's commands under a restricted principal on Apache Kafka 4.4 with StandardAuthorizer
(``apache_kafka_acl``): alice (SASL PLAIN) may describe one topic and one group and nothing else.
Each refusal is one line naming the operation, the resource and the principal (``Error: not
authorized to DESCRIBE group 'G' (User:alice)``), exit 1, no traceback; what Kafka itself leaves
out of a listing (the topics and groups alice may not describe) is left out, not reported as an
error. The cluster is a parameter (a super user's bootstrap server, a SASL one for alice): the
embedded broker joins it once it authorizes."""

from __future__ import annotations

import pytest
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   ResourcePatternType, ResourceType)

from tests.support.clients import consume_and_commit, create_topic, produce, unique
from tests.support.run import run_kcli
from tests.support.waits import wait_until


@pytest.fixture(scope="module", params=["apache_kafka_acl"])
def restricted(request, tmp_path_factory):
    """(alice's bootstrap server, her --command-config, names, a super user's bootstrap server):
    topic ``seen`` and group ``mine`` alice may DESCRIBE (only that), group ``doomed`` she may
    DELETE, topic ``hidden`` and group ``theirs`` she may not touch."""
    cluster = request.getfixturevalue(request.param)
    b = cluster.bootstrap_servers
    names = {"seen": unique("r-seen"), "hidden": unique("r-hidden"), "mine": unique("r-mine"),
             "theirs": unique("r-theirs"), "doomed": unique("r-doomed")}
    for topic in (names["seen"], names["hidden"]):
        create_topic(b, topic, partitions=2)
        produce(b, topic, [(0, "a"), (1, "b")])
    consume_and_commit(b, names["mine"], [names["seen"]], 2)
    consume_and_commit(b, names["theirs"], [names["seen"]], 2)
    consume_and_commit(b, names["doomed"], [names["seen"]], 2)
    admin = AdminClient({"bootstrap.servers": b})
    bindings = [AclBinding(rtype, name, ResourcePatternType.LITERAL, "User:alice", "*", AclOperation.DESCRIBE,
                           AclPermissionType.ALLOW)
                for rtype, name in ((ResourceType.TOPIC, names["seen"]), (ResourceType.GROUP, names["mine"]))]
    bindings.append(AclBinding(ResourceType.GROUP, names["doomed"], ResourcePatternType.LITERAL, "User:alice", "*",
                               AclOperation.DELETE, AclPermissionType.ALLOW))
    for fut in admin.create_acls(bindings, request_timeout=30).values():
        fut.result()
    # its own bindings, by its own names: another module's ACLs (of alice, of User:*) are not waited for
    mine = [AclBindingFilter(b.restype, b.name, ResourcePatternType.LITERAL, b.principal, b.host, b.operation,
                             b.permission_type) for b in bindings]
    wait_until(lambda: all(admin.describe_acls(f, request_timeout=30).result() for f in mine), what="alice's ACLs")
    props = tmp_path_factory.mktemp("alice") / "alice.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username=alice\n"
                     f"sasl.password={cluster.sasl_users['alice']}\n", encoding="utf-8")
    yield cluster.sasl_bootstrap_servers, str(props), names, b
    for fut in admin.delete_acls(mine, request_timeout=30).values():
        fut.result()


def as_alice(restricted, *args):
    sasl, props, _, _ = restricted
    return run_kcli(sasl, "--command-config", props, *args, timeout="20s")


def refused(restricted, args, operation, resource):
    r = as_alice(restricted, *args)
    assert (r.code, r.out, r.err) == (1, "", f"Error: not authorized to {operation} {resource} (User:alice)\n"), r


def test_describing_what_alice_may_not_is_refused_in_one_line(restricted):
    n = restricted[2]
    refused(restricted, ["describe", "topics", n["hidden"]], "DESCRIBE", f"topic '{n['hidden']}'")
    refused(restricted, ["describe", "groups", n["theirs"]], "DESCRIBE", f"group '{n['theirs']}'")
    refused(restricted, ["describe", "groups", n["theirs"], "--state"], "DESCRIBE", f"group '{n['theirs']}'")
    refused(restricted, ["list-offsets", "-t", n["hidden"]], "DESCRIBE", f"topic '{n['hidden']}'")
    refused(restricted, ["describe", "configs", "--topic", n["seen"]], "DESCRIBE_CONFIGS", f"topic '{n['seen']}'")
    refused(restricted, ["describe", "configs", "--broker", "1"], "DESCRIBE_CONFIGS", "the cluster")
    refused(restricted, ["list", "acls"], "DESCRIBE", "the cluster")
    refused(restricted, ["reset-offsets", "-g", n["theirs"], "-t", n["seen"], "--to-earliest", "--execute"],
            "DESCRIBE", f"group '{n['theirs']}'")


def test_what_alice_may_describe_she_sees(restricted):
    n = restricted[2]
    r = as_alice(restricted, "list-offsets", "-t", n["seen"], "-o", "plain")
    assert (r.code, r.out) == (0, f"{n['seen']}:0:1\n{n['seen']}:1:1\n"), r
    r = as_alice(restricted, "describe", "groups", n["mine"], "-o", "csv")
    assert r.code == 0 and r.out.count(f"{n['mine']},{n['seen']},") == 2, r


def test_listings_leave_out_what_kafka_leaves_out(restricted):
    """Kafka answers a listing with what the principal may describe: no error to report."""
    n = restricted[2]
    groups = as_alice(restricted, "list", "groups", "-o", "csv")
    assert groups.code == 0 and n["mine"] in groups.out and n["theirs"] not in groups.out, groups
    topics = as_alice(restricted, "list", "topics")
    assert topics.code == 0 and n["seen"] in topics.out and n["hidden"] not in topics.out, topics
    lag = as_alice(restricted, "lag", "-o", "csv")
    assert lag.code == 0 and n["mine"] in lag.out and n["theirs"] not in lag.out, lag


def test_a_reset_alice_may_not_commit_names_the_refusal_and_commits_nothing(restricted):
    sasl, props, n, b = restricted
    r = as_alice(restricted, "reset-offsets", "-g", n["mine"], "-t", n["seen"], "--to-earliest", "--execute")
    assert r.code == 1 and "Traceback" not in r.err, r
    assert r.err.splitlines()[-1] == (
        f"Error: No offsets were committed (2 partitions): not applied: "
        f"group '{n['mine']}' {n['seen']}-0 (not authorized to READ group '{n['mine']}' (User:alice)), "
        f"group '{n['mine']}' {n['seen']}-1 (not authorized to READ group '{n['mine']}' (User:alice))"), r.err
    after = run_kcli(b, "describe", "groups", n["mine"], "-o", "csv")
    assert after.code == 0 and after.out.count(f"{n['mine']},{n['seen']},") == 2, after
    assert all(line.split(",")[3] == "1" for line in after.out.splitlines()[1:]), after.out     # still at 1


def test_changes_alice_may_not_make_are_refused_in_one_line(restricted):
    """The changes librdkafka sends (CreateTopics, CreatePartitions, IncrementalAlterConfigs)."""
    n = restricted[2]
    new = unique("r-new")
    refused(restricted, ["create", "topic", new], "CREATE", f"topic '{new}'")
    refused(restricted, ["alter", "topics", n["seen"], "--partitions", "3"], "ALTER", f"topic '{n['seen']}'")
    refused(restricted, ["alter", "configs", "--topic", n["seen"], "--set", "retention.ms=60000"], "ALTER_CONFIGS",
            f"topic '{n['seen']}'")


def test_a_delete_of_groups_some_refused_deletes_the_rest_and_exits_3(restricted):
    sasl, props, n, b = restricted
    r = as_alice(restricted, "delete", "groups", n["doomed"], n["theirs"])        # the table
    assert r.code == 3, r
    rows = [line.split(None, 1) for line in r.out.splitlines()[2:]]
    assert rows == [[n["doomed"], "Deleted"],
                    [n["theirs"], f"Error: not authorized to DELETE group '{n['theirs']}' (User:alice)"]], r.out
    assert r.err == "Error: 1 of 2 groups could not be deleted\n", r.err
    listed = run_kcli(b, "list", "groups", "-o", "csv").out
    assert n["doomed"] not in listed and n["theirs"] in listed
