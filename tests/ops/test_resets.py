"""The reset request built from the typed flags, and executing a plan, the pure parts: the
rollback file is the exact undo (partitions without a committed offset included, as -1), and a
commit's outcome per partition from its answer and the offsets read back. Execution against a
broker (faults included) is in tests/cli/test_reset_safety.py."""

import dataclasses

import pytest

from kcli.errors import UsageError
from kcli.model import BrokerError, GroupPlan, PartitionPlan
from kcli.offsets import plan as planner
from kcli.offsets.csvfile import parse_csv
from kcli.ops import compare, resets
from kcli.ops.resets import execution
from kcli.ops.resets.request import SCENARIOS
from kcli.ops.resets.rollback import rollback_csv

TIMEOUT = BrokerError(-185, "_TIMED_OUT", "Local: Timed out")
REFUSED = BrokerError(25, "UNKNOWN_MEMBER_ID", "Broker: Unknown member")


def plans():
    return [GroupPlan("g1", [PartitionPlan("g1", "t", 1, None, 0, 0, 20), PartitionPlan("g1", "t", 0, 10, 0, 0, 20)]),
            GroupPlan("g2", [PartitionPlan("g2", "t", 0, 5, 0, 0, 20)])]


def test_rollback_file_records_every_partition_and_reads_back_as_the_undo():
    text = rollback_csv(plans(), with_group=True)
    assert text == "g1,t,0,10\ng1,t,1,-1\ng2,t,0,5\n"
    assert parse_csv(text, ["g1", "g2"]) == {"g1": {("t", 0): 10, ("t", 1): -1}, "g2": {("t", 0): 5}}


def test_outcomes_from_answers_and_read_back():
    planned = {("t", 0): 3, ("t", 1): 3, ("t", 2): 3, ("t", 3): 3, ("t", 4): 3}
    before = {("t", 0): 9, ("t", 1): 9, ("t", 2): 9, ("t", 3): 9, ("t", 4): None}
    errors = {("t", 0): None, ("t", 1): REFUSED, ("t", 2): TIMEOUT, ("t", 3): TIMEOUT, ("t", 4): TIMEOUT}
    reread = {("t", 2): 3, ("t", 3): 9, ("t", 4): 7}
    got = execution.classify(planned, before, errors, reread)
    assert {tp: status for tp, (status, _) in got.items()} == {
        ("t", 0): execution.APPLIED, ("t", 1): execution.NOT_APPLIED, ("t", 2): execution.APPLIED,
        ("t", 3): execution.UNKNOWN, ("t", 4): execution.UNKNOWN}
    assert "read back is the new one" in got[("t", 2)][1]
    # Unanswered and read back unchanged: the broker may still apply it (late), so unknown.
    assert "read back is unchanged, but the commit may still be applied" in got[("t", 3)][1]
    unread = execution.classify(planned, before, errors, None)
    assert [unread[("t", p)][0] for p in (2, 3, 4)] == [execution.UNKNOWN] * 3


def test_the_request_is_built_once_from_the_typed_flags():
    """Every front end (the native command, the drop-ins) reads its flags into ``ResetFlags`` and
    builds the ``ResetRequest`` through ``resets.request``, once: the value is frozen, and
    kafka-streams-groups' rule comes in as an argument, not as a change afterwards."""
    assert SCENARIOS == ("to-earliest", "to-latest", "to-current", "to-offset", "shift-by", "to-datetime",
                         "by-duration", "from-file", "to-start-time")
    flags = resets.ResetFlags(groups=["g"], all_groups=False, topics=["t:0"], all_topics=False,
                              scenario=resets.ScenarioFlags(to_offset=0))        # 0 is given
    req = resets.request(flags, 0)
    assert (req.scenario, req.label, req.streams_tool) == (planner.Scenario(planner.OFFSET, 0), "to-offset 0", False)
    assert resets.request(flags, 0, streams_tool=True).streams_tool
    with pytest.raises(dataclasses.FrozenInstanceError):
        req.streams_tool = True
    two = dataclasses.replace(flags, scenario=resets.ScenarioFlags(to_offset=0, to_latest=True))
    with pytest.raises(UsageError, match=r'Option "\[to-latest\]" can\'t be used with option "\[to-offset\]"'):
        resets.request(two, 0)


@pytest.mark.parametrize("scope, message", [
    (dict(groups=["g"], all_groups=True, topics=["t"], all_topics=False),
     'Option "[group]" can\'t be used with option "[all-groups]"'),
    (dict(groups=[], all_groups=False, topics=["t"], all_topics=False),
     "Option [reset-offsets] takes one of these options: [group], [all-groups]"),
    (dict(groups=["g"], all_groups=False, topics=["t"], all_topics=True),
     'Option "[topic]" can\'t be used with option "[all-topics]"'),
    (dict(groups=["g"], all_groups=False, topics=[], all_topics=False),
     "One of the reset scopes should be defined: --all-topics, --topic."),
    (dict(groups=["g"], all_groups=False, topics=["t:x"], all_topics=False), "t:x"),
])
def test_reset_and_compare_check_the_scope_alike(scope, message):
    """One scope check (``check_groups``, ``check_topics``) for reset-offsets and --compare: the
    same flags are refused with the same words, before any request."""
    errors = []
    for build, scenario in ((resets.request, resets.ScenarioFlags(to_earliest=True)),
                            (compare.request, resets.ScenarioFlags())):
        with pytest.raises(UsageError) as caught:
            build(resets.ResetFlags(**scope, scenario=scenario), 0)
        errors.append(caught.value.message)
    assert errors[0] == errors[1] and message in errors[0]
