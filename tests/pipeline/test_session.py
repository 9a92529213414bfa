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
