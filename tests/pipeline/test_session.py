"""kcli's Spark session (kcli.pipeline.spark.session) as its Python workers see it."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark


def test_python_workers_import_the_installed_compiled_pyspark(spark):
    """Not pyspark's zip, which Spark puts first on its workers' path and which holds no
    bytecode: each Python daemon of a first audit compiled pyspark again from it (0.75 s of CPU
    against 0.19 s)."""
    import pyspark

    where = spark.sparkContext.parallelize([0], 1).map(
        lambda _: (__import__("pyspark").__file__, __import__("py4j").__file__)).collect()[0]
    assert where == (pyspark.__file__, __import__("py4j").__file__)


_JVM_ARCHIVE_SCRIPT = """
import os, sys
from kcli.pipeline.spark import session
spark = session("local[1]", quick_jit=sys.argv[1] == "quick")
assert spark.sparkContext.parallelize(range(3), 1).sum() == 3
jvm = spark.sparkContext._gateway.proc.pid
args = list(spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
with open(f"/proc/{jvm}/maps") as maps:
    mapped = sorted({line.split()[-1] for line in maps if "/spark-cds/" in line})
print(repr((args, mapped)))
"""


def _archive_run(tmp_path, mode: str):
    import ast
    import os
    import subprocess
    import sys

    env = {**os.environ, "KCLI_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    env.pop("SPARK_HOME", None)
    r = subprocess.run([sys.executable, "-c", _JVM_ARCHIVE_SCRIPT, mode], capture_output=True,
                       text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stderr[-3000:]
    return ast.literal_eval(r.stdout.strip().splitlines()[-1])


def test_the_driver_jvm_starts_from_the_archive_of_sparks_classes_that_the_first_one_wrote(tmp_path):
    """The first session on a machine writes the classes it loaded into kcli's cache when its
    process ends; the next one's JVM maps them (half the start-up of a cold audit). The quick JIT
    (the audit's choice when Python workers read) is the driver's option only when asked for."""
    archives = tmp_path / "cache" / "spark-cds"
    args, mapped = _archive_run(tmp_path, "full")
    assert [a for a in args if a.startswith("-XX:ArchiveClassesAtExit=")], args
    assert "-XX:TieredStopAtLevel=1" not in args and mapped == []
    (archive,) = archives.glob("*.jsa")                       # kept when the process ended
    assert list(archives.glob("*.tmp")) == []
    args, mapped = _archive_run(tmp_path, "quick")
    assert f"-XX:SharedArchiveFile={archive}" in args and "-XX:TieredStopAtLevel=1" in args, args
    assert mapped == [str(archive)]                           # the JVM uses it, not just given it


def test_the_audit_asks_for_the_quick_jit_only_where_the_connector_cannot_read(monkeypatch, tmp_path):
    """Spark's Kafka connector reads in the driver JVM on a local master, where the optimizing
    JIT pays off (10M records: 37 s against 57 s with the quick one only)."""
    from kcli.pipeline.audit import _may_use_connector

    for name in ("PYSPARK_SUBMIT_ARGS", "SPARK_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert not _may_use_connector("python", {"spark.jars": "connector.jar"})
    assert _may_use_connector("jvm", {})
    assert not _may_use_connector("auto", {})
    assert _may_use_connector("auto", {"spark.jars.packages": "org.apache.spark:spark-sql-kafka"})
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--jars /x/connector.jar pyspark-shell")
    assert _may_use_connector("auto", {})
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS")
    (tmp_path / "jars").mkdir()
    monkeypatch.setenv("SPARK_HOME", str(tmp_path))
    assert not _may_use_connector("auto", {})
    (tmp_path / "jars" / "spark-sql-kafka-0-10_2.13-4.2.0.jar").touch()
    assert _may_use_connector("auto", {})
