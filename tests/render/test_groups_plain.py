"""kafka-consumer-groups' plain layouts, padding included (Apache Kafka's ConsumerGroupCommand and OffsetsUtils)."""

import io

from kcli.model import (BrokerError, BrokerInfo, GroupDescription, GroupListing, GroupMember, GroupOffsetRow,
                        GroupPlan, PartitionPlan)
from kcli.render import groups as view
from kcli.render.output import Output


def render(fn, *args, fmt="plain", **kw):
    o = Output(fmt, stdout=io.StringIO(), stderr=io.StringIO())
    fn(o, *args, **kw)
    return o.stdout.getvalue()


def test_offsets_layout_matches_reference_example():
    rows = [GroupOffsetRow("my-group", "orders", 0, 5, 7, None, "consumer-1-5b7f", "/10.0.0.1", "consumer-1"),
            GroupOffsetRow("my-group", "orders", 1, None, 3)]
    assert view.plain_offsets(rows, verbose=False) == (
        "\n"
        "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     "
        "HOST            CLIENT-ID\n"
        "my-group        orders          0          5               7               2               consumer-1-5b7f "
        "/10.0.0.1       consumer-1\n"
        "my-group        orders          1          -               3               -               -               -  "
        "             -\n")


def test_offsets_verbose_adds_leader_epoch_and_widths_grow():
    rows = [GroupOffsetRow("g", "a-very-long-topic-name", 0, 1, 1, 4, "c" * 20, "/127.0.0.1", "cl")]
    text = view.plain_offsets(rows, verbose=True)
    header, row = text.splitlines()[1:]
    assert header.split() == ["GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET",
                              "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]
    assert row.split() == ["g", "a-very-long-topic-name", "0", "4", "1", "1", "0", "c" * 20, "/127.0.0.1", "cl"]
    assert header.index("PARTITION") == 16 + 23 and header.index("LEADER-EPOCH") == 16 + 23 + 11
    assert header.index("HOST") == row.index("/127.0.0.1")


def test_offsets_empty_group_prints_nothing():
    assert render(view.render_offsets, [(GroupDescription("g", "Empty", "Classic", "", None), [])],
                  False) == ""


def member(mid="c-1", tps=(("orders", 0), ("orders", 1), ("pay", 0)), **kw):
    return GroupMember(mid, "consumer-1", "/10.0.0.1", list(tps), **kw)


def test_members_verbose_matches_reference_example():
    d = GroupDescription("my-group", "Stable", "Consumer", "uniform", None,
                         [member(member_epoch=5, target_assignment=[("orders", 0), ("orders", 1), ("pay", 0)])],
                         group_epoch=5, target_assignment_epoch=5)
    assert view.plain_members(d, verbose=True) == (
        "\n"
        "GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   "
        "CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   \n"
        "my-group        c-1             /10.0.0.1       consumer-1      3               5               "
        "orders:0,1;pay:0     5               orders:0,1;pay:0    \n")


def test_members_plain_has_trailing_space_and_classic_dashes():
    d = GroupDescription("g", "Stable", "Classic", "range", None, [member(tps=[("t", 0)])])
    assert view.plain_members(d, verbose=False) == (
        "\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n"
        "g               c-1             /10.0.0.1       consumer-1      1               \n")
    row = view.plain_members(d, verbose=True).splitlines()[2]
    assert row.split() == ["g", "c-1", "/10.0.0.1", "consumer-1", "1", "-", "t:0", "-", "-"]


def test_members_group_instance_id_and_upgraded_column():
    d = GroupDescription("g", "Stable", "Consumer", "uniform", None, [
        member("a", tps=[], group_instance_id="inst-1", member_epoch=3, target_assignment=[], upgraded=True),
        member("b", tps=[("t", 0)], member_epoch=3, target_assignment=[("t", 0)], upgraded=False)],
        target_assignment_epoch=3)
    lines = view.plain_members(d, verbose=True).splitlines()
    assert lines[1].split() == ["GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID",
                                "#PARTITIONS", "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH",
                                "TARGET-ASSIGNMENT", "UPGRADED"]
    assert lines[2].split() == ["g", "a", "inst-1", "/10.0.0.1", "consumer-1", "0", "3", "-", "3", "-", "true"]
    assert lines[3].split()[-1] == "false"
    assert lines[1].index("HOST") == 16 + 16 + 18      # instance-id column is max(17, ...) wide


def test_members_empty_group_prints_header_only():
    d = GroupDescription("g", "Empty", "Classic", "", None, [])
    assert view.plain_members(d, verbose=False) == (
        "\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n")
    # a name longer than 15 does not widen the GROUP column: the tool widens it per member
    # (found against Kafka 3.7 to 4.4's kafka-consumer-groups, tests/apache/test_compat.py)
    d = GroupDescription("a-group-named-at-length", "Empty", "Classic", "", None, [])
    assert view.plain_members(d, verbose=False) == (
        "\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n")


def test_assignment_text_sorting():
    tps = [("t10", 0), ("t2", 10), ("t2", 9), ("t2", 1)]
    assert view.assignment_text(tps) == "t10:0;t2:1,9,10"
    assert view.assignment_text([]) == "-" and view.assignment_text(None) == "-"


COORD = BrokerInfo(1, "localhost", 9092)


def test_state_layout_and_verbose_creation_time():
    d = GroupDescription("my-group", "Stable", "Consumer", "uniform", COORD, [member()] * 1,
                         group_epoch=7, target_assignment_epoch=7, creation_time_ms=1_736_937_000_000)
    assert view.plain_state(d, verbose=False) == (
        "\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS\n"
        "my-group        localhost:9092  (1)       uniform              Stable               1\n")
    assert view.plain_state(d, verbose=True) == (
        "\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     "
        "TARGET-ASSIGNMENT-EPOCH   #MEMBERS   GROUP-CREATION-TIME\n"
        "my-group        localhost:9092  (1)       uniform              Stable               7               7         "
        "                1          2025-01-15T10:30:00.000Z\n")


def test_state_verbose_unknown_and_classic_dashes():
    for ct in (-1, None):
        d = GroupDescription("legacy", "Empty", "Classic", "", COORD, [], creation_time_ms=ct)
        row = view.plain_state(d, verbose=True).splitlines()[2]
        assert row.split() == ["legacy", "localhost:9092", "(1)", "-", "Empty", "-", "-", "0", "-"]


def test_list_plain_with_and_without_columns():
    groups = [GroupListing("protocolGroup", "Stable", "Consumer"), GroupListing("assignGroup", "Empty", "Classic")]
    assert render(view.render_list, groups, False, False) == "protocolGroup\nassignGroup\n"
    text = render(view.render_list, groups, True, True)
    w = 15 + 10
    assert text == ("GROUP".ljust(w) + " " + "TYPE".ljust(20) + " " + "STATE".ljust(20) + "\n"
                    + "protocolGroup".ljust(w) + " " + "Consumer".ljust(20) + " " + "Stable".ljust(20) + "\n"
                    + "assignGroup".ljust(w) + " " + "Classic".ljust(20) + " " + "Empty".ljust(20) + "\n")
    assert render(view.render_list, groups, True, False).splitlines()[0] == "GROUP".ljust(w) + " " + "STATE".ljust(20)


def plan(group, *rows):
    return GroupPlan(group, [PartitionPlan(group, t, p, 100, n, 0, 200) for t, p, n in rows])


def test_reset_plan_plain_trunk_layout():
    assert view.plain_plan([plan("my-group", ("orders", 0, 50), ("orders", 1, 50))]) == (
        "\nGROUP           TOPIC           PARTITION  NEW-OFFSET\n"
        "my-group        orders          0          50\n"
        "my-group        orders          1          50\n")
    assert view.plain_plan([plan("g")]) == "\nGROUP           TOPIC           PARTITION  NEW-OFFSET\n"
    assert view.plain_plan([]) == "\n"


def test_delete_groups_messages():
    assert render(view.render_delete_groups, {"g1": None, "g2": None}) == (
        "Deletion of requested consumer groups ('g1', 'g2') was successful.\n")
    missing = BrokerError(69, "GROUP_ID_NOT_FOUND", "Broker: The group id does not exist")
    text = render(view.render_delete_groups, {"ok": None, "missing": missing})
    assert text == ("\nError: Deletion of some consumer groups failed:\n"
                    "* Group 'missing' could not be deleted due to: "
                    "org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist.\n"
                    "\nThese consumer groups were deleted successfully: 'ok'\n")


def test_delete_offsets_layout():
    rows = [("t", 0, None), ("t10", 1, None), ("t2", 0, None)]
    assert render(view.render_delete_offsets, "g", None, rows) == (
        "Request succeeded for deleting offsets from group g.\n"
        "\nTOPIC           PARTITION  STATUS         "
        "\nt               0          Successful     "
        "\nt10             1          Successful     "
        "\nt2              0          Successful     \n")
    err = BrokerError(86, "GROUP_SUBSCRIBED_TO_TOPIC", "Deleting offsets of a topic is forbidden while "
                      "the consumer group is actively subscribed to it.")
    odd = BrokerError(9999, "SOMETHING_NEW", "a text no table knows")
    text = render(view.render_delete_offsets, "g", None, [("t", 0, err), ("foo", -1, odd)])
    assert text.startswith("\nError: Encountered some partition-level error, see the follow-up details.\n")
    assert ("\nt               0          Error: org.apache.kafka.common.errors.GroupSubscribedToTopicException: "
            "Deleting offsets" in text)
    assert "\nfoo             -          Error: a text no table knows" in text
    gerr = BrokerError(69, "GROUP_ID_NOT_FOUND", "The group id does not exist")
    assert render(view.render_delete_offsets, "g", gerr, [("t", 0, gerr)]).startswith(
        "\nError: The group id does not exist.\n")


def test_many_groups_state_lines_are_each_groups_plain_state():
    """render_state's plain lines for many groups (made once per distinct rest of a line) are
    plain_state's for each: ids shorter and longer than the column, coordinators None, shared,
    distinct but equal and wider, strategies, states and member counts mixed."""
    wide = BrokerInfo(12, "a-very-long-broker-host-name.example", 19092)
    coords = [COORD, None, BrokerInfo(1, "localhost", 9092), wide, COORD]
    groups = [GroupDescription(("g" * (i % 23)) or "x", ("Stable", "Empty", "Dead")[i % 3], "Classic",
                               ("", "range", "cooperative-sticky")[i % 3 * (i % 2)], coords[i % 5],
                               [member()] * (i % 4)) for i in range(300)]
    for verbose in (False, True):
        assert render(view.render_state, groups, verbose) == "".join(view.plain_state(d, verbose) for d in groups)
