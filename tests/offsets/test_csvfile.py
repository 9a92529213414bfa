"""Reset CSV export/import, byte-compatible with kafka-consumer-groups (Jackson CsvMapper)."""

import pytest

from kcli.errors import UsageError
from kcli.model import GroupPlan, PartitionPlan
from kcli.offsets.csvfile import export_csv, parse_csv
from tests.support.work import work


def plan(group, *rows):
    return GroupPlan(group, [PartitionPlan(group, t, p, None, o, 0, 100) for t, p, o in rows])


def test_export_single_group_three_columns():
    assert export_csv([plan("g", ("t", 0, 2), ("t", 1, 2))], with_group=False) == "t,0,2\nt,1,2\n"


def test_export_several_groups_four_columns():
    text = export_csv([plan("g1", ("t", 0, 2)), plan("g2", ("t", 0, 5))], with_group=True)
    assert text == "g1,t,0,2\ng2,t,0,5\n"


@pytest.mark.parametrize("value,expected", [
    ("orders", "orders"),
    ("my-group.v1_x", "my-group.v1_x"),
    ("a" * 24, "a" * 24),
    ("a" * 25, '"' + "a" * 25 + '"'),          # Jackson quotes anything longer than 24 chars
    ("my group", '"my group"'),                # any char below '-' (space here)
    ("a,b", '"a,b"'),
    ('say "hi"', '"say ""hi"""'),
    ("#tag", '"#tag"'),
    ("", ""),
])
def test_jackson_quoting(value, expected):
    assert export_csv([plan(value, ("t", 0, 1))], with_group=True) == f"{expected},t,0,1\n"


def test_empty_plan_exports_nothing():
    assert export_csv([plan("g")], with_group=False) == ""


def test_import_three_columns_for_one_group():
    assert parse_csv("t,0,2\nt,1,3\n\n", ["g"]) == {"g": {("t", 0): 2, ("t", 1): 3}}


def test_import_four_columns_keeps_only_selected_groups():
    text = "g1,t,0,2\ng2,t,0,5\ng3,t,0,9\n"
    assert parse_csv(text, ["g1", "g2"]) == {"g1": {("t", 0): 2}, "g2": {("t", 0): 5}}
    assert parse_csv(text, ["g1"]) == {"g1": {("t", 0): 2}}       # 4-column file, one group


def test_import_three_columns_with_several_groups_is_invalid():
    with pytest.raises(UsageError, match=r"expected 4 columns \(group,topic,partition,offset\), "
                                         r"found 3 \(3 columns need exactly one --group\)"):
        parse_csv("t,0,2\n", ["g1", "g2"])


def test_one_group_allows_three_or_four_columns_and_says_so():
    """A bad first line said "expected 4 columns" where 3 are allowed."""
    with pytest.raises(UsageError) as bad:
        parse_csv("t,0\n", ["g"])
    assert str(bad.value) == ("Invalid reset CSV: line 1: expected 3 columns (topic,partition,offset) "
                              "or 4 columns (group,topic,partition,offset), found 2")
    with pytest.raises(UsageError) as mixed:
        parse_csv("t,0,1\ng,t,1,2\n", ["g"])
    assert str(mixed.value) == ("Invalid reset CSV: line 2: expected 3 columns (topic,partition,offset) "
                                "as on the first line, found 4")


@pytest.mark.parametrize("text", ["t,x,2\n", "t,0\n", "g,t,0,2,9\n", "g,t,0,z\n"])
def test_import_malformed(text):
    with pytest.raises(UsageError, match="Invalid reset CSV: line 1"):
        parse_csv(text, ["g"])


def test_round_trip_with_quoted_names():
    plans = [plan("a group, quoted", ("t" * 30, 0, 7)), plan("g2", ("t", 3, 1))]
    text = export_csv(plans, with_group=True)
    assert parse_csv(text + "\n", ["a group, quoted", "g2"]) == {
        "a group, quoted": {("t" * 30, 0): 7}, "g2": {("t", 3): 1}}


def test_import_missing_group_maps_to_nothing():
    assert parse_csv("g1,t,0,2\n", ["g9"]) == {}


@pytest.mark.parametrize("line", ["t,2147483648,0", "t,-1,0", "t,0,-2", "t,0,9223372036854775808",
                                  "t,0," + "9" * 5000, "t,1_0,0", "t,0,1e3", "t, ,0"])
def test_partitions_are_int32_and_offsets_int64_from_minus_1(line):
    """A 5,000-digit offset hit Python's int() limit; a negative or oversized one reached the
    planner, which clamped 99999999999999999999 to the log end (exit 0)."""
    with pytest.raises(UsageError, match="Invalid reset CSV: line 1: the partition must be an integer "
                                         "from 0 to 2147483647 and the offset one from 0 to "
                                         "9223372036854775807"):
        parse_csv(line + "\n", ["g"])
    assert parse_csv("t,2147483647,9223372036854775807\n", ["g"]) == {"g": {("t", 2147483647): 2**63 - 1}}


@pytest.mark.parametrize("text, groups, what", [(",0,1\n", ["g"], "empty topic"),
                                                ("g,,0,1\n", ["g", "h"], "empty group or topic"),
                                                (",t,0,1\n", [], "empty group or topic")])
def test_empty_names_are_refused(text, groups, what):
    with pytest.raises(UsageError, match=f"line 1: {what}"):
        parse_csv(text, groups)


def test_without_groups_every_group_of_a_four_column_file_is_kept():
    """--all-groups: the file is read before the groups are listed (nothing may be sent before
    it is known to be valid), so it keeps every group and the caller picks its own."""
    assert parse_csv("g1,t,0,2\ng2,t,1,5\n", []) == {"g1": {("t", 0): 2}, "g2": {("t", 1): 5}}
    with pytest.raises(UsageError, match="expected 4 columns"):
        parse_csv("t,0,2\n", [])


class _Counted(str):
    """A group id that counts how often it is compared or hashed: the C work of a lookup made
    visible to tests/support/work.py (a lookup in a list compares with every id before it)."""
    compares = 0

    def __eq__(self, other):
        _Counted.compares += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_many_groups_and_lines_are_read_in_linear_time():
    """Counted work, not a clock: 8 times the groups and lines take at most about 8 times the
    lines run, the C calls made and the group ids compared (a list lookup would take 64 times)."""
    def read(n):
        groups = [_Counted(f"g{i}") for i in range(n)]
        text = "".join(f"g{i},t,0,{i}\n" for i in range(n))
        _Counted.compares = 0
        count, plans = work(lambda: parse_csv(text, groups))
        assert len(plans) == n
        return count + _Counted.compares

    read(10)
    assert read(16_000) <= 9 * read(2_000)


def test_a_field_over_the_csv_modules_limit_is_a_usage_error():
    """csv.Error was raised while reading the rows, outside the handler: exit 1 (found by
    tests/inputs/test_fuzz_parsers.py)."""
    with pytest.raises(UsageError, match=r"Invalid reset CSV: field larger than field limit"):
        parse_csv('"' + "t" * 200_000 + '",0,1\n', ["g"])


@pytest.mark.parametrize("topic", ["a b", "x" * 250, ".", "caf\u00e9", "a/b"])
def test_a_topic_kafka_would_refuse_is_refused(topic):
    """Each was sent to the cluster, which never answered for it: exit 1 after the whole
    --timeout (found by tests/cli/test_fuzz_cli.py)."""
    with pytest.raises(UsageError, match="Invalid reset CSV: line 1: Topic name"):
        parse_csv(f'g,"{topic}",0,1\n', ["g", "h"])


def test_a_nul_in_a_group_id_is_refused():
    with pytest.raises(UsageError, match="a group id cannot contain a NUL character"):
        parse_csv("g\x00,t,0,1\n", ["g\x00", "h"])
