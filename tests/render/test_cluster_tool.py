"""kafka-cluster api-versions' text (pure): NodeApiVersions.toString(true)'s cases beyond a usable
range, each as Kafka 4.4's client words it (its ranges: kcli.render.cluster_tool.JAVA_API_KEYS,
checked against the jars by tests/apache/test_kcli_cluster.py)."""

from __future__ import annotations

from kcli.render.cluster_tool import JAVA_API_KEYS, api_versions


def test_unusable_unknown_and_unsupported_apis():
    text = api_versions({0: (0, 2), 4: (0, 7), 18: (0, 9), 46: (0, 0), 999: (1, 3)})
    lines = text.split("\n")
    assert (lines[0], lines[-1]) == ("(", ")")
    body = [line.removeprefix("\t").removesuffix(",") for line in lines[1:-1]]
    assert body[:4] == ["Produce(0): 0 to 2 [unusable: node too old]",       # below the client's oldest, 3
                        "Fetch(1): UNSUPPORTED", "ListOffsets(2): UNSUPPORTED", "Metadata(3): UNSUPPORTED"]
    assert "LeaderAndIsr(4): 0 to 7 [unusable: node too new]" in body                # the client has none left
    assert "ApiVersions(18): 0 to 9 [usable: 5]" in body
    assert "ListPartitionReassignments(46): 0 [usable: 0]" in body
    assert body[-1] == "UNKNOWN(999): 1 to 3" and "StopReplica(5): UNSUPPORTED" not in body   # not a client API
    assert len(body) == len({k for k, v in JAVA_API_KEYS.items() if v[3]} | {0, 4, 18, 46, 999})
