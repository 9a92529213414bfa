"""Pure parts of the pipeline: option parsing, range splitting, the Java check, result JSON."""

from __future__ import annotations

import re

import pytest

from kcli.pipeline.result import AGREE, AuditResult, AuditTotal, PartitionAudit
from kcli.pipeline.source import (
    Bound,
    OffsetRange,
    SourceOptionError,
    client_config,
    parse_bound,
    scan_config,
    split_range,
)
from kcli.pipeline.spark import JavaNotFound, check_java


def test_split_range_covers_exactly_once():
    parts = split_range(OffsetRange("t", 3, 5, 105), 7)
    assert len(parts) == 15
    covered = [o for p in parts for o in range(p.start, p.end)]
    assert covered == list(range(5, 105))
    assert all(p.count <= 7 and (p.topic, p.partition) == ("t", 3) for p in parts)
    assert split_range(OffsetRange("t", 0, 9, 9), 7) == []


def test_parse_bound():
    assert parse_bound(None, None, "earliest", "starting") == Bound("earliest")
    assert parse_bound("LATEST", None, "earliest", "starting") == Bound("latest")
    assert parse_bound(None, "1700000000000", "latest", "ending") == Bound(
        "timestamp", timestamp=1_700_000_000_000)
    b = parse_bound('{"a": {"0": 5, "2": -2}}', None, "earliest", "starting")
    assert b.kind == "offsets" and b.offsets == {("a", 0): 5, ("a", 2): -2}
    with pytest.raises(SourceOptionError, match="not both"):
        parse_bound("earliest", "5", "earliest", "starting")
    with pytest.raises(SourceOptionError, match="JSON"):
        parse_bound("[1, 2]", None, "earliest", "starting")
    with pytest.raises(SourceOptionError, match="epoch"):
        parse_bound(None, "yesterday", "earliest", "starting")


def test_client_config_and_forced_scan_settings():
    conf = client_config({"kafka.bootstrap.servers": "h:1", "kafka.enable.auto.commit": "true",
                          "kafka.fetch.wait.max.ms": "50", "topics": "t"})
    assert conf == {"bootstrap.servers": "h:1", "enable.auto.commit": "true",
                    "fetch.wait.max.ms": "50"}
    scan = scan_config(conf)
    assert scan["enable.auto.commit"] is False          # never commits, whatever is passed
    assert scan["fetch.wait.max.ms"] == "50"            # the user's tuning wins
    assert 0 < scan["fetch.queue.backoff.ms"] < 1000    # neither a busy re-check nor a 1 s pause
    assert scan["auto.offset.reset"] == "error"
    assert scan_config(conf, fail_on_data_loss=False)["auto.offset.reset"] == "earliest"
    with pytest.raises(SourceOptionError, match="bootstrap"):
        client_config({"topics": "t"})


def test_java_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(JavaNotFound, match="has no bin/java"):
        check_java()
    monkeypatch.delenv("JAVA_HOME")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JavaNotFound, match="Java 17"):
        check_java()


def test_result_json_fields():
    p = PartitionAudit("t", 0, 0, 2, 0, 2, records=2, min_timestamp=1_736_937_000_000,
                       max_timestamp=1_736_937_000_001, max_timestamp_offset=1,
                       broker_max_timestamp=-1, max_timestamp_check=AGREE)
    result = AuditResult(["t"], 1_736_937_000_000, None, [p], AuditTotal.of([p], False))
    doc = result.to_json_dict()
    assert (doc["referenceMs"], doc["reference"]) == (1_736_937_000_000, "2025-01-15T10:30:00.000Z")
    assert (doc["targetMs"], doc["target"]) == (None, None)
    part = doc["partitions"][0]
    assert (part["maxTimestampMs"], part["maxTimestamp"]) == (1_736_937_000_001, "2025-01-15T10:30:00.001Z")
    assert (part["brokerMaxTimestampMs"], part["brokerMaxTimestamp"]) == (None, None)
    assert part["targetCheck"] is None and part["replayed"] is None
    assert doc["total"]["records"] == 2 and doc["total"]["replayed"] is None
    assert doc["total"]["maxTimestampOffset"] == 1
    keys = [*doc, *part, *doc["total"]]
    assert all(re.fullmatch(r"[a-z][a-zA-Z]*", k) for k in keys), keys   # one key style: camelCase
