"""kcli's commands under a restricted principal, on Apache Kafka 4.4 with StandardAuthorizer
(``apache_kafka_acl``) and on the embedded broker with users and its authorizer: alice (SASL
PLAIN) may describe one topic and one group and nothing else. Each refusal is one line naming
the operation, the resource and the principal (``Error: not authorized to DESCRIBE group 'G'
(User:alice)``), exit 1, no traceback, the same on both brokers; what Kafka itself leaves out of
a listing (the topics and groups alice may not describe) is left out, not reported as an error.
The set-up runs as a super user: Kafka's PLAINTEXT listener (User:ANONYMOUS), the embedded
broker's admin (every listener of a broker with users is SASL)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   ResourcePatternType, ResourceType)

from tests.support.clients import consume_and_commit, create_topic, produce, unique
from tests.support.groups import fast_cluster
from tests.support.apache_kafka import java_tool
from tests.support.garble import GarblingProxy
from tests.support.run import run_dropin, run_kcli
from tests.support.sasl import ACL_USERS
from tests.support.waits import wait_until


@pytest.fixture(scope="module")
def embedded_acl():
    with fast_cluster(nodes=1, sasl_users=ACL_USERS, authorize=True, super_users=["admin"]) as ec:
        yield ec


def login(user: str) -> dict[str, str]:
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.username": user,
            "sasl.password": ACL_USERS[user]}


def properties(directory: Path, user: str) -> str:
    path = directory / f"{user}.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in login(user).items()), encoding="utf-8")
    return str(path)


@dataclass
class Restricted:
    sasl: str                 # alice's bootstrap server
    props: str                # her --command-config
    names: dict[str, str]
    b: str                    # a super user's bootstrap server
    root: dict[str, str]      # its client settings ({} on Kafka's PLAINTEXT listener)
    root_args: list[str]      # and kcli's options for them
    real: bool                # Apache Kafka (not the embedded broker)


@pytest.fixture(scope="module", params=["apache_kafka_acl", "embedded_acl"])
def restricted(request, tmp_path_factory):
    """Topic ``seen`` alice may READ (so DESCRIBE, nothing else), group ``mine`` she may DESCRIBE
    (only that), group ``reader`` she may READ (commit its offsets on ``seen``), group ``doomed``
    she may DELETE, topic ``hidden`` and group ``theirs`` she may not touch."""
    cluster = request.getfixturevalue(request.param)
    home = tmp_path_factory.mktemp("restricted")
    b = cluster.bootstrap_servers
    if request.param == "embedded_acl":
        sasl, root, root_args = b, login("admin"), ["--command-config", properties(home, "admin")]
    else:
        sasl, root, root_args = cluster.sasl_bootstrap_servers, {}, []
    names = {"seen": unique("r-seen"), "hidden": unique("r-hidden"), "mine": unique("r-mine"),
             "theirs": unique("r-theirs"), "doomed": unique("r-doomed"), "reader": unique("r-reader")}
    for topic in (names["seen"], names["hidden"]):
        create_topic(b, topic, partitions=2, **root)
        produce(b, topic, [(0, "a"), (1, "b")], **root)
    for group in ("mine", "theirs", "doomed", "reader"):
        consume_and_commit(b, names[group], [names["seen"]], 2, **root)
    admin = AdminClient({"bootstrap.servers": b, **root})
    bindings = [AclBinding(rtype, name, ResourcePatternType.LITERAL, "User:alice", "*", AclOperation.DESCRIBE,
                           AclPermissionType.ALLOW)
                for rtype, name in ((ResourceType.TOPIC, names["seen"]), (ResourceType.GROUP, names["mine"]))]
    bindings += [AclBinding(rtype, names[name], ResourcePatternType.LITERAL, "User:alice", "*", operation,
                            AclPermissionType.ALLOW)
                 for rtype, name, operation in ((ResourceType.GROUP, "doomed", AclOperation.DELETE),
                                                (ResourceType.TOPIC, "seen", AclOperation.READ),
                                                (ResourceType.GROUP, "reader", AclOperation.READ))]
    for fut in admin.create_acls(bindings, request_timeout=30).values():
        fut.result()
    # its own bindings, by its own names: another module's ACLs (of alice, of User:*) are not waited for
    mine = [AclBindingFilter(a.restype, a.name, ResourcePatternType.LITERAL, a.principal, a.host, a.operation,
                             a.permission_type) for a in bindings]
    wait_until(lambda: all(admin.describe_acls(f, request_timeout=30).result() for f in mine), what="alice's ACLs")
    yield Restricted(sasl, properties(home, "alice"), names, b, root, root_args, request.param == "apache_kafka_acl")
    for fut in admin.delete_acls(mine, request_timeout=30).values():
        fut.result()


def as_alice(restricted, *args):
    return run_kcli(restricted.sasl, "--command-config", restricted.props, *args, timeout="20s")


def as_root(restricted, *args):
    return run_kcli(restricted.b, *restricted.root_args, *args)


def refused(restricted, args, operation, resource):
    r = as_alice(restricted, *args)
    assert (r.code, r.out, r.err) == (1, "", f"Error: not authorized to {operation} {resource} (User:alice)\n"), r


def test_describing_what_alice_may_not_is_refused_in_one_line(restricted):
    n = restricted.names
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
    n = restricted.names
    r = as_alice(restricted, "list-offsets", "-t", n["seen"], "-o", "plain")
    assert (r.code, r.out) == (0, f"{n['seen']}:0:1\n{n['seen']}:1:1\n"), r
    r = as_alice(restricted, "describe", "groups", n["mine"], "-o", "csv")
    assert r.code == 0 and r.out.count(f"{n['mine']},{n['seen']},") == 2, r


def test_listings_leave_out_what_kafka_leaves_out(restricted):
    """Kafka answers a listing with what the principal may describe: no error to report."""
    n = restricted.names
    groups = as_alice(restricted, "list", "groups", "-o", "csv")
    assert groups.code == 0 and n["mine"] in groups.out and n["theirs"] not in groups.out, groups
    topics = as_alice(restricted, "list", "topics")
    assert topics.code == 0 and n["seen"] in topics.out and n["hidden"] not in topics.out, topics
    lag = as_alice(restricted, "lag", "-o", "csv")
    assert lag.code == 0 and n["mine"] in lag.out and n["theirs"] not in lag.out, lag


def test_a_reset_alice_may_not_commit_names_the_refusal_and_commits_nothing(restricted):
    n = restricted.names
    r = as_alice(restricted, "reset-offsets", "-g", n["mine"], "-t", n["seen"], "--to-earliest", "--execute")
    assert r.code == 1 and "Traceback" not in r.err, r
    assert r.err.splitlines()[-1] == f"Error: not authorized to READ group '{n['mine']}' (User:alice)", r.err
    after = as_root(restricted, "describe", "groups", n["mine"], "-o", "csv")
    assert after.code == 0 and after.out.count(f"{n['mine']},{n['seen']},") == 2, after
    assert all(line.split(",")[3] == "1" for line in after.out.splitlines()[1:]), after.out     # still at 1


def test_changes_alice_may_not_make_are_refused_in_one_line(restricted):
    """The changes librdkafka sends (CreateTopics, CreatePartitions, IncrementalAlterConfigs)."""
    n = restricted.names
    new = unique("r-new")
    refused(restricted, ["create", "topic", new], "CREATE", f"topic '{new}'")
    refused(restricted, ["alter", "topics", n["seen"], "--partitions", "3"], "ALTER", f"topic '{n['seen']}'")
    refused(restricted, ["alter", "configs", "--topic", n["seen"], "--set", "retention.ms=60000"], "ALTER_CONFIGS",
            f"topic '{n['seen']}'")


def test_a_delete_of_groups_some_refused_deletes_the_rest_and_exits_3(restricted):
    n = restricted.names
    r = as_alice(restricted, "delete", "groups", n["doomed"], n["theirs"])        # the table
    assert r.code == 3, r
    rows = [line.split(None, 1) for line in r.out.splitlines()[2:]]
    assert rows == [[n["doomed"], "Deleted"],
                    [n["theirs"], f"Error: not authorized to DELETE group '{n['theirs']}' (User:alice)"]], r.out
    assert r.err == "Error: 1 of 2 groups could not be deleted\n", r.err
    listed = as_root(restricted, "list", "groups", "-o", "csv").out
    assert n["doomed"] not in listed and n["theirs"] in listed


@pytest.mark.parametrize("view", [[], ["--members"], ["--state"]])
def test_a_describe_of_groups_some_refused_shows_the_rest_and_exits_3(restricted, view):
    n = restricted.names
    r = as_alice(restricted, "describe", "groups", n["mine"], n["theirs"], *view, "-o", "csv")
    assert r.code == 3, r
    # mine is shown (without members: its notice on stderr), theirs not
    assert n["mine"] in (r.err if view else r.out) and n["theirs"] not in r.out, r
    assert r.err.splitlines()[-1] == f"Error: not authorized to DESCRIBE group '{n['theirs']}' (User:alice)", r.err
    both = as_alice(restricted, "describe", "groups", n["theirs"], n["hidden"])       # none shown: exit 1
    assert (both.code, both.out, both.err) == (1, "", f"Error: not authorized to DESCRIBE group '{n['theirs']}' "
                                               f"(User:alice); not authorized to DESCRIBE group '{n['hidden']}' "
                                               "(User:alice)\n"), both


def test_every_group_is_those_alice_may_describe(restricted):
    """--all-groups: Kafka lists only the groups alice may describe, and they are shown."""
    n = restricted.names
    r = as_alice(restricted, "describe", "groups", "--all-groups", "-o", "csv")
    assert r.code == 0, r
    shown = {line.split(",")[0] for line in r.out.splitlines()[1:]}
    assert n["mine"] in shown and n["theirs"] not in shown, r.out


def test_every_topic_is_described_and_the_configs_refused_are_named(restricted):
    """describe topics: the topics Kafka lists to alice, with their partitions; the configs she
    may not describe named on stderr, exit 3 (not the whole listing refused)."""
    n = restricted.names
    refusal = f"Error: not authorized to DESCRIBE_CONFIGS topic '{n['seen']}' (User:alice)"
    r = as_alice(restricted, "describe", "topics", "-o", "csv")
    assert r.code == 3 and r.err.splitlines()[-1] == refusal, r
    assert f"\n{n['seen']},0," in r.out and f"\n{n['seen']},1," in r.out and n["hidden"] not in r.out, r.out
    overrides = as_alice(restricted, "describe", "topics", n["seen"], "--topics-with-overrides")
    assert (overrides.code, overrides.out, overrides.err) == (1, "", refusal + "\n"), overrides


def test_list_offsets_of_topics_one_refused_shows_the_rest_and_exits_3(restricted):
    """A topic named literally is not silently left out because Kafka's listing leaves it out."""
    n = restricted.names
    r = as_alice(restricted, "list-offsets", "-t", n["seen"], "-t", n["hidden"], "-o", "plain")
    assert (r.code, r.out, r.err) == (3, f"{n['seen']}:0:1\n{n['seen']}:1:1\n",
                                      f"Error: not authorized to DESCRIBE topic '{n['hidden']}' (User:alice)\n"), r


def test_lag_of_a_group_refused_names_the_refusal_not_a_missing_group(restricted):
    n = restricted.names
    refusal = f"Error: not authorized to DESCRIBE group '{n['theirs']}' (User:alice)\n"
    alone = as_alice(restricted, "lag", n["theirs"])
    assert (alone.code, alone.out, alone.err) == (1, "", refusal), alone       # not "Group G not found."
    both = as_alice(restricted, "lag", n["mine"], n["theirs"], "-o", "csv")
    assert (both.code, both.err) == (3, refusal), both
    assert [line.split(",")[0] for line in both.out.splitlines()[1:]] == [n["mine"]], both.out


def test_a_reset_of_a_topic_alice_may_not_describe_says_so_not_that_it_is_missing(restricted):
    n = restricted.names
    r = as_alice(restricted, "reset-offsets", "-g", n["mine"], "-t", n["hidden"], "--to-earliest")
    assert (r.code, r.out, r.err) == (1, "", f"Error: not authorized to DESCRIBE topic '{n['hidden']}' "
                                             "(User:alice)\n"), r


def test_topics_named_among_others_that_alice_may_not_describe_are_named(restricted):
    """describe topics A B: B is not left out silently because Kafka's listing leaves it out."""
    n = restricted.names
    hidden = f"not authorized to DESCRIBE topic '{n['hidden']}' (User:alice)"
    r = as_alice(restricted, "describe", "topics", n["seen"], n["hidden"], "-o", "csv")
    assert r.code == 3 and f"\n{n['seen']},0," in r.out and n["hidden"] not in r.out, r
    assert r.err == ("Warn: Sizes unknown: not authorized to DESCRIBE the cluster (User:alice)\n"    # DescribeLogDirs
                     f"Error: {hidden}; not authorized to DESCRIBE_CONFIGS topic '{n['seen']}' (User:alice)\n"), r.err
    other = unique("r-other")                       # refused too: Kafka does not say whether it exists
    none = as_alice(restricted, "describe", "topics", n["hidden"], other)
    assert (none.code, none.out, none.err) == (
        1, "", f"Error: {hidden}; not authorized to DESCRIBE topic '{other}' (User:alice)\n"), none


def offsets_of(restricted, group) -> dict:
    """``group``'s committed offsets, read by a super user's admin client."""
    admin = AdminClient({"bootstrap.servers": restricted.b, **restricted.root})
    res = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(30)
    return {(tp.topic, tp.partition): tp.offset for tp in res.topic_partitions if tp.offset >= 0}


def plan_groups(out: str) -> list[str]:
    return sorted({line.split(",")[0] for line in out.splitlines()[1:]})


def test_a_reset_of_groups_some_refused_resets_the_rest_and_exits_3(restricted):
    """-g reader -g theirs: theirs (no DESCRIBE) is named in one line, reader planned and, with
    --execute, committed; then --all-groups (the groups Kafka lists to alice): reader reset, mine's
    commit refused (DESCRIBE, no READ), named in one line, exit 3. Nothing committed for a
    refused group nor without --execute."""
    n = restricted.names
    seen = [(n["seen"], 0), (n["seen"], 1)]
    theirs = f"Error: not authorized to DESCRIBE group '{n['theirs']}' (User:alice)"
    args = ["reset-offsets", "-g", n["reader"], "-g", n["theirs"], "-t", n["seen"], "--to-earliest", "-o", "csv"]
    dry = as_alice(restricted, *args)
    assert dry.code == 3 and plan_groups(dry.out) == [n["reader"]] and "Traceback" not in dry.err, dry
    assert dry.err.splitlines()[-2:] == [theirs, f"Error: 1 of 2 groups planned; not the refused ones: {n['theirs']}"]
    assert offsets_of(restricted, n["reader"]) == dict.fromkeys(seen, 1)          # a dry run commits nothing
    done = as_alice(restricted, *args, "--execute")
    assert done.code == 3 and plan_groups(done.out) == [n["reader"]], done
    assert done.err.splitlines()[-2:] == [theirs, f"Error: 1 of 2 groups reset; not the refused ones: {n['theirs']}"]
    assert offsets_of(restricted, n["reader"]) == dict.fromkeys(seen, 0)
    assert offsets_of(restricted, n["theirs"]) == dict.fromkeys(seen, 1)

    other = unique("r-other")                       # refused too: Kafka does not say whether it exists
    none = as_alice(restricted, "reset-offsets", "-g", n["theirs"], "-g", other, "-t", n["seen"], "--to-earliest",
                    "--execute")
    assert (none.code, none.out, none.err) == (1, "", f"{theirs}; not authorized to DESCRIBE group '{other}' "
                                                      "(User:alice)\n"), none

    every = ["reset-offsets", "--all-groups", "-t", n["seen"], "--to-latest", "-o", "csv"]
    dry = as_alice(restricted, *every)           # READ is not asked before the commit: both planned
    assert dry.code == 0 and {n["mine"], n["reader"]} <= set(plan_groups(dry.out)), dry
    assert n["theirs"] not in dry.out and offsets_of(restricted, n["reader"]) == dict.fromkeys(seen, 0)
    done = as_alice(restricted, *every, "--execute")
    assert done.code == 3 and "Traceback" not in done.err, done
    lines = done.err.splitlines()
    assert f"Error: not authorized to READ group '{n['mine']}' (User:alice)" in lines, done.err
    summary = lines[-1].split("; not the refused ones: ")            # doomed too, until it is deleted
    assert summary[0].startswith("Error: ") and n["mine"] in summary[1].split(", "), done.err
    assert offsets_of(restricted, n["reader"]) == dict.fromkeys(seen, 1)
    assert offsets_of(restricted, n["mine"]) == dict.fromkeys(seen, 1)


def test_a_compare_of_groups_some_refused_compares_the_rest_and_exits_3(restricted):
    """reset-offsets --compare -g reader -g theirs: reader's policies compared, theirs named in
    one line, exit 3 (on Kafka, the topic configs refused too: a Warn line, its ages unknown);
    every group refused: the refusals, exit 1. A dry run: nothing committed."""
    n = restricted.names
    args = ["reset-offsets", "--compare", "-t", n["seen"], "-o", "csv"]
    some = as_alice(restricted, *args, "-g", n["reader"], "-g", n["theirs"])
    assert some.code == 3 and "Traceback" not in some.err, some
    assert {row.split(",")[0] for row in some.out.splitlines()[1:]} == {n["reader"]}, some.out
    assert some.err.splitlines()[-1] == f"Error: not authorized to DESCRIBE group '{n['theirs']}' (User:alice)"
    if restricted.real:         # no KIP-1327 ages: --max-age would read the topic's configs, refused
        assert (f"Warn: not authorized to DESCRIBE_CONFIGS topic '{n['seen']}' (User:alice): no age proven "
                "from message.timestamp.before.max.ms") in some.err.splitlines(), some.err
    none = as_alice(restricted, *args, "-g", n["theirs"])
    assert (none.code, none.out) == (1, "") and none.err.splitlines() == [
        f"Error: not authorized to DESCRIBE group '{n['theirs']}' (User:alice)"], none
    assert offsets_of(restricted, n["theirs"]) == dict.fromkeys([(n["seen"], 0), (n["seen"], 1)], 1)


def test_the_consumer_groups_drop_in_fails_on_a_refused_group_as_its_tool_does(restricted, tmp_path):
    """kafka-consumer-groups --reset-offsets of groups one of which alice may not describe: the
    tool's exception on stdout (Apache's own tool's, on Kafka 4.4), nothing committed, exit 1
    (the tool's is 0)."""
    n = restricted.names
    props = tmp_path / "alice-java.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                     f'username="alice" password="{ACL_USERS["alice"]}";\n', encoding="utf-8")
    args = ["--bootstrap-server", restricted.sasl, "--command-config", str(props), "--reset-offsets",
            "--group", n["reader"], "--group", n["theirs"], "--topic", n["seen"], "--to-earliest"]
    before = offsets_of(restricted, n["reader"])
    failed = ("\nError: Executing consumer group command failed due to java.util.concurrent.ExecutionException: "
              "org.apache.kafka.common.errors.GroupAuthorizationException: FindCoordinator request for groupId "
              f"`CoordinatorKey(idValue='{n['theirs']}', type=GROUP)` failed due to authorization failure\n")
    for mode in ("--dry-run", "--execute"):
        r = run_dropin("kafka-consumer-groups", *args, mode)
        assert (r.code, r.out) == (1, failed), r
        assert offsets_of(restricted, n["reader"]) == before
    if restricted.real:                          # Apache's tool (a dry run: it would commit what precedes)
        java = java_tool("kafka-consumer-groups", *args, "--dry-run")
        assert (java.code, java.out) == (0, failed), java


def test_refusals_through_librdkafka_are_worded_as_through_kcli_s_own_client(restricted):
    """A broker whose answers kcli's own client cannot read (tests.support.garble: its
    ApiVersions, so every request librdkafka can serve goes to it): the same one-line refusals.
    The group offsets' fallbacks (librdkafka's OffsetFetch, OffsetCommit: the coordinator's
    connection is not the proxy's) word theirs as kcli's own client does, and commit nothing."""
    from kcli.admin.client import KafkaAdmin
    from kcli.admin.settings import ClientSettings
    from kcli.errors import NotAuthorized

    n = restricted.names
    for args, refusal in ((["describe", "topics", n["hidden"]], f"not authorized to DESCRIBE topic '{n['hidden']}'"),
                          (["describe", "groups", n["theirs"]], f"not authorized to DESCRIBE group '{n['theirs']}'")):
        with GarblingProxy(restricted.sasl, ["ApiVersions"]) as px:
            r = run_kcli(px.bootstrap, "--command-config", restricted.props, *args, timeout="20s")
        assert r.code == 1 and "Traceback" not in r.err and "using librdkafka" in r.err, (args, r)
        assert r.err.splitlines()[-1] == f"Error: {refusal} (User:alice)", (args, r.err)
    seen = {(n["seen"], 0): 0, (n["seen"], 1): 0}
    admin = KafkaAdmin(ClientSettings(restricted.sasl, login("alice"), 20_000))
    try:
        wire, lr = admin.alter_group_offsets(n["mine"], seen), admin._lr_alter_group_offsets(n["mine"], seen)
        assert {tp: e.message for tp, e in lr.items()} == {tp: e.message for tp, e in wire.items()} == dict.fromkeys(
            seen, f"not authorized to READ group '{n['mine']}' (User:alice)"), (wire, lr)
        said = []
        for fetch in (admin.committed_offsets, admin._lr_committed_offsets):
            with pytest.raises(NotAuthorized) as refused:
                fetch(n["theirs"])
            said.append(refused.value.message)
        assert said == [f"not authorized to DESCRIBE group '{n['theirs']}' (User:alice)"] * 2, said
    finally:
        admin.close()
    assert offsets_of(restricted, n["mine"]) == dict.fromkeys(seen, 1)


def test_a_reset_whose_commit_is_refused_on_a_topic_commits_the_rest_and_exits_3(restricted):
    """A topic alice may DESCRIBE but not READ: its partitions are planned, their commit is
    refused (one line naming the group and the refusal), the group's others committed: exit 3."""
    n = restricted.names
    described = unique("r-described")
    create_topic(restricted.b, described, partitions=1, **restricted.root)
    admin = AdminClient({"bootstrap.servers": restricted.b, **restricted.root})
    binding = AclBinding(ResourceType.TOPIC, described, ResourcePatternType.LITERAL, "User:alice", "*",
                         AclOperation.DESCRIBE, AclPermissionType.ALLOW)
    admin.create_acls([binding], request_timeout=30)[binding].result()
    mine = AclBindingFilter(ResourceType.TOPIC, described, ResourcePatternType.LITERAL, "User:alice", "*",
                            AclOperation.DESCRIBE, AclPermissionType.ALLOW)
    try:
        wait_until(lambda: admin.describe_acls(mine, request_timeout=30).result(), what="alice's ACL")
        args = ["reset-offsets", "-g", n["reader"], "-t", n["seen"], "-t", described, "--to-earliest", "-o", "csv"]
        dry = as_alice(restricted, *args)
        assert dry.code == 0 and dry.out.count(f"{n['reader']},") == 3, dry
        r = as_alice(restricted, *args, "--execute")
        assert r.code == 3 and "Traceback" not in r.err, r
        assert r.err.splitlines()[-2:] == [
            f"Error: group '{n['reader']}': not authorized to READ topic '{described}' (User:alice)",
            f"Error: 1 of 1 groups reset; in part: {n['reader']}"], r.err
        assert offsets_of(restricted, n["reader"]) == {(n["seen"], 0): 0, (n["seen"], 1): 0}
    finally:
        for fut in admin.delete_acls([mine], request_timeout=30).values():
            fut.result()
        # the module's other tests find reader where the fixture left it (offset 1), in any order
        back = as_root(restricted, "reset-offsets", "-g", n["reader"], "-t", n["seen"], "--to-offset", "1",
                       "--allow-skip", "--execute")
        assert back.code == 0, back
