"""Session-wide fixtures: real Apache Kafka clusters, started once per test session from the
provisioned jars (``scripts/provision-kafka.sh``). They never skip: when Kafka cannot run here
every test that needs it fails with one line saying why. A failing test that used a cluster gets
the tail of its broker logs in the report."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.apache_kafka import COMPAT_VERSIONS, ApacheKafka, RealKafkaUnavailable

from tests.support.sasl import ACL_USERS, USERS as SASL_USERS


def _connector_on_every_spark_jvm() -> None:
    """pyspark starts one JVM per process, with the jars of the first session: whichever test
    starts it (in random order, a --source python audit may come first), Spark's Kafka
    connector (scripts/provision-spark-kafka.sh) is on its classpath, as in a kcli process that
    asks for it; a later session's spark.jars would not reach the running driver."""
    from kcli.pipeline.spark import connector_jars

    jars = connector_jars()
    if jars and "PYSPARK_SUBMIT_ARGS" not in os.environ:
        os.environ["PYSPARK_SUBMIT_ARGS"] = f"--jars {','.join(jars)} pyspark-shell"


_connector_on_every_spark_jvm()
_STARTED: dict[str, ApacheKafka] = {}


def _cluster(name: str, **kwargs):
    try:
        cluster, why = ApacheKafka(**kwargs).start(), None
    except RealKafkaUnavailable as exc:
        cluster, why = None, str(exc)
    if why is not None:                 # outside the except: one line, no chained traceback
        pytest.fail(why, pytrace=False)
    _STARTED[name] = cluster
    try:
        yield cluster
    finally:
        _STARTED.pop(name, None)
        cluster.stop()


@pytest.fixture(autouse=True)
def _state_home(tmp_path_factory, monkeypatch):
    """kcli's state (rollback files) goes to a temporary $XDG_STATE_HOME, never the user's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _root_left_as_found():
    """A test leaves no file in the repository's root, the working directory of the suite
    (rollback files once did, and were committed)."""
    before = set(os.listdir(ROOT))
    yield
    left = sorted(set(os.listdir(ROOT)) - before)
    assert not left, f"the test left {left} in {ROOT}"


@pytest.fixture(scope="session")
def apache_kafka():
    """Apache Kafka (``KAFKA_VERSION``, 4.4 by default), one combined broker+controller node:
    PLAINTEXT, and SASL_PLAINTEXT with PLAIN and SCRAM-SHA-512 for ``SASL_USERS``, and OAUTHBEARER (unsecured JWTs)."""
    yield from _cluster("apache_kafka", nodes=1, sasl_users=SASL_USERS)


@pytest.fixture(scope="session")
def embedded_share():
    """The embedded broker, one node, with group and share-group timings short enough for the
    share-group tools' tests (the members are Java: tests/support/share_app.py)."""
    from tests.support.groups import fast_cluster
    from tests.support.share_app import SHARE_CONFIGS

    with fast_cluster(nodes=1, configs=SHARE_CONFIGS) as ec:
        yield ec


@pytest.fixture(scope="session")
def apache_kafka3():
    """Apache Kafka (``KAFKA_VERSION``), three combined nodes (leaders, replicas and coordinators
    spread)."""
    yield from _cluster("apache_kafka3", nodes=3, heap="384m")


@pytest.fixture(scope="session")
def apache_kafka_parity():
    """Apache Kafka (``KAFKA_VERSION``), one node, for the parity corpus alone: `--list` and describe without a
    topic see only the corpus's state."""
    yield from _cluster("apache_kafka_parity", nodes=1, heap="384m")


@pytest.fixture(scope="session")
def apache_kafka_streams():
    """Apache Kafka 4.4.0 whatever ``KAFKA_VERSION`` says (streams groups' reference:
    tests/support/streams_app.py), one node with Kafka's defaults (streams groups need no
    setting on 4.4) and no initial rebalance delay for streams groups; shared by the streams
    tests and the kafka-streams-groups parity corpus."""
    from tests.support.streams_app import STREAMS_KAFKA

    yield from _cluster("apache_kafka_streams", nodes=1, heap="384m", version=STREAMS_KAFKA,
                        configs=STREAMS_CONFIGS)


@pytest.fixture(scope="session")
def apache_kafka_streams_parity():
    """As ``apache_kafka_streams``, for the kafka-streams-groups parity corpus alone: --list and
    --all-groups see only the corpus's applications."""
    from tests.support.streams_app import STREAMS_KAFKA

    yield from _cluster("apache_kafka_streams_parity", nodes=1, heap="384m", version=STREAMS_KAFKA,
                        configs=STREAMS_CONFIGS)


# no initial rebalance delay; a group may lower its own session timeout to 6 s (the default stays
# Kafka's 45 s: tests/broker/test_txns_streams.py sets it for its group)
STREAMS_CONFIGS = {"group.streams.initial.rebalance.delay.ms": "0", "group.streams.min.session.timeout.ms": "6000"}


@pytest.fixture(scope="session")
def apache_kafka_acl():
    """Apache Kafka (``KAFKA_VERSION``), one node with StandardAuthorizer: ``ACL_USERS`` over
    SASL (PLAIN, SCRAM-SHA-512), super users User:admin and User:ANONYMOUS (the PLAINTEXT and
    controller listeners), no other ACL at start."""
    yield from _cluster("apache_kafka_acl", nodes=1, heap="384m", sasl_users=ACL_USERS, configs={
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:ANONYMOUS;User:admin"})


@pytest.fixture(scope="module", autouse=True)
def _acls_left_as_found():
    """Each test module leaves ``apache_kafka_acl`` without an ACL, whatever it made and whether
    its tests passed, so that the next module's ACLs are its own alone (a fixture that waits for
    its bindings, kafka-acls --list compared with a new embedded broker, a principal's refusals
    that another module's ``User:*`` ACL would turn into grants)."""
    yield
    cluster = _STARTED.get("apache_kafka_acl")
    if cluster is not None:
        from tests.support.clients import delete_every_acl

        delete_every_acl(cluster.bootstrap_servers)


@pytest.fixture(scope="session")
def apache_kafka_txn():
    """Apache Kafka (``KAFKA_VERSION``), one node, for hanging transactions (the
    kafka-transactions parity corpus, find-hanging and abort): transactional produce is not
    verified (``transaction.partition.verification.enable=false``, as brokers before 3.6), so a
    producer that writes to a partition it never added to its transaction leaves it hanging
    (tests/support/hanging_producer.py)."""
    yield from _cluster("apache_kafka_txn", nodes=1, heap="384m",
                        configs={"transaction.partition.verification.enable": "false"})


@pytest.fixture(scope="session", params=COMPAT_VERSIONS)
def apache_kafka_compat(request):
    """An older Apache Kafka release (each of ``COMPAT_VERSIONS``), one node, for the
    compatibility subset (tests/apache/test_compat.py): started once per version per session,
    and stopped before the next version starts (pytest groups the tests by version)."""
    yield from _cluster("apache_kafka_compat", nodes=1, heap="384m", version=request.param)


CLUSTERS = ("apache_kafka", "apache_kafka3", "apache_kafka_parity", "apache_kafka_compat", "apache_kafka_streams",
            "apache_kafka_streams_parity", "apache_kafka_acl", "apache_kafka_txn")


def pytest_collection_modifyitems(items):
    """Marks the tests of real Kafka; after pytest-randomly's shuffle, puts the tests of each
    Kafka release of ``apache_kafka_compat`` in one run (in the places those tests took), so
    that each release's JVM starts once, not once per switch between releases."""
    for item in items:
        if any(name in item.fixturenames for name in CLUSTERS):
            item.add_marker(pytest.mark.apache)
    places = [i for i, item in enumerate(items) if "apache_kafka_compat" in _params(item)]
    grouped = sorted((items[i] for i in places), key=lambda item: COMPAT_VERSIONS.index(
        _params(item)["apache_kafka_compat"]))
    for i, item in zip(places, grouped):
        items[i] = item


def _params(item) -> dict:
    return getattr(getattr(item, "callspec", None), "params", {})


def pytest_terminal_summary(terminalreporter, config):
    """The order's seed (pytest-randomly), printed under -q too, where its header is not."""
    seed = getattr(config.option, "randomly_seed", None)
    if seed is not None and config.pluginmanager.has_plugin("randomly"):
        terminalreporter.write_line(f"tests in random order: --randomly-seed={seed} repeats it")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for name in CLUSTERS:
            if name in item.fixturenames and name in _STARTED:
                report.sections.append((f"{name} broker log (tail)", _STARTED[name].log_tail(lines=40)))
