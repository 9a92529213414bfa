"""The audit on a real Spark standalone cluster: a master and two workers started from the pyspark
wheel on 127.0.0.1 (ephemeral ports, scratch work directory), the embedded broker, crafted data.
The data source runs unchanged on the workers' executors, which has kcli installed (this venv).
Everything started here is stopped here, with bounded waits, and checked to be gone."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from kcli.pipeline import AuditOptions, run_audit
from tests.support.pipeline import NOW, produce

pytestmark = pytest.mark.spark

H = 3_600_000
TOPIC = "cluster-data"
WAIT_S = 90  # for a daemon to start, and for everything to be gone after the stop


class Daemon:
    """One Spark daemon (``spark-class org.apache.spark.deploy.<kind>``) in its own process group,
    logging to a file."""

    def __init__(self, kind: str, args: list[str], env: dict[str, str], log: Path) -> None:
        import pyspark

        spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
        self.log = log
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [str(spark_class), f"org.apache.spark.deploy.{kind}", *args], env=env,
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)

    def wait_for(self, pattern: str) -> re.Match:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            found = re.search(pattern, self.log.read_text(errors="replace"))
            if found:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        raise RuntimeError(f"no {pattern!r} from {self.log.name}:\n"
                           + self.log.read_text(errors="replace")[-3000:])

    def stop(self) -> None:
        """SIGTERM to the process group (the worker's executors are in it), SIGKILL after 30 s."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=30)
                return
            except subprocess.TimeoutExpired:
                continue


def processes_under(directory: Path) -> list[int]:
    """Processes working in ``directory`` or naming it on their command line (executors run in
    the worker's scratch directory)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(directory)) or str(directory) in cmdline:
            found.append(int(pid))
    return found


def accepts(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def standalone_cluster(scratch: Path):
    """Yield the master URL of a master with two 1-core workers (work directories ``work/w1`` and
    ``work/w2``); stop all three on exit."""
    work = scratch / "work"
    work.mkdir()
    props = scratch / "spark.properties"
    props.write_text("spark.master.rest.enabled false\n")  # else the REST server takes port 6066
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_WORKER_DIR": str(work)}
    started: list[Daemon] = []
    try:
        master = Daemon("master.Master", ["--host", "127.0.0.1", "--port", "0", "--webui-port",
                                          "0", "--properties-file", str(props)],
                        env, scratch / "master.log")
        started.append(master)
        url = master.wait_for(r"Starting Spark master at (spark://127\.0\.0\.1:\d+)").group(1)
        workers = []
        for name in ("w1", "w2"):
            workers.append(Daemon("worker.Worker", [
                "--host", "127.0.0.1", "--cores", "1", "--memory", "1g", "--webui-port", "0",
                "--work-dir", str(work / name), "--properties-file", str(props), url],
                env, scratch / f"{name}.log"))
            started.append(workers[-1])
        for worker in workers:
            worker.wait_for(r"Successfully registered with master")
        yield url
    finally:
        for daemon in reversed(started):
            daemon.stop()


@pytest.fixture(scope="module")
def data(broker):
    # partition 0: offsets 0..4; partition 1: offsets 0..2
    broker.create_topic(TOPIC, partitions=2)
    produce(broker.bootstrap_servers, TOPIC,
            [(0, NOW + d, None, b"v") for d in (0, 20, 10, 2 * H, -2 * H)]
            + [(1, NOW + d, None, b"v") for d in (5, 5, 6)])
    return broker.bootstrap_servers


def test_audit_on_a_standalone_cluster(data, tmp_path, monkeypatch):
    from kcli.pipeline.spark import connector_jars, session

    # kcli must name the Python workers' interpreter itself, on the driver and the executors
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    conf = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
            "spark.ui.enabled": "false"}
    jars = connector_jars()
    assert jars, "no Spark Kafka connector: run scripts/provision-spark-kafka.sh"
    with standalone_cluster(tmp_path) as url:
        port = int(url.rsplit(":", 1)[1])
        try:
            # both sources in one application: Spark's connector (its jars shipped to the
            # executors with spark.jars), then kcli's source
            results = {source: run_audit(AuditOptions(
                bootstrap=data, topics=[TOPIC], before_max_ms=H, after_max_ms=H,
                reference_ms=NOW, target_ms=NOW + 15, master=url, spark_conf=conf, jars=jars,
                source=source)) for source in ("jvm", "python")}
            assert session(url).sparkContext.master == url
        finally:
            session(url).stop()
    result = results["python"]
    assert (results["jvm"].source, result.source) == ("jvm", "python")
    assert {**results["jvm"].to_json_dict(), "source": "python"} == result.to_json_dict()
    # each worker ran an executor of the application (spread out: the application takes every
    # core), and tasks ran on the executors (their logs are in the workers' work directories)
    executor_logs = {w: list((tmp_path / "work" / w).glob("app-*/*/stderr")) for w in ("w1", "w2")}
    assert all(executor_logs.values()), executor_logs
    assert any("Running task" in log.read_text(errors="replace")
               for logs in executor_logs.values() for log in logs)

    p0, p1 = result.partitions
    # p0 timestamps NOW + [0, 20, 10, 2h, -2h]: offsets 2 and 4 below the running max (back 10
    # and 4h), max at offset 3 is too new, offset 4 too old; target NOW+15 first met at offset 1,
    # replayed from there: offsets 2 and 4
    assert (p0.records, p0.min_timestamp, p0.max_timestamp, p0.max_timestamp_offset) == (
        5, NOW - 2 * H, NOW + 2 * H, 3)
    assert (p0.too_old, p0.too_new, p0.out_of_order, p0.max_out_of_order_ms) == (1, 1, 2, 4 * H)
    assert (p0.target_offset, p0.replayed, p0.skipped) == (1, 2, 0)
    # culprits, removed the rest is in order: offset 1 (above offset 2), offset 4 (below offset 3)
    assert [(c.offset, c.ahead_ms, c.too_new) for c in p0.first_culprits] == [
        (1, 10, False), (4, -4 * H, False)]
    # p1 timestamps NOW + [5, 5, 6]: in order; the max's first offset is 2; all before the target
    assert (p1.records, p1.max_timestamp_offset, p1.out_of_order, p1.replayed) == (3, 2, 0, 0)
    assert (p1.target_offset, p1.skipped) == (None, 0)
    assert (result.total.records, result.total.disagreements) == (8, 0)

    assert not accepts(port)
    deadline = time.monotonic() + WAIT_S
    while processes_under(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_under(tmp_path) == []
