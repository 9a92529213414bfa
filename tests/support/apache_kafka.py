"""Real Apache Kafka for tests and benches, from the jars ``scripts/provision-kafka.sh`` caches
outside the work tree: KRaft clusters of combined broker+controller nodes (one JVM each, heap
bounded) on 127.0.0.1 ephemeral ports with a temporary data directory, and the Java tools
(``TopicCommand``, ``ConsumerGroupCommand``, ``GetOffsetShell``, ``ConfigCommand``) and small
Java programs run from the same jars. ``KAFKA_VERSION`` (``KCLI_KAFKA_VERSION``, default the newest
release) is the reference; ``COMPAT_VERSIONS`` are older lines a subset of the tests runs against,
each with its own jars and tools (``version=``).

Launch flags follow Kafka's ``bin/kafka-run-class.sh`` and ``bin/kafka-server-start.sh``: the same
main classes (they moved between releases: ``tool_class``), G1 options and a logging configuration
with the tools' layout (root WARN on stderr, ``[%d] %p %m (%c)%n``), written here rather than taken
from a distribution: log4j2 from 4.0, log4j 1 (reload4j) in 3.x.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kcli.xdg import cache_dir

DEFAULT_KAFKA_VERSION = "4.4.0"          # scripts/provision-kafka.sh's default
KAFKA_VERSION = os.environ.get("KCLI_KAFKA_VERSION", DEFAULT_KAFKA_VERSION)
# Older release lines the compatibility subset (tests/apache/test_compat.py) runs against.
COMPAT_VERSIONS = ("4.3.1", "3.9.1", "3.7.2")
REPO = Path(__file__).resolve().parents[2]


def version_key(version: str) -> tuple[int, ...]:
    """``"3.9.1"`` -> ``(3, 9, 1)``, for comparing release numbers."""
    return tuple(int(part) for part in version.split(".")[:3])


# Each tool's main class, newest first, with the first release that has it there (as the
# release's bin/kafka-*.sh names it): Kafka moved the tools from Scala (kafka.admin) to Java
# (org.apache.kafka.tools) over several releases.
TOOL_CLASSES = {
    "kafka-topics": [("3.5.0", "org.apache.kafka.tools.TopicCommand")],
    "kafka-consumer-groups": [("3.8.0", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"),
                              ("0.0.0", "kafka.admin.ConsumerGroupCommand")],
    "kafka-get-offsets": [("3.5.0", "org.apache.kafka.tools.GetOffsetShell")],
    "kafka-configs": [("4.4.0", "org.apache.kafka.tools.ConfigCommand"),
                      ("0.0.0", "kafka.admin.ConfigCommand")],
    "kafka-streams-groups": [("4.1.0", "org.apache.kafka.tools.streams.StreamsGroupCommand")],
    # AclCommand moved from kafka.admin (core) to org.apache.kafka.tools in 4.0 (3.9.1 still has it in core)
    "kafka-acls": [("4.0.0", "org.apache.kafka.tools.AclCommand"), ("0.0.0", "kafka.admin.AclCommand")],
    "kafka-transactions": [("3.0.0", "org.apache.kafka.tools.TransactionsCommand")],
    "kafka-delete-records": [("3.7.0", "org.apache.kafka.tools.DeleteRecordsCommand")],
    "kafka-features": [("3.7.0", "org.apache.kafka.tools.FeatureCommand")],
    "kafka-log-dirs": [("3.7.0", "org.apache.kafka.tools.LogDirsCommand")],
    # moved from kafka.tools (core) by KAFKA-14575, in 3.5
    "kafka-cluster": [("3.5.0", "org.apache.kafka.tools.ClusterTool")],
    "kafka-metadata-quorum": [("3.7.0", "org.apache.kafka.tools.MetadataQuorumCommand")],
    "kafka-broker-api-versions": [("3.7.0", "org.apache.kafka.tools.BrokerApiVersionsCommand")],
    "kafka-reassign-partitions": [("3.5.0", "org.apache.kafka.tools.reassign.ReassignPartitionsCommand")],
    "kafka-leader-election": [("3.5.0", "org.apache.kafka.tools.LeaderElectionCommand")],
    "kafka-share-groups": [("4.1.0", "org.apache.kafka.tools.consumer.group.ShareGroupCommand")],
}


def tool_class(tool: str, version: str = KAFKA_VERSION) -> str:
    """The main class of ``tool`` (``kafka-configs``...) in Kafka ``version``."""
    for since, name in TOOL_CLASSES[tool]:
        if version_key(version) >= version_key(since):
            return name
    raise RealKafkaUnavailable(f"Apache Kafka {version} has no {tool}")


TOOLS = {tool: tool_class(tool) for tool, classes in TOOL_CLASSES.items()     # KAFKA_VERSION's
         if version_key(KAFKA_VERSION) >= version_key(classes[-1][0])}
# kafka-run-class.sh's defaults (KAFKA_JVM_PERFORMANCE_OPTS); the broker gets a bounded heap.
G1 = ["-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
      "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true"]
# The tools as kafka-run-class.sh starts them (the benches' baseline).
TOOL_JVM = ["-Xmx256M", *G1]
# The tools in tests: output is the same; start-up is about 30% shorter.
FAST_TOOL_JVM = ["-Xmx256M", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                 "-Djava.awt.headless=true"]

def log4j2(version: str) -> bool:
    """Kafka 4.0 moved from log4j 1 (reload4j) to log4j2: another file format and property."""
    return version_key(version) >= (4,)


TOOLS_LOG4J = """\
rootLogger.level = WARN
rootLogger.appenderRef.stderr.ref = STDERR
appender.stderr.type = Console
appender.stderr.name = STDERR
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = [%d] %p %m (%c)%n
"""
BROKER_LOG4J = """\
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = {path}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
logger.state.name = state.change.logger
logger.state.level = WARN
"""
# The same two, for Kafka 3.x (bin/../config/tools-log4j.properties, log4j.properties)
TOOLS_LOG4J1 = """\
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.stderr.Target=System.err
"""
BROKER_LOG4J1 = """\
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File={path}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.state.change.logger=WARN
"""


def log4j_flag(version: str, path: Path) -> str:
    """The JVM flag that points Kafka ``version``'s logging at the configuration file ``path``."""
    return (f"-Dlog4j2.configurationFile={path}" if log4j2(version)
            else f"-Dlog4j.configuration=file:{path}")
# Settings a test cluster needs (small internal topics, no initial rebalance delay, KIP-848 and
# share-group heartbeats every second, share-group locks as short as a second may be set);
# everything else is Kafka's default.
TEST_CONFIGS = {
    "offsets.topic.num.partitions": "5",
    "group.initial.rebalance.delay.ms": "0",
    "group.consumer.min.heartbeat.interval.ms": "500",
    "group.consumer.heartbeat.interval.ms": "1000",
    "group.min.session.timeout.ms": "1000",
    "group.share.min.heartbeat.interval.ms": "1000",
    "group.share.heartbeat.interval.ms": "1000",
    "group.share.min.record.lock.duration.ms": "1000",
}


class RealKafkaUnavailable(Exception):
    """Apache Kafka cannot be run here; the message is one line saying why."""


def kafka_libs(version: str = KAFKA_VERSION) -> Path:
    """The directory of Kafka ``version``'s provisioned jars (raises RealKafkaUnavailable when
    missing)."""
    if shutil.which("java") is None:
        raise RealKafkaUnavailable("Apache Kafka tests need Java 17+: no `java` on PATH "
                                   "(bash scripts/test.sh installs it)")
    home = Path(cache_dir(f"kafka-{version}"))
    if not (home / "complete").is_file():
        raise RealKafkaUnavailable(f"Apache Kafka {version} jars are not in {home}: run "
                                   f"KCLI_KAFKA_VERSION={version} scripts/provision-kafka.sh "
                                   f"(bash scripts/test.sh does)")
    return home / "libs"


def free_ports(n: int) -> list[int]:
    """``n`` distinct ports the kernel just handed out on 127.0.0.1 (all bound at once)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _die_with_parent() -> None:
    """In the child: SIGKILL when the test process dies, so no JVM outlives a killed run."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    os.setsid()


def _write_config(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


_TOOLS_LOG4J_PATHS: dict[bool, Path] = {}


def _tools_log4j(version: str = KAFKA_VERSION) -> str:
    """The JVM flag for the tools' logging configuration of Kafka ``version``."""
    two = log4j2(version)
    path = _TOOLS_LOG4J_PATHS.get(two)
    if path is None or not path.exists():
        path = _TOOLS_LOG4J_PATHS[two] = _write_config(
            Path(tempfile.mkdtemp(prefix="kcli-tools-")),
            "tools-log4j2.properties" if two else "tools-log4j.properties",
            TOOLS_LOG4J if two else TOOLS_LOG4J1)
    return log4j_flag(version, path)


@dataclass
class JavaResult:
    code: int
    out: str
    err: str


_COMPILED: dict[tuple[str, str], Path] = {}


def compiled(source: Path, version: str = KAFKA_VERSION) -> Path:
    """The directory of ``source``'s classes (a test's Java program, its public class named as
    the file), compiled with javac against Kafka ``version``'s jars once per test session: run
    as a single-file program, the JVM would compile it again at every launch (a second or more of
    each Java test on a loaded machine)."""
    key = (str(source.resolve()), version)
    if key not in _COMPILED:
        out = Path(tempfile.mkdtemp(prefix=f"kcli-javac-{source.stem}-"))
        atexit.register(shutil.rmtree, out, ignore_errors=True)
        proc = subprocess.run(["javac", "-nowarn", "-cp", f"{kafka_libs(version)}/*", "-d", str(out), str(source)],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise AssertionError(f"javac {source.name}: {proc.stderr[-3000:]}")
        _COMPILED[key] = out
    return _COMPILED[key]


def java(main: str | Path, *args: str, jvm: list[str] | None = None, timeout: float = 120,
         stdin: str | None = None, cwd: str | Path | None = None,
         version: str = KAFKA_VERSION) -> JavaResult:
    """``main`` (a class name, or a ``.java`` source file: ``compiled`` once) on Kafka
    ``version``'s provisioned classpath, with the tools' logging configuration; its exit code and
    output."""
    classpath = f"{kafka_libs(version)}/*"
    if str(main).endswith(".java"):
        classes = compiled(Path(main), version)
        classpath, main = f"{classes}{os.pathsep}{classpath}", Path(main).stem
    cmd = ["java", *(FAST_TOOL_JVM if jvm is None else jvm), _tools_log4j(version), "-cp", classpath, str(main), *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=stdin,
                              stdin=None if stdin is not None else subprocess.DEVNULL, cwd=cwd,
                              preexec_fn=_die_with_parent)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{main} {' '.join(args)} ran over {timeout}s: "
                             f"{(exc.stderr or b'')[-2000:]!r}") from None
    return JavaResult(proc.returncode, proc.stdout, proc.stderr)


def java_tool(tool: str, *args: str, version: str = KAFKA_VERSION, **kwargs) -> JavaResult:
    """One of Apache's command-line tools by its script name (``kafka-topics``...)."""
    return java(tool_class(tool, version), *args, version=version, **kwargs)


TOOL_RUNNER = Path(__file__).parent / "java" / "ToolRunner.java"


class ToolSession:
    """Apache's tools run one after another in one JVM (``java/ToolRunner.java``), each as its
    script would run it: a command's result as ``java_tool`` gives it, without a JVM start per
    command. Commands are sent one at a time, so other work may happen between them."""

    def __init__(self, jvm: list[str] | None = None, version: str = KAFKA_VERSION):
        self.version = version
        self._proc = subprocess.Popen(
            ["java", *(FAST_TOOL_JVM if jvm is None else jvm), _tools_log4j(version),
             "-cp", f"{kafka_libs(version)}/*", str(TOOL_RUNNER)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            encoding="utf-8", preexec_fn=_die_with_parent)

    def run(self, tool: str, *args: str, timeout: float = 120) -> JavaResult:
        import json
        import selectors

        self._proc.stdin.write(json.dumps([tool_class(tool, self.version), *args]) + "\n")
        self._proc.stdin.flush()
        with selectors.DefaultSelector() as sel:
            sel.register(self._proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                self.close()
                raise AssertionError(f"{tool} {' '.join(args)} ran over {timeout}s in ToolRunner")
        line = self._proc.stdout.readline()
        if not line:
            raise AssertionError(f"ToolRunner ended (exit {self._proc.wait(10)}) during {tool}")
        result = json.loads(line)
        return JavaResult(result["code"], result["out"], result["err"])

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(10)

    def __enter__(self) -> "ToolSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _kafka_uuid() -> str:
    """A random cluster id as Kafka's Uuid.randomUuid makes it (the embedded broker's rule): never
    one starting with '-', which kafka-storage's argument parser would take for an option."""
    from kcli.admin.wire.metadata import kafka_uuid
    from kcli.broker.cluster import random_uuid

    return kafka_uuid(random_uuid())


@dataclass
class _Node:
    node_id: int
    port: int                  # PLAINTEXT
    controller_port: int
    sasl_port: int | None
    directory: Path
    process: subprocess.Popen | None = None

    @property
    def log(self) -> Path:
        return self.directory / "server.log"


class ApacheKafka:
    """A KRaft cluster of ``nodes`` combined broker+controller JVMs of Kafka ``version`` on
    127.0.0.1 (static voters, ``controller.quorum.voters``, which every KRaft release takes).

    ``sasl_users`` ({user: password}) adds a SASL_PLAINTEXT listener offering PLAIN and
    SCRAM-SHA-512 for those users (SCRAM credentials are written at format time), and OAUTHBEARER
    with Kafka's default, unsecured JWT validator. Stops every JVM it started, by PID, and
    removes its data directory.
    """

    def __init__(self, nodes: int = 1, sasl_users: dict[str, str] | None = None,
                 configs: dict[str, str] | None = None, heap: str = "512m",
                 jvm: list[str] | None = None, start_timeout: float = 90,
                 version: str = KAFKA_VERSION):
        self.version = version
        self.libs = kafka_libs(version)
        self.sasl_users = dict(sasl_users or {})
        self.heap, self.jvm, self.start_timeout = heap, (G1 if jvm is None else jvm), start_timeout
        self.configs = {**TEST_CONFIGS,
                        "offsets.topic.replication.factor": str(min(3, nodes)),
                        "transaction.state.log.replication.factor": str(min(3, nodes)),
                        "transaction.state.log.min.isr": "1",
                        "share.coordinator.state.topic.replication.factor": str(min(3, nodes)),
                        "share.coordinator.state.topic.min.isr": "1",
                        **(configs or {})}
        self.directory = Path(tempfile.mkdtemp(prefix="kcli-apache-kafka-"))
        self.nodes: dict[int, _Node] = {}
        self._allocate(nodes)
        self.started_at: float | None = None

    def _allocate(self, nodes: int) -> None:
        """Fresh ports, data directories and cluster id for ``nodes`` nodes."""
        per = 3 if self.sasl_users else 2
        ports = free_ports(nodes * per)
        shutil.rmtree(self.directory, ignore_errors=True)
        self.nodes = {i + 1: _Node(i + 1, ports[i * per], ports[i * per + 1],
                                   ports[i * per + 2] if self.sasl_users else None,
                                   self.directory / f"node-{i + 1}")
                      for i in range(nodes)}
        self.cluster_id = _kafka_uuid()

    # -- addresses ------------------------------------------------------------------------
    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"127.0.0.1:{n.port}" for n in self.nodes.values())

    @property
    def sasl_bootstrap_servers(self) -> str:
        return ",".join(f"127.0.0.1:{n.sasl_port}" for n in self.nodes.values())

    def node_address(self, node_id: int) -> str:
        return f"127.0.0.1:{self.nodes[node_id].port}"

    # -- lifecycle ------------------------------------------------------------------------
    def _properties(self, node: _Node) -> str:
        voters = ",".join(f"{n.node_id}@127.0.0.1:{n.controller_port}" for n in self.nodes.values())
        listeners = [f"PLAINTEXT://127.0.0.1:{node.port}"]
        protocols = ["PLAINTEXT:PLAINTEXT", "CONTROLLER:PLAINTEXT"]
        props = {}
        if self.sasl_users:
            listeners.append(f"SASL_PLAINTEXT://127.0.0.1:{node.sasl_port}")
            protocols.append("SASL_PLAINTEXT:SASL_PLAINTEXT")
            users = " ".join(f'user_{u}="{p}"' for u, p in self.sasl_users.items())
            props.update({
                "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512,OAUTHBEARER",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config":
                    f"org.apache.kafka.common.security.plain.PlainLoginModule required {users};",
                "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config":
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                # Kafka's default validator for OAUTHBEARER: unsecured (unsigned) JWTs
                "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config":
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
            })
        props.update({
            "process.roles": "broker,controller",
            "node.id": str(node.node_id),
            "controller.quorum.voters": voters,
            "listeners": ",".join(listeners + [f"CONTROLLER://127.0.0.1:{node.controller_port}"]),
            "advertised.listeners": ",".join(listeners),
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": ",".join(protocols),
            "log.dirs": str(node.directory / "data"),
            **self.configs,
        })
        return "".join(f"{k}={v}\n" for k, v in props.items())

    @property
    def _log4j_name(self) -> str:
        return "log4j2.properties" if log4j2(self.version) else "log4j.properties"

    def _format(self, node: _Node) -> subprocess.Popen:
        node.directory.mkdir(parents=True, exist_ok=True)
        config = _write_config(node.directory, "server.properties", self._properties(node))
        _write_config(node.directory, self._log4j_name,
                      (BROKER_LOG4J if log4j2(self.version) else BROKER_LOG4J1).format(path=node.log))
        scram = [a for u, p in self.sasl_users.items()
                 for a in ("--add-scram", f"SCRAM-SHA-512=[name={u},password={p}]")]
        return subprocess.Popen(
            ["java", *FAST_TOOL_JVM, _tools_log4j(self.version),
             "-cp", f"{self.libs}/*", "kafka.tools.StorageTool", "format", "-t", self.cluster_id,
             "-c", str(config), *scram],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
            preexec_fn=_die_with_parent)

    def _launch(self, node: _Node) -> None:
        console = open(node.directory / "console.log", "ab")
        node.process = subprocess.Popen(
            ["java", f"-Xmx{self.heap}", f"-Xms{self.heap}", *self.jvm,
             log4j_flag(self.version, node.directory / self._log4j_name),
             f"-Dkafka.logs.dir={node.directory}", "-cp", f"{self.libs}/*", "kafka.Kafka",
             str(node.directory / "server.properties")],
            stdout=console, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent)
        console.close()

    def start(self) -> "ApacheKafka":
        """Formats and starts every node; a port another process took between ``free_ports``
        and the JVM's bind is retried with new ports (twice at most)."""
        t0 = time.monotonic()
        for attempt in range(3):
            try:
                self._start()
                break
            except RealKafkaUnavailable as exc:
                if "Address already in use" not in str(exc) or attempt == 2:
                    self.stop()
                    raise
                self._allocate(len(self.nodes))
            except BaseException:
                self.stop()
                raise
        self.started_at = time.monotonic() - t0
        return self

    def _start(self) -> None:
        formats = [(n, self._format(n)) for n in self.nodes.values()]
        for node, proc in formats:
            out, _ = proc.communicate(timeout=60)
            if proc.returncode != 0:
                raise RealKafkaUnavailable(f"kafka-storage format failed for node {node.node_id}: "
                                           f"{out.strip().splitlines()[-1] if out.strip() else proc.returncode}")
        try:
            for node in self.nodes.values():
                self._launch(node)
            self.wait_ready(set(self.nodes))
        except RealKafkaUnavailable as exc:
            bind = any("Address already in use" in self.log_tail(n, 200) for n in self.nodes)
            self._stop_processes()
            raise RealKafkaUnavailable(f"{exc} (Address already in use)" if bind else str(exc)) from None
        except BaseException:
            self._stop_processes()
            raise

    def wait_ready(self, node_ids: set[int], timeout: float | None = None) -> None:
        """Until every node in ``node_ids`` serves Metadata listing all of them as brokers."""
        import logging

        from confluent_kafka.admin import AdminClient

        quiet = logging.getLogger("kcli.tests.apache_kafka")
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False
        timeout = timeout or self.start_timeout
        deadline = time.monotonic() + timeout
        admins: dict[int, AdminClient] = {}
        reason = "no answer"
        for _ in range(int(timeout / 0.1) + 1):                          # bounded
            for node_id in node_ids:
                proc = self.nodes[node_id].process
                if proc is None or proc.poll() is not None:
                    raise RealKafkaUnavailable(
                        f"Apache Kafka node {node_id} exited during start-up: {self.log_tail(node_id, 1)}")
            try:
                for node_id in node_ids:
                    if node_id not in admins:       # a client only once the port accepts
                        socket.create_connection(("127.0.0.1", self.nodes[node_id].port), 1).close()
                        admins[node_id] = AdminClient({"bootstrap.servers": self.node_address(node_id)},
                                                      logger=quiet)
                if all(node_ids <= set(admins[n].list_topics(timeout=1).brokers) for n in node_ids):
                    return
                reason = "not every broker registered yet"
            except Exception as exc:  # noqa: BLE001 - not up yet; the deadline decides
                reason = str(exc)
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        raise RealKafkaUnavailable(f"Apache Kafka did not start within {timeout}s ({reason}): "
                                   f"{self.log_tail(min(node_ids), 1)}")

    def stop_node(self, node_id: int, timeout: float = 30) -> None:
        """SIGTERM to the node's JVM (a controlled shutdown), SIGKILL after ``timeout``."""
        node = self.nodes[node_id]
        proc, node.process = node.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)

    def start_node(self, node_id: int) -> None:
        self._launch(self.nodes[node_id])
        self.wait_ready({n for n, node in self.nodes.items() if node.process is not None})

    def stop(self) -> None:
        self._stop_processes()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _stop_processes(self) -> None:
        live = [n for n in self.nodes.values() if n.process is not None and n.process.poll() is None]
        for node in live:                       # all at once: no node waits for a lost quorum
            node.process.send_signal(signal.SIGTERM)
        for node in live:
            try:
                node.process.wait(30)
            except subprocess.TimeoutExpired:
                node.process.kill()
                node.process.wait(10)
            node.process = None

    def __enter__(self) -> "ApacheKafka":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- diagnostics ----------------------------------------------------------------------
    def log_tail(self, node_id: int | None = None, lines: int = 60) -> str:
        """The last ``lines`` of the broker log(s), for a failing test's report."""
        out = []
        for node in self.nodes.values():
            if node_id is not None and node.node_id != node_id:
                continue
            for path in (node.log, node.directory / "console.log"):
                if path.exists():
                    text = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
                    if text:
                        out.append(f"--- node {node.node_id} {path.name} ---")
                        out.extend(text)
        return "\n".join(out) if lines > 1 else (out[-1] if out else "no log")


def main(argv: list[str] | None = None) -> None:
    """``python -m tests.support.apache_kafka [--nodes N] [--sasl]``: a cluster for exploring by
    hand; prints its addresses and runs until SIGINT/SIGTERM."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.support.apache_kafka")
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--sasl", action="store_true", help="alice/alice-secret over PLAIN and SCRAM-SHA-512")
    args = parser.parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    with ApacheKafka(nodes=args.nodes, sasl_users={"alice": "alice-secret"} if args.sasl else None) as k:
        print(f"bootstrap: {k.bootstrap_servers}", flush=True)
        if args.sasl:
            print(f"sasl bootstrap: {k.sasl_bootstrap_servers}", flush=True)
        print(f"logs: {k.directory}", flush=True)
        stop.wait()


if __name__ == "__main__":
    main()
