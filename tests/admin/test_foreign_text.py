"""The places kcli must read a foreign library's error text, each one named function:
a Spark worker's traceback (kcli.pipeline.audit), Python's re.error message (kcli.specs) and
librdkafka's connect failures (kcli.admin.client). Everything else decides by types and fields."""

from __future__ import annotations

from kcli.pipeline.audit import worker_error_from_spark_text
from kcli.specs import re2_description_of_python_text, re2_error

SPARK = """An error occurred while calling o41.collectToPython.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 1.0 failed
org.apache.spark.api.python.PythonException: Traceback (most recent call last):
  File "/usr/lib/python3/worker.py", line 1, in main
    import kcli
ModuleNotFoundError: No module named 'kcli'

\tat org.apache.spark.api.python.BasePythonRunner.handlePythonException(PythonRunner.scala:1)
"""


def test_a_worker_traceback_gives_its_exception_line_and_class():
    assert worker_error_from_spark_text(SPARK) == ("ModuleNotFoundError: No module named 'kcli'",
                                                   "ModuleNotFoundError")


def test_a_message_without_traceback_is_its_first_line():
    assert worker_error_from_spark_text("Job cancelled\nmore") == ("Job cancelled", None)


def test_python_regex_errors_in_re2_words():
    assert re2_description_of_python_text("missing ), unterminated subpattern") == "missing closing )"
    assert re2_description_of_python_text("something new") == "something new"
    assert re2_error("a(") == "missing closing )"


def test_librdkafka_connect_failures_name_broker_and_reason():
    from kcli.admin.client import connect_failure_from_librdkafka_text as read

    assert read("127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: Connection refused "
                "(after 0ms in state CONNECT)") == "127.0.0.1:1: Connection refused"
    assert read("nohost:9092/bootstrap: Failed to resolve 'nohost:9092': Name or service not known "
                "(after 2ms in state CONNECT)") == "nohost:9092: Name or service not known"
    assert read("127.0.0.1:9092/1: Disconnected (after 5ms in state UP)") is None
