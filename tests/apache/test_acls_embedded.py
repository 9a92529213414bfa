"""ACLs on the embedded broker and on real Kafka 4.4 with StandardAuthorizer give the same
answers: Apache's kafka-acls (AclCommand, Java's AdminClient createAcls/describeAcls/deleteAcls)
adds, lists (every pattern-type filter, MATCH included: the broker decides which patterns apply
to a name) and removes the same ACLs with byte-identical output; then users with those ACLs get
the same allowed and refused operations from both (librdkafka clients as alice, bob and carol),
over a matrix of LITERAL, ``*`` and PREFIXED patterns, User:x and User:* principals, hosts, DENY
and the implied operations."""

from __future__ import annotations

import time

import pytest

from kcli.broker import EmbeddedCluster
from tests.support.apache_kafka import ToolSession
from tests.support.sasl import ACL_USERS

pytestmark = pytest.mark.apache

ADDS = [
    ["--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders"],
    ["--allow-principal", "User:*", "--operation", "Describe", "--topic", "*"],
    ["--allow-principal", "User:alice", "--allow-host", "127.0.0.1", "--operation", "Write",
     "--topic", "pay-", "--resource-pattern-type", "prefixed"],
    ["--deny-principal", "User:bob", "--operation", "All", "--topic", "pay-secret"],
    ["--allow-principal", "User:bob", "--operation", "All", "--topic", "pay-",
     "--resource-pattern-type", "prefixed"],
    ["--allow-principal", "User:bob", "--operation", "Read", "--group", "billing"],
    ["--allow-principal", "User:alice", "--operation", "AlterConfigs", "--topic", "orders"],
    ["--allow-principal", "User:bob", "--operation", "Create", "--cluster"],
    ["--allow-principal", "User:alice", "--operation", "Write", "--transactional-id", "tx"],
    ["--producer", "--allow-principal", "User:carol", "--topic", "carol-t"],
    ["--consumer", "--allow-principal", "User:carol", "--topic", "carol-t", "--group", "carol-"],
    ["--deny-principal", "User:alice", "--deny-host", "10.0.0.1", "--operation", "Read", "--topic", "orders"],
    ["--allow-principal", "User:alice", "--operation", "Describe", "--topic", "orders"],   # again: a no-op
]
LISTS = [
    [],
    ["--topic", "orders"],
    ["--topic", "orders", "--resource-pattern-type", "match"],
    ["--topic", "pay-secret", "--resource-pattern-type", "match"],
    ["--topic", "pay-", "--resource-pattern-type", "prefixed"],
    ["--topic", "pay-", "--resource-pattern-type", "literal"],
    ["--topic", "pay-secret", "--resource-pattern-type", "any"],
    ["--principal", "User:alice"],
    ["--principal", "User:*"],
    ["--group", "billing"],
    ["--group", "carol-x", "--resource-pattern-type", "match"],
    ["--cluster"],
    ["--transactional-id", "tx"],
]
REMOVES = [
    ["--topic", "orders", "--allow-principal", "User:alice", "--operation", "Read"],
    ["--topic", "*"],
    ["--topic", "pay-", "--resource-pattern-type", "prefixed", "--deny-principal", "User:bob"],
    ["--group", "carol-", "--resource-pattern-type", "prefixed"],
]


@pytest.fixture(scope="module")
def embedded():
    with EmbeddedCluster(nodes=1, sasl_users=ACL_USERS, authorize=True, super_users=["admin"]) as ec:
        yield ec


@pytest.fixture(scope="module")
def tools():
    with ToolSession() as t:
        yield t


@pytest.fixture(scope="module")
def admin_config(tmp_path_factory):
    path = tmp_path_factory.mktemp("acl") / "admin.properties"
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                    'username="admin" password="admin-secret";\n')
    return str(path)


def unordered(result: tuple[int, str, str]) -> tuple[int, list]:
    """The exit code and stdout, each blank-line separated block with its tab-indented entry
    lines sorted, the blocks sorted. kafka-acls prints the ACLs in HashMap and HashSet order,
    where colliding entries keep the order the broker answered them in; real Kafka answers in
    the order of its random ACL ids, so two runs on it print the same lines in other orders."""
    code, out, _ = result
    blocks = [block.split("\n") for block in out.split("\n\n")]
    return code, sorted([block[0], *sorted(block[1:])] for block in blocks)


def acls(tools, bootstrap: str, config: str, *args: str) -> tuple[int, str, str]:
    r = tools.run("kafka-acls", "--bootstrap-server", bootstrap, "--command-config", config, *args)
    return r.code, r.out, r.err


def test_kafka_acls_adds_lists_and_removes_as_on_real_kafka(embedded, apache_kafka_acl, tools, admin_config):
    brokers = {"embedded": embedded.bootstrap_servers, "real": apache_kafka_acl.sasl_bootstrap_servers}
    steps = ([["--add", *a] for a in ADDS] + [["--list", *a] for a in LISTS]
             + [["--remove", "--force", *a] for a in REMOVES] + [["--list"]])
    for step in steps:
        got = {name: acls(tools, b, admin_config, *step) for name, b in brokers.items()}
        assert unordered(got["embedded"]) == unordered(got["real"]), (step, got["embedded"][2][-2000:])
        assert got["embedded"][0] == 0, step


# -- what users with those ACLs may do ------------------------------------------------------

TOPICS = ["orders", "pay-a", "pay-secret", "carol-t", "public"]
GROUPS = ["billing", "carol-", "other"]
MATRIX_ADDS = [
    ["--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders"],
    ["--allow-principal", "User:alice", "--operation", "AlterConfigs", "--topic", "orders"],
    ["--deny-principal", "User:alice", "--deny-host", "10.0.0.1", "--operation", "Read", "--topic", "orders"],
    ["--allow-principal", "User:alice", "--allow-host", "127.0.0.1", "--operation", "Write",
     "--topic", "pay-", "--resource-pattern-type", "prefixed"],
    ["--allow-principal", "User:bob", "--operation", "All", "--topic", "pay-", "--resource-pattern-type", "prefixed"],
    ["--deny-principal", "User:bob", "--operation", "Describe", "--topic", "pay-secret"],
    ["--allow-principal", "User:bob", "--operation", "Read", "--group", "billing"],
    ["--allow-principal", "User:bob", "--operation", "Delete", "--group", "other"],
    ["--allow-principal", "User:bob", "--operation", "Create", "--cluster"],
    ["--allow-principal", "User:bob", "--operation", "Describe", "--cluster"],
    ["--allow-principal", "User:*", "--operation", "Describe", "--topic", "public"],
    ["--allow-principal", "User:*", "--operation", "DescribeConfigs", "--topic", "*"],
    ["--deny-principal", "User:carol", "--operation", "DescribeConfigs", "--topic", "carol-t"],
    ["--consumer", "--allow-principal", "User:carol", "--topic", "carol-t", "--group", "carol-",
     "--resource-pattern-type", "prefixed"],
    ["--allow-principal", "User:alice", "--operation", "Alter", "--topic", "carol-t"],    # implies Describe
    ["--allow-principal", "User:carol", "--operation", "Delete", "--topic", "pay-a"],     # so does Delete
]


def admin_conf(bootstrap: str, user: str) -> dict:
    return {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
            "sasl.username": user, "sasl.password": ACL_USERS[user], "log_level": 0}


def code(future, timeout: float = 15):
    """The Kafka error name a librdkafka future ends with ("OK": none)."""
    from confluent_kafka import KafkaException

    try:
        future.result(timeout)
        return "OK"
    except KafkaException as e:
        return e.args[0].name()


LOADING = {"COORDINATOR_LOAD_IN_PROGRESS", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR"}


def seed(bootstrap: str) -> None:
    """As admin: the topics, and a committed offset in each group."""
    from confluent_kafka import Consumer, KafkaException, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient(admin_conf(bootstrap, "admin"))
    for f in admin.create_topics([NewTopic(t, 1, 1) for t in TOPICS]).values():
        f.result(20)
    for g in GROUPS:
        c = Consumer({**admin_conf(bootstrap, "admin"), "group.id": g, "enable.auto.commit": False})
        try:
            for attempt in range(60):          # a new Kafka loads its offsets topic for a while
                try:
                    c.commit(offsets=[TopicPartition("orders", 0, 0)], asynchronous=False)
                    break
                except KafkaException as e:
                    if e.args[0].name() not in LOADING or attempt == 59:
                        raise
                    time.sleep(0.5)
        finally:
            c.close()


def probe(bootstrap: str, user: str) -> dict:
    """What ``user`` sees and may do, each answer as Kafka's error name or the data shown."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, Producer, TopicCollection, TopicPartition
    from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

    admin = AdminClient(admin_conf(bootstrap, user))
    seen: dict = {}
    md = admin.list_topics(timeout=15)
    seen["all topics"] = sorted(t for t in md.topics if t in TOPICS)
    for t in TOPICS:
        one = admin.list_topics(topic=t, timeout=15).topics[t]
        seen[f"metadata {t}"] = one.error.name() if one.error else "OK"
        seen[f"configs {t}"] = code(admin.describe_configs([ConfigResource(ResourceType.TOPIC, t)])[
            ConfigResource(ResourceType.TOPIC, t)])
        seen[f"create {t}-new"] = code(admin.create_topics([NewTopic(f"{t}-new", 1, 1)],
                                                           validate_only=True)[f"{t}-new"])
        described = admin.describe_topics(TopicCollection([t]), include_authorized_operations=True)[t]
        try:
            ops = described.result(15).authorized_operations
            seen[f"topic ops {t}"] = sorted(op.name for op in ops or [])
        except Exception as e:  # noqa: BLE001 - the error's name is the answer
            seen[f"topic ops {t}"] = e.args[0].name()
    producer = Producer({**admin_conf(bootstrap, user), "linger.ms": 0, "message.timeout.ms": 8000,
                         "enable.idempotence": False})
    delivered: dict = {}
    for t in ("orders", "pay-a", "pay-secret", "public"):
        producer.produce(t, b"x",
                         on_delivery=lambda err, msg, t=t: delivered.__setitem__(t, err.name() if err else "OK"))
    producer.flush(20)
    seen["produce"] = delivered
    listed = admin.list_consumer_groups().result(15)
    seen["groups"] = sorted(g.group_id for g in listed.valid if g.group_id in GROUPS)
    for g in GROUPS:
        try:
            group = admin.describe_consumer_groups([g], include_authorized_operations=True)[g].result(15)
            seen[f"group {g}"] = (group.state.name, sorted(op.name for op in group.authorized_operations or []))
        except KafkaException as e:
            seen[f"group {g}"] = e.args[0].name()
        seen[f"offsets {g}"] = code(admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(g, [TopicPartition("orders", 0)])])[g])
    cluster = admin.describe_cluster(include_authorized_operations=True).result(15)
    seen["cluster ops"] = sorted(op.name for op in cluster.authorized_operations or [])
    seen["delete group other"] = code(admin.delete_consumer_groups(["other"])["other"])   # bob may
    return seen


def test_users_are_allowed_and_refused_as_on_real_kafka(embedded, apache_kafka_acl, tools, admin_config):
    brokers = {"embedded": embedded.bootstrap_servers, "real": apache_kafka_acl.sasl_bootstrap_servers}
    for b in brokers.values():
        for add in MATRIX_ADDS:
            assert acls(tools, b, admin_config, "--add", *add)[0] == 0
        seed(b)
    for user in ("alice", "bob", "carol"):
        got = {name: probe(b, user) for name, b in brokers.items()}
        assert got["embedded"] == got["real"], user
    assert got["real"]["all topics"] == ["carol-t", "pay-a", "public"]    # the matrix is not all refusals


# -- SCRAM users: kafka-configs --entity-type users ------------------------------------------

USER_STEPS = [
    ["--describe"],                                                     # no such user yet
    ["--alter", "--add-config", "SCRAM-SHA-256=[iterations=8192,password=dave-secret],SCRAM-SHA-512=[password=x]"],
    ["--alter", "--add-config", "SCRAM-SHA-256=[iterations=8192,password=dave-secret]"],
    ["--alter", "--add-config", "SCRAM-SHA-512=[password=dave-secret]"],
    ["--describe"],
    ["--alter", "--delete-config", "SCRAM-SHA-512"],
    ["--describe"],
    ["--alter", "--delete-config", "SCRAM-SHA-512"],                    # no longer there
    ["--alter", "--add-config", "SCRAM-SHA-512=[iterations=1000,password=x]"],   # too few iterations
    ["--describe"],
]


def credentials(r) -> tuple[int, list[str]]:
    """The exit code and stdout, a user's credentials sorted: Kafka lists them in the order of
    its broker's map of mechanisms, which differs from one start of the broker to the next."""
    head = "SCRAM credential configs for user-principal "
    return r.code, [line.split(" are ")[0] + " are " + ", ".join(sorted(line.split(" are ", 1)[1].split(", ")))
                    if line.startswith(head) else line for line in r.out.splitlines()]


def test_kafka_configs_manages_scram_users_as_on_real_kafka(embedded, apache_kafka_acl, tools, admin_config):
    from confluent_kafka import KafkaError
    from confluent_kafka.admin import AdminClient

    from tests.support.sasl import wait_for_error

    brokers = {"embedded": embedded.bootstrap_servers, "real": apache_kafka_acl.sasl_bootstrap_servers}
    for step in USER_STEPS:
        got = {name: tools.run("kafka-configs", "--bootstrap-server", b, "--command-config", admin_config,
                               "--entity-type", "users", "--entity-name", "dave", *step)
               for name, b in brokers.items()}
        assert credentials(got["embedded"]) == credentials(got["real"]), (step, got["embedded"].err[-1500:])
    assert "SCRAM-SHA-256=iterations=8192" in got["real"].out
    dave = {"bootstrap.servers": embedded.bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
            "sasl.username": "dave", "sasl.password": "dave-secret", "log_level": 0}
    assert AdminClient({**dave, "sasl.mechanism": "SCRAM-SHA-256"}).list_topics(timeout=10).brokers
    errors: list = []
    refused = AdminClient({**dave, "sasl.mechanism": "SCRAM-SHA-512", "error_cb": errors.append})
    assert wait_for_error(refused, errors, KafkaError._AUTHENTICATION)
