import io
import json

from kcli.model import PartitionInfo, TopicInfo
from kcli.render.output import Output
from kcli.render.topics import render_describe


def _render(fmt, pairs, summaries=True):
    buf = io.StringIO()
    render_describe(Output(fmt, stdout=buf), pairs, summaries)
    return buf.getvalue()


def _topic(ct):
    parts = [PartitionInfo(0, 1, [1, 2], [1, 2], [], [], ct[0]),
             PartitionInfo(1, None, [2], [], None, None, ct[1])]
    return TopicInfo("foo", "abc123", parts, configs={"cleanup.policy": "compact"})


def test_plain_layout_is_kafka_topics_with_creation_time_appended():
    t = _topic([1736937000000, -1])
    assert _render("plain", [(t, t.partitions)]).splitlines() == [
        "Topic: foo\tTopicId: abc123\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: cleanup.policy=compact",
        "\tTopic: foo\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\tElr: \tLastKnownElr: \tCreationTimeMs: "
        "2025-01-15T10:30:00.000Z",
        "\tTopic: foo\tPartition: 1\tLeader: none\tReplicas: 2\tIsr: \tElr: N/A\tLastKnownElr: N/A\tCreationTimeMs: -",
    ]


def test_creation_time_omitted_when_broker_cannot_report_it():
    t = _topic([None, None])
    text = _render("plain", [(t, t.partitions)])
    assert "CreationTimeMs" not in text
    doc = json.loads(_render("json", [(t, t.partitions)]))
    assert all("creationTimeMs" not in p for p in doc["topics"][0]["partitions"])
    assert "CREATION-TIME" not in _render("table", [(t, t.partitions)])


def test_json_document_shape():
    t = _topic([1736937000000, -1])
    doc = json.loads(_render("json", [(t, t.partitions)]))
    assert doc["schema"] == "kcli.topics/v1"
    p0, p1 = doc["topics"][0]["partitions"]
    assert p0["creationTimeMs"] == 1736937000000 and p0["creationTime"] == "2025-01-15T10:30:00.000Z"
    assert p1["creationTimeMs"] is None and p1["creationTime"] is None and p1["leader"] is None
    assert doc["topics"][0]["configs"] == {"cleanup.policy": "compact"}


def test_filtered_view_prints_only_partition_lines():
    t = _topic([1, 2])
    assert _render("plain", [(t, t.partitions[1:])], summaries=False).startswith("\tTopic: foo\tPartition: 1")
