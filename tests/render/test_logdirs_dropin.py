"""kafka-log-dirs' JSON line (pure): a log dir that failed names the exception class Apache's
client makes of its error code, and keeps its place with no replicas; a broker asked that has no
log dir is listed with none. The orders against the Java tool: tests/parity (dropin-log-dirs-*)."""

from __future__ import annotations

import json

from kcli.model import LogDirInfo, ReplicaLogDir
from kcli.render.logdirs import render_dropin


def test_a_failed_log_dir_names_its_exception_class():
    dirs = [LogDirInfo(1, "/data/a", 0, [ReplicaLogDir(1, "/data/a", "t", 0, 10, 0)]),
            LogDirInfo(1, "/data/b", 56, []), LogDirInfo(1, "/data/c", 9999, [])]
    line = render_dropin([1, 2], dirs, [])
    doc = json.loads(line)
    errors = {d["logDir"]: d["error"] for d in doc["brokers"][0]["logDirs"]}
    assert errors == {"/data/a": None, "/data/b": "org.apache.kafka.common.errors.KafkaStorageException",
                      "/data/c": "org.apache.kafka.common.errors.UnknownServerException"}
    assert doc["brokers"][1] == {"broker": 2, "logDirs": []} and line.endswith("}\n") and line.count("\n") == 1


def test_the_topic_list_keeps_only_its_topics_replicas():
    dirs = [LogDirInfo(1, "/d", 0, [ReplicaLogDir(1, "/d", t, 0, 7, 3, True) for t in ("a", "b")])]
    doc = json.loads(render_dropin([1], dirs, ["b"]))
    assert doc["brokers"][0]["logDirs"][0]["partitions"] == [
        {"partition": "b-0", "size": 7, "offsetLag": 3, "isFuture": True}]
