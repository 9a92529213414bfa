"""Starting Spark for kcli: the Java check, the session (with the kcli-kafka source registered) and
job progress from Spark's status tracker."""

from __future__ import annotations

import sys
import os
import shutil
import threading
import uuid
from dataclasses import dataclass
from typing import Callable, TypeVar

from kcli.errors import KcliError

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


def session(master: str = "local[*]", conf: dict[str, str] | None = None,
            app_name: str = "kcli audit"):
    """A SparkSession (created or reused) with the kcli-kafka data source registered.

    Local masters bind the driver (and the JVM's SPARK_LOCAL_IP) to 127.0.0.1 and run without
    the web UI."""
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
    spark = builder.getOrCreate()
    spark.dataSource.register(KafkaDataSource)
    return spark


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
