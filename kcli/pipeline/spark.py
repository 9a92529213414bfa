"""Starting Spark for kcli: the Java check, the session (with the kcli-kafka source registered) and
job progress from Spark's status tracker."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Callable, TypeVar

from kcli.errors import KcliError, OperationError
from kcli.xdg import state_dir

T = TypeVar("T")


class JavaNotFound(KcliError):
    """Spark needs a Java runtime and none was found."""


def check_java() -> str:
    """The java executable Spark will use, or JavaNotFound with a one-line reason."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = os.path.join(home, "bin", "java")
        if os.access(java, os.X_OK):
            return java
        raise JavaNotFound(f"Java not found: JAVA_HOME={home} has no bin/java; "
                           "kcli audit runs on Spark, which needs Java 17 or newer")
    java = shutil.which("java")
    if java is None:
        raise JavaNotFound("Java not found: kcli audit runs on Spark, which needs Java 17 or newer "
                           "(install it, or set JAVA_HOME)")
    return java


def check_pyspark() -> None:
    """pyspark importable, or one line saying how to install it (kcli's [spark] extra)."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise OperationError(
            "The audit runs on Spark, and pyspark is not installed for this Python "
            f"({sys.executable}): install kcli with its spark extra, pip install 'kcli-kafka[spark]' "
            "(from a clone: pip install -e '.[spark]')")


def check_master(master: str, timeout_s: float) -> None:
    """A ``spark://host:port[,host:port]`` master that refuses connections or has no address is
    reported before a JVM starts (Spark itself retries for a minute), in one line; a local master
    or ``yarn``/``k8s://`` is left to Spark."""
    if not master.startswith("spark://"):
        return
    reasons = []
    for address in master[len("spark://"):].split(","):
        host, _, port = address.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=max(0.1, min(timeout_s, 5.0))):
                return                                    # one master answers: Spark takes over
        except (OSError, ValueError) as exc:
            reasons.append(f"{address}: {getattr(exc, 'strerror', None) or exc}")
    raise OperationError(f"Spark master unreachable: {'; '.join(reasons)}")


def log_path(now_s: float | None = None) -> str:
    """A new file for Spark's own console output (the JVM's and its Python workers'):
    ``$XDG_STATE_HOME/kcli/spark/audit-<utc time>-<pid>.log`` (``~/.local/state``)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now_s is None else now_s))
    return state_dir("spark", f"audit-{stamp}-{os.getpid()}.log")


@contextlib.contextmanager
def console_to(path: str):
    """While the block runs, this process's stdout and stderr (file descriptors 1 and 2) are
    ``path``: a JVM started in it (and the Python workers it starts) write their console output
    there for good; kcli's own streams are restored after."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.dup2(log, 1)
        os.dup2(log, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, log):
            os.close(fd)


def session(master: str = "local[*]", conf: dict[str, str] | None = None,
            app_name: str = "kcli audit", log: str | None = None, deadline: float | None = None):
    """A SparkSession (created or reused) with the kcli-kafka data source registered; with
    ``log``, the JVM's console output goes to that file (``console_to``). A cluster master that
    has not taken the application by ``deadline`` (time.monotonic()), or that Spark gives up on,
    is one line, ``Spark master unreachable: ...`` (Spark itself retries for a minute).

    Local masters bind the driver (and the JVM's SPARK_LOCAL_IP) to 127.0.0.1 and run without
    the web UI."""
    check_pyspark()
    check_java()
    from pyspark.sql import SparkSession

    from kcli.pipeline.source import KafkaDataSource

    # Spark runs its Python workers with PYSPARK_PYTHON (else the first `python3` on PATH), on the
    # driver too, where the data source plans the read: make that this interpreter, which has kcli,
    # confluent-kafka and pyarrow. Executors on a cluster then need them at the same path, unless
    # the user names another interpreter in PYSPARK_PYTHON.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName(app_name)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # the JVM's own address: loopback too
        builder = (builder.config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1")
                   .config("spark.ui.enabled", "false"))
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    with console_to(log) if log else contextlib.nullcontext():
        if master.startswith("local") or deadline is None:
            spark = builder.getOrCreate()
        else:
            spark = _within(builder.getOrCreate, deadline, master)
        spark.sparkContext.setLogLevel("ERROR")
    spark.dataSource.register(KafkaDataSource)
    return spark


def _within(start: Callable[[], T], deadline: float, master: str) -> T:
    """``start()`` (a SparkSession for a cluster master) in a thread, waited for until
    ``deadline``; its failure or its lateness is one line. A late JVM ends with kcli's process
    (it exits when its parent's pipe closes)."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = start()
        except BaseException as e:  # noqa: BLE001 - re-raised as one line in the caller's thread
            outcome["error"] = e

    worker = threading.Thread(target=target, name="kcli-spark-session", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        raise OperationError(f"Spark master unreachable: {master} did not take the application "
                             "within --timeout")
    if "error" in outcome:
        error = outcome["error"]
        reason = next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)
        raise OperationError(f"Spark master unreachable: {master}: {reason}")
    return outcome["value"]


@dataclass(frozen=True)
class Progress:
    """Tasks of the Spark jobs of one kcli action so far."""

    jobs: int
    stages: int
    tasks_total: int
    tasks_done: int
    tasks_active: int
    tasks_failed: int


ProgressHook = Callable[[Progress], None]


def run_with_progress(spark, action: Callable[[], T], hook: ProgressHook | None,
                      description: str = "kcli audit", interval_s: float = 0.25) -> T:
    """Run ``action`` (which triggers Spark jobs) in a thread, feeding ``hook`` from Spark's status
    tracker every ``interval_s`` until it returns; then return its result or raise its error."""
    if hook is None:
        return action()
    sc = spark.sparkContext
    group = f"kcli-{uuid.uuid4().hex}"
    outcome: dict[str, object] = {}

    def target() -> None:
        sc.setJobGroup(group, description)
        try:
            outcome["value"] = action()
        except BaseException as e:  # re-raised in the caller's thread
            outcome["error"] = e

    worker = threading.Thread(target=target, name="kcli-spark-action", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(interval_s)
        hook(_progress(sc.statusTracker(), group))
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _progress(tracker, group: str) -> Progress:
    stages = []
    job_ids = tracker.getJobIdsForGroup(group)
    for job_id in job_ids:
        job = tracker.getJobInfo(job_id)
        for stage_id in job.stageIds if job else ():
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                stages.append(info)
    return Progress(
        jobs=len(job_ids),
        stages=len(stages),
        tasks_total=sum(s.numTasks for s in stages),
        tasks_done=sum(s.numCompletedTasks for s in stages),
        tasks_active=sum(s.numActiveTasks for s in stages),
        tasks_failed=sum(s.numFailedTasks for s in stages),
    )
