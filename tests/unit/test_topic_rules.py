import pytest

from kcli.admin.offsets import parse_time, parse_topic_spec
from kcli.admin.topics import (parse_config_pairs, parse_replica_assignment, report_filter,
                               select_topics, topic_filter)
from kcli.cli.globals import hoist
from kcli.errors import OperationError, UsageError
from kcli.model import PartitionInfo


def test_topic_filter_matches_whole_names_with_kafka_cleanup():
    rx = topic_filter([" 'kafka.*' "])
    assert rx.fullmatch("kafka.testTopic1") and not rx.fullmatch("oooof.testTopic1")
    rx = topic_filter(["a,b"])
    assert rx.fullmatch("a") and rx.fullmatch("b") and not rx.fullmatch("ab")


def test_invalid_regex_is_a_usage_error():
    with pytest.raises(UsageError, match=r"\[foo is an invalid regex\."):
        topic_filter(["[foo"])


class _Names:
    def __init__(self, names):
        self.names = names

    def topic_names(self):
        return self.names


def test_select_topics():
    names = _Names(["__consumer_offsets", "b", "a"])
    assert select_topics(names, [], False, False) == ["__consumer_offsets", "a", "b"]
    assert select_topics(names, [], True, False) == ["a", "b"]
    assert select_topics(names, ["x"], False, True) == []
    with pytest.raises(OperationError, match="Topic 'x' does not exist as expected"):
        select_topics(names, ["x"], False, False)


def test_replica_assignment_rules():
    assert parse_replica_assignment("5:4,3:2,1:0") == [[5, 4], [3, 2], [1, 0]]
    with pytest.raises(UsageError, match="may not contain duplicate entries: 5"):
        parse_replica_assignment("5:5")
    with pytest.raises(UsageError, match=r"Partition 1 has different replication factor: \[2, 1\]"):
        parse_replica_assignment("5:4:3,2:1")


def test_config_pairs():
    assert parse_config_pairs(["a = 1", "b=x=y"]) == {"a": "1", "b": "x=y"}
    with pytest.raises(UsageError):
        parse_config_pairs(["novalue"])


def test_report_filters():
    healthy = PartitionInfo(0, 1, [1, 2, 3], [1, 2, 3])
    under = PartitionInfo(1, 1, [1, 2, 3], [1])
    offline = PartitionInfo(2, None, [3], [])
    parts = [healthy, under, offline]
    assert report_filter(False, False, False, False, set()) is None
    keep = report_filter(True, False, False, False, {1, 2})
    assert [p.partition for p in parts if keep(p, 2)] == [1, 2]
    keep = report_filter(False, True, False, False, {1, 2})
    assert [p.partition for p in parts if keep(p, 2)] == [1, 2]
    keep = report_filter(False, False, True, False, {1, 2})
    assert [p.partition for p in parts if keep(p, 3)] == [0]
    keep = report_filter(False, False, False, True, {1, 2})
    assert [p.partition for p in parts if keep(p, 1)] == [2]


def test_topic_specs_and_times():
    assert parse_topic_spec("orders") == ("orders", None)
    assert parse_topic_spec("orders:2,0") == ("orders", [0, 2])
    for bad in ["t:", "a:b:c", "t:x", "t:-1"]:
        with pytest.raises(UsageError):
            parse_topic_spec(bad)
    assert parse_time("max-timestamp") == -3 and parse_time("-2") == -2 and parse_time("latest") == -1
    assert parse_time("1000") == 1000
    with pytest.raises(UsageError, match="Malformed time argument foo"):
        parse_time("foo")


def test_global_options_are_hoisted_from_anywhere():
    assert hoist(["describe", "topics", "t", "-b", "h:1", "--output=json", "--verbose"]) == \
        ["-b", "h:1", "--output=json", "--verbose", "describe", "topics", "t"]
    assert hoist(["list", "topics", "--", "-b"]) == ["list", "topics", "--", "-b"]
