import time
import warnings

import pytest

from kcli.ops.topics import add_partitions, report_filter, select_topics
from kcli.specs import (check_partition_count, check_replication_factor, parse_config_pairs,
                        parse_replica_assignment, parse_time, parse_topic_spec, topic_filter)
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


@pytest.mark.parametrize("pattern", ["(" * 100_000 + ")" * 100_000, "(?:" * 100_000 + ")" * 100_000,
                                     "a{99999999999}"])
def test_a_regex_python_cannot_compile_is_a_usage_error(pattern):
    """RecursionError and OverflowError escaped as exit 1."""
    with pytest.raises(UsageError, match="is an invalid regex"):
        topic_filter([pattern])


def test_compiling_a_topic_regex_prints_no_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert topic_filter(["[[a]"]).fullmatch("[")
    assert not caught


@pytest.mark.parametrize("pattern", ["", " ", "''", '" "'])
def test_an_empty_topic_pattern_never_means_every_topic(pattern):
    """delete topic ' ' deleted every topic; alter topic '' --partitions 5 altered every topic."""
    with pytest.raises(UsageError, match="a topic name or regex is required"):
        topic_filter(["orders", pattern])


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
    assert parse_replica_assignment(" 2147483647 : 0 ") == [[2147483647, 0]]
    with pytest.raises(UsageError, match="may not contain duplicate entries: 5"):
        parse_replica_assignment("5:5")
    with pytest.raises(UsageError, match=r"Partition 1 has different replication factor: \[2, 1\]"):
        parse_replica_assignment("5:4:3,2:1")


@pytest.mark.parametrize("text", ["", " ", "1:", "1,,2", "2147483648", "-1:2", "9" * 5000, "1_0",
                                  "\u0661:2"])
def test_replica_assignment_broker_ids_are_int32_node_ids(text):
    with pytest.raises(UsageError, match="Invalid --replica-assignment"):
        parse_replica_assignment(text)


def test_a_long_replica_list_is_checked_in_linear_time():
    """Duplicates were found with list.count per replica: quadratic."""
    start = time.perf_counter()
    assert len(parse_replica_assignment(":".join(map(str, range(100_000))))[0]) == 100_000
    with pytest.raises(UsageError, match="duplicate entries: 0"):
        parse_replica_assignment(":".join(map(str, range(100_000))) + ":0")
    assert time.perf_counter() - start < 1


def test_config_pairs():
    assert parse_config_pairs(["a = 1", "b=x=y", " c=  v "]) == {"a": "1", "b": "x=y", "c": "v"}
    for bad in ["novalue", "k=", "k= ", "=v", " = ", ""]:
        with pytest.raises(UsageError, match='all configs must be in the format "key=val"'):
            parse_config_pairs([bad])


def test_config_pairs_are_split_in_linear_time():
    """re.split(r'\\s*=\\s*') backtracked over every run of spaces without an '='."""
    start = time.perf_counter()
    with pytest.raises(UsageError):
        parse_config_pairs(["a" + " " * 200_000 + "b"])
    assert parse_config_pairs(["a" + " " * 200_000 + "=" + " " * 200_000 + "b"]) == {"a": "b"}
    assert time.perf_counter() - start < 1


def test_partition_counts_and_replication_factors_fit_their_kafka_types():
    check_partition_count(2**31 - 1)
    for bad, message in ((0, "greater than 0"), (2**31, "at most 2147483647")):
        with pytest.raises(UsageError, match=message):
            check_partition_count(bad)
    check_replication_factor(32767)
    for bad in (0, 32768):
        with pytest.raises(UsageError, match="between 1 and 32767"):
            check_replication_factor(bad)


def test_an_assignment_of_the_wrong_length_is_refused_before_any_request():
    class NoRequests:
        def __getattr__(self, name):
            raise AssertionError(f"{name} was called")

    with pytest.raises(UsageError, match="has 2 entries for 3 partitions"):
        add_partitions(NoRequests(), ["t"], 3, [[1], [2]], False)


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
    assert parse_topic_spec(" t:2147483647, 0 ") == ("t", [0, 2147483647])
    for bad in ["t:", "a:b:c", "t:x", "t:-1", ":0", "", " ", "t:1,", "t:2147483648", "t:99999999999",
                "t:" + "9" * 5000, "t:1_0", "t:\u0663"]:
        with pytest.raises(UsageError):
            parse_topic_spec(bad)
    assert parse_time("max-timestamp") == -3 and parse_time("-2") == -2 and parse_time("latest") == -1
    assert parse_time("1000") == 1000
    with pytest.raises(UsageError, match="--time: Invalid datetime 'foo': use ISO-8601"):
        parse_time("foo")


def test_long_topic_specs_are_read_in_linear_time():
    start = time.perf_counter()
    assert parse_topic_spec("t:" + ",".join(["7"] * 200_000)) == ("t", [7])
    for bad in ["t:" + "1," * 200_000 + "x", "t" * 200_000 + ":" + "0" * 200_000 + ":", "t:" + " " * 200_000]:
        with pytest.raises(UsageError):
            parse_topic_spec(bad)
    assert time.perf_counter() - start < 1


def test_global_options_are_hoisted_from_anywhere():
    assert hoist(["describe", "topics", "t", "-b", "h:1", "--output=json", "--verbose"]) == \
        ["-b", "h:1", "--output=json", "--verbose", "describe", "topics", "t"]
    assert hoist(["list", "topics", "--", "-b"]) == ["list", "topics", "--", "-b"]
